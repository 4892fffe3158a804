// Package discoveryotel reports what a [discovery.Client] does as OpenTelemetry spans
// and metrics. The discovery package itself does not import OpenTelemetry: it exposes
// hooks ([discovery.ObserveFunc], [discovery.TraceFunc], [discovery.WrapTransportFunc])
// and this package implements them on the OpenTelemetry API. Programs that do not
// import discoveryotel do not link OpenTelemetry.
//
// # Quick start
//
//	inst, err := discoveryotel.New(nil) // the global TracerProvider and MeterProvider
//	if err != nil {
//		return err
//	}
//	opts := &discovery.Options{Consent: askUser}
//	inst.Apply(opts) // sets Observe, Trace and WrapTransport, keeping hooks already set
//	c, err := discovery.NewClient(opts)
//
// # Spans
//
// Span names and their attributes are stable:
//
//   - "discovery.discover" (internal): one per [discovery.Client.Discover] or
//     [discovery.Client.Structured] call. Attributes: discovery.origin,
//     discovery.outcome ("ok", "not_published" or "error"), error.type on failure.
//   - "discovery.fetch" (internal): one per document fetch, a child of the discovery
//     span. Attributes: discovery.origin, url.full, discovery.doc ("skills.md", "mcp.json",
//     "skills-index"...), discovery.source ("network", "revalidated", "cache",
//     "stale"), http.response.status_code, discovery.attempts, error.type.
//   - the HTTP method, such as "GET" (client): one per HTTP request the Client sends
//     (each retry and each redirect hop is a request), a child of the fetch span, from
//     the transport wrapper. Attributes: http.request.method, url.full, server.address,
//     server.port, http.response.status_code, error.type. The span ends when the
//     response headers arrive.
//
// A span's status is Error when its operation failed, except that an origin or a
// document that is not published ([discovery.ErrNotPublished]) is an answer, not a
// failure: the span says so in discovery.outcome or error.type and keeps an unset
// status. An HTTP span is an Error for any status of 400 or more, as the semantic
// conventions ask of client spans.
//
// url.full never holds userinfo, a query string or a fragment, and credentials found
// in the path are redacted. error.type is a short stable name (see [ErrorType]).
//
// # Metrics
//
// Instrument names and attributes are stable. Attribute keys are those of the
// Client's log records (see [discovery.LogEvent]); origins and URLs are never metric
// attributes, so the number of series stays bounded.
//
//   - discovery.events{event}: every [discovery.Event], by kind.
//   - discovery.discoveries{outcome, error.type}: ended discoveries.
//   - discovery.fetches{doc, source, error.type}: ended document fetches; source is
//     "network", "revalidated", "cache", "stale", or "none" when the fetch gave no
//     document.
//   - discovery.fetch.duration{doc, source} (histogram, seconds): fetch durations.
//   - discovery.stale{doc, error.type}: last good copies served in place of a failed
//     fetch; error.type is the failure they stand in for.
//   - discovery.retries{doc, status}: requests sent again.
//   - discovery.consent{action, granted, error.type}: consent hook answers; action is
//     "redirect", "connect", "cross-origin", "write" or "artifact".
//   - discovery.guard.refusals{reason}: requests refused by policy; reason is an
//     [ErrorType] such as "private_address" or "cross_origin".
//   - discovery.store.misses{doc}: a shared store (Redis) had no usable entry; doc is
//     "cache" or "last-good".
//   - discovery.store.degradations{doc}: a shared store failed or was slow and the
//     local tier answered.
//
// A shared store reports its own events, not through the Client: set its Observe
// option (redisstore.Options.Observe) to the method value inst.Observe too.
//
// # Trace context propagation
//
// No trace context header (traceparent, tracestate, baggage, b3 or any other header
// a propagator writes) is sent by default: the documents come from third-party sites,
// and a trace ID tells a site which requests belong together. [Options.PropagateTo]
// opts in per request, for the origins the caller runs itself. The transport wrapper
// only adds headers; an instrumented transport passed in [discovery.Options.HTTPClient]
// (such as otelhttp's) writes its own, so do not use one there.
//
// # Concurrency
//
// An [Instrumentation] is immutable after [New] and safe for concurrent use by
// multiple goroutines; one may serve several Clients.
package discoveryotel

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/wellknown-dev/discovery"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/wellknown-dev/discovery/discoveryotel"

