package discoveryotel_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/discoveryotel"
)

// stubTransport answers every request with status and records what it was sent.
type stubTransport struct {
	status int
	err    error
	got    []*http.Request
	closed int
}

func (s *stubTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	s.got = append(s.got, req)
	if s.err != nil {
		return nil, s.err
	}
	return &http.Response{StatusCode: s.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), Request: req}, nil
}

func (s *stubTransport) CloseIdleConnections() { s.closed++ }

func TestTraceTree(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	base := &stubTransport{status: http.StatusOK}
	rt := e.inst.WrapTransport(base)

	ctx, endDiscover := e.inst.Trace(t.Context(), discovery.TraceDiscover, discovery.Event{Origin: "https://docs.example.org"})
	fctx, endFetch := e.inst.Trace(ctx, discovery.TraceFetch, discovery.Event{
		URL: "https://docs.example.org/.well-known/skills.md", Doc: "skills.md",
	})
	req, err := http.NewRequestWithContext(fctx, http.MethodGet, "https://user:pw@docs.example.org/.well-known/skills.md?token=s3cret#frag", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	endFetch(discovery.Event{Kind: discovery.EventFetch, Source: discovery.SourceNetwork, Status: 200, Attempts: 1})
	endDiscover(discovery.Event{Kind: discovery.EventDiscover})

	disc, fetch, get := e.one(t, "discovery.discover"), e.one(t, "discovery.fetch"), e.one(t, "GET")
	if disc.Parent().IsValid() {
		t.Errorf("discovery span has a parent: %v", disc.Parent())
	}
	if fetch.Parent().SpanID() != disc.SpanContext().SpanID() {
		t.Errorf("fetch span's parent = %v, want the discovery span", fetch.Parent().SpanID())
	}
	if get.Parent().SpanID() != fetch.SpanContext().SpanID() {
		t.Errorf("HTTP span's parent = %v, want the fetch span", get.Parent().SpanID())
	}
	for _, s := range []struct {
		span interface{ SpanKind() trace.SpanKind }
		want trace.SpanKind
	}{{disc, trace.SpanKindInternal}, {fetch, trace.SpanKindInternal}, {get, trace.SpanKindClient}} {
		if s.span.SpanKind() != s.want {
			t.Errorf("span kind = %v, want %v", s.span.SpanKind(), s.want)
		}
	}
	wantMap(t, "discovery span attributes", attrs(disc), map[string]string{
		"discovery.origin": "https://docs.example.org", "discovery.outcome": "ok",
	})
	wantMap(t, "fetch span attributes", attrs(fetch), map[string]string{
		"url.full": "https://docs.example.org/.well-known/skills.md", "discovery.doc": "skills.md",
		"discovery.source": "network", "http.response.status_code": "200", "discovery.attempts": "1",
	})
	wantMap(t, "HTTP span attributes", attrs(get), map[string]string{
		"http.request.method": "GET", "url.full": "https://docs.example.org/.well-known/skills.md",
		"server.address": "docs.example.org", "server.port": "443", "http.response.status_code": "200",
	})
	for _, s := range e.spans.Ended() {
		if s.Status().Code != codes.Unset {
			t.Errorf("span %s status = %v, want unset", s.Name(), s.Status())
		}
		if got := s.InstrumentationScope().Name; got != discoveryotel.ScopeName {
			t.Errorf("span %s scope = %q, want %q", s.Name(), got, discoveryotel.ScopeName)
		}
	}
}

func TestTraceStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		op          discovery.TraceOp
		end         discovery.Event
		wantCode    codes.Code
		wantAttrs   map[string]string
		wantMessage string
	}{
		{
			name: "discovery not published", op: discovery.TraceDiscover,
			end:       discovery.Event{Err: fmt.Errorf("%w: https://x.example", discovery.ErrNotPublished)},
			wantCode:  codes.Unset,
			wantAttrs: map[string]string{"discovery.outcome": "not_published", "error.type": "not_published"},
		},
		{
			name: "discovery failed", op: discovery.TraceDiscover,
			end:         discovery.Event{Err: &discovery.HTTPError{URL: "https://x.example/.well-known/skills.md", StatusCode: 503, Attempts: 3}},
			wantCode:    codes.Error,
			wantAttrs:   map[string]string{"discovery.outcome": "error", "error.type": "503"},
			wantMessage: "503 Service Unavailable",
		},
		{
			name: "fetch stale", op: discovery.TraceFetch,
			end: discovery.Event{Doc: "skills.md", Source: discovery.SourceStale, Status: 502, Attempts: 3,
				Err: &discovery.HTTPError{StatusCode: 502}},
			wantCode: codes.Error,
			wantAttrs: map[string]string{"discovery.doc": "skills.md", "discovery.source": "stale",
				"http.response.status_code": "502", "discovery.attempts": "3", "error.type": "502"},
		},
		{
			name: "fetch cancelled", op: discovery.TraceFetch,
			end:       discovery.Event{Attempts: 1, Err: context.Canceled},
			wantCode:  codes.Error,
			wantAttrs: map[string]string{"discovery.attempts": "1", "error.type": "canceled"},
		},
		{
			name: "fetch not published", op: discovery.TraceFetch,
			end:       discovery.Event{Status: 404, Attempts: 1, Err: discovery.ErrNotPublished},
			wantCode:  codes.Unset,
			wantAttrs: map[string]string{"http.response.status_code": "404", "discovery.attempts": "1", "error.type": "not_published"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			_, end := e.inst.Trace(t.Context(), tc.op, discovery.Event{})
			end(tc.end)
			end(tc.end) // a second call changes nothing
			if n := len(e.spans.Ended()); n != 1 {
				t.Fatalf("%d spans ended, want 1", n)
			}
			s := e.spans.Ended()[0]
			if s.Status().Code != tc.wantCode || !strings.Contains(s.Status().Description, tc.wantMessage) {
				t.Errorf("status = %v, want %v containing %q", s.Status(), tc.wantCode, tc.wantMessage)
			}
			wantMap(t, "attributes", attrs(s), tc.wantAttrs)
		})
	}
}

func TestTransportStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		base      *stubTransport
		wantCode  codes.Code
		wantAttrs map[string]string
	}{
		{"404", &stubTransport{status: 404}, codes.Error, map[string]string{"http.response.status_code": "404", "error.type": "404"}},
		{"304", &stubTransport{status: 304}, codes.Unset, map[string]string{"http.response.status_code": "304"}},
		{"refused", &stubTransport{err: fmt.Errorf("dial: %w", discovery.ErrPrivateAddress)}, codes.Error, map[string]string{"error.type": "private_address"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			req, err := http.NewRequestWithContext(t.Context(), http.MethodHead, "http://127.0.0.1:8080/x", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := e.inst.WrapTransport(tc.base).RoundTrip(req)
			if (err != nil) != (tc.base.err != nil) || (err != nil && !errors.Is(err, tc.base.err)) {
				t.Fatalf("RoundTrip error = %v, want %v", err, tc.base.err)
			}
			if resp != nil {
				resp.Body.Close()
			}
			s := e.one(t, "HEAD")
			if s.Status().Code != tc.wantCode {
				t.Errorf("status = %v, want %v", s.Status(), tc.wantCode)
			}
			want := map[string]string{"http.request.method": "HEAD", "url.full": "http://127.0.0.1:8080/x",
				"server.address": "127.0.0.1", "server.port": "8080"}
			for k, v := range tc.wantAttrs {
				want[k] = v
			}
			wantMap(t, "attributes", attrs(s), want)
		})
	}
}

func TestTransportPropagation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		propagateTo func(*http.Request) bool
		want        bool
	}{
		{"nil PropagateTo", nil, false},
		{"PropagateTo false", func(*http.Request) bool { return false }, false},
		{"PropagateTo other host", func(r *http.Request) bool { return r.URL.Hostname() == "internal.example" }, false},
		{"PropagateTo true", func(*http.Request) bool { return true }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, &discoveryotel.Options{PropagateTo: tc.propagateTo})
			base := &stubTransport{status: 200}
			member, err := baggage.NewMember("user", "alice")
			if err != nil {
				t.Fatal(err)
			}
			bag, err := baggage.New(member)
			if err != nil {
				t.Fatal(err)
			}
			ctx, end := e.inst.Trace(baggage.ContextWithBaggage(t.Context(), bag), discovery.TraceFetch, discovery.Event{})
			defer end(discovery.Event{})
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://docs.example.org/.well-known/skills.md", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("User-Agent", "test")
			resp, err := e.inst.WrapTransport(base).RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			sent := base.got[0].Header
			for _, h := range traceHeaders {
				if v := req.Header.Get(h); v != "" {
					t.Errorf("the caller's request was modified: %s: %s", h, v)
				}
			}
			if got := sent.Get("User-Agent"); got != "test" {
				t.Errorf("User-Agent sent = %q, want test", got)
			}
			if !tc.want {
				for _, h := range traceHeaders {
					if v := sent.Get(h); v != "" {
						t.Errorf("sent %s: %s without PropagateTo's consent", h, v)
					}
				}
				if len(sent) != 1 {
					t.Errorf("sent headers %v, want only User-Agent", sent)
				}
				return
			}
			tp := sent.Get("Traceparent")
			get := e.one(t, "GET")
			if !strings.Contains(tp, get.SpanContext().SpanID().String()) {
				t.Errorf("traceparent = %q, want the HTTP span %s", tp, get.SpanContext().SpanID())
			}
			if got := sent.Get("Baggage"); got != "user=alice" {
				t.Errorf("baggage = %q, want user=alice", got)
			}
		})
	}
}

