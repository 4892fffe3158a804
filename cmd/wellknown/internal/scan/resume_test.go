package scan

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// junkLines is an io.Reader of n distinct lines that are not origins, each size bytes
// long (below the line cap, so each is remembered as a line of its own).
type junkLines struct {
	n, size, i int
	buf        []byte
}

func (r *junkLines) Read(p []byte) (int, error) {
	if len(r.buf) == 0 {
		if r.i == r.n {
			return 0, io.EOF
		}
		head := fmt.Sprintf("junk line %d ", r.i)
		r.buf = []byte(head + strings.Repeat("x", r.size-len(head)) + "\n")
		r.i++
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// The resume and duplicate set keeps a fixed-size key per line, whatever the line: a
// list of long junk lines must not make it grow with their length. (40,000 junk lines
// of up to 4 KiB once took a scan to 272 MiB.)
func TestResumeSetMemoryPerJunkLine(t *testing.T) {
	// Not parallel: it measures the heap.
	const lines, size = 20000, maxScanLine - 96
	done := NewResumeSet()
	jobs := make(chan scanJob)
	drained := make(chan int)
	go func() {
		n := 0
		for range jobs {
			n++
		}
		drained <- n
	}()
	var st Stats
	before := heapInUse()
	err := readOrigins(context.Background(), &junkLines{n: lines, size: size}, done, &st, jobs)
	close(jobs)
	if err != nil {
		t.Fatal(err)
	}
	if n := <-drained; n != lines {
		t.Fatalf("%d jobs for %d distinct lines", n, lines)
	}
	after := heapInUse()
	runtime.KeepAlive(done)
	var grown uint64
	if after > before {
		grown = after - before
	}
	// A 16-byte key and the map's overhead take well under 256 bytes a line; the line
	// itself (about 4 KiB) must not be kept.
	if per := grown / lines; per > 256 {
		t.Errorf("the set grew by %d bytes per junk line of %d bytes (%d MiB for %d lines), want at most 256",
			per, size, grown>>20, lines)
	} else {
		t.Logf("%d bytes per junk line", per)
	}
}
