package discovery

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/wellknown-dev/discovery/internal/fetch"
)

// Fetching one discovery document: the pipeline (internal/fetch) gets the bytes; this
// file applies the document rules to them: what a status means, what counts as
// published, parsing (with a memo), and when the last good copy stands in.

// fetchDoc retrieves one well-known document of origin o.
func fetchDoc[T any](ctx context.Context, c *Client, o Origin, spec docSpec[T]) outcome[T] {
	os := o.String()
	return fetchSharedKey(ctx, c, o, os+spec.path, spec, spec.kind+" "+os+spec.path+" for "+os)
}

// fetchShared is fetchURL with concurrent fetches of the same URL collapsed into one
// request. Each caller gets its own copy of the outcome; the parsed document is shared
// and read-only.
func fetchShared[T any](ctx context.Context, c *Client, o Origin, u string, spec docSpec[T]) outcome[T] {
	return fetchSharedKey(ctx, c, o, u, spec, spec.key(u)+" for "+o.String())
}

// fetchSharedKey is fetchShared with the flight key built by the caller: callers share a
// fetch only for the same kind, URL and discovery origin (the origin sets the
// private-address policy and the consent decisions of the fetch).
func fetchSharedKey[T any](ctx context.Context, c *Client, o Origin, u string, spec docSpec[T], key string) outcome[T] {
	shown := redactString(u)
	v, err := c.flight.Do(ctx, key, func(ctx context.Context) any { return fetchURL(ctx, c, o, u, spec) })
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

// docFetch is one document fetch in progress: what fetchURL works on.
type docFetch[T any] struct {
	c      *Client
	ctx    context.Context
	o      Origin
	u      string // the URL requested
	shown  string // what errors, warnings and Fetch report: no userinfo, query or fragment
	spec   docSpec[T]
	out    outcome[T]
	status int // the last status seen on the wire, for events
}

// fetchURL retrieves the document at u for a discovery of origin o:
//
//  1. GET it through the pipeline (retries, cache, revalidation, redirects, guard);
//  2. judge the status: 200 goes on, 404 and 410 mean not published (and forget the
//     last good copy), anything else is a failure;
//  3. judge the content: an HTML page is not published, an empty body is a failure;
//  4. parse it (through the memo);
//  5. keep it: revalidation state, and the last good copy.
//
// A failure serves the last good copy when the failure allows it (fail).
func fetchURL[T any](ctx context.Context, c *Client, o Origin, u string, spec docSpec[T]) outcome[T] {
	f := &docFetch[T]{c: c, ctx: ctx, o: o, u: u, shown: redactString(u), spec: spec}
	f.out.fetch.URL = f.shown
	if c.observed() {
		var end func()
		f.ctx, end = f.observe()
		defer end()
	}
	res, err := c.fetcher.Get(f.ctx, docRequest(c, o, u, spec))
	f.out.fetch.Attempts, f.status = res.Attempts, res.WireStatus
	if res.Status == 0 { // no answer
		return f.fail(&FetchError{URL: f.shown, Attempts: res.Attempts, Err: unwrapURLError(err)}, !policyError(err))
	}
	f.answered(&res)
	switch code := res.Status; {
	case code == http.StatusOK:
	case code == http.StatusNotFound || code == http.StatusGone:
		// Authoritative: the document is not published, and no older copy may stand in.
		c.lastGood.Delete(c.lgKey(o, u))
		return f.out
	default:
		herr := &HTTPError{URL: f.shown, StatusCode: code, Attempts: res.Attempts}
		if res.RetryAfter > c.maxRetryAfter {
			herr.Err = fmt.Errorf("%w (%s > %s)", ErrRetryAfterTooLong, res.RetryAfter, c.maxRetryAfter)
		}
		return f.fail(herr, code >= 500 || code == http.StatusTooManyRequests || code == http.StatusRequestTimeout)
	}
	return f.content(&res, err)
}

// docRequest returns the pipeline request of the document at u.
func docRequest[T any](c *Client, o Origin, u string, spec docSpec[T]) *fetch.Request {
	r := c.request(o, u, http.Header{"Accept": {spec.accept}, "User-Agent": {c.userAgent}})
	r.Doc, r.Revalidate = spec.kind, true
	// Static hosts answer unknown paths with their home page: not a document, and not
	// read (so the HTTP cache stores nothing of it).
	r.Read = func(resp *http.Response) bool { return !htmlType(fetch.MediaType(resp.Header.Get("Content-Type"))) }
	return r
}

// htmlType reports an HTML media type.
func htmlType(mt string) bool { return mt == "text/html" || mt == "application/xhtml+xml" }

// answered records the answer's status, source, final URL and freshness.
func (f *docFetch[T]) answered(res *fetch.Result) {
	out := &f.out
	out.fetch.StatusCode, out.fetch.Source = res.Status, Source(res.Source)
	if res.Source == fetch.SourceRevalidated {
		out.fetch.StatusCode = http.StatusNotModified
	}
	out.fetch.FinalURL, out.final = f.shown, f.u
	if res.Final != nil {
		out.fetch.FinalURL, out.final = redact(res.Final), res.Final.String()
	}
	out.fresh = res.Fresh // reset by fail: only a definite answer is kept
}

// content applies the content rules to a 200 and parses it; readErr is the body's.
func (f *docFetch[T]) content(res *fetch.Result, readErr error) outcome[T] {
	c, out := f.c, &f.out
	ctype := res.Header.Get("Content-Type")
	mt := fetch.MediaType(ctype)
	if htmlType(mt) {
		return *out
	}
	if readErr != nil {
		return f.fail(&FetchError{URL: f.shown, Attempts: res.Attempts, Err: readErr}, true)
	}
	body := res.Body
	if fetch.LooksLikeHTML(body) {
		return *out
	}
	if len(bytes.TrimSpace(body)) == 0 {
		// An empty 200 is a broken deploy, not a document that says nothing.
		return f.fail(&FetchError{URL: f.shown, Attempts: res.Attempts, Err: errEmptyBody}, true)
	}
	out.fetch.Published = true
	if !f.spec.typeOK(mt) {
		shown := mt
		if shown == "" {
			shown = "no Content-Type"
		}
		out.warnings = append(out.warnings, Warning{Code: WarnContentType, URL: shown,
			Message: fmt.Sprintf("served as %s; read anyway", shown)})
	}
	doc, ws, err := parseMemo(c, f.u, out.final, body, f.spec)
	if err != nil {
		out.fetch.Published = false
		return f.fail(&FetchError{URL: f.shown, Attempts: res.Attempts, Err: err}, true)
	}
	out.doc, out.warnings, out.size = doc, append(out.warnings, ws...), len(body)
	c.fetcher.Remember(res)
	if out.fetch.Source != SourceCache && !movedAway(f.u, out.final) {
		c.lastGood.Store(c.lgKey(f.o, f.u), LastGood{Kind: f.spec.kind, Body: body, ContentType: ctype, SavedAt: c.now()})
	}
	return *out
}

// fail serves the last good copy when the failure allows it (fallback), else records
// the error.
func (f *docFetch[T]) fail(cause error, fallback bool) outcome[T] {
	c, out := f.c, &f.out
	out.fetch.Cause, out.fresh = nil, time.Time{}
	if fallback && f.ctx.Err() == nil {
		if doc, ws, lg, ok := recall(c, c.lgKey(f.o, f.u), f.u, f.spec); ok {
			out.doc, out.warnings = doc, append(ws, Warning{Code: WarnStale, URL: f.shown,
				Message: fmt.Sprintf("serving the copy fetched %s ago: %v", c.now().Sub(lg.SavedAt).Round(time.Second), cause)})
			out.fetch.Source, out.fetch.Cause, out.fetch.SavedAt, out.fetch.Published = SourceStale, cause, lg.SavedAt, true
			c.emit(f.ctx, Event{Kind: EventStale, Origin: f.o.String(), URL: f.shown, Doc: f.spec.kind, Err: cause})
			return *out
		}
	}
	if err := f.ctx.Err(); err != nil {
		cause = fmt.Errorf("discovery: GET %s: %w", f.shown, err)
	}
	out.err = cause
	return *out
}

// observe starts the trace of the fetch and returns its context and the function
// that reports its end (EventFetch, and EventGuardRefused for a policy failure).
func (f *docFetch[T]) observe() (context.Context, func()) {
	c, os := f.c, f.o.String()
	start := time.Now()
	ctx, end := c.trace(f.ctx, TraceFetch, Event{Kind: EventFetch, Origin: os, URL: f.shown, Doc: f.spec.kind})
	return ctx, func() {
		out := &f.out
		e := Event{Kind: EventFetch, Origin: os, URL: f.shown, Doc: f.spec.kind, Source: out.fetch.Source,
			Status: out.fetch.StatusCode, Attempts: out.fetch.Attempts, Duration: time.Since(start), Err: out.err}
		if e.Err == nil {
			e.Err = out.fetch.Cause
		}
		if e.Status == 0 {
			e.Status = f.status // the last status on the wire, such as a refused redirect's
		}
		if e.Err != nil && policyError(e.Err) {
			c.emit(ctx, Event{Kind: EventGuardRefused, Origin: os, URL: f.shown, Err: e.Err})
		}
		c.emit(ctx, e)
		end(e)
	}
}

// parsed is the newest parse of one URL's body: a fresh cache hit or a 304 gives the
// same bytes again, and parsing them again would cost more than everything else.
type parsed struct {
	body     []byte
	doc      any
	warnings []Warning
}

// parseMemo parses body, or returns the parse of the same bytes from the last time.
// The document is shared and read-only, as it already is between concurrent callers.
func parseMemo[T any](c *Client, u, docURL string, body []byte, spec docSpec[T]) (*T, []Warning, error) {
	key := spec.key(u) // mcpjson judges endpoints against docURL: it is part of the key
	if docURL != u {
		key += " from " + docURL
	}
	if p, ok := c.parsed.Get(key); ok {
		if bytes.Equal(p.body, body) {
			if doc, ok := p.doc.(*T); ok {
				return doc, slices.Clone(p.warnings), nil
			}
		}
	}
	doc, ws, err := spec.parse(body, docURL)
	if err != nil {
		return nil, nil, err
	}
	for i := range ws {
		ws[i].URL = redactString(u)
	}
	// The cost counts the body twice: once kept, once for the parsed document.
	c.parsed.Set(key, &parsed{body: bytes.Clone(body), doc: doc, warnings: slices.Clone(ws)}, int64(2*len(body)+len(key)))
	return doc, ws, nil
}

// errEmptyBody is the cause recorded for a 200 with an empty body.
var errEmptyBody = errors.New("discovery: empty document")

// recall returns the parsed last good copy of u, if one is young enough.
func recall[T any](c *Client, key, u string, spec docSpec[T]) (*T, []Warning, LastGood, bool) {
	if c.maxStale < 0 {
		return nil, nil, LastGood{}, false
	}
	lg, ok := c.lastGood.Load(key)
	// A copy saved as another kind of document (one URL can be fetched as several) is
	// not this document; one with no kind (stored by the caller) must parse as it.
	if !ok || c.now().Sub(lg.SavedAt) > c.maxStale || (lg.Kind != "" && lg.Kind != spec.kind) {
		return nil, nil, LastGood{}, false
	}
	doc, ws, err := parseMemo(c, u, u, lg.Body, spec) // usually the bytes parsed last time
	if err != nil {
		return nil, nil, LastGood{}, false
	}
	return doc, ws, lg, true
}

// observed reports whether anyone listens to the Client's events or traces it: the
// fast path skips the bookkeeping otherwise.
func (c *Client) observed() bool { return c.logger != nil || c.observe != nil || c.tracer != nil }

// movedAway reports a document fetched at u that came from another origin (final,
// through consented redirects). It is not kept as u's last good copy, as it is not
// kept in the HTTP cache: when u later fails, serving it would stand in for the
// redirects and their consent, under u's name.
func movedAway(u, final string) bool {
	if final == u {
		return false
	}
	a, err1 := url.Parse(u)
	b, err2 := url.Parse(final)
	return err1 != nil || err2 != nil || !sameOrigin(a, b)
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	if a == b || strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host) {
		return true // the common case, without parsing
	}
	oa, err := originOf(a)
	if err != nil {
		return false
	}
	ob, err := originOf(b)
	return err == nil && oa == ob
}