// Options configures an [Instrumentation]. A nil *Options, or a zero Options, uses the
// global providers and propagates no trace context.
type Options struct {
	// TracerProvider creates the tracer. nil: [otel.GetTracerProvider] at the time of
	// New, which forwards to a provider set later with otel.SetTracerProvider.
	TracerProvider trace.TracerProvider

	// MeterProvider creates the meter. nil: [otel.GetMeterProvider] at the time of New,
	// which forwards to a provider set later with otel.SetMeterProvider.
	MeterProvider metric.MeterProvider

	// Propagator writes trace context into the requests PropagateTo selects. nil: the
	// global propagator ([otel.GetTextMapPropagator]). It is never used for a request
	// PropagateTo does not select.
	Propagator propagation.TextMapPropagator

	// PropagateTo reports whether the trace context may be sent with req: typically
	// true for the origins the caller runs itself. It is called for every request the
	// Client sends, redirect hops, retries and agent calls through
	// [discovery.Client.Guard] included, possibly from several goroutines at
	// once; it must be fast and must not modify req. nil: never, so no trace context
	// header reaches a third-party site.
	PropagateTo func(req *http.Request) bool
}

// Instrumentation turns a Client's events into OpenTelemetry spans and metrics. Create
// it with [New]; its methods [Instrumentation.Observe], [Instrumentation.Trace] and
// [Instrumentation.WrapTransport] are the hooks, and [Instrumentation.Apply] installs
// them. The zero Instrumentation, and a nil one, is usable and records nothing. It is
// immutable and safe for concurrent use by multiple goroutines.
type Instrumentation struct {
	tracer      trace.Tracer // nil in the zero Instrumentation
	propagator  propagation.TextMapPropagator
	propagateTo func(*http.Request) bool
	m           *instruments // nil in the zero Instrumentation
}

// New returns an Instrumentation for opts, which may be nil. It fails only when the
// MeterProvider refuses to create an instrument.
func New(opts *Options) (*Instrumentation, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.TracerProvider == nil {
		o.TracerProvider = otel.GetTracerProvider()
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otel.GetMeterProvider()
	}
	if o.Propagator == nil {
		o.Propagator = otel.GetTextMapPropagator()
	}
	m, err := newInstruments(o.MeterProvider.Meter(ScopeName, metric.WithInstrumentationVersion(discovery.Version)))
	if err != nil {
		return nil, err
	}
	return &Instrumentation{
		tracer:      o.TracerProvider.Tracer(ScopeName, trace.WithInstrumentationVersion(discovery.Version)),
		propagator:  o.Propagator,
		propagateTo: o.PropagateTo,
		m:           m,
	}, nil
}

// Apply installs i's hooks in opts: Observe, Trace and WrapTransport. A hook already
// set in opts is kept and chained: its Observe is called before i's, its Trace span
// encloses i's, and its WrapTransport wraps the transport inside i's. Applying the
// same Instrumentation twice installs its hooks twice, and counts everything twice.
// Apply does nothing when opts or i is nil.
func (i *Instrumentation) Apply(opts *discovery.Options) {
	if opts == nil || i == nil {
		return
	}
	opts.Observe = chainObserve(opts.Observe, i.Observe)
	opts.Trace = chainTrace(opts.Trace, i.Trace)
	opts.WrapTransport = chainWrap(opts.WrapTransport, i.WrapTransport)
}

func chainObserve(first, second discovery.ObserveFunc) discovery.ObserveFunc {
	if first == nil {
		return second
	}
	return func(ctx context.Context, e discovery.Event) {
		first(ctx, e)
		second(ctx, e)
	}
}

func chainTrace(outer, inner discovery.TraceFunc) discovery.TraceFunc {
	if outer == nil {
		return inner
	}
	return func(ctx context.Context, op discovery.TraceOp, start discovery.Event) (context.Context, func(discovery.Event)) {
		octx, oend := outer(ctx, op, start)
		if octx == nil {
			octx = ctx
		}
		ictx, iend := inner(octx, op, start)
		return ictx, func(e discovery.Event) {
			iend(e)
			if oend != nil {
				oend(e)
			}
		}
	}
}

func chainWrap(inner, outer discovery.WrapTransportFunc) discovery.WrapTransportFunc {
	if inner == nil {
		return outer
	}
	return func(rt http.RoundTripper) http.RoundTripper { return outer(inner(rt)) }
}
