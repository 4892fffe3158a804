package discoveryotel_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/discoveryotel"
	"github.com/wellknown-dev/discovery/mcpjson"
	"github.com/wellknown-dev/discovery/skillsmd"
)

func TestObserveCounters(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := t.Context()
	refused := fmt.Errorf("guard: %w", discovery.ErrPrivateAddress)
	for _, ev := range []discovery.Event{
		{Kind: discovery.EventDiscover, Origin: "https://a.example"},
		{Kind: discovery.EventDiscover, Origin: "https://b.example", Err: discovery.ErrNotPublished},
		{Kind: discovery.EventDiscover, Origin: "https://c.example", Err: &discovery.HTTPError{StatusCode: 503}},
		{Kind: discovery.EventFetch, Doc: "skills.md", Source: discovery.SourceNetwork, Status: 200, Attempts: 1, Duration: 20 * time.Millisecond},
		{Kind: discovery.EventFetch, Doc: "skills.md", Source: discovery.SourceNetwork, Status: 200, Attempts: 2, Duration: 30 * time.Millisecond},
		{Kind: discovery.EventFetch, Doc: "skills.md", Source: discovery.SourceRevalidated, Status: 304},
		{Kind: discovery.EventFetch, Doc: "mcp.json", Source: discovery.SourceCache},
		{Kind: discovery.EventFetch, Doc: "skills.md", Source: discovery.SourceStale, Err: &discovery.HTTPError{StatusCode: 502}},
		{Kind: discovery.EventFetch, Doc: "mcp.json", Status: 404, Err: discovery.ErrNotPublished},
		{Kind: discovery.EventStale, Doc: "skills.md", Err: &discovery.HTTPError{StatusCode: 502}},
		{Kind: discovery.EventRetry, Doc: "skills.md", Status: 503, Attempt: 1},
		{Kind: discovery.EventRetry, Doc: "skills.md", Status: 503, Attempt: 2},
		{Kind: discovery.EventRetry, Doc: "skills.md", Attempt: 1, Err: errors.New("connection reset")},
		{Kind: discovery.EventConsentAsked, Action: discovery.ConsentRedirect},
		{Kind: discovery.EventConsentAnswered, Action: discovery.ConsentRedirect, Granted: true},
		{Kind: discovery.EventConsentAnswered, Action: discovery.ConsentWrite},
		{Kind: discovery.EventConsentAnswered, Action: discovery.ConsentWrite, Err: context.DeadlineExceeded},
		{Kind: discovery.EventConsentAnswered, Action: discovery.ConsentAction(99)},
		{Kind: discovery.EventGuardRefused, Err: refused},
		{Kind: discovery.EventGuardRefused, Err: discovery.ErrCrossOrigin},
		{Kind: discovery.EventGuardRefused},
		{Kind: discovery.EventStoreMiss, Doc: "cache"},
		{Kind: discovery.EventStoreMiss, Doc: "cache"},
		{Kind: discovery.EventStoreMiss, Doc: "last-good"},
		{Kind: discovery.EventStoreDegraded, Err: errors.New("redis: i/o timeout")},
		{Kind: discovery.EventFleetWait, Duration: time.Millisecond},
	} {
		e.inst.Observe(ctx, ev)
	}

	tests := []struct {
		metric string
		want   map[string]int64
	}{
		{"discovery.events", map[string]int64{
			"event=discover": 3, "event=fetch": 6, "event=stale": 1, "event=retry": 3,
			"event=consent.asked": 1, "event=consent.answered": 4, "event=guard.refused": 3,
			"event=store.miss": 3, "event=store.degraded": 1, "event=fleet.wait": 1,
		}},
		{"discovery.discoveries", map[string]int64{
			"outcome=ok": 1,
			"error.type=not_published,outcome=not_published": 1,
			"error.type=503,outcome=error":                   1,
		}},
		{"discovery.fetches", map[string]int64{
			"doc=skills.md,source=network":                      2,
			"doc=skills.md,source=revalidated":                  1,
			"doc=mcp.json,source=cache":                         1,
			"doc=skills.md,error.type=502,source=stale":         1,
			"doc=mcp.json,error.type=not_published,source=none": 1,
		}},
		{"discovery.stale", map[string]int64{"doc=skills.md,error.type=502": 1}},
		{"discovery.retries", map[string]int64{"doc=skills.md,status=503": 2, "doc=skills.md,status=": 1}},
		{"discovery.consent", map[string]int64{
			"action=redirect,granted=true":                  1,
			"action=write,granted=false":                    1,
			"action=write,error.type=timeout,granted=false": 1,
			"action=_OTHER,granted=false":                   1,
		}},
		{"discovery.guard.refusals", map[string]int64{"reason=private_address": 1, "reason=cross_origin": 1, "reason=_OTHER": 1}},
		{"discovery.store.misses", map[string]int64{"doc=cache": 2, "doc=last-good": 1}},
		{"discovery.store.degradations", map[string]int64{"doc=": 1}},
	}
	for _, tc := range tests {
		wantMap(t, tc.metric, e.counts(t, tc.metric), tc.want)
	}

	h := e.histogram(t, "discovery.fetch.duration")
	dp, ok := h["doc=skills.md,source=network"]
	if !ok {
		t.Fatalf("discovery.fetch.duration has no network point: %v", sortedMap(h))
	}
	if dp.Count != 2 || dp.Sum < 0.0499 || dp.Sum > 0.0501 {
		t.Errorf("discovery.fetch.duration{network}: count %d sum %v, want 2 and 0.05", dp.Count, dp.Sum)
	}
	if len(h) != 5 {
		t.Errorf("discovery.fetch.duration has %d series, want 5 (one per doc and source)", len(h))
	}
	if m := e.metric(t, "discovery.fetch.duration"); m.Unit != "s" {
		t.Errorf("discovery.fetch.duration unit = %q, want s", m.Unit)
	}
}

func TestErrorType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{context.Canceled, "canceled"},
		{fmt.Errorf("discover: %w", context.DeadlineExceeded), "timeout"},
		{fmt.Errorf("x: %w", discovery.ErrNotPublished), "not_published"},
		{discovery.ErrInsecureOrigin, "insecure_origin"},
		{&discovery.RedirectError{Err: discovery.ErrCrossOrigin}, "cross_origin"},
		{discovery.ErrPrivateAddress, "private_address"},
		{discovery.ErrConsentDenied, "consent_denied"},
		{&discovery.FetchError{Err: discovery.ErrTooLarge}, "too_large"},
		{&discovery.HTTPError{StatusCode: 429, Err: discovery.ErrRetryAfterTooLong}, "retry_after_too_long"},
		{&discovery.HTTPError{StatusCode: 503}, "503"},
		{&discovery.FetchError{Err: &skillsmd.SyntaxError{}}, "invalid_document"},
		{&discovery.FetchError{Err: &mcpjson.ValidationError{}}, "invalid_document"},
		{errors.New("dial tcp: connection refused"), "_OTHER"},
	}
	for _, tc := range tests {
		if got := discoveryotel.ErrorType(tc.err); got != tc.want {
			t.Errorf("ErrorType(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
