package discoveryotel

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Span names.
const (
	spanDiscover = "discovery.discover"
	spanFetch    = "discovery.fetch"
)

// Span attribute keys: semantic conventions where one fits, discovery.* otherwise.
const (
	keyURLFull       = attribute.Key("url.full")
	keyHTTPMethod    = attribute.Key("http.request.method")
	keyHTTPStatus    = attribute.Key("http.response.status_code")
	keyServerAddress = attribute.Key("server.address")
	keyServerPort    = attribute.Key("server.port")
	keySpanOrigin    = attribute.Key("discovery.origin")
	keySpanOutcome   = attribute.Key("discovery.outcome")
	keySpanDoc       = attribute.Key("discovery.doc")
	keySpanSource    = attribute.Key("discovery.source")
	keySpanAttempts  = attribute.Key("discovery.attempts")
)

// Trace starts a span for op: "discovery.discover" for [discovery.TraceDiscover],
// "discovery.fetch" for [discovery.TraceFetch], "discovery." + op for any other. It is a
// [discovery.TraceFunc]: set [discovery.Options.Trace] to the method value inst.Trace,
// or use [Instrumentation.Apply]. The returned function ends the span with the
// outcome's attributes and status; calling it more than once has no further effect.
func (i *Instrumentation) Trace(ctx context.Context, op discovery.TraceOp, start discovery.Event) (context.Context, func(discovery.Event)) {
	if i == nil || i.tracer == nil {
		return ctx, func(discovery.Event) {}
	}
	var (
		name  string
		attrs []attribute.KeyValue
	)
	switch op {
	case discovery.TraceDiscover:
		name = spanDiscover
	case discovery.TraceFetch:
		name = spanFetch
	default:
		name = "discovery." + string(op)
	}
	if start.Origin != "" {
		attrs = append(attrs, keySpanOrigin.String(secrets.RedactURL(start.Origin)))
	}
	if start.URL != "" {
		attrs = append(attrs, keyURLFull.String(secrets.RedactURL(start.URL)))
	}
	if start.Doc != "" {
		attrs = append(attrs, keySpanDoc.String(start.Doc))
	}
	ctx, span := i.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return ctx, func(end discovery.Event) {
		if !span.IsRecording() {
			span.End()
			return
		}
		var attrs []attribute.KeyValue
		if op == discovery.TraceDiscover {
			attrs = append(attrs, keySpanOutcome.String(outcomeOf(end.Err)))
		}
		if end.Source != 0 {
			attrs = append(attrs, keySpanSource.String(sourceOf(end.Source)))
		}
		if end.Status != 0 {
			attrs = append(attrs, keyHTTPStatus.Int(end.Status))
		}
		if end.Attempts != 0 {
			attrs = append(attrs, keySpanAttempts.Int(end.Attempts))
		}
		if end.Doc != "" && start.Doc == "" {
			attrs = append(attrs, keySpanDoc.String(end.Doc))
		}
		attrs = appendErrorType(attrs, end.Err)
		span.SetAttributes(attrs...)
		setErrorStatus(span, end.Err)
		span.End()
	}
}

// setErrorStatus marks span as failed by err. A document or origin that is not
// published is an answer, not a failure, and leaves the status unset.
func setErrorStatus(span trace.Span, err error) {
	if err == nil || errors.Is(err, discovery.ErrNotPublished) {
		return
	}
	span.SetStatus(codes.Error, secrets.ScrubError(err.Error()))
}
