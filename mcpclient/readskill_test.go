package mcpclient_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/mcpclient"
)

// wantFiles checks that c holds exactly files (path to content), SKILL.md first.
func wantFiles(t *testing.T, c *mcpclient.SkillContent, files map[string]string) {
	t.Helper()
	if len(c.Files) != len(files) || c.Files[0].Path != agentskills.SkillFile {
		t.Fatalf("ReadSkill returned %d files (first %q); want %d, SKILL.md first", len(c.Files), c.Files[0].Path, len(files))
	}
	for p, want := range files {
		got, ok := c.File(p)
		if !ok || string(got) != want {
			t.Errorf("file %s = %q (%v); want %q", p, got, ok, want)
		}
	}
}

// TestReadSkill: the skillserver serves a skill with text and binary files; ReadSkill
// returns every one of them, verified, whatever the bound on reads in flight.
func TestReadSkill(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"SKILL.md":            "---\nname: tool\ndescription: A tool. Use when asked.\n---\n# Tool\n",
		"references/RULES.md": "# Rules\n",
		"scripts/run.sh":      "echo hi\n",
		"assets/logo.bin":     "\x00\x01\x02\xff",
	}
	for i := range 20 {
		files[fmt.Sprintf("data/f%02d.txt", i)] = strings.Repeat(fmt.Sprintf("line %d\n", i), 100*i)
	}
	fsys := fstest.MapFS{}
	for p, c := range files {
		fsys["tool/"+p] = &fstest.MapFile{Data: []byte(c)}
	}
	ts := serveSkills(t, fsys)
	for _, inFlight := range []int{0, 1, 4, 64} {
		t.Run(fmt.Sprint(inFlight), func(t *testing.T) {
			t.Parallel()
			s := connect(t, ts, nil)
			l, err := s.ListSkills(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			c, err := s.ReadSkill(t.Context(), &l.Skills[0], &mcpclient.ReadSkillOptions{MaxInFlight: inFlight})
			if err != nil {
				t.Fatal(err)
			}
			wantFiles(t, c, files)
		})
	}
}

// TestReadSkillTypeScriptServer: ReadSkill against the official TypeScript SDK's
// skills server, on both protocol versions, reads every file of every skill as it
// is on disk.
func TestReadSkillTypeScriptServer(t *testing.T) { //nolint:paralleltest // starts Node servers one at a time, as TestTypeScriptServer does
	node := node22(t)
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) { //nolint:paralleltest // as above
			root := copySkills(t)
			endpoint := startTSServer(t, node, root)
			s, err := mcpclient.ConnectURL(t.Context(), localClient(t, nil), endpoint, false, &mcpclient.Options{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			l, err := s.ListSkills(t.Context())
			if err != nil || len(l.Skills) == 0 {
				t.Fatalf("ListSkills = %+v, %v", l, err)
			}
			for i := range l.Skills {
				sk := &l.Skills[i]
				c, err := s.ReadSkill(t.Context(), sk, nil)
				if err != nil {
					t.Fatalf("ReadSkill(%s): %v", sk.URI, err)
				}
				dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(strings.TrimSuffix(sk.URI, "/SKILL.md"), "skill://")))
				want := map[string]string{}
				err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return err
					}
					data, err := os.ReadFile(p)
					rel, _ := filepath.Rel(dir, p)
					want[filepath.ToSlash(rel)] = string(data)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				wantFiles(t, c, want)
			}
		})
	}
}

// gatedServer is the test skill server of one skill of n files whose resources/read
// handlers count how many run at once and, when gate is set, wait for it.
type gatedServer struct {
	*skillServer
	mu      sync.Mutex
	running int
	most    int
	entered chan struct{} // one value per handler entered
	gate    chan struct{} // closed to let the handlers answer; nil: no wait
}

