package scan

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// resumeKey identifies one input line in a ResumeSet: the first 16 bytes of the
// SHA-256 of its normalised form (the canonical origin, or "input " and the redacted
// line when it is not an origin). It has a fixed size whatever the line, so a list of
// long junk lines costs the set no more than a list of short origins; 128 bits make a
// collision (an origin wrongly skipped) vanishingly unlikely.
type resumeKey [16]byte

// keyOf returns the resumeKey of a normalised line.
func keyOf(normalised string) resumeKey {
	sum := sha256.Sum256([]byte(normalised))
	return resumeKey(sum[:16])
}

// ResumeSet holds the lines a scan has seen or that its --output already holds: it
// skips duplicates and, on a resumed run, what is done. It keeps a fixed-size key per
// line (see resumeKey), never the line. The zero value is not usable: call
// NewResumeSet. It is not safe for concurrent use.
type ResumeSet struct {
	keys map[resumeKey]struct{}
}

func NewResumeSet() *ResumeSet { return &ResumeSet{keys: make(map[resumeKey]struct{})} }

// add adds k and reports whether it was new.
func (s *ResumeSet) add(k resumeKey) bool {
	if _, ok := s.keys[k]; ok {
		return false
	}
	s.keys[k] = struct{}{}
	return true
}

// Len is the number of keys in the set.
func (s *ResumeSet) Len() int { return len(s.keys) }

// OpenResumable opens the --output file for appending and returns the keys of the
// results it already holds, which the scan skips. A last line without its newline (a
// run killed mid-write) is cut off, so that origin is scanned again and the next
// result starts on a line of its own. A complete line that is not a result (edited by
// hand, corrupted) is counted in bad and otherwise ignored: its origin is scanned again.
// A name that is not a regular file (/dev/stdout, a pipe) is only written to.
func OpenResumable(name string) (f *os.File, done *ResumeSet, bad int, err error) {
	f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, 0, err
	}
	done = NewResumeSet()
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
				done.add(keyOf(key))
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
