package fetch

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// An answer whose body is not wanted (a 404's page, an HTML page, a 500) is read to its
// end before its connection is let go, so that the connection goes back to the pool:
// closed unread, it is torn down, every such answer costs a new connection, and
// net/http keeps each request's wait for an idle connection of that host until one
// comes back (never, for a host whose answers are all unread), so a scan of many
// origins that answer 404 grew with them. What is read so is not wanted: the HTTP
// cache stores none of it.
func TestUnwantedBodiesKeepTheConnection(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		ctype  string
		body   string
	}{
		{"404 page", http.StatusNotFound, "text/plain", "404 page not found\n"},
		{"410 page", http.StatusGone, "text/html", "<html><body>" + strings.Repeat("gone ", 200) + "</body></html>"},
		{"HTML page not read", http.StatusOK, "text/html", "<!doctype html><title>home</title>" + strings.Repeat("<p>x</p>", 100)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var conns atomic.Int32
			ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.ctype)
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.body)
			}))
			ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			ts.StartTLS()
			defer ts.Close()
			var asked atomic.Int32
			f := newTestFetcher(t, ts, &asked)
			o := Origin{Scheme: "https", Host: "127.0.0.1"}
			notHTML := func(resp *http.Response) bool {
				return !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html")
			}
			const n = 5
			for i := range n {
				res, err := f.Get(t.Context(), &Request{URL: fmt.Sprintf("%s/doc%d", ts.URL, i), Origin: o, Header: http.Header{},
					Timeout: 10 * time.Second, Limit: 1 << 20, Read: notHTML})
				if err != nil || res.Status != tc.status || res.Body != nil {
					t.Fatalf("fetch %d: %+v, %v", i, res, err)
				}
			}
			if got := conns.Load(); got != 1 {
				t.Errorf("%d answers took %d connections, want 1", n, got)
			}
			if cost := f.cfg.Cache.(*MemoryCache).Cost(); cost != 0 {
				t.Errorf("the HTTP cache stored %d bytes of answers nobody read", cost)
			}
		})
	}
}
