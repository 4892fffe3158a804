package discoveryotel

import (
	"errors"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// WrapTransport returns rt wrapped so that every request gets a client span, a child
// of the span in the request's context (the fetch span, for discovery fetches). It is a
// [discovery.WrapTransportFunc]: set [discovery.Options.WrapTransport] to the method
// value inst.WrapTransport, or use [Instrumentation.Apply].
//
// The wrapper adds trace context headers only to the requests [Options.PropagateTo]
// selects, and never otherwise. It does not modify the caller's request, and it
// forwards CloseIdleConnections to rt. A nil rt gives a transport that fails every
// request, rather than one that falls back to http.DefaultTransport. The zero
// Instrumentation returns rt unchanged.
func (i *Instrumentation) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	if i == nil || i.tracer == nil {
		return rt
	}
	return &transport{inst: i, base: rt}
}

// errNilTransport fails every request of a wrapper given no transport, rather than
// letting it fall back to http.DefaultTransport, which has no private-address guard.
var errNilTransport = errors.New("discoveryotel: WrapTransport was given a nil RoundTripper")

// transport is the RoundTripper WrapTransport returns.
type transport struct {
	inst *Instrumentation
	base http.RoundTripper // nil: every request fails
}

// RoundTrip implements [http.RoundTripper].
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.base == nil {
		closeBody(req)
		return nil, errNilTransport
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	attrs := []attribute.KeyValue{keyHTTPMethod.String(method)}
	if req.URL != nil {
		attrs = append(attrs, keyURLFull.String(secrets.RedactURL(req.URL.String())))
		if host := req.URL.Hostname(); host != "" {
			attrs = append(attrs, keyServerAddress.String(host))
		}
		if port := portOf(req); port > 0 {
			attrs = append(attrs, keyServerPort.Int(port))
		}
	}
	ctx, span := t.inst.tracer.Start(req.Context(), method,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	defer span.End()

	// Trace context goes only where the caller said it may: the documents come from
	// third-party sites, and a trace ID links requests that the site should not be
	// able to link. A request that is not selected leaves with exactly the headers it
	// came with.
	if t.inst.propagateTo != nil && t.inst.propagateTo(req) {
		req = req.Clone(ctx) // a RoundTripper must not modify the caller's request
		t.inst.propagator.Inject(ctx, propagation.HeaderCarrier(req.Header))
	} else {
		req = req.WithContext(ctx)
	}

	resp, err := t.base.RoundTrip(req)
	if err != nil {
		span.SetAttributes(keyErrorType.String(ErrorType(err)))
		span.SetStatus(codes.Error, secrets.ScrubError(err.Error()))
		return resp, err
	}
	span.SetAttributes(keyHTTPStatus.Int(resp.StatusCode))
	if resp.StatusCode >= 400 {
		span.SetAttributes(keyErrorType.String(strconv.Itoa(resp.StatusCode)))
		span.SetStatus(codes.Error, "")
	}
	return resp, nil
}

// CloseIdleConnections closes the idle connections of the wrapped transport, so that
// [http.Client.CloseIdleConnections] still reaches it.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// portOf returns the port req goes to: explicit, or the scheme's default.
func portOf(req *http.Request) int {
	if p := req.URL.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			return 0
		}
		return n
	}
	switch req.URL.Scheme {
	case "https":
		return 443
	case "http":
		return 80
	}
	return 0
}

// closeBody closes the body of a request that will not be sent, as a RoundTripper
// must.
func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}
