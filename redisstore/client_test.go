package redisstore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery"
)

const skillsBody = "# Skills\n\nRead repair ticket status.\n\n## API\n\n- Base URL: https://tracker.example.com/api/v1\n"

// newOrigin serves skills.md over TLS on loopback with Cache-Control: max-age=maxAge and
// an ETag, answering If-None-Match with 304, and counts the requests for it.
func newOrigin(t testing.TB, maxAge int) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	sum := sha256.Sum256([]byte(skillsBody))
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != discovery.GuidePath {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		w.Header().Set("Cache-Control", fmt.Sprintf("max-age=%d", maxAge))
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		fmt.Fprint(w, skillsBody)
	}))
	t.Cleanup(ts.Close)
	return ts, &hits
}

// TestDiscoverRoundTrips counts the Redis commands of one Discover: none on a fresh
// local hit; on a miss, the cache read, the fleet lock, the two writes and the release.
func TestDiscoverRoundTrips(t *testing.T) {
	t.Parallel()
	_, rdb, cnt := newMini(t)
	ts, hits := newOrigin(t, 3600)
	newClient := func() *discovery.Client {
		// SharePrivate: the origin is on loopback, one machine; a generous Timeout: under
		// the race detector a slow command must not open the breaker and skip the rest.
		s, err := New(rdb, &Options{SharePrivate: true, Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		c, err := discovery.NewClient(&discovery.Options{HTTPClient: ts.Client(), InsecureAllowPrivateOrigins: true,
			Cache: s.Cache(), LastGood: s.LastGood(), FleetLock: s.FleetLock()})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := newClient()
	discover := func(c *discovery.Client, want discovery.Source) []string {
		t.Helper()
		d, err := c.Discover(t.Context(), ts.URL)
		if err != nil {
			t.Fatal(err)
		}
		if d.Guide == nil || d.Fetches[0].Source != want {
			t.Fatalf("Discover: skills %v, source %s; want %s", d.Guide != nil, d.Fetches[0].Source, want)
		}
		return cnt.take()
	}

	miss := discover(c, discovery.SourceNetwork)
	t.Logf("Redis commands on a miss: %d %v", len(miss), miss)
	want := []string{"get", "set", "set", "set", "evalsha", "eval"} // cache GET, lock SET NX, cache SET, last-good SET, release
	if !sameCommands(miss, want) {
		t.Errorf("commands on a miss = %v, want %v in some order", miss, want)
	}
	hit := discover(c, discovery.SourceCache)
	t.Logf("Redis commands on a fresh local hit: %d %v", len(hit), hit)
	if len(hit) != 0 {
		t.Errorf("commands on a fresh local hit = %v, want none", hit)
	}
	// Another process: its local tier is empty, Redis has the fresh copy.
	shared := discover(newClient(), discovery.SourceCache)
	t.Logf("Redis commands on a shared hit: %d %v", len(shared), shared)
	if !slices.Equal(shared, []string{"get"}) {
		t.Errorf("commands on a shared hit = %v, want [get]", shared)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("origin requests = %d, want 1", n)
	}
	// Once Redis knows the release script, a miss costs five.
	ts2, _ := newOrigin(t, 3600)
	d, err := c.Discover(t.Context(), ts2.URL)
	if err != nil || d.Fetches[0].Source != discovery.SourceNetwork {
		t.Fatal(err)
	}
	miss2 := cnt.take()
	t.Logf("Redis commands on a miss, script loaded: %d %v", len(miss2), miss2)
	if want := []string{"get", "set", "set", "set", "evalsha"}; !sameCommands(miss2, want) {
		t.Errorf("commands on a second miss = %v, want %v in some order", miss2, want)
	}
}

func sameCommands(got, want []string) bool {
	got, want = slices.Clone(got), slices.Clone(want)
	slices.Sort(got)
	slices.Sort(want)
	return slices.Equal(got, want)
}

// TestPrivateOriginsStayLocal: without SharePrivate, what one process fetched from a
// private origin (localhost here) never reaches Redis, so another machine's process,
// whose localhost is another service, is never answered with it.
func TestPrivateOriginsStayLocal(t *testing.T) {
	t.Parallel()
	mr, rdb, _ := newMini(t)
	ts, hits := newOrigin(t, 3600)
	newClient := func() *discovery.Client {
		s, err := New(rdb, &Options{Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		c, err := discovery.NewClient(&discovery.Options{HTTPClient: ts.Client(), InsecureAllowPrivateOrigins: true,
			Cache: s.Cache(), LastGood: s.LastGood(), FleetLock: s.FleetLock()})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for range 2 { // two processes
		if _, err := newClient().Discover(t.Context(), ts.URL); err != nil {
			t.Fatal(err)
		}
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("%d requests, want 2: each process fetches its own localhost", n)
	}
	for _, k := range mr.Keys() {
		if strings.Contains(k, ":c:") || strings.Contains(k, ":lg:") {
			t.Errorf("a private origin's document reached Redis: %s", k)
		}
	}
}