// tamper, when not nil, changes what a handler answers.
func newGatedServer(t *testing.T, n int, tamper func(uri, content string) string) (*gatedServer, *mcpclient.Session, *mcpclient.Skill) {
	t.Helper()
	extra := map[string]string{}
	for i := range n - 1 {
		extra[fmt.Sprintf("f%02d.md", i)] = fmt.Sprintf("file %d\n", i)
	}
	g := &gatedServer{skillServer: &skillServer{skills: []testSkill{newSkill("many", extra)}, declare: true},
		entered: make(chan struct{}, 1024)}
	g.serve = func(uri, content string) string {
		g.mu.Lock()
		g.running++
		g.most = max(g.most, g.running)
		gate := g.gate
		g.mu.Unlock()
		g.entered <- struct{}{}
		if gate != nil {
			<-gate
		}
		g.mu.Lock()
		g.running--
		g.mu.Unlock()
		if tamper != nil {
			return tamper(uri, content)
		}
		return content
	}
	s := connect(t, g.start(t), nil)
	l, err := s.ListSkills(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return g, s, &l.Skills[0]
}

// TestReadSkillBoundsReadsInFlight: the server counts the resources/read handlers
// running at once; with every handler held until as many as the bound have arrived,
// the count reaches the bound (the reads are parallel) and never goes past it.
func TestReadSkillBoundsReadsInFlight(t *testing.T) {
	t.Parallel()
	for _, bound := range []int{1, 3, 4} {
		t.Run(fmt.Sprint(bound), func(t *testing.T) {
			t.Parallel()
			g, s, sk := newGatedServer(t, 24, nil)
			gate := make(chan struct{})
			g.gate = gate
			done := make(chan error, 1)
			go func() {
				_, err := s.ReadSkill(t.Context(), sk, &mcpclient.ReadSkillOptions{MaxInFlight: bound})
				done <- err
			}()
			for range bound {
				select {
				case <-g.entered:
				case <-time.After(time.Minute):
					t.Fatalf("fewer than %d reads were in flight at once", bound)
				}
			}
			g.mu.Lock()
			g.gate = nil // the later reads answer at once
			g.mu.Unlock()
			close(gate)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			g.mu.Lock()
			defer g.mu.Unlock()
			if g.most != bound {
				t.Errorf("at most %d reads were in flight at once; want %d", g.most, bound)
			}
		})
	}
}

// TestReadSkillIsAllOrNothing: a file swapped while the skill is being read, or an
// answer far larger than the file listed, fails the whole call; nothing is returned.
func TestReadSkillIsAllOrNothing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		serve   func(uri, content string) string
		wantErr error
	}{
		{"file swapped mid-read", func(uri, content string) string {
			if strings.HasSuffix(uri, "/f10.md") {
				return strings.ToUpper(content)
			}
			return content
		}, agentskills.ErrDigestMismatch},
		{"answer far over the listed size", func(uri, content string) string {
			if strings.HasSuffix(uri, "/f07.md") {
				return strings.Repeat("x", 1<<20)
			}
			return content
		}, mcpclient.ErrTooMany},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, s, sk := newGatedServer(t, 24, tc.serve)
			c, err := s.ReadSkill(t.Context(), sk, nil)
			if !errors.Is(err, tc.wantErr) || c != nil {
				t.Fatalf("ReadSkill = %v, %v; want nil, %v", c, err, tc.wantErr)
			}
		})
	}
}

// TestReadSkillCancelled: cancelling the call while reads are in flight returns at
// once with the cancellation, nothing read is returned, and the session stays
// usable.
func TestReadSkillCancelled(t *testing.T) {
	t.Parallel()
	g, s, sk := newGatedServer(t, 12, nil)
	gate := make(chan struct{})
	g.gate = gate
	defer close(gate)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		c, err := s.ReadSkill(ctx, sk, nil)
		if c != nil {
			err = fmt.Errorf("content returned: %w", err)
		}
		done <- err
	}()
	<-g.entered
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("ReadSkill after cancel: %v; want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("ReadSkill did not return after its context was cancelled")
	}
}

// TestReadSkillOptions: a negative bound is refused, a nil skill too.
func TestReadSkillOptions(t *testing.T) {
	t.Parallel()
	_, s, sk := newGatedServer(t, 2, nil)
	if _, err := s.ReadSkill(t.Context(), sk, &mcpclient.ReadSkillOptions{MaxInFlight: -1}); err == nil {
		t.Error("MaxInFlight -1 accepted")
	}
	if _, err := s.ReadSkill(t.Context(), nil, nil); err == nil {
		t.Error("nil skill accepted")
	}
}

// BenchmarkReadSkill: ReadSkill a 512-file, 16 MiB skill, 4 reads in flight, every
// file verified, again and again over one session (whose memory does not grow).
func BenchmarkReadSkill(b *testing.B) {
	ts := bigSkill(b)
	c, err := discovery.NewClient(&discovery.Options{InsecureAllowPrivateOrigins: true})
	if err != nil {
		b.Fatal(err)
	}
	s, err := mcpclient.ConnectURL(b.Context(), c, ts.URL+"/mcp", false, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	l, err := s.ListSkills(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var n int64
		_, err := s.ReadSkill(b.Context(), &l.Skills[0], &mcpclient.ReadSkillOptions{OnFile: func(f mcpclient.SkillFile) error {
			n += int64(len(f.Data))
			return nil
		}})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(n)
	}
}

// TestReadSkillOnFile: with OnFile every file is handed over once, verified, one at a
// time, and ReadSkill keeps none; an error from OnFile stops the call with it.
func TestReadSkillOnFile(t *testing.T) {
	t.Parallel()
	_, s, sk := newGatedServer(t, 24, nil)
	var mu sync.Mutex
	got := map[string]string{}
	busy := false
	c, err := s.ReadSkill(t.Context(), sk, &mcpclient.ReadSkillOptions{OnFile: func(f mcpclient.SkillFile) error {
		mu.Lock()
		if busy {
			t.Error("OnFile called while another call was running")
		}
		busy = true
		got[f.Path] = string(f.Data)
		mu.Unlock()
		time.Sleep(time.Millisecond) // let another call overlap, if it could
		mu.Lock()
		busy = false
		mu.Unlock()
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Files != nil {
		t.Errorf("ReadSkill kept %d files with OnFile", len(c.Files))
	}
	if len(got) != 24 || got["SKILL.md"] == "" || got["f05.md"] != "file 5\n" {
		t.Errorf("OnFile got %d files: %v", len(got), got)
	}
	stop := errors.New("disk full")
	n := 0
	c, err = s.ReadSkill(t.Context(), sk, &mcpclient.ReadSkillOptions{OnFile: func(mcpclient.SkillFile) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	}})
	if !errors.Is(err, stop) || c != nil || n != 3 {
		t.Errorf("OnFile error: ReadSkill = %v, %v after %d calls; want nil, %v after 3", c, err, n, stop)
	}
}
