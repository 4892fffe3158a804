package discovery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery"
)

// recorder collects events, log records and spans.
type recorder struct {
	mu     sync.Mutex
	events []discovery.Event
	spans  []string // "start op" / "end op" in order
	logs   bytes.Buffer
}

func (r *recorder) observe(_ context.Context, e discovery.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

type spanKey struct{}

func (r *recorder) trace(ctx context.Context, op discovery.TraceOp, start discovery.Event) (context.Context, func(discovery.Event)) {
	r.mu.Lock()
	parent, _ := ctx.Value(spanKey{}).(string)
	r.spans = append(r.spans, "start "+string(op)+" in "+parent)
	r.mu.Unlock()
	return context.WithValue(ctx, spanKey{}, string(op)), func(end discovery.Event) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.spans = append(r.spans, "end "+string(op)+" "+string(end.Kind))
	}
}

func (r *recorder) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ks []string
	for _, e := range r.events {
		ks = append(ks, string(e.Kind))
	}
	return ks
}

func (r *recorder) options(o discovery.Options) *discovery.Options {
	o.Logger = slog.New(slog.NewJSONHandler(&lockedWriter{w: &r.logs, mu: &r.mu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	o.Observe, o.Trace = r.observe, r.trace
	return &o
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// records returns the JSON log records of kind.
func (r *recorder) records(kind discovery.EventKind) []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.logs.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["event"] == string(kind) {
			out = append(out, m)
		}
	}
	return out
}

// TestEventsLogsAndSpans: every kind of event reaches the logger (stable keys, the
// documented level), the observer and the tracer, from the operations that cause it.
func TestEventsLogsAndSpans(t *testing.T) {
	var fail atomic.Int32 // answers left to fail with 503
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case fail.Load() > 0:
			fail.Add(-1)
			w.WriteHeader(http.StatusServiceUnavailable)
		case r.URL.Path == discovery.GuidePath:
			w.Header().Set("Content-Type", "text/markdown")
			_, _ = w.Write([]byte("# Events\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	rec := &recorder{}
	opts := rec.options(discovery.Options{HTTPClient: s.Client(), InsecureAllowPrivateOrigins: true, MaxRetries: 1})
	c, err := discovery.NewClientWithHooks(opts, discovery.TestHooks{RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}

	// A fetch after one 503: retry, fetch, discover.
	fail.Store(1)
	d, err := c.Discover(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	// Down: the last good copy, a Warn record.
	fail.Store(100)
	if _, err := c.Discover(t.Context(), s.URL); err != nil {
		t.Fatal(err)
	}
	fail.Store(0)
	// A write through the guard, denied: consent asked and answered, guard refused.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+"/api/x", nil)
	if _, err := guardOf(t, c, d, nil).RoundTrip(req); err == nil {
		t.Fatal("a write went through without consent")
	}

	got := strings.Join(rec.kinds(), ",")
	for _, want := range []discovery.EventKind{discovery.EventRetry, discovery.EventFetch, discovery.EventDiscover,
		discovery.EventStale, discovery.EventConsentAsked, discovery.EventConsentAnswered, discovery.EventGuardRefused} {
		if !strings.Contains(got, string(want)) {
			t.Errorf("no %s event in %s", want, got)
		}
	}
	for kind, level := range map[discovery.EventKind]string{discovery.EventStale: "WARN", discovery.EventGuardRefused: "WARN",
		discovery.EventConsentAsked: "INFO", discovery.EventFetch: "DEBUG", discovery.EventRetry: "DEBUG"} {
		rs := rec.records(kind)
		if len(rs) == 0 {
			t.Errorf("no log record for %s", kind)
			continue
		}
		if rs[0]["level"] != level {
			t.Errorf("%s logged at %v, want %s", kind, rs[0]["level"], level)
		}
	}
	if f := rec.records(discovery.EventFetch); len(f) > 0 {
		for _, key := range []string{"origin", "url", "doc", "source", "status", "attempts", "duration"} {
			if _, ok := f[0][key]; !ok {
				t.Errorf("fetch record lacks %q: %v", key, f[0])
			}
		}
		if f[0]["attempts"] != float64(2) || f[0]["source"] != "network" {
			t.Errorf("first fetch record = %v, want 2 attempts from the network", f[0])
		}
	}
	if st := rec.records(discovery.EventStale); len(st) == 0 || !strings.Contains(st[0]["err"].(string), "503") {
		t.Errorf("stale record = %v, want the 503 as err", st)
	}
	if a := rec.records(discovery.EventConsentAnswered); len(a) == 0 || a[0]["granted"] != false || a[0]["action"] != "write" {
		t.Errorf("consent record = %v, want write, granted false", a)
	}
	rec.mu.Lock()
	spans := strings.Join(rec.spans, "\n")
	rec.mu.Unlock()
	for _, want := range []string{"start discovery in \n", "start fetch in discovery\n", "end fetch fetch\n", "end discovery discover"} {
		if !strings.Contains(spans+"\n", want) {
			t.Errorf("spans lack %q:\n%s", want, spans)
		}
	}
}

// TestWrapTransportCannotWeakenTheGuard: the wrapper sees every request, and a request
// to a private address from a public origin is still refused below it.
func TestWrapTransportCannotWeakenTheGuard(t *testing.T) {
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: "# Wrapped\n"}))
	var seen atomic.Int32
	wrap := func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			seen.Add(1)
			return next.RoundTrip(r)
		})
	}
	c := newClient(t, s, &discovery.Options{WrapTransport: wrap})
	if _, err := c.Discover(t.Context(), s.URL); err != nil {
		t.Fatal(err)
	}
	if seen.Load() == 0 {
		t.Error("the wrapper saw no request")
	}
	// A public name that resolves to loopback: refused by the guard under the wrapper.
	seen.Store(0)
	tlsOnly := &http.Transport{TLSClientConfig: s.Client().Transport.(*http.Transport).TLSClientConfig.Clone()}
	pub, err := discovery.NewClientWithHooks(&discovery.Options{HTTPClient: &http.Client{Transport: tlsOnly}, WrapTransport: wrap, MaxRetries: -1},
		discovery.TestHooks{Lookup: lookupLoopback})
	if err != nil {
		t.Fatal(err)
	}
	_, err = pub.Discover(t.Context(), "https://public.example"+s.URL[strings.LastIndex(s.URL, ":"):])
	if err == nil || !strings.Contains(err.Error(), "private") {
		t.Errorf("Discover through the wrapper = %v, want a private-address refusal", err)
	}
	if seen.Load() == 0 {
		t.Error("the wrapper saw no request")
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// lookupLoopback resolves every name to 127.0.0.1, as a hostile DNS answer would.
func lookupLoopback(context.Context, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}
