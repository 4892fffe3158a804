package discovery

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery/internal/fetch"
)

// TestMemoryIsBounded: a Client that visits many origins keeps its in-process tiers
// (the HTTP cache and the parse memo) within their budgets.
func TestMemoryIsBounded(t *testing.T) {
	t.Parallel()
	doc := "# Skills\n\n## API\n\n- Base path: `/v1`\n\n" + strings.Repeat("- a line of guidance\n", 50)
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != GuidePath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "max-age=300")
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, doc)
	}))
	defer ts.Close()
	const budget = 64 << 10
	cache := NewMemoryCache(budget)
	// Every oN.example resolves to a public test address that the dial hook sends to
	// the test server (whose certificate names none of them: verification is off for
	// this test's transport only).
	pub := netip.MustParseAddr("203.0.113.9")
	var d net.Dialer
	hooks := testHooks{memoBytes: budget,
		lookup: func(context.Context, string) ([]netip.Addr, error) { return []netip.Addr{pub}, nil },
		dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return d.DialContext(ctx, network, ts.Listener.Addr().String())
		}}
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // test server
	c, err := newClient(&Options{Cache: cache, HTTPClient: &http.Client{Transport: tr}}, hooks)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdleConnections()
	port := ts.URL[strings.LastIndexByte(ts.URL, ':')+1:]
	for i := range 300 { // distinct origins: o0.localhost, o1.localhost...
		if _, err := c.Discover(context.Background(), fmt.Sprintf("https://o%d.example:%s", i, port)); err != nil {
			t.Fatal(err)
		}
		if i%50 == 0 {
			c.CloseIdleConnections()
		}
	}
	if cost := cache.(*fetch.MemoryCache).Cost(); cost > budget || cost == 0 {
		t.Errorf("HTTP cache holds %d bytes, budget %d", cost, budget)
	}
	if cost := c.docs.MemoCost(); cost > budget || cost == 0 {
		t.Errorf("parse memo holds %d bytes, budget %d", cost, budget)
	}
}

// TestHeapBoundedAcrossManyOrigins: a Client that discovers 100,000 distinct origins
// (5,000 under the race detector), each with its own skills.md of about 560 bytes, keeps the heap
// within the budgets of its in-process tiers (HTTP cache, parse memo, fast path, last
// good copies), here 1 MiB each. Unbounded, they would hold hundreds of MiB.
func TestHeapBoundedAcrossManyOrigins(t *testing.T) {
	n := 100_000
	if raceEnabled || testing.Short() {
		n = 5_000
	}
	const budget = 1 << 20
	body := bytes.Repeat([]byte("- a line of guidance for agents, different per origin\n"), 10) // ≈ 560 bytes
	// An in-memory origin: every request answered without a network, so the test
	// measures the tiers and not sockets.
	site := roundTripper(func(r *http.Request) (*http.Response, error) {
		h := http.Header{"Content-Type": {"text/markdown"}, "Cache-Control": {"max-age=3600"},
			"Date": {time.Now().UTC().Format(http.TimeFormat)}}
		doc := append([]byte("# "+r.URL.Host+"\n\n"), body...)
		return &http.Response{StatusCode: http.StatusOK, Header: h, Body: io.NopCloser(bytes.NewReader(doc)),
			ContentLength: int64(len(doc)), Request: r, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
	})
	pub := netip.MustParseAddr("203.0.113.9")
	hooks := testHooks{memoBytes: budget, freshBytes: budget,
		lookup: func(context.Context, string) ([]netip.Addr, error) { return []netip.Addr{pub}, nil }}
	c, err := newClient(&Options{Cache: NewMemoryCache(budget), LastGood: NewMemoryLastGood(budget),
		HTTPClient: &http.Client{Transport: site}}, hooks)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		if _, err := c.Discover(context.Background(), fmt.Sprintf("https://o%d.example", i)); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	// Four tiers of 1 MiB, the fast path twice (Discover and Structured), and room for
	// fixed overhead (the lists' nodes, the transports).
	const limit = 6*budget + 4<<20
	t.Logf("%d origins: heap grew by %.1f MiB (limit %.1f MiB)", n, float64(grown)/(1<<20), float64(limit)/(1<<20))
	if grown > limit {
		t.Errorf("heap grew by %d bytes over %d origins, want at most %d", grown, n, limit)
	}
	runtime.KeepAlive(c)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
