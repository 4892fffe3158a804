package discoveryotel_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/discoveryotel"
)

// These tests run a real discovery.Client against a TLS test server, with the hooks
// installed by Apply, and check the spans and metrics that come out.

func TestIntegrationDiscover(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != discovery.GuidePath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		w.Header().Set("Cache-Control", "max-age=600")
		fmt.Fprint(w, skillsMD)
	})
	c := newClient(t, s, e, nil)
	for range 2 { // the second answer comes from the cache
		if _, err := c.Discover(t.Context(), s.URL); err != nil {
			t.Fatal(err)
		}
	}

	discs, fetches, gets := e.ended("discovery.discover"), e.ended("discovery.fetch"), e.ended("GET")
	if len(discs) != 2 || len(fetches) != 2 || len(gets) != 1 {
		t.Fatalf("spans %v, want 2 discovery.discover, 2 discovery.fetch and 1 GET", spanNames(e.spans.Ended()))
	}
	wantMap(t, "discovery span", attrs(discs[0]), map[string]string{
		"discovery.origin": s.URL, "discovery.outcome": "ok",
	})
	skillsURL := s.URL + discovery.GuidePath
	wantMap(t, "first fetch span", attrs(fetches[0]), map[string]string{
		"discovery.origin": s.URL, "url.full": skillsURL, "discovery.doc": "skills.md", "discovery.source": "network",
		"http.response.status_code": "200", "discovery.attempts": "1",
	})
	wantMap(t, "second fetch span", attrs(fetches[1]), map[string]string{
		"discovery.origin": s.URL, "url.full": skillsURL, "discovery.doc": "skills.md", "discovery.source": "cache",
		"http.response.status_code": "200",
	})
	if got := attrs(gets[0])["url.full"]; got != skillsURL {
		t.Errorf("GET span url.full = %q, want %q", got, skillsURL)
	}
	for i := range 2 {
		if fetches[i].Parent().SpanID() != discs[i].SpanContext().SpanID() {
			t.Errorf("fetch span %d is not a child of its discovery span", i)
		}
	}
	if gets[0].Parent().SpanID() != fetches[0].SpanContext().SpanID() {
		t.Error("the GET span is not a child of the first fetch span")
	}
	for _, sp := range e.spans.Ended() {
		if sp.Status().Code != codes.Unset {
			t.Errorf("span %s status = %v, want unset", sp.Name(), sp.Status())
		}
	}

	wantMap(t, "discovery.discoveries", e.counts(t, "discovery.discoveries"), map[string]int64{"outcome=ok": 2})
	wantMap(t, "discovery.fetches", e.counts(t, "discovery.fetches"), map[string]int64{
		"doc=skills.md,source=network": 1, "doc=skills.md,source=cache": 1,
	})
	h := e.histogram(t, "discovery.fetch.duration")
	if dp := h["doc=skills.md,source=network"]; dp.Count != 1 || dp.Sum <= 0 {
		t.Errorf("discovery.fetch.duration{network} count %d sum %v, want 1 and > 0", dp.Count, dp.Sum)
	}
}

func TestIntegrationNotPublished(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	s := newSite(t, http.NotFound)
	c := newClient(t, s, e, nil)
	if _, err := c.Discover(t.Context(), s.URL); !errors.Is(err, discovery.ErrNotPublished) {
		t.Fatalf("Discover() error = %v, want ErrNotPublished", err)
	}
	disc := e.one(t, "discovery.discover")
	if got := attrs(disc)["discovery.outcome"]; got != "not_published" {
		t.Errorf("discovery.outcome = %q, want not_published", got)
	}
	for _, sp := range e.ended("discovery.fetch") {
		if sp.Status().Code != codes.Unset {
			t.Errorf("fetch span %s status = %v, want unset: not published is an answer", attrs(sp)["url.full"], sp.Status())
		}
	}
	wantMap(t, "discovery.discoveries", e.counts(t, "discovery.discoveries"),
		map[string]int64{"error.type=not_published,outcome=not_published": 1})
}

