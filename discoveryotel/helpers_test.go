package discoveryotel_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/discoveryotel"
)

// TestMain installs a global propagator that writes traceparent, tracestate and
// baggage, as an application with OpenTelemetry set up does, so that every test checks
// that nothing is sent unless PropagateTo asks for it.
func TestMain(m *testing.M) {
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	os.Exit(m.Run())
}

// traceHeaders are the headers a propagator may write.
var traceHeaders = []string{"Traceparent", "Tracestate", "Baggage", "B3", "X-B3-Traceid", "Uber-Trace-Id"}

// env is an Instrumentation on SDK providers that record everything.
type env struct {
	inst   *discoveryotel.Instrumentation
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
}

// newEnv returns an Instrumentation on recording providers; opts supplies the other
// options.
func newEnv(t *testing.T, opts *discoveryotel.Options) *env {
	t.Helper()
	e := &env{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	e.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(e.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(e.reader))
	t.Cleanup(func() {
		_ = e.tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	var o discoveryotel.Options
	if opts != nil {
		o = *opts
	}
	o.TracerProvider, o.MeterProvider = e.tp, mp
	inst, err := discoveryotel.New(&o)
	if err != nil {
		t.Fatal(err)
	}
	e.inst = inst
	return e
}

// metric returns the named metric, or nil.
func (e *env) metric(t *testing.T, name string) *metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := e.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != discoveryotel.ScopeName {
			continue
		}
		for i := range sm.Metrics {
			if sm.Metrics[i].Name == name {
				return &sm.Metrics[i]
			}
		}
	}
	return nil
}

// counts returns the named counter's values by encoded attribute set
// ("doc=skills.md,source=network"); empty when it recorded nothing.
func (e *env) counts(t *testing.T, name string) map[string]int64 {
	t.Helper()
	got := map[string]int64{}
	m := e.metric(t, name)
	if m == nil {
		return got
	}
	sum, ok := m.Data.(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%s is a %T, want a Sum[int64]", name, m.Data)
	}
	if !sum.IsMonotonic {
		t.Errorf("%s is not monotonic", name)
	}
	for _, dp := range sum.DataPoints {
		got[encode(dp.Attributes)] += dp.Value
	}
	return got
}

// histogram returns the named histogram's points by encoded attribute set.
func (e *env) histogram(t *testing.T, name string) map[string]metricdata.HistogramDataPoint[float64] {
	t.Helper()
	got := map[string]metricdata.HistogramDataPoint[float64]{}
	m := e.metric(t, name)
	if m == nil {
		return got
	}
	h, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("%s is a %T, want a Histogram[float64]", name, m.Data)
	}
	for _, dp := range h.DataPoints {
		got[encode(dp.Attributes)] = dp
	}
	return got
}

func encode(s attribute.Set) string { return s.Encoded(attribute.DefaultEncoder()) }

// ended returns the ended spans named name.
func (e *env) ended(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range e.spans.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// one returns the single ended span named name.
func (e *env) one(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	spans := e.ended(name)
	if len(spans) != 1 {
		t.Fatalf("%d spans named %q ended, want 1 (all: %v)", len(spans), name, spanNames(e.spans.Ended()))
	}
	return spans[0]
}

func spanNames(spans []sdktrace.ReadOnlySpan) []string {
	names := make([]string, len(spans))
	for i, s := range spans {
		names[i] = s.Name()
	}
	return names
}

// attrs returns a span's attributes as text.
func attrs(s sdktrace.ReadOnlySpan) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

// wantMap fails the test unless got equals want.
func wantMap[V comparable](t *testing.T, what string, got, want map[string]V) {
	t.Helper()
	if !maps.Equal(got, want) {
		t.Errorf("%s:\n got %s\nwant %s", what, sortedMap(got), sortedMap(want))
	}
}

func sortedMap[V any](m map[string]V) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, "\n  %s: %v", k, m[k])
	}
	return b.String()
}

// site is a TLS test origin that records the headers of every request.
type site struct {
	*httptest.Server
	mu      sync.Mutex // guards headers
	headers []http.Header
}

// skillsMD is a small valid skills.md.
const skillsMD = "# Tracker\n\nRead repair ticket status.\n\n## API\n\n- Base URL: https://tracker.example.com/api/v1\n"

// newSite serves skills.md, or h when it is not nil, over TLS on loopback.
func newSite(t *testing.T, h http.HandlerFunc) *site {
	t.Helper()
	if h == nil {
		h = func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != discovery.GuidePath {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
			fmt.Fprint(w, skillsMD)
		}
	}
	s := &site{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.headers = append(s.headers, r.Header.Clone())
		s.mu.Unlock()
		h(w, r)
	}))
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // handshakes cut short by Close
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// traceHeadersSeen returns the trace context headers the site received, by name.
func (s *site) traceHeadersSeen() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]int{}
	for _, h := range s.headers {
		for _, name := range traceHeaders {
			if h.Get(name) != "" {
				seen[name]++
			}
		}
	}
	return seen
}

func (s *site) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.headers)
}

// newClient returns a Client for s with e's hooks applied to opts.
func newClient(t *testing.T, s *site, e *env, opts *discovery.Options) *discovery.Client {
	t.Helper()
	var o discovery.Options
	if opts != nil {
		o = *opts
	}
	o.HTTPClient = s.Client()
	o.InsecureAllowPrivateOrigins = true // the test server is on loopback
	e.inst.Apply(&o)
	c, err := discovery.NewClient(&o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
