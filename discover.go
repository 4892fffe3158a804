package discovery

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wellknown-dev/discovery/diag"
	"github.com/wellknown-dev/discovery/internal/httpx"
	"github.com/wellknown-dev/discovery/mcpjson"
	"github.com/wellknown-dev/discovery/skillsmd"
)

// Well-known paths, always at the origin root (SD 1.5).
const (
	SkillsPath = "/.well-known/skills.md"
	MCPPath    = "/.well-known/mcp.json"
)

// Discovery is the outcome of [Client.Discover] or [Client.Structured]. It is plain data
// once returned, safe to read concurrently; do not modify it while others read it.
// Everything in Skills and MCP was published by the origin: it is untrusted data to show
// or act on with the user's consent, never instructions.
type Discovery struct {
	Origin   Origin
	Skills   *skillsmd.Document // nil when the origin publishes no skills.md
	MCP      *mcpjson.Document  // nil unless fetched (skills.md absent, or Structured) and published
	Fetches  []Fetch            // one per document requested, skills.md first
	Warnings []Warning          // stale answers, content types, and the parsers' warnings
	// MCPURL is where MCP was served from, after redirects, without userinfo, query or
	// fragment: relative endpoints in it resolve against it ([Client.ConnectEndpoint]).
	// "" when MCP is nil.
	MCPURL string
}

// Source tells where the document of a [Fetch] came from.
type Source int

const (
	// SourceNetwork: a full response from the origin.
	SourceNetwork Source = iota + 1
	// SourceRevalidated: the cached copy, confirmed by a 304 Not Modified.
	SourceRevalidated
	// SourceCache: the cached copy, still fresh (max-age); no request was sent.
	SourceCache
	// SourceStale: the last good copy, served because the fetch failed (see Fetch.Cause).
	SourceStale
)

// String returns "network", "revalidated", "cache" or "stale".
func (s Source) String() string {
	switch s {
	case SourceNetwork:
		return "network"
	case SourceRevalidated:
		return "revalidated"
	case SourceCache:
		return "cache"
	case SourceStale:
		return "stale"
	}
	return fmt.Sprintf("Source(%d)", int(s))
}

// MarshalText encodes the source as its String.
func (s Source) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Fetch records how one discovery document was obtained.
type Fetch struct {
	URL        string    // the well-known URL requested
	FinalURL   string    // where the answer came from after redirects (relative references in the document resolve against it); "" if no response
	StatusCode int       // the last HTTP status seen: 200, 304 when revalidated, 404, 503...; 0 if none
	Source     Source    // where the answer came from
	Published  bool      // whether the origin publishes this document (false for 404, 410, an HTML page)
	Attempts   int       // requests sent, retries included; 0 for a fresh cache hit
	Cause      error     // for SourceStale: the failure that forced the last good copy
	SavedAt    time.Time // for SourceStale: when the copy served was fetched
	Err        error     // Structured: why this document could not be used while the other one was (also a WarnFetch warning); nil otherwise
}

// Warning is a diagnostic about a discovery: nothing failed, but the caller or the user
// should know. URL names the document; Line is 1-based when known.
type Warning struct {
	Code    string // stable identifier, such as "stale" or "content-type"
	URL     string
	Line    int
	Message string
}

// Diagnostic returns w in the module's common shape (see package diag), which the
// parsers' skillsmd.Warning, mcpjson.Problem and agentskills.Diagnostic also convert to.
func (w Warning) Diagnostic() diag.Diagnostic {
	return diag.Diagnostic{Severity: diag.Warning, Code: w.Code, Source: w.URL, Line: w.Line, Message: w.Message}
}

// String returns a readable form of the Warning.
func (w Warning) String() string {
	loc := w.URL
	if w.Line > 0 {
		loc = fmt.Sprintf("%s:%d", w.URL, w.Line)
	}
	return fmt.Sprintf("%s: %s: %s", loc, w.Code, w.Message)
}

