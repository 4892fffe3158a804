package main

// Tests of --budget: every command that walks an index (lint, skills install, skills
// update, mcp skills) ends when its budget runs out, and reports by name what it could
// not do in time. The sites trickle their artifacts (a byte a second, for far longer
// than the budget); the tests assert the outcome, never the time taken.

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery/agentskills"
)

// trickleSite is a loopback TLS origin publishing an index of skill-md skills. Its
// artifacts are served at once, or, when slow is set, one byte a second (stopping
// when the client hangs up). version changes the skills' text, so their digests.
type trickleSite struct {
	ts      *httptest.Server
	names   []string
	slow    atomic.Bool
	version atomic.Int64
}

func newTrickleSite(t *testing.T, names ...string) *trickleSite {
	t.Helper()
	s := &trickleSite{names: names}
	s.ts = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.ts.StartTLS()
	t.Cleanup(s.ts.Close)
	return s
}

func (s *trickleSite) skill(name string) []byte {
	return skillText(name, "A skill that arrives slowly.", fmt.Sprintf("# %s\n\nVersion %d of the text.\n", name, s.version.Load()))
}

func (s *trickleSite) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == agentskills.IndexPath {
		var entries []indexEntry
		for _, n := range s.names {
			entries = append(entries, indexEntry{Name: n, Type: "skill-md", Description: "A slow skill.",
				URL: n + "/SKILL.md", Digest: agentskills.Digest(s.skill(n))})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"$schema": agentskills.SchemaV020, "skills": entries})
		return
	}
	for _, n := range s.names {
		if r.URL.Path != "/.well-known/agent-skills/"+n+"/SKILL.md" {
			continue
		}
		body := s.skill(n)
		w.Header().Set("Content-Type", "text/markdown")
		if !s.slow.Load() {
			_, _ = w.Write(body)
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		for i := range body {
			if _, err := w.Write(body[i : i+1]); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(time.Second):
			}
		}
		return
	}
	http.NotFound(w, r)
}

var slowSkills = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}

func TestLintBudget(t *testing.T) {
	t.Parallel()
	s := newTrickleSite(t, slowSkills...)
	s.slow.Store(true)
	env := cliEnv(t, caFileEnv+"="+caFile(t, s.ts))
	for _, target := range []string{s.ts.URL, s.ts.URL + agentskills.IndexPath} {
		r := runCLI(t, env, "", "lint", "--budget", "1s", target)
		if r.code != exitFailure {
			t.Errorf("lint --budget 1s %s: exit %d, want 1\n%s", target, r.code, r)
		}
		for _, name := range slowSkills {
			want := fmt.Sprintf("skill %q: not checked: the --budget of 1s ran out first", name)
			if !strings.Contains(r.stdout, want) {
				t.Errorf("lint %s: no line says %s was not checked in time:\n%s", target, name, r)
			}
		}
		if n := strings.Count(r.stdout, "[budget]"); n != len(slowSkills) {
			t.Errorf("lint %s: %d [budget] problems, want %d:\n%s", target, n, len(slowSkills), r)
		}
	}
	// JSON: the problems have the budget code and severity error.
	r := runCLI(t, env, "", "lint", "--budget", "1s", "--format", "json", s.ts.URL+agentskills.IndexPath)
	var out lintJSONOut
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("--format json: %v\n%s", err, r)
	}
	budget := 0
	for _, p := range out.Problems {
		if p.Code == "budget" && p.Severity == "error" {
			budget++
		}
	}
	if budget != len(slowSkills) {
		t.Errorf("--format json: %d budget errors, want %d:\n%s", budget, len(slowSkills), r)
	}
	// A site that answers at once is checked whole within the same budget.
	fast := newTrickleSite(t, "alpha")
	env = cliEnv(t, caFileEnv+"="+caFile(t, fast.ts))
	if r := runCLI(t, env, "", "lint", "--budget", "1m", fast.ts.URL+agentskills.IndexPath); r.code != 0 || strings.Contains(r.stdout, "[budget]") {
		t.Errorf("lint of a fast index:\n%s", r)
	}
	for _, bad := range []string{"0s", "-1s", "soon"} {
		if r := runCLI(t, env, "", "lint", "--budget", bad, "testdata/lint/good"); r.code != exitUsage {
			t.Errorf("lint --budget %s: exit %d, want 2\n%s", bad, r.code, r)
		}
	}
}

func TestSkillsInstallBudget(t *testing.T) {
	t.Parallel()
	s := newTrickleSite(t, slowSkills...)
	s.slow.Store(true)
	dir := t.TempDir()
	r := wkTrickle(t, s, dir, "skills", "install", "--budget", "1s", "--json", s.ts.URL)
	if r.code != exitFailure {
		t.Fatalf("exit %d, want 1\n%s", r.code, r)
	}
	got := installJSON(t, r)
	for _, name := range slowSkills {
		res, ok := got[name]
		if !ok || res.Status != statusFailed || !strings.Contains(res.Message, "not installed: the --budget of 1s ran out first") || res.Dir != "" {
			t.Errorf("%s: %+v, want failed for the budget, with no folder", name, res)
		}
	}
	if files := tree(t, dir); len(files) != 0 {
		t.Errorf("files written: %v", files)
	}
}

func TestSkillsUpdateBudget(t *testing.T) {
	t.Parallel()
	s := newTrickleSite(t, slowSkills...)
	dir := t.TempDir()
	if r := wkTrickle(t, s, dir, "skills", "install", "--json", s.ts.URL); r.code != 0 {
		t.Fatalf("install: %s", r)
	}
	before := mustRead(t, filepath.Join(dir, ".agents", "skills", "alpha", "SKILL.md"))
	s.version.Add(1) // new digests: every skill must be fetched again
	s.slow.Store(true)
	r := wkTrickle(t, s, dir, "--yes", "skills", "update", "--allow-private", "--budget", "1s", "--json")
	if r.code != exitFailure {
		t.Fatalf("exit %d, want 1\n%s", r.code, r)
	}
	got := installJSON(t, r)
	for _, name := range slowSkills {
		res, ok := got[name]
		if !ok || res.Status != statusFailed || !strings.Contains(res.Message, "not updated: the --budget of 1s ran out first") {
			t.Errorf("%s: %+v, want failed for the budget", name, res)
		}
	}
	if after := mustRead(t, filepath.Join(dir, ".agents", "skills", "alpha", "SKILL.md")); after != before {
		t.Errorf("a skill not updated in time was changed:\n%s", after)
	}
}

func TestMCPSkillsBudget(t *testing.T) {
	t.Parallel()
	// An MCP endpoint that does not answer (for far longer than the budget). The body
	// is read first: the server notices the client hanging up only after that.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	}))
	defer ts.Close()
	r := runCLI(t, nil, "", "mcp", "skills", "--budget", "1s", ts.URL+"/mcp")
	if r.code != exitFailure || !strings.Contains(r.stderr, "not connected: the --budget of 1s ran out first") {
		t.Errorf("mcp skills of a silent endpoint: exit %d, want 1 and the budget named\n%s", r.code, r)
	}
}

// wkTrickle is wk for a trickleSite.
func wkTrickle(t *testing.T, s *trickleSite, dir string, args ...string) wkRun {
	t.Helper()
	return wk(t, &site{ts: s.ts}, dir, args...)
}
