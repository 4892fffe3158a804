package discovery

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// EventKind names what an [Event] reports. The names are stable: they are the value of
// the "event" key in log records and of the "event" attribute of metrics.
type EventKind string

// Event kinds. Each is logged at the level given (see [Options.Logger]) and passed to
// [Options.Observe].
const (
	EventDiscover        EventKind = "discover"         // Debug: a discovery ended; Err is set when it failed
	EventFetch           EventKind = "fetch"            // Debug: a document fetch ended; Source, Status, Attempts, Duration
	EventRetry           EventKind = "retry"            // Debug: a request is being sent again; Attempt counts from 1
	EventStale           EventKind = "stale"            // Warn: a last good copy was served; Err is the failure it stands in for
	EventConsentAsked    EventKind = "consent.asked"    // Info: the consent hook is being asked; Action, URL
	EventConsentAnswered EventKind = "consent.answered" // Info: it answered; Granted, Err when the hook failed
	EventGuardRefused    EventKind = "guard.refused"    // Warn: a request was refused by policy (private address, origin, write); Err says why
	EventStoreDegraded   EventKind = "store.degraded"   // Warn: a shared store (Redis) failed or was slow; the local tier answered
	EventStoreMiss       EventKind = "store.miss"       // Debug: a shared store had no usable entry (absent, expired, torn); URL, Doc ("cache" or "last-good")
	EventFleetWait       EventKind = "fleet.wait"       // Debug: another process holds the fetch of URL; Duration waited, Source cache when its result was used
)

// Event is one thing a [Client] (or a store plugged into it) did, for logs, metrics and
// traces. Only the fields that apply to the Kind are set. Every URL is redacted: no
// userinfo, query or fragment (the consent events of an agent's call name its query
// parameters, "?q=…&page=…", never their values).
type Event struct {
	Kind     EventKind
	Origin   string        // the discovery origin, when known
	URL      string        // the document or request URL
	Doc      string        // the document kind: "skills.md", "mcp.json", "skills-index"...
	Source   Source        // EventFetch: where the answer came from
	Status   int           // the last HTTP status seen; 0 if none
	Attempts int           // EventFetch: requests sent, retries included
	Attempt  int           // EventRetry: the retry number, from 1
	Action   ConsentAction // consent events
	Granted  bool          // EventConsentAnswered
	Duration time.Duration // how long the operation took
	Err      error         // the failure, when there was one
}

// ObserveFunc receives every [Event] a Client emits, for metrics or audit. It is called
// synchronously on the goroutine doing the work, so it must be fast, must not block, and
// must be safe for concurrent use. It must not keep the Event's Err beyond the call
// when that matters to the caller's memory budget.
type ObserveFunc func(ctx context.Context, e Event)

// TraceOp names the operation a [TraceFunc] is asked to trace.
type TraceOp string

// Traced operations.
const (
	TraceDiscover TraceOp = "discovery" // one Discover or Structured call; Event.Origin is set
	TraceFetch    TraceOp = "fetch"     // one document fetch; Event.URL and Event.Doc are set
)

// TraceFunc starts a span for op and returns the context that carries it and a function
// that ends it with the operation's outcome (Kind, Source, Status, Attempts, Err
// filled in as far as known). The Client calls end exactly once. It is how package
// discoveryotel adds OpenTelemetry spans without the core importing OpenTelemetry.
type TraceFunc func(ctx context.Context, op TraceOp, start Event) (context.Context, func(end Event))

// WrapTransportFunc wraps the transport of every request the Client sends (discovery
// fetches, redirects, artifacts, and agent calls through [Client.Guard]), for
// instrumentation. It is applied outside the private-address guard and the policy: the
// wrapper sees each request before the guard does and cannot let a request through
// that the guard refuses.
type WrapTransportFunc func(http.RoundTripper) http.RoundTripper

// levelOf is the log level of each event kind.
func levelOf(k EventKind) slog.Level {
	switch k {
	case EventStale, EventGuardRefused, EventStoreDegraded:
		return slog.LevelWarn
	case EventConsentAsked, EventConsentAnswered:
		return slog.LevelInfo
	}
	return slog.LevelDebug
}

// LogEvent writes e to logger as one record with stable keys: event, origin, url, doc,
// source, status, attempts, attempt, action, granted, duration, err (only those that
// are set). It is what a Client does with its own events; stores plugged into a Client
// (package redisstore) use it too, so that every record has the same shape.
func LogEvent(ctx context.Context, logger *slog.Logger, e Event) {
	if logger == nil {
		return
	}
	level := levelOf(e.Kind)
	if !logger.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 8)
	attrs = append(attrs, slog.String("event", string(e.Kind)))
	if e.Origin != "" {
		attrs = append(attrs, slog.String("origin", e.Origin))
	}
	if e.URL != "" {
		attrs = append(attrs, slog.String("url", e.URL))
	}
	if e.Doc != "" {
		attrs = append(attrs, slog.String("doc", e.Doc))
	}
	if e.Source != 0 {
		attrs = append(attrs, slog.String("source", e.Source.String()))
	}
	if e.Status != 0 {
		attrs = append(attrs, slog.Int("status", e.Status))
	}
	if e.Attempts != 0 {
		attrs = append(attrs, slog.Int("attempts", e.Attempts))
	}
	if e.Attempt != 0 {
		attrs = append(attrs, slog.Int("attempt", e.Attempt))
	}
	if e.Action != 0 {
		attrs = append(attrs, slog.String("action", e.Action.String()))
	}
	if e.Kind == EventConsentAnswered {
		attrs = append(attrs, slog.Bool("granted", e.Granted))
	}
	if e.Duration != 0 {
		attrs = append(attrs, slog.Duration("duration", e.Duration))
	}
	if e.Err != nil {
		attrs = append(attrs, slog.String("err", secrets.ScrubError(e.Err.Error())))
	}
	logger.LogAttrs(ctx, level, "discovery: "+string(e.Kind), attrs...)
}

// emit logs e and passes it to the observer.
func (c *Client) emit(ctx context.Context, e Event) {
	LogEvent(ctx, c.logger, e)
	if c.observe != nil {
		c.observe(ctx, e)
	}
}

// trace starts a span when a TraceFunc is set; end is never nil.
func (c *Client) trace(ctx context.Context, op TraceOp, start Event) (context.Context, func(Event)) {
	if c.tracer == nil {
		return ctx, func(Event) {}
	}
	tctx, end := c.tracer(ctx, op, start)
	if tctx == nil {
		tctx = ctx
	}
	if end == nil {
		end = func(Event) {}
	}
	return tctx, end
}
