package discovery

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// TestMemoryIsBounded: a Client that visits many origins keeps its in-process tiers
// (the HTTP cache and the parse memo) within their budgets.
func TestMemoryIsBounded(t *testing.T) {
	t.Parallel()
	doc := "# Skills\n\n## API\n\n- Base path: `/v1`\n\n" + strings.Repeat("- a line of guidance\n", 50)
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != SkillsPath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "max-age=300")
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, doc)
	}))
	defer ts.Close()
	const budget = 64 << 10
	cache := NewMemoryCacheSize(budget)
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
	if cost := cache.(memoryCache).c.Cost(); cost > budget || cost == 0 {
		t.Errorf("HTTP cache holds %d bytes, budget %d", cost, budget)
	}
	if cost := c.parsed.Cost(); cost > budget || cost == 0 {
		t.Errorf("parse memo holds %d bytes, budget %d", cost, budget)
	}
}
