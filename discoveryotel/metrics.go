package discoveryotel

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/wellknown-dev/discovery"
)

// Metric attribute keys: the keys of the Client's log records, and error.type from the
// semantic conventions.
const (
	keyEvent     = attribute.Key("event")
	keyOutcome   = attribute.Key("outcome")
	keyDoc       = attribute.Key("doc")
	keySource    = attribute.Key("source")
	keyStatus    = attribute.Key("status")
	keyAction    = attribute.Key("action")
	keyGranted   = attribute.Key("granted")
	keyReason    = attribute.Key("reason")
	keyErrorType = attribute.Key("error.type")
)

// Outcomes of a discovery, the value of discovery.outcome on spans and of outcome on
// discovery.discoveries.
const (
	outcomeOK           = "ok"
	outcomeNotPublished = "not_published"
	outcomeError        = "error"
)

// sourceNone is the source of a fetch that gave no document.
const sourceNone = "none"

// durationBuckets are the boundaries, in seconds, of discovery.fetch.duration: those the
// semantic conventions advise for http.client.request.duration.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// instruments are the metric instruments of an Instrumentation.
type instruments struct {
	events        metric.Int64Counter
	discoveries   metric.Int64Counter
	fetches       metric.Int64Counter
	fetchDuration metric.Float64Histogram
	stale         metric.Int64Counter
	retries       metric.Int64Counter
	consent       metric.Int64Counter
	refusals      metric.Int64Counter
	storeMisses   metric.Int64Counter
	storeDegraded metric.Int64Counter
}

func newInstruments(m metric.Meter) (*instruments, error) {
	var errs []error
	counter := func(name, unit, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	in := &instruments{
		events:      counter("discovery.events", "{event}", "Events emitted by discovery Clients, by kind."),
		discoveries: counter("discovery.discoveries", "{discovery}", "Ended discoveries, by outcome."),
		fetches:     counter("discovery.fetches", "{fetch}", "Ended document fetches, by document kind and source."),
		stale:       counter("discovery.stale", "{answer}", "Last good copies served in place of a failed fetch."),
		retries:     counter("discovery.retries", "{retry}", "Requests sent again."),
		consent:     counter("discovery.consent", "{answer}", "Consent hook answers, by action and grant."),
		refusals:    counter("discovery.guard.refusals", "{request}", "Requests refused by policy, by reason."),
		storeMisses: counter("discovery.store.misses", "{miss}", "Shared-store lookups with no usable entry."),
		storeDegraded: counter("discovery.store.degradations", "{degradation}",
			"Shared-store failures or slow answers for which the local tier answered."),
	}
	h, err := m.Float64Histogram("discovery.fetch.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of document fetches, retries and backoff included."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	in.fetchDuration = h
	if err := errors.Join(append(errs, err)...); err != nil {
		return nil, err
	}
	return in, nil
}

// Observe records e in the metrics. It is a [discovery.ObserveFunc]: set
// [discovery.Options.Observe] to the method value inst.Observe, or use
// [Instrumentation.Apply]. It does not block and is safe for concurrent use.
func (i *Instrumentation) Observe(ctx context.Context, e discovery.Event) {
	if i == nil || i.m == nil {
		return
	}
	m := i.m
	m.events.Add(ctx, 1, metric.WithAttributes(keyEvent.String(string(e.Kind))))
	switch e.Kind {
	case discovery.EventDiscover:
		attrs := []attribute.KeyValue{keyOutcome.String(outcomeOf(e.Err))}
		attrs = appendErrorType(attrs, e.Err)
		m.discoveries.Add(ctx, 1, metric.WithAttributes(attrs...))
	case discovery.EventFetch:
		doc, source := keyDoc.String(e.Doc), keySource.String(sourceOf(e.Source))
		m.fetches.Add(ctx, 1, metric.WithAttributes(appendErrorType([]attribute.KeyValue{doc, source}, e.Err)...))
		m.fetchDuration.Record(ctx, e.Duration.Seconds(), metric.WithAttributes(doc, source))
	case discovery.EventStale:
		m.stale.Add(ctx, 1, metric.WithAttributes(appendErrorType([]attribute.KeyValue{keyDoc.String(e.Doc)}, e.Err)...))
	case discovery.EventRetry:
		m.retries.Add(ctx, 1, metric.WithAttributes(keyDoc.String(e.Doc), keyStatus.String(statusOf(e.Status))))
	case discovery.EventConsentAnswered:
		attrs := []attribute.KeyValue{keyAction.String(actionOf(e.Action)), keyGranted.Bool(e.Granted)}
		m.consent.Add(ctx, 1, metric.WithAttributes(appendErrorType(attrs, e.Err)...))
	case discovery.EventGuardRefused:
		reason := ErrorType(e.Err)
		if reason == "" {
			reason = otherError
		}
		m.refusals.Add(ctx, 1, metric.WithAttributes(keyReason.String(reason)))
	case discovery.EventStoreMiss:
		m.storeMisses.Add(ctx, 1, metric.WithAttributes(keyDoc.String(e.Doc)))
	case discovery.EventStoreDegraded:
		m.storeDegraded.Add(ctx, 1, metric.WithAttributes(keyDoc.String(e.Doc)))
	}
}

// appendErrorType adds error.type when err is not nil.
func appendErrorType(attrs []attribute.KeyValue, err error) []attribute.KeyValue {
	if err == nil {
		return attrs
	}
	return append(attrs, keyErrorType.String(ErrorType(err)))
}

// outcomeOf classifies the error a discovery ended with.
func outcomeOf(err error) string {
	switch {
	case err == nil:
		return outcomeOK
	case errors.Is(err, discovery.ErrNotPublished):
		return outcomeNotPublished
	}
	return outcomeError
}

// sourceOf names s, and a fetch that gave no document "none".
func sourceOf(s discovery.Source) string {
	switch s {
	case discovery.SourceNetwork, discovery.SourceRevalidated, discovery.SourceCache, discovery.SourceStale:
		return s.String()
	}
	return sourceNone
}

// actionOf names a, keeping unknown values to one attribute value.
func actionOf(a discovery.ConsentAction) string {
	s := a.String()
	if strings.HasPrefix(s, "ConsentAction(") { // not an action this version of discovery knows
		return otherError
	}
	return s
}

// statusOf is the HTTP status as text, "" when there was none (a network failure).
func statusOf(status int) string {
	if status <= 0 {
		return ""
	}
	return strconv.Itoa(status)
}
