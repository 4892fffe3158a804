package discovery

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/wellknown-dev/discovery/internal/fetch"
)

// Fetching one discovery document. The rules (statuses, what is published, parsing,
// the last good copy) are the pipeline's document layer (internal/fetch/document.go);
// this file shares concurrent fetches, reports them, and converts the answer.

// fetchDoc retrieves one well-known document of origin o.
func fetchDoc[T any](ctx context.Context, c *Client, o Origin, spec docSpec[T]) outcome[T] {
	return fetchShared(ctx, c, o, o.String()+spec.path, spec)
}

// fetchShared is fetchURL with concurrent fetches of the same document collapsed into
// one request. Callers share a fetch only for the same kind, URL and discovery origin
// (the origin sets the private-address policy and the consent decisions of the
// fetch). Each caller gets its own copy of the outcome; the parsed document is shared
// and read-only.
func fetchShared[T any](ctx context.Context, c *Client, o Origin, u string, spec docSpec[T]) outcome[T] {
	shown := redactString(u)
	v, err := c.flight.Do(ctx, spec.key(u)+" for "+o.String(), func(ctx context.Context) any { return fetchURL(ctx, c, o, u, spec) })
	if err != nil {
		return outcome[T]{fetch: Fetch{URL: shown}, err: fmt.Errorf("discovery: GET %s: %w", shown, err)}
	}
	out, ok := v.(outcome[T])
	if !ok {
		// Unreachable with kind-keyed flights; an internal fault must not panic.
		return outcome[T]{fetch: Fetch{URL: shown}, err: fmt.Errorf("discovery: GET %s: %w", shown, fetch.InternalError(v))}
	}
	out.warnings = slices.Clone(out.warnings) // callers append to their copy
	return out
}

// fetchURL retrieves the document at u for a discovery of origin o.
func fetchURL[T any](ctx context.Context, c *Client, o Origin, u string, spec docSpec[T]) outcome[T] {
	var res fetch.Doc
	if c.observed() {
		var end func(*fetch.Doc)
		ctx, end = c.observeFetch(ctx, o, redactString(u), spec.Name)
		defer func() { end(&res) }()
	}
	res = c.docs.Get(ctx, fetch.Origin(o), privateOrigin(o), u, c.lgKey(o, u), &spec.Kind)
	out := outcome[T]{final: res.Final, err: res.Err, fresh: res.Fresh, size: res.Size, fetch: Fetch{
		URL: res.URL, FinalURL: res.FinalURL, StatusCode: res.Status, Source: Source(res.Source), Published: res.Published,
		Attempts: res.Attempts, Cause: res.Cause, SavedAt: res.SavedAt}}
	out.doc, _ = res.Doc.(*T)
	for _, w := range res.Warnings {
		out.warnings = append(out.warnings, Warning(w))
	}
	return out
}

// observeFetch starts the trace of a fetch and returns its context and the function
// that reports its end (EventFetch, and EventGuardRefused for a policy failure).
func (c *Client) observeFetch(ctx context.Context, o Origin, shown, kind string) (context.Context, func(*fetch.Doc)) {
	os := o.String()
	start := time.Now()
	ctx, end := c.trace(ctx, TraceFetch, Event{Kind: EventFetch, Origin: os, URL: shown, Doc: kind})
	return ctx, func(res *fetch.Doc) {
		e := Event{Kind: EventFetch, Origin: os, URL: shown, Doc: kind, Source: Source(res.Source),
			Status: res.Status, Attempts: res.Attempts, Duration: time.Since(start), Err: res.Err}
		if e.Err == nil {
			e.Err = res.Cause
		}
		if e.Status == 0 {
			e.Status = res.WireStatus // the last status on the wire, such as a refused redirect's
		}
		if e.Err != nil && policyError(e.Err) {
			c.emit(ctx, Event{Kind: EventGuardRefused, Origin: os, URL: shown, Err: e.Err})
		}
		c.emit(ctx, e)
		end(e)
	}
}

// observed reports whether anyone listens to the Client's events or traces it: the
// fast path skips the bookkeeping otherwise.
func (c *Client) observed() bool { return c.logger != nil || c.observe != nil || c.tracer != nil }