func TestIntegrationRetryAndStale(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	var calls atomic.Int32
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != discovery.GuidePath {
			http.NotFound(w, r)
			return
		}
		switch calls.Add(1) {
		case 1: // the first discovery succeeds
		case 2: // the second is retried once, then succeeds
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		case 3:
		default: // the third fails and gets the last good copy
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, skillsMD)
	})
	c := newClient(t, s, e, &discovery.Options{MaxRetries: 1})
	for range 3 {
		if _, err := c.Discover(t.Context(), s.URL); err != nil {
			t.Fatal(err)
		}
	}

	wantMap(t, "discovery.fetches", e.counts(t, "discovery.fetches"), map[string]int64{
		"doc=skills.md,source=network":              2,
		"doc=skills.md,error.type=500,source=stale": 1,
	})
	wantMap(t, "discovery.stale", e.counts(t, "discovery.stale"), map[string]int64{"doc=skills.md,error.type=500": 1})
	retries := e.counts(t, "discovery.retries")
	var n int64
	for _, v := range retries {
		n += v
	}
	if n != 2 { // one in the second discovery, one in the third
		t.Errorf("discovery.retries = %v, want 2 in all", sortedMap(retries))
	}

	fetches := e.ended("discovery.fetch")
	if len(fetches) != 3 {
		t.Fatalf("%d fetch spans, want 3", len(fetches))
	}
	if got := attrs(fetches[1])["discovery.attempts"]; got != "2" {
		t.Errorf("second fetch span discovery.attempts = %s, want 2", got)
	}
	if got := fetches[2].Status(); got.Code != codes.Error {
		t.Errorf("stale fetch span status = %v, want Error", got)
	}
	if got := attrs(fetches[2])["discovery.source"]; got != "stale" {
		t.Errorf("stale fetch span discovery.source = %s, want stale", got)
	}
	var failed int
	for _, sp := range e.ended("GET") {
		if sp.Status().Code == codes.Error {
			failed++
		}
	}
	if gets := len(e.ended("GET")); gets != 5 || failed != 3 {
		t.Errorf("%d GET spans, %d failed; want 5 (1 + 2 + 2) with 3 failed", gets, failed)
	}
}

func TestIntegrationConsentAndRefusal(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	other := newSite(t, nil)
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	})
	deny := func(context.Context, *discovery.ConsentRequest) (bool, error) { return false, nil }
	c := newClient(t, s, e, &discovery.Options{Consent: deny})
	_, err := c.Discover(t.Context(), s.URL)
	if !errors.Is(err, discovery.ErrCrossOrigin) {
		t.Fatalf("Discover() error = %v, want ErrCrossOrigin", err)
	}
	if other.requests() != 0 {
		t.Errorf("the other origin got %d requests, want 0", other.requests())
	}
	wantMap(t, "discovery.consent", e.counts(t, "discovery.consent"), map[string]int64{"action=redirect,granted=false": 1})
	wantMap(t, "discovery.guard.refusals", e.counts(t, "discovery.guard.refusals"), map[string]int64{"reason=cross_origin": 1})
	wantMap(t, "discovery.discoveries", e.counts(t, "discovery.discoveries"),
		map[string]int64{"error.type=cross_origin,outcome=error": 1})
	for _, sp := range e.ended("discovery.fetch") {
		if sp.Status().Code != codes.Error || attrs(sp)["error.type"] != "cross_origin" {
			t.Errorf("fetch span status %v, error.type %q; want Error and cross_origin", sp.Status(), attrs(sp)["error.type"])
		}
	}
}

// TestIntegrationTraceHeaders checks that a discovery made inside a sampled trace, with
// a global propagator set (see TestMain) and baggage in the context, sends no trace
// context header unless PropagateTo selects the request.
func TestIntegrationTraceHeaders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		propagateTo func(*http.Request) bool
		want        bool
	}{
		{"default", nil, false},
		{"PropagateTo false", func(*http.Request) bool { return false }, false},
		{"PropagateTo true", func(*http.Request) bool { return true }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, &discoveryotel.Options{PropagateTo: tc.propagateTo})
			s := newSite(t, nil)
			c := newClient(t, s, e, &discovery.Options{})

			member, err := baggage.NewMember("tenant", "acme")
			if err != nil {
				t.Fatal(err)
			}
			bag, err := baggage.New(member)
			if err != nil {
				t.Fatal(err)
			}
			ctx, root := e.tp.Tracer("app").Start(baggage.ContextWithBaggage(t.Context(), bag), "agent.turn")
			if _, err := c.Structured(ctx, s.URL); err != nil && !errors.Is(err, discovery.ErrNotPublished) {
				t.Fatal(err)
			}
			root.End()

			if s.requests() == 0 {
				t.Fatal("the site got no request")
			}
			seen := s.traceHeadersSeen()
			if !tc.want {
				if len(seen) != 0 {
					t.Errorf("the site received trace context headers %v, want none", seen)
				}
				return
			}
			if seen["Traceparent"] != s.requests() || seen["Baggage"] != s.requests() {
				t.Errorf("headers seen %v in %d requests, want traceparent and baggage in each", seen, s.requests())
			}
			s.mu.Lock()
			tp := s.headers[0].Get("Traceparent")
			s.mu.Unlock()
			if !strings.Contains(tp, root.SpanContext().TraceID().String()) {
				t.Errorf("traceparent %q does not carry the caller's trace %s", tp, root.SpanContext().TraceID())
			}
		})
	}
}

// TestIntegrationConcurrent runs discoveries on one Client from several goroutines, for
// the race detector, and checks that every one is counted.
func TestIntegrationConcurrent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	s := newSite(t, nil)
	c := newClient(t, s, e, nil)
	const n = 8
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := c.Discover(t.Context(), s.URL)
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	wantMap(t, "discovery.discoveries", e.counts(t, "discovery.discoveries"), map[string]int64{"outcome=ok": n})
	if got := len(e.ended("discovery.discover")); got != n {
		t.Errorf("%d discovery spans, want %d", got, n)
	}
}