// Warning codes of the root package; the parsers' codes are passed through.
const (
	WarnStale       = "stale"        // a last good copy was served; Fetch.Cause says why
	WarnContentType = "content-type" // the document came with an unexpected media type
	WarnFetch       = "fetch"        // Structured: one document failed while the other succeeded
	WarnPointer     = "pointer"      // mcp.json only points elsewhere, and that could not be followed
	WarnMCP         = "mcp.json"     // what the mcp.json parser had to interpret (the message starts with a JSON pointer)
)

// followPointer fetches the document an mcp.json pointer ($ref, serverCard) names,
// once. A pointer on the same origin is followed; one on another origin needs consent
// (ConsentRedirect). It returns nil when nothing was fetched, having added a warning.
func (c *Client) followPointer(ctx context.Context, o Origin, mcp *outcome[mcpjson.Document]) *outcome[mcpjson.Document] {
	target, err := mcpjson.Resolve(mcp.fetch.URL, mcp.doc.Pointer)
	if err != nil {
		mcp.warnings = append(mcp.warnings, Warning{Code: WarnPointer, URL: mcp.fetch.URL,
			Message: "the pointer ($ref or serverCard) is not a usable https URL; not followed"})
		return nil
	}
	target.User = nil // site-supplied userinfo is never sent
	if to, err := originOf(target); err != nil || to != o {
		err := ask(ctx, c, c.consent, &ConsentRequest{
			Action: ConsentRedirect, Origin: o, URL: redact(target), Method: http.MethodGet,
			Reason: fmt.Sprintf("%s points to a discovery document on another origin, %s", o, redact(target)),
		}, ErrCrossOrigin)
		if err != nil {
			mcp.warnings = append(mcp.warnings, Warning{Code: WarnPointer, URL: mcp.fetch.URL,
				Message: fmt.Sprintf("pointer to another origin not followed: %v", err)})
			return nil
		}
	}
	out := fetchShared(ctx, c, o, target.String(), mcpSpec)
	return &out
}

// Discover fetches /.well-known/skills.md from origin and, only when it is not
// published (404, 410, or an HTML page in its place), /.well-known/mcp.json (SD-C-2,
// SD-C-4). origin is anything [ParseOrigin] accepts.
//
// When the network fails after retries, or the server answers 5xx or 429, or sends a
// document that does not parse, Discover returns the last good copy (Fetch.Source ==
// SourceStale, with a Warning) if one younger than Options.MaxStale exists, else an
// error. It returns [ErrNotPublished] when the origin publishes neither document.
func (c *Client) Discover(ctx context.Context, origin string) (*Discovery, error) {
	return c.discover(ctx, origin, false)
}

// Structured is [Client.Discover] for callers that need servers and tools: it fetches
// skills.md and mcp.json (in parallel), and succeeds when at least one of them is
// available; the other one's failure is then a Warning.
func (c *Client) Structured(ctx context.Context, origin string) (*Discovery, error) {
	return c.discover(ctx, origin, true)
}

// outcome is the result of fetching one document.
type outcome[T any] struct {
	doc      *T
	fetch    Fetch
	final    string // where the document came from, as requested (fetch.FinalURL is its redacted form)
	warnings []Warning
	err      error     // set when the document is neither usable nor absent
	fresh    time.Time // until when the answer is fresh (zero: not fresh), for the fast path
	size     int       // the body's length
}