func TestTransportPlumbing(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	base := &stubTransport{status: 200}
	rt := e.inst.WrapTransport(base)
	(&http.Client{Transport: rt}).CloseIdleConnections()
	if base.closed != 1 {
		t.Errorf("CloseIdleConnections reached the base %d times, want 1", base.closed)
	}

	body := &closeCounter{Reader: strings.NewReader("x")}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "https://docs.example.org/", body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.inst.WrapTransport(nil).RoundTrip(req)
	if err == nil || resp != nil {
		t.Fatalf("RoundTrip on a nil transport = %v, %v; want an error", resp, err)
	}
	if body.closed != 1 {
		t.Errorf("request body closed %d times, want 1", body.closed)
	}
}

type closeCounter struct {
	io.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

func TestZeroInstrumentation(t *testing.T) {
	t.Parallel()
	base := &stubTransport{status: 200}
	for _, inst := range []*discoveryotel.Instrumentation{nil, {}} {
		inst.Observe(t.Context(), discovery.Event{Kind: discovery.EventFetch})
		ctx, end := inst.Trace(t.Context(), discovery.TraceFetch, discovery.Event{})
		if ctx != t.Context() {
			t.Error("Trace changed the context")
		}
		end(discovery.Event{})
		if rt := inst.WrapTransport(base); rt != base {
			t.Errorf("WrapTransport = %T, want the base transport", rt)
		}
		inst.Apply(&discovery.Options{})
		inst.Apply(nil)
	}
}

func TestNewWithGlobalProviders(t *testing.T) {
	t.Parallel()
	inst, err := discoveryotel.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	inst.Observe(t.Context(), discovery.Event{Kind: discovery.EventFetch, Source: discovery.SourceNetwork})
	_, end := inst.Trace(t.Context(), discovery.TraceDiscover, discovery.Event{Origin: "https://x.example"})
	end(discovery.Event{})
}

func TestApplyChains(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	var (
		observed int
		order    []string
	)
	tracer := e.tp.Tracer("caller")
	opts := &discovery.Options{
		Observe: func(context.Context, discovery.Event) { observed++ },
		Trace: func(ctx context.Context, op discovery.TraceOp, _ discovery.Event) (context.Context, func(discovery.Event)) {
			ctx, span := tracer.Start(ctx, "caller."+string(op))
			return ctx, func(discovery.Event) { order = append(order, "caller"); span.End() }
		},
		WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(req *http.Request) (*http.Response, error) {
				if !trace.SpanFromContext(req.Context()).SpanContext().IsValid() {
					t.Error("the caller's transport runs outside the HTTP span")
				}
				order = append(order, "caller transport")
				return rt.RoundTrip(req)
			})
		},
	}
	e.inst.Apply(opts)

	opts.Observe(t.Context(), discovery.Event{Kind: discovery.EventRetry})
	if observed != 1 {
		t.Errorf("the caller's Observe ran %d times, want 1", observed)
	}
	if got := e.counts(t, "discovery.retries"); len(got) != 1 {
		t.Errorf("discovery.retries = %v, want one point", got)
	}

	ctx, end := opts.Trace(t.Context(), discovery.TraceFetch, discovery.Event{})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://docs.example.org/", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := opts.WrapTransport(&stubTransport{status: 200}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	end(discovery.Event{})
	if got := strings.Join(order, ", "); got != "caller transport, caller" {
		t.Errorf("order = %s, want the caller's transport, then the caller's span end", got)
	}
	caller, fetch := e.one(t, "caller.fetch"), e.one(t, "discovery.fetch")
	if fetch.Parent().SpanID() != caller.SpanContext().SpanID() {
		t.Error("the caller's span does not enclose the fetch span")
	}
	if fetch.EndTime().After(caller.EndTime()) {
		t.Error("the fetch span ended after the caller's")
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
