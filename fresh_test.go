package discovery_test

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery"
)

// TestFastPathSemantics: the in-memory answer to a fresh discovery is what a fresh
// HTTP cache hit returns (Source cache, no request, the same documents and warnings),
// lasts exactly as long as the documents are fresh, and is never used for answers
// that were not plainly fresh.
func TestFastPathSemantics(t *testing.T) {
	var cc atomic.Value
	cc.Store("max-age=1")
	var down atomic.Bool
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		if r.URL.Path != discovery.SkillsPath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", cc.Load().(string))
		w.Header().Set("Content-Type", "application/octet-stream") // a content-type warning on every answer
		_, _ = w.Write([]byte("# Fast\n\nBase: `/v1`\n"))
	}))
	c := newClient(t, s, &discovery.Options{MaxRetries: -1})
	first, err := c.Discover(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Discover(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.count(discovery.SkillsPath); n != 1 {
		t.Fatalf("%d requests, want 1 (the second answer is fresh)", n)
	}
	f := second.Fetches[0]
	if f.Source != discovery.SourceCache || f.Attempts != 0 || f.StatusCode != http.StatusOK || !f.Published {
		t.Errorf("fresh answer's fetch = %+v, want source cache, 0 attempts, 200", f)
	}
	if second.Skills != first.Skills || len(second.Warnings) != len(first.Warnings) || len(first.Warnings) == 0 {
		t.Errorf("fresh answer differs: %d vs %d warnings", len(second.Warnings), len(first.Warnings))
	}
	// Each caller gets its own slices.
	second.Warnings[0].Message = "changed"
	second.Fetches[0].URL = "changed"
	third, _ := c.Discover(t.Context(), s.URL)
	if third.Warnings[0].Message == "changed" || third.Fetches[0].URL == "changed" {
		t.Error("a caller's change reached the next caller")
	}

	// Stale after max-age: the server is asked again.
	time.Sleep(2100 * time.Millisecond) // Date has a resolution of one second
	if _, err := c.Discover(t.Context(), s.URL); err != nil {
		t.Fatal(err)
	}
	if n := s.count(discovery.SkillsPath); n != 2 {
		t.Errorf("%d requests after max-age passed, want 2", n)
	}

	// Never kept: a no-store answer, a stale last good copy.
	cc.Store("no-store")
	time.Sleep(1100 * time.Millisecond)
	for range 2 {
		if _, err := c.Discover(t.Context(), s.URL); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.count(discovery.SkillsPath); n != 4 {
		t.Errorf("%d requests with no-store, want 4", n)
	}
	down.Store(true)
	for range 2 {
		d, err := c.Discover(t.Context(), s.URL)
		if err != nil || d.Fetches[0].Source != discovery.SourceStale {
			t.Fatalf("Discover while down = %v, %v; want the stale copy", d, err)
		}
	}
	if n := s.count(discovery.SkillsPath); n != 6 {
		t.Errorf("%d requests while down, want 6 (a stale answer is never kept)", n)
	}
}