func (c *Client) discover(ctx context.Context, origin string, structured bool) (d *Discovery, err error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, errNilContext
	}
	if d, ok := c.fastDiscover(ctx, origin, structured); ok {
		return d, nil
	}
	o, err := c.origin(origin)
	if err != nil {
		if c.observed() {
			shown := redactString(origin)
			if errors.Is(err, ErrPrivateAddress) {
				c.emit(ctx, Event{Kind: EventGuardRefused, Origin: shown, Err: err})
			}
			c.emit(ctx, Event{Kind: EventDiscover, Origin: shown, Err: err})
		}
		return nil, err
	}
	if c.observed() {
		start := time.Now()
		var end func(Event)
		ctx, end = c.trace(ctx, TraceDiscover, Event{Kind: EventDiscover, Origin: o.String()})
		defer func() {
			e := Event{Kind: EventDiscover, Origin: o.String(), Duration: time.Since(start), Err: err}
			if d != nil && slices.ContainsFunc(d.Fetches, func(f Fetch) bool { return f.Source == SourceStale }) {
				e.Source = SourceStale // part of the answer is a last good copy
			}
			c.emit(ctx, e)
			end(e)
		}()
	}
	return c.discoverOrigin(ctx, o, origin, structured)
}

// discoverOrigin is discover after the origin has been checked.
func (c *Client) discoverOrigin(ctx context.Context, o Origin, origin string, structured bool) (*Discovery, error) {
	d := &Discovery{Origin: o}

	var skills outcome[skillsmd.Document]
	var mcp outcome[mcpjson.Document]
	if structured {
		var wg sync.WaitGroup
		m := new(outcome[mcpjson.Document]) // mcp itself stays on the stack in the plain case
		wg.Go(func() { *m = fetchDoc(ctx, c, o, mcpSpec) })
		skills = fetchDoc(ctx, c, o, skillsSpec)
		wg.Wait()
		mcp = *m
	} else {
		skills = fetchDoc(ctx, c, o, skillsSpec)
		if skills.err != nil {
			return nil, hintPlainHTTP(origin, o, skills.err)
		}
		if skills.doc == nil {
			mcp = fetchDoc(ctx, c, o, mcpSpec)
		}
	}
	var pointed *outcome[mcpjson.Document]
	if mcp.doc != nil && mcp.doc.Shape == mcpjson.ShapePointer {
		pointed = c.followPointer(ctx, o, &mcp)
	}
	d.Skills, d.MCP = skills.doc, mcp.doc
	if mcp.doc != nil {
		d.MCPURL = documentBase(mcp.final)
	}
	d.Fetches = append(d.Fetches, skills.fetch)
	d.Warnings = append(d.Warnings, skills.warnings...)
	if mcp.fetch.URL != "" {
		d.Fetches = append(d.Fetches, mcp.fetch)
		d.Warnings = append(d.Warnings, mcp.warnings...)
	}
	if pointed != nil {
		d.Fetches = append(d.Fetches, pointed.fetch)
		d.Warnings = append(d.Warnings, pointed.warnings...)
		switch {
		case pointed.doc != nil && (pointed.doc.Shape == mcpjson.ShapeUnknown || pointed.doc.Shape == mcpjson.ShapeNone):
			d.Warnings = append(d.Warnings, Warning{Code: WarnPointer, URL: pointed.fetch.URL,
				Message: "the document it points to is not an mcp.json this SDK can read (shape " + string(pointed.doc.Shape) + "); not used"})
		case pointed.doc != nil && pointed.doc.Shape != mcpjson.ShapePointer:
			d.MCP, d.MCPURL = pointed.doc, documentBase(pointed.final)
		case pointed.doc != nil:
			d.Warnings = append(d.Warnings, Warning{Code: WarnPointer, URL: pointed.fetch.URL,
				Message: "the document it points to is a pointer too; not followed further"})
		case pointed.err != nil:
			d.Warnings = append(d.Warnings, Warning{Code: WarnPointer, URL: pointed.fetch.URL,
				Message: "the document it points to could not be used as mcp.json: " + pointed.err.Error()})
		default:
			d.Warnings = append(d.Warnings, Warning{Code: WarnPointer, URL: pointed.fetch.URL,
				Message: fmt.Sprintf("the document it points to is not published (HTTP %d, or an HTML page)", pointed.fetch.StatusCode)})
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch {
	case skills.err != nil && mcp.err != nil:
		return nil, hintPlainHTTP(origin, o, errors.Join(skills.err, mcp.err))
	case d.Skills == nil && d.MCP == nil:
		if err := errors.Join(skills.err, mcp.err); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %s (%s and %s)", ErrNotPublished, o, SkillsPath, MCPPath)
	}
	for i, f := range []outcome[struct{}]{{fetch: skills.fetch, err: skills.err}, {fetch: mcp.fetch, err: mcp.err}} {
		if f.err != nil {
			d.Warnings = append(d.Warnings, Warning{Code: WarnFetch, URL: f.fetch.URL, Message: f.err.Error()})
			if i < len(d.Fetches) {
				d.Fetches[i].Err = f.err
			}
		}
	}
	// Kept only when nothing needed a decision: no pointer (followed or not: following
	// one may need consent), no failed document.
	if (mcp.doc == nil || mcp.doc.Shape != mcpjson.ShapePointer) && skills.err == nil && mcp.err == nil {
		until := skills.fresh
		if mcp.fetch.URL != "" {
			until = earliest(until, mcp.fresh)
		}
		c.keepFresh(origin, structured, d, until, skills.size+mcp.size)
	}
	return d, nil
}

// hintPlainHTTP adds a hint to err when origin was typed without a scheme, names a
// loopback host (so https was assumed), and the server turned out to speak plain http:
// "localhost:8080" is usually a local development server.
func hintPlainHTTP(origin string, o Origin, err error) error {
	if err == nil || strings.Contains(origin, "://") || o.Scheme != "https" || !httpx.IsLoopbackHost(o.Host) {
		return err
	}
	var rec tls.RecordHeaderError
	if errors.As(err, &rec) || strings.Contains(err.Error(), "server gave HTTP response to HTTPS client") {
		return fmt.Errorf("%w (the server speaks plain http: try http://%s)", err, o.hostPort())
	}
	return err
}

// docSpec describes how to fetch and parse one kind of document.
type docSpec[T any] struct {
	kind   string // names the document type in every cache key: one URL may be fetched as several kinds
	path   string
	accept string
	typeOK func(mediaType string) bool
	parse  func(data []byte, docURL string) (*T, []Warning, error) // docURL: where it was served from
}

var skillsSpec = docSpec[skillsmd.Document]{
	kind:   "skills.md",
	path:   SkillsPath,
	accept: "text/markdown, text/plain;q=0.9",
	typeOK: func(mt string) bool { return mt == "text/markdown" || mt == "text/plain" || mt == "text/x-markdown" },
	parse: func(data []byte, _ string) (*skillsmd.Document, []Warning, error) {
		doc, err := skillsmd.Parse(data)
		if err != nil {
			return nil, nil, err
		}
		var ws []Warning
		for _, w := range doc.Warnings {
			ws = append(ws, Warning{Code: w.Code, Line: w.Line, Message: w.Message})
		}
		return doc, ws, nil
	},
}

var mcpSpec = docSpec[mcpjson.Document]{
	kind:   "mcp.json",
	path:   MCPPath,
	accept: "application/json",
	typeOK: func(mt string) bool {
		return mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")
	},
	parse: func(data []byte, docURL string) (*mcpjson.Document, []Warning, error) {
		// With the document's URL, endpoints that cannot be meant for a public site
		// (private addresses, example domains, the document itself) are skipped.
		doc, err := mcpjson.ParseWithOptions(data, mcpjson.Options{URL: docURL})
		if err != nil {
			return nil, nil, err
		}
		var ws []Warning
		for _, p := range doc.Warnings {
			where := p.Pointer
			if where == "" {
				where = "(document)" // as mcpjson.Problem.String writes it
			}
			ws = append(ws, Warning{Code: WarnMCP, Message: where + ": " + p.Message})
		}
		return doc, ws, nil
	},
}

// key is the cache key of the document at u: its kind and its URL. The flight and the
// parse memo are keyed by it, never by the URL alone, because a site can make one URL
// answer as several kinds (an mcp.json pointer naming the site's own skills.md or
// skills index), and a value cached for one kind must never be read back as another.
// The last-good store is keyed by URL, and each copy records its kind (LastGood.Kind).
func (s docSpec[T]) key(u string) string { return s.kind + " " + u }

// fetchDoc retrieves one document and applies the status, content and last-good rules.
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
	v, err := c.flight.do(ctx, key, func(ctx context.Context) any { return fetchURL(ctx, c, o, u, spec) })
	if err != nil {
		return outcome[T]{fetch: Fetch{URL: shown}, err: fmt.Errorf("discovery: GET %s: %w", shown, err)}
	}
	out, ok := v.(outcome[T])
	if !ok {
		// Unreachable with kind-keyed flights; an internal fault must not panic.
		return outcome[T]{fetch: Fetch{URL: shown}, err: fmt.Errorf("discovery: GET %s: %w", shown, internalError(v))}
	}
	out.warnings = slices.Clone(out.warnings) // callers append to their copy
	return out
}

// fetchURL retrieves the document at u for a discovery of origin o.
func fetchURL[T any](ctx context.Context, c *Client, o Origin, u string, spec docSpec[T]) (out outcome[T]) {
	shown := redactString(u) // what errors, warnings and Fetch report: no userinfo, query or fragment
	out.fetch.URL = shown
	tr := &fetchTrace{origin: o, doc: spec.kind}
	if c.observed() {
		start := time.Now()
		var end func(Event)
		ctx, end = c.trace(ctx, TraceFetch, Event{Kind: EventFetch, Origin: o.String(), URL: shown, Doc: spec.kind})
		defer func() { // after the Attempts below
			e := Event{Kind: EventFetch, Origin: o.String(), URL: shown, Doc: spec.kind, Source: out.fetch.Source,
				Status: out.fetch.StatusCode, Attempts: out.fetch.Attempts, Duration: time.Since(start), Err: out.err}
			if e.Err == nil {
				e.Err = out.fetch.Cause
			}
			if e.Status == 0 {
				e.Status = int(tr.status.Load()) // the last status on the wire, such as a refused redirect's
			}
			if e.Err != nil && policyError(e.Err) {
				c.emit(ctx, Event{Kind: EventGuardRefused, Origin: o.String(), URL: shown, Err: e.Err})
			}
			c.emit(ctx, e)
			end(e)
		}()
	}
	defer func() { out.fetch.Attempts = int(tr.attempts.Load()) }()
	parent := ctx

	// fail serves the last good copy when the failure allows it, else records the error.
	fail := func(cause error, fallback bool) outcome[T] {
		out.fetch.Cause, out.fresh = nil, time.Time{}
		if fallback && parent.Err() == nil {
			if doc, ws, lg, ok := recall(c, c.lgKey(o, u), u, spec); ok {
				out.doc, out.warnings = doc, append(ws, Warning{Code: WarnStale, URL: shown,
					Message: fmt.Sprintf("serving the copy fetched %s ago: %v", c.now().Sub(lg.SavedAt).Round(time.Second), cause)})
				out.fetch.Source, out.fetch.Cause, out.fetch.SavedAt, out.fetch.Published = SourceStale, cause, lg.SavedAt, true
				c.emit(ctx, Event{Kind: EventStale, Origin: o.String(), URL: shown, Doc: spec.kind, Err: cause})
				return out
			}
		}
		if parent.Err() != nil {
			cause = fmt.Errorf("discovery: GET %s: %w", shown, parent.Err())
		}
		out.err = cause
		return out
	}

	header := http.Header{"Accept": {spec.accept}, "User-Agent": {c.userAgent}}
	private := privateOrigin(o)
	tr.reval = c.revalidatable(u, private)
	bypass := tr.reval != nil
	resp, cancel, err := c.send(parent, tr, u, header, c.docTimeout, nil)
	defer cancel()
	if err != nil {
		attempts := int(tr.attempts.Load())
		return fail(&FetchError{URL: shown, Attempts: attempts, Err: unwrapURLError(err)}, !policyError(err))
	}
	defer resp.Body.Close()
	out.fetch.StatusCode = resp.StatusCode
	out.fetch.Source = SourceNetwork
	out.fetch.FinalURL, out.final = shown, u
	if tr.redirected && resp.Request != nil && resp.Request.URL != nil {
		if final := resp.Request.URL.String(); final != u {
			out.fetch.FinalURL, out.final = redact(resp.Request.URL), final
		}
	}
	out.fresh = freshUntil(resp.Header) // reset by fail: only a definite answer is kept
	if tr.consented() {
		out.fresh = time.Time{} // a consented redirect is asked again next time
	}
	if tr.fromMemory || resp.Header.Get(httpcacheMark) == "1" {
		switch {
		case tr.requests.Load() == 0:
			out.fetch.Source = SourceCache
		case tr.status.Load() == http.StatusNotModified:
			out.fetch.Source, out.fetch.StatusCode = SourceRevalidated, http.StatusNotModified
		}
	}

	switch code := resp.StatusCode; {
	case code == http.StatusOK:
	case code == http.StatusNotFound || code == http.StatusGone:
		// Authoritative: the document is not published, and no older copy may stand in.
		c.lastGood.Delete(c.lgKey(o, u))
		return out
	default:
		herr := &HTTPError{URL: shown, StatusCode: code, Attempts: int(tr.attempts.Load())}
		if d, ok := retryAfter(resp, c.now()); ok && d > c.maxRetryAfter {
			herr.Err = fmt.Errorf("%w (%s > %s)", ErrRetryAfterTooLong, d, c.maxRetryAfter)
		}
		return fail(herr, code >= 500 || code == http.StatusTooManyRequests || code == http.StatusRequestTimeout)
	}

	mt := mediaType(resp.Header.Get("Content-Type"))
	if mt == "text/html" || mt == "application/xhtml+xml" {
		// Static hosts answer unknown paths with their home page: not a document.
		return out
	}
	body, err := readCappedSized(resp.Body, c.maxBytes, resp.ContentLength)
	if err != nil {
		return fail(&FetchError{URL: shown, Attempts: int(tr.attempts.Load()), Err: err}, true)
	}
	if looksLikeHTML(body) {
		return out
	}
	if len(bytes.TrimSpace(body)) == 0 {
		// An empty 200 is a broken deploy, not a document that says nothing.
		return fail(&FetchError{URL: shown, Attempts: int(tr.attempts.Load()), Err: errEmptyBody}, true)
	}
	out.fetch.Published = true
	if !spec.typeOK(mt) {
		shown := mt
		if shown == "" {
			shown = "no Content-Type"
		}
		out.warnings = append(out.warnings, Warning{Code: WarnContentType, URL: shown,
			Message: fmt.Sprintf("served as %s; read anyway", shown)})
	}
	doc, ws, err := parseMemo(c, u, out.final, body, spec)
	if err != nil {
		out.fetch.Published = false
		return fail(&FetchError{URL: shown, Attempts: int(tr.attempts.Load()), Err: err}, true)
	}
	out.doc, out.warnings, out.size = doc, append(out.warnings, ws...), len(body)
	if out.fetch.Source == SourceNetwork || (out.fetch.Source == SourceRevalidated && !bypass) {
		c.remember(u, private, !bypass, out.final != u, resp, body) // a 304 answered from memory updated its copy already
	}
	if out.fetch.Source != SourceCache && !movedAway(u, out.final) {
		c.lastGood.Store(c.lgKey(o, u), LastGood{Kind: spec.kind, Body: body, ContentType: resp.Header.Get("Content-Type"), SavedAt: c.now()})
	}
	return out
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

// uncache undoes an answer the HTTP cache gave on its own after the network failed:
// the failure (an error, a 5xx) is what the fetch must see, so that only the last-good
// logic decides whether an old copy may stand in.
func uncache(resp *http.Response, err error, tr *fetchTrace) (*http.Response, error) {
	if err != nil || resp.Header.Get(httpcacheMark) != "1" || (tr.belowErr == nil && tr.belowResp == nil) {
		return resp, err // a network answer, or a fresh hit that asked nothing below
	}
	switch below := tr.belowResp; {
	case tr.belowErr != nil:
		resp.Body.Close()
		if below != nil {
			below.Body.Close()
		}
		return nil, tr.belowErr
	case below != nil && below.StatusCode != http.StatusNotModified && below.StatusCode != http.StatusOK:
		resp.Body.Close()
		return below, nil
	}
	return resp, err
}

// errEmptyBody is the cause recorded for a 200 with an empty body.
var errEmptyBody = errors.New("discovery: empty document")

// httpcacheMark is the header httpcache sets on answers from its cache.
const httpcacheMark = "X-From-Cache"

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

// policyError reports a fetch the policy refused: a redirect off the origin or to
// http, too many hops, a private address, consent denied or its callback failing. It
// is never retried, and no last good copy may paper over it.
func policyError(err error) bool {
	return errors.Is(err, ErrCrossOrigin) || errors.Is(err, ErrInsecureOrigin) ||
		errors.Is(err, ErrTooManyRedirects) || errors.Is(err, ErrConsentDenied) ||
		errors.Is(err, errConsentHook) || errors.Is(err, ErrPrivateAddress)
}

// unwrapURLError drops the *url.Error layer the outer http.Client adds: its text
// repeats the URL, which FetchError already names.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// mediaType returns the lower-case media type of a Content-Type value, without
// parameters ("" when there is none): what mime.ParseMediaType returns, without its map.
func mediaType(v string) string {
	if i := strings.IndexByte(v, ';'); i >= 0 {
		v = v[:i]
	}
	v = strings.TrimSpace(v)
	for i := 0; i < len(v); i++ {
		if 'A' <= v[i] && v[i] <= 'Z' {
			return strings.ToLower(v)
		}
	}
	return v
}

// readCappedSized is readCapped with the body's announced length (ContentLength; -1
// when unknown) as the buffer's first size, so a small document is read in one go.
func readCappedSized(r io.Reader, limit, size int64) ([]byte, error) {
	if size < 0 || size > limit || size > 1<<20 {
		return readCapped(r, limit)
	}
	b := make([]byte, 0, size+1) // +1: a body longer than announced shows without a read past it
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		switch {
		case err == io.EOF:
			return b, nil
		case err != nil:
			return nil, err
		case len(b) == cap(b): // longer than announced: read the rest the general way
			return readCapped(io.MultiReader(bytes.NewReader(b), r), limit)
		}
	}
}

// readCapped reads at most limit bytes; a longer body is ErrTooLarge. Reading to EOF is
// also what lets httpcache store the body.
func readCapped(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w (%d bytes)", ErrTooLarge, limit)
	}
	return b, nil
}

// looksLikeHTML reports a body that starts like an HTML page, after a BOM and blanks.
func looksLikeHTML(b []byte) bool {
	b = bytes.TrimLeft(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(b) > 16 {
		b = b[:16]
	}
	hasPrefixFold := func(p string) bool { return len(b) >= len(p) && strings.EqualFold(string(b[:len(p)]), p) }
	return hasPrefixFold("<!doctype") || hasPrefixFold("<html")
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

// lgKey is the last-good store's key for the document at u fetched for origin o: the
// URL, in the private partition when o is a private origin (see PrivatePartition), and
// in the HTTP cache's public partition otherwise (a Client with
// InsecureAllowPrivateHosts keeps its copies apart from Clients without that list,
// as its cached answers are).
func (c *Client) lgKey(o Origin, u string) string {
	if privateOrigin(o) {
		return PrivatePartition + u
	}
	return c.publicPartition + u
}
