package discovery_test

import (
	"errors"
	"net/http"
	"strings"
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
		if r.URL.Path != discovery.GuidePath {
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
	if n := s.count(discovery.GuidePath); n != 1 {
		t.Fatalf("%d requests, want 1 (the second answer is fresh)", n)
	}
	f := second.Fetches[0]
	if f.Source != discovery.SourceCache || f.Attempts != 0 || f.StatusCode != http.StatusOK || !f.Published {
		t.Errorf("fresh answer's fetch = %+v, want source cache, 0 attempts, 200", f)
	}
	if second.Guide != first.Guide || len(second.Warnings) != len(first.Warnings) || len(first.Warnings) == 0 {
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
	if n := s.count(discovery.GuidePath); n != 2 {
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
	if n := s.count(discovery.GuidePath); n != 4 {
		t.Errorf("%d requests with no-store, want 4", n)
	}
	down.Store(true)
	for range 2 {
		d, err := c.Discover(t.Context(), s.URL)
		if err != nil || d.Fetches[0].Source != discovery.SourceStale {
			t.Fatalf("Discover while down = %v, %v; want the stale copy", d, err)
		}
	}
	if n := s.count(discovery.GuidePath); n != 6 {
		t.Errorf("%d requests while down, want 6 (a stale answer is never kept)", n)
	}
}

// TestFreshnessIsCapped: the cache never hides what the site serves now for long. A
// document served once with max-age of a year (or a far Expires, or a Date a year
// ahead) is not answered from the cache, or from the fast path, for that year without
// a request: a site that fixed a poisoned skills.md, or withdrew it (404), is asked
// again by a long-running agent. Freshness is capped at a day, and a Date in the future
// is read as now; past that the copy is revalidated.
func TestFreshnessIsCapped(t *testing.T) {
	t.Parallel()
	old := time.Now().Add(-48 * time.Hour).UTC().Format(http.TimeFormat)
	ahead := time.Now().Add(365 * 24 * time.Hour).UTC().Format(http.TimeFormat)
	for name, tc := range map[string]struct {
		headers [][2]string
		wait    time.Duration
	}{
		"max-age":     {[][2]string{{"Date", old}, {"Cache-Control", "public, max-age=31536000"}}, 0},
		"expires":     {[][2]string{{"Date", old}, {"Expires", time.Now().Add(365 * 24 * time.Hour).UTC().Format(http.TimeFormat)}}, 0},
		"two ages":    {[][2]string{{"Date", old}, {"Cache-Control", "max-age=31536000"}, {"Cache-Control", "max-age=60"}}, 0},
		"clock ahead": {[][2]string{{"Date", ahead}, {"Cache-Control", "max-age=1"}}, 2100 * time.Millisecond},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var withdrawn atomic.Bool
			s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if withdrawn.Load() {
					http.NotFound(w, r)
					return
				}
				for _, h := range tc.headers {
					w.Header().Add(h[0], h[1])
				}
				w.Header().Set("Content-Type", "text/markdown")
				_, _ = w.Write([]byte("# Poisoned\n"))
			}))
			c := newClient(t, s, &discovery.Options{MaxRetries: -1})
			if _, err := c.Discover(t.Context(), s.URL); err != nil {
				t.Fatal(err)
			}
			withdrawn.Store(true)
			time.Sleep(tc.wait)
			d, err := c.Discover(t.Context(), s.URL)
			if !errors.Is(err, discovery.ErrNotPublished) {
				t.Errorf("after the site withdrew skills.md: %v, %v; want ErrNotPublished (the copy is stale)", d, err)
			}
			if n := s.count(discovery.GuidePath); n != 2 {
				t.Errorf("skills.md requested %d times, want 2", n)
			}
		})
	}
}

// The freshness cap holds whatever zone name the Date gives: the HTTP cache reads Date
// with time.RFC1123, which takes "UTC" or "XYZ" as well as "GMT", and a cap that read
// it with http.ParseTime (GMT only) left a year of max-age in place.
func TestFreshnessCapReadsAnyDateZone(t *testing.T) {
	t.Parallel()
	const rfc1123UTC = "Mon, 02 Jan 2006 15:04:05 UTC"
	for name, headers := range map[string][][2]string{
		"old Date in UTC":    {{"Date", time.Now().Add(-48 * time.Hour).UTC().Format(rfc1123UTC)}, {"Cache-Control", "max-age=31536000"}},
		"future Date in UTC": {{"Date", time.Now().Add(365 * 24 * time.Hour).UTC().Format(rfc1123UTC)}, {"Cache-Control", "max-age=1"}},
		"old Date, zone XYZ": {{"Date", time.Now().Add(-48*time.Hour).UTC().Format("Mon, 02 Jan 2006 15:04:05") + " XYZ"}, {"Cache-Control", "max-age=31536000"}},
		// freshUntil reads names in any case and the last max-age; httpcache reads
		// "max-age" in lower case only (else Expires).
		"MAX-AGE beside a far Expires": {{"Date", time.Now().Add(-48 * time.Hour).UTC().Format(http.TimeFormat)},
			{"Cache-Control", "MAX-AGE=1"}, {"Expires", time.Now().Add(365 * 24 * time.Hour).UTC().Format(http.TimeFormat)}},
		"max-age then Max-Age": {{"Date", time.Now().Add(-48 * time.Hour).UTC().Format(http.TimeFormat)}, {"Cache-Control", "max-age=31536000, Max-Age=1"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var withdrawn atomic.Bool
			s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if withdrawn.Load() {
					http.NotFound(w, r)
					return
				}
				for _, h := range headers {
					w.Header().Add(h[0], h[1])
				}
				w.Header().Set("Content-Type", "text/markdown")
				_, _ = w.Write([]byte("# Poisoned\n"))
			}))
			// Two Clients of a fleet on one Cache (as on redisstore): the second has no
			// copy of its own to revalidate, so the HTTP cache alone judges freshness.
			cache := discovery.NewMemoryCache(0)
			c := newClient(t, s, &discovery.Options{MaxRetries: -1, Cache: cache, FleetLock: &memLock{}})
			if _, err := c.Discover(t.Context(), s.URL); err != nil {
				t.Fatal(err)
			}
			withdrawn.Store(true)
			if strings.HasPrefix(name, "future") {
				time.Sleep(2100 * time.Millisecond)
			}
			c = newClient(t, s, &discovery.Options{MaxRetries: -1, Cache: cache, FleetLock: &memLock{}})
			if d, err := c.Discover(t.Context(), s.URL); !errors.Is(err, discovery.ErrNotPublished) {
				t.Errorf("after the site withdrew skills.md: %v, %v; want ErrNotPublished (the copy is stale)", d, err)
			}
			if n := s.count(discovery.GuidePath); n != 2 {
				t.Errorf("skills.md requested %d times, want 2", n)
			}
		})
	}
}
