package mcpclient_test

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/wellknown-dev/discovery/mcpclient"
	"github.com/wellknown-dev/discovery/skillserver"
)

// manySkills is a skillserver of n skills of files small files each (SKILL.md
// included), every file of size bytes and distinct.
func manySkills(t *testing.T, n, files, size int) *httptest.Server {
	t.Helper()
	fsys := fstest.MapFS{}
	for i := range n {
		name := fmt.Sprintf("s%03d", i)
		fsys[name+"/SKILL.md"] = &fstest.MapFile{Data: []byte(fmt.Sprintf("---\nname: %s\ndescription: Skill %d.\n---\n# %s\n", name, i, name))}
		for j := range files - 1 {
			line := fmt.Sprintf("%s file %d\n", name, j)
			fsys[fmt.Sprintf("%s/data/f%03d.txt", name, j)] = &fstest.MapFile{Data: []byte(strings.Repeat(line, size/len(line)+1)[:size])}
		}
	}
	return serveSkills(t, fsys)
}

// serveSkills serves the skills in fsys with skillserver on loopback.
func serveSkills(tb testing.TB, fsys fs.FS) *httptest.Server {
	tb.Helper()
	srv, err := skillserver.New(fsys, nil)
	if err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	tb.Cleanup(ts.Close)
	return ts
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestSessionMemoryDoesNotGrowWithReads: one session reads 10,000 distinct small
// files (20 MiB in all), verified, on protocol 2026-07-28, whose go-sdk keeps every
// resources/read result until the session closes unless the session prevents it.
// The live heap after the reads may grow by at most a fixed bound, far below what
// was read.
func TestSessionMemoryDoesNotGrowWithReads(t *testing.T) { //nolint:paralleltest // measures the heap of the whole process
	const skills, files, size = 20, 500, 2 << 10
	ts := manySkills(t, skills, files, size)
	s := connect(t, ts, &mcpclient.Options{ProtocolVersion: "2026-07-28"})
	if s.Protocol != "2026-07-28" {
		t.Fatalf("protocol %s; the test needs 2026-07-28", s.Protocol)
	}
	l, err := s.ListSkills(t.Context())
	if err != nil || len(l.Skills) != skills {
		t.Fatalf("ListSkills = %d skills, %v", len(l.Skills), err)
	}
	before := liveHeap()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	read := 0
	for i := range l.Skills {
		sk := &l.Skills[i]
		for w := range 4 {
			wg.Go(func() {
				for k, f := range sk.Files() {
					if k%4 != w {
						continue
					}
					data, err := s.ReadFile(t.Context(), sk, f.URI)
					mu.Lock()
					if err != nil && firstErr == nil {
						firstErr = err
					}
					read += len(data)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	after := liveHeap()
	runtime.KeepAlive(s)
	const bound = 6 << 20
	grown := int64(after) - int64(before)
	t.Logf("read %d bytes in %d files; live heap %d -> %d bytes (%+d)", read, skills*files, before, after, grown)
	if read < skills*files*size-skills*size {
		t.Fatalf("read only %d bytes", read)
	}
	if grown > bound {
		t.Errorf("the live heap grew by %d bytes after reading %d bytes in one session; want at most %d", grown, read, bound)
	}
}

// TestReadsAreNeverServedFromTheSDKCache: a file read twice is asked of the server
// twice, even though the server says its result stays fresh for five minutes: what is returned is what the server serves now, verified
// against the entry the caller holds.
func TestReadsAreNeverServedFromTheSDKCache(t *testing.T) {
	t.Parallel()
	srv, err := skillserver.New(fstest.MapFS{"a/SKILL.md": {Data: []byte("---\nname: a\ndescription: A.\n---\n# A\n")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var reads atomic.Int64
	h := srv.Handler()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !bytes.Contains(body, []byte(`"resources/read"`)) {
			h.ServeHTTP(w, r)
			return
		}
		reads.Add(1)
		// The answer says it stays fresh for five minutes.
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		out := bytes.ReplaceAll(rec.Body.Bytes(), []byte(`"ttlMs":0`), []byte(`"ttlMs":300000`))
		maps.Copy(w.Header(), rec.Header())
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(out)
	}))
	t.Cleanup(ts.Close)
	s := connect(t, ts, &mcpclient.Options{ProtocolVersion: "2026-07-28"})
	l, err := s.ListSkills(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := s.ReadFile(t.Context(), &l.Skills[0], "SKILL.md"); err != nil {
			t.Fatal(err)
		}
	}
	if n := reads.Load(); n != 2 {
		t.Errorf("two reads reached the server %d times; want 2", n)
	}
}
