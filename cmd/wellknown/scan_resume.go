package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// openResumable opens the --output file for appending and returns the keys of the
// results it already holds, which the scan skips. A last line without its newline (a
// run killed mid-write) is cut off, so that origin is scanned again and the next
// result starts on a line of its own. A complete line that is not a result (edited by
// hand, corrupted) is counted in bad and otherwise ignored: its origin is scanned again.
// A name that is not a regular file (/dev/stdout, a pipe) is only written to.
func openResumable(name string) (f *os.File, done map[string]bool, bad int, err error) {
	f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, 0, err
	}
	done = make(map[string]bool)
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		// /dev/stdout, a pipe, a device: nothing to resume from, and reading it
		// could block or never end.
		return f, done, 0, nil
	}
	r := bufio.NewReaderSize(f, 64<<10)
	var good int64 // offset just after the last newline
	for {
		line, rerr := r.ReadBytes('\n')
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			f.Close()
			return nil, nil, 0, rerr
		}
		if len(line) > 0 && line[len(line)-1] == '\n' {
			good += int64(len(line))
			if key, ok := resultKey(line); ok {
				done[key] = true
			} else if len(bytes.TrimSpace(line)) > 0 {
				bad++
			}
		}
		if rerr != nil { // io.EOF: line, if any, is the torn tail
			break
		}
	}
	if fi, serr := f.Stat(); serr == nil && fi.Size() > good {
		if err := f.Truncate(good); err != nil {
			f.Close()
			return nil, nil, 0, fmt.Errorf("cutting the unfinished last line of %s: %w", name, err)
		}
	}
	return f, done, bad, nil
}

// resultKey returns the key of one output line: its origin, or its input when the
// input was not an origin. ok is false when the line is not a result.
func resultKey(line []byte) (key string, ok bool) {
	var r struct {
		Input     *string `json:"input"`
		Origin    *string `json:"origin"`
		ScannedAt string  `json:"scanned_at"`
	}
	if json.Unmarshal(line, &r) != nil || r.Input == nil || r.Origin == nil || r.ScannedAt == "" {
		return "", false
	}
	if *r.Origin != "" {
		return *r.Origin, true
	}
	return "input " + *r.Input, true
}
