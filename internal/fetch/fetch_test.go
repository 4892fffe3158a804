package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var errTooLarge = errors.New("too large")

// newTestFetcher returns a Fetcher over ts's client transport with hooks that allow
// same-origin redirects only and record the redirects asked about.
func newTestFetcher(t *testing.T, ts *httptest.Server, asked *atomic.Int32) *Fetcher {
	t.Helper()
	originOf := func(u *url.URL) (Origin, error) {
		return Origin{Scheme: u.Scheme, Host: u.Hostname(), Port: u.Port()}, nil
	}
	return New(Config{
		Base:           ts.Client().Transport,
		Cache:          NewMemoryCache(1 << 20),
		MaxRetries:     2,
		AttemptTimeout: 10 * time.Second,
		RetryWait:      [2]time.Duration{time.Millisecond, 2 * time.Millisecond},
		MaxRetryAfter:  time.Second,
		ErrTooLarge:    errTooLarge,
		CheckOrigin:    originOf,
		CheckHop:       func(req *http.Request, _ []*http.Request, _ int) (Origin, error) { return originOf(req.URL) },
		AskRedirect: func(context.Context, Origin, Origin, *url.URL) error {
			asked.Add(1)
			return errors.New("redirect refused")
		},
		Permanent: func(error) bool { return false },
	})
}

// TestGetResult: Get answers with an explicit result: status, source, body, attempts
// and freshness, for a network answer, a fresh cache hit, retried statuses, a body
// over the cap and a redirect the policy refuses.
func TestGetResult(t *testing.T) {
	t.Parallel()
	var flaky atomic.Int32
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/fresh":
			w.Header().Set("Cache-Control", "max-age=300")
			fmt.Fprint(w, "# fresh")
		case "/flaky":
			if flaky.Add(1) < 3 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			fmt.Fprint(w, "# at last")
		case "/big":
			fmt.Fprint(w, strings.Repeat("x", 100))
		case "/away":
			http.Redirect(w, r, "https://elsewhere.example/doc", http.StatusFound)
		}
	}))
	defer ts.Close()
	var asked atomic.Int32
	f := newTestFetcher(t, ts, &asked)
	o := Origin{Scheme: "https", Host: "127.0.0.1"}
	get := func(path string, limit int64) (Result, error) {
		return f.Get(t.Context(), &Request{URL: ts.URL + path, Origin: o, Header: http.Header{}, Timeout: 10 * time.Second, Limit: limit})
	}

	res, err := get("/fresh", 1<<10)
	if err != nil || res.Status != http.StatusOK || res.Source != SourceNetwork || string(res.Body) != "# fresh" || res.Attempts != 1 || res.Fresh.IsZero() {
		t.Fatalf("first fetch: %+v, %v", res, err)
	}
	res, err = get("/fresh", 1<<10)
	if err != nil || res.Source != SourceCache || res.Attempts != 0 || string(res.Body) != "# fresh" {
		t.Errorf("fresh hit: %+v, %v", res, err)
	}
	res, err = get("/flaky", 1<<10)
	if err != nil || res.Status != http.StatusOK || res.Attempts != 3 || string(res.Body) != "# at last" {
		t.Errorf("retried: %+v, %v", res, err)
	}
	if _, err = get("/big", 10); !errors.Is(err, errTooLarge) {
		t.Errorf("over the cap: %v", err)
	}
	res, err = get("/away", 1<<10)
	if err == nil || res.Status != 0 || asked.Load() != 1 || res.WireStatus != http.StatusFound {
		t.Errorf("refused redirect: %+v, %v (asked %d)", res, err, asked.Load())
	}
}
