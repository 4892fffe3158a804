package fetch

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

	"github.com/wellknown-dev/discovery/internal/lru"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// The document layer, above Get: what a status means, what counts as published,
// parsing (through a memo), revalidation state and the last good copy, which stands in
// when a fetch fails and the failure allows it. What is a document of which kind, and
// the errors reported, are the root's (Kind, and the hooks of DocConfig).

// Warning is a diagnostic about a document: the root's Warning, field for field.
type Warning struct {
	Code    string
	URL     string
	Line    int
	Message string
}

// Kind is one kind of document.
type Kind struct {
	Name   string                      // "skills.md", "mcp.json", "skills-index": keys, events, last-good copies
	Accept string                      // the Accept header
	TypeOK func(mediaType string) bool // media types read without a content-type warning
	// Parse parses body, served from docURL. Its warnings' URLs are set by the caller.
	Parse func(body []byte, docURL string) (doc any, ws []Warning, err error)
}

// Copies keeps the last good copy of each document (the root's LastGoodStore, through
// an adapter). Implementations must be safe for concurrent use.
type Copies interface {
	Load(key string) (Copy, bool)
	Store(key string, c Copy)
	Delete(key string)
}

// DocConfig is what the document layer needs beyond Config.
type DocConfig struct {
	UserAgent string
	MaxBytes  int64
	Timeout   time.Duration // one document: every attempt and backoff
	MaxStale  time.Duration // negative: never serve a last good copy
	LastGood  Copies
	MemoBytes int64 // the parse memo's budget (at most TierBytes of the Fetcher's cache)

	// FetchError builds the error of a document that could not be retrieved or used;
	// HTTPError that of an unexpected status (retryAfter: a 429's or 503's wait).
	FetchError func(shown string, attempts int, err error) error
	HTTPError  func(shown string, status, attempts int, retryAfter time.Duration) error
	// PolicyError reports a failure of policy: no last good copy may paper over it.
	PolicyError func(err error) bool
	// OnStale reports that the last good copy of r stands in for cause.
	OnStale func(ctx context.Context, r *Request, shown string, cause error)
}

// SourceStale: the last good copy, served because the fetch failed.
const SourceStale Source = SourceCache + 1

// Doc is the outcome of one GetDoc.
type Doc struct {
	Doc        any       // the parsed document; nil when not published, or on failure
	Warnings   []Warning // its own
	URL        string    // the URL requested, redacted
	FinalURL   string    // where the answer came from, redacted; "" if no response
	Final      string    // where the answer came from, as requested
	Status     int       // the last status: 304 when revalidated; 0 if none
	Source     Source
	Published  bool
	Attempts   int
	Cause      error     // SourceStale: the failure the copy stands in for
	SavedAt    time.Time // SourceStale: when the copy was fetched
	Err        error     // the document is neither usable nor absent
	Fresh      time.Time // until when the answer is fresh (zero: not fresh)
	Size       int       // the body's length
	WireStatus int       // the last status seen on the wire
}

// Documents fetches documents through a Fetcher. It is immutable after NewDocuments
// and safe for concurrent use.
type Documents struct {
	f      *Fetcher
	cfg    DocConfig
	parsed *lru.Cache[*parsed] // (kind, URL) → the newest parse of each document, bounded
}

// NewDocuments returns the document layer over f.
func NewDocuments(f *Fetcher, cfg DocConfig) *Documents {
	return &Documents{f: f, cfg: cfg, parsed: lru.New[*parsed](TierBytes(f.cfg.Cache, cfg.MemoBytes))}
}

// docFetch is one document fetch in progress.
type docFetch struct {
	d    *Documents
	ctx  context.Context
	r    *Request
	kind *Kind
	lg   string // the last-good store's key
	out  Doc
}

// Get retrieves the document of kind k at u for origin o (private: a private origin),
// whose last good copy is kept under lgKey:
//
//  1. GET it through the pipeline (Fetcher.Get: cache, revalidation, retries,
//     redirects, guard);
//  2. judge the status: 200 goes on, 404 and 410 mean not published (and forget the
//     last good copy), anything else is a failure;
//  3. judge the content: an HTML page is not published, an empty body is a failure;
//  4. parse it (through the memo);
//  5. keep it: revalidation state, and the last good copy.
//
// A failure serves the last good copy when the failure allows it (fail).
func (d *Documents) Get(ctx context.Context, o Origin, private bool, u, lgKey string, k *Kind) Doc {
	r := &Request{URL: u, Origin: o, Private: private, Doc: k.Name, Timeout: d.cfg.Timeout, Limit: d.cfg.MaxBytes,
		Header:     http.Header{"Accept": {k.Accept}, "User-Agent": {d.cfg.UserAgent}},
		Revalidate: true,
		// Static hosts answer unknown paths with their home page: not a document, and
		// not read (so the HTTP cache stores nothing of it).
		Read: func(resp *http.Response) bool { return !htmlType(MediaType(resp.Header.Get("Content-Type"))) },
	}
	f := &docFetch{d: d, ctx: ctx, r: r, kind: k, lg: lgKey}
	f.out.URL = RedactURL(u)
	res, err := d.f.Get(ctx, r)
	f.out.Attempts, f.out.WireStatus = res.Attempts, res.WireStatus
	if res.Status == 0 { // no answer
		return f.fail(d.cfg.FetchError(f.out.URL, res.Attempts, unwrapURLError(err)), !d.cfg.PolicyError(err))
	}
	f.answered(&res)
	switch code := res.Status; {
	case code == http.StatusOK:
	case code == http.StatusNotFound || code == http.StatusGone:
		// Authoritative: the document is not published, and no older copy may stand in.
		d.cfg.LastGood.Delete(lgKey)
		return f.out
	default:
		return f.fail(d.cfg.HTTPError(f.out.URL, code, res.Attempts, res.RetryAfter),
			code >= 500 || code == http.StatusTooManyRequests || code == http.StatusRequestTimeout)
	}
	return f.content(&res, err)
}

// htmlType reports an HTML media type.
func htmlType(mt string) bool { return mt == "text/html" || mt == "application/xhtml+xml" }

// answered records the answer's status, source, final URL and freshness.
func (f *docFetch) answered(res *Result) {
	out := &f.out
	out.Status, out.Source = res.Status, res.Source
	if res.Source == SourceRevalidated {
		out.Status = http.StatusNotModified
	}
	out.FinalURL, out.Final = out.URL, f.r.URL
	if res.Final != nil {
		out.FinalURL, out.Final = redactURL(res.Final), res.Final.String()
	}
	out.Fresh = res.Fresh // reset by fail: only a definite answer is kept
}

// errEmptyBody is the cause recorded for a 200 with an empty body.
var errEmptyBody = errors.New("discovery: empty document")

// content applies the content rules to a 200 and parses it; readErr is the body's.
func (f *docFetch) content(res *Result, readErr error) Doc {
	d, out := f.d, &f.out
	ctype := res.Header.Get("Content-Type")
	mt := MediaType(ctype)
	if htmlType(mt) {
		return *out
	}
	if readErr != nil {
		return f.fail(d.cfg.FetchError(out.URL, res.Attempts, readErr), true)
	}
	body := res.Body
	if LooksLikeHTML(body) {
		return *out
	}
	if len(bytes.TrimSpace(body)) == 0 {
		// An empty 200 is a broken deploy, not a document that says nothing.
		return f.fail(d.cfg.FetchError(out.URL, res.Attempts, errEmptyBody), true)
	}
	out.Published = true
	if !f.kind.TypeOK(mt) {
		shown := mt
		if shown == "" {
			shown = "no Content-Type"
		}
		out.Warnings = append(out.Warnings, Warning{Code: "content-type", URL: shown,
			Message: fmt.Sprintf("served as %s; read anyway", shown)})
	}
	doc, ws, err := d.parse(f.r.URL, out.Final, body, f.kind)
	if err != nil {
		out.Published = false
		return f.fail(d.cfg.FetchError(out.URL, res.Attempts, err), true)
	}
	out.Doc, out.Warnings, out.Size = doc, append(out.Warnings, ws...), len(body)
	d.f.Remember(res)
	if out.Source != SourceCache && !d.f.movedAway(f.r.URL, out.Final) {
		d.cfg.LastGood.Store(f.lg, Copy{Kind: f.kind.Name, Body: body, ContentType: ctype, SavedAt: d.f.cfg.Now()})
	}
	return *out
}

// fail serves the last good copy when the failure allows it (fallback), else records
// the error.
func (f *docFetch) fail(cause error, fallback bool) Doc {
	d, out := f.d, &f.out
	out.Cause, out.Fresh = nil, time.Time{}
	if fallback && f.ctx.Err() == nil {
		if doc, ws, lg, ok := d.recall(f.lg, f.r.URL, f.kind); ok {
			out.Doc, out.Warnings = doc, append(ws, Warning{Code: "stale", URL: out.URL,
				Message: fmt.Sprintf("serving the copy fetched %s ago: %v", d.f.cfg.Now().Sub(lg.SavedAt).Round(time.Second), cause)})
			out.Source, out.Cause, out.SavedAt, out.Published = SourceStale, cause, lg.SavedAt, true
			d.cfg.OnStale(f.ctx, f.r, out.URL, cause)
			return *out
		}
	}
	if err := f.ctx.Err(); err != nil {
		cause = fmt.Errorf("discovery: GET %s: %w", out.URL, err)
	}
	out.Err = cause
	return *out
}

// parsed is the newest parse of one URL's body: a fresh cache hit or a 304 gives the
// same bytes again, and parsing them again would cost more than everything else.
type parsed struct {
	body     []byte
	doc      any
	warnings []Warning
}

// parse parses body, or returns the parse of the same bytes from the last time. The
// document is shared and read-only, as it already is between concurrent callers.
func (d *Documents) parse(u, docURL string, body []byte, k *Kind) (any, []Warning, error) {
	key := k.Name + " " + u // mcpjson judges endpoints against docURL: it is part of the key
	if docURL != u {
		key += " from " + docURL
	}
	if p, ok := d.parsed.Get(key); ok && bytes.Equal(p.body, body) {
		return p.doc, slices.Clone(p.warnings), nil
	}
	doc, ws, err := k.Parse(body, docURL)
	if err != nil {
		return nil, nil, err
	}
	for i := range ws {
		ws[i].URL = RedactURL(u)
	}
	// The cost counts the body twice: once kept, once for the parsed document.
	d.parsed.Set(key, &parsed{body: bytes.Clone(body), doc: doc, warnings: slices.Clone(ws)}, int64(2*len(body)+len(key)))
	return doc, ws, nil
}

// recall returns the parsed last good copy of u, if one is young enough.
func (d *Documents) recall(key, u string, k *Kind) (any, []Warning, Copy, bool) {
	if d.cfg.MaxStale < 0 {
		return nil, nil, Copy{}, false
	}
	lg, ok := d.cfg.LastGood.Load(key)
	// A copy saved as another kind of document (one URL can be fetched as several) is
	// not this document; one with no kind (stored by the caller) must parse as it.
	if !ok || d.f.cfg.Now().Sub(lg.SavedAt) > d.cfg.MaxStale || (lg.Kind != "" && lg.Kind != k.Name) {
		return nil, nil, Copy{}, false
	}
	doc, ws, err := d.parse(u, u, lg.Body, k) // usually the bytes parsed last time
	if err != nil {
		return nil, nil, Copy{}, false
	}
	return doc, ws, lg, true
}

// movedAway reports a document fetched at u that came from another origin (final,
// through consented redirects). It is not kept as u's last good copy, as it is not
// kept in the HTTP cache: when u later fails, serving it would stand in for the
// redirects and their consent, under u's name.
func (f *Fetcher) movedAway(u, final string) bool {
	if final == u {
		return false
	}
	a, err1 := url.Parse(u)
	b, err2 := url.Parse(final)
	return err1 != nil || err2 != nil || !f.sameOrigin(a, b)
}

// unwrapURLError drops the *url.Error layer Get adds: its text repeats the URL, which
// the caller's error already names.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// RedactURL redacts a URL given as text: no userinfo, query or fragment; unparsable
// text is dropped entirely (secrets.RedactURL), remembering the URLs seen last: every
// fetch reports its URL several times, and scanning a URL for secrets costs
// microseconds.
func RedactURL(s string) string {
	if len(s) > 2048 {
		return secrets.RedactURL(s)
	}
	if r, ok := redactMemo.Get(s); ok {
		return r
	}
	r := secrets.RedactURL(s)
	redactMemo.Set(s, r, int64(len(s)+len(r)+64))
	return r
}

var redactMemo = lru.New[string](1 << 20)

// Artifact GETs r, a file the root asked for beside the documents (a skill artifact):
// it must come with a 200 and not be an HTML page. It returns the body and its
// Content-Type; shown is r.URL redacted, for errors.
func (d *Documents) Artifact(ctx context.Context, r *Request, shown string) ([]byte, string, error) {
	isHTML := func(ctype string) bool { return strings.HasPrefix(strings.ToLower(ctype), "text/html") }
	r.Read = func(resp *http.Response) bool { return !isHTML(resp.Header.Get("Content-Type")) }
	res, err := d.f.Get(ctx, r)
	switch ctype := res.Header.Get("Content-Type"); {
	case res.Status == 0:
		return nil, "", d.cfg.FetchError(shown, res.Attempts, unwrapURLError(err))
	case res.Status != http.StatusOK:
		return nil, "", d.cfg.HTTPError(shown, res.Status, res.Attempts, 0)
	case isHTML(ctype):
		return nil, "", d.cfg.FetchError(shown, 0, errors.New("discovery: an HTML page where a skill artifact was expected"))
	case err != nil:
		return nil, "", d.cfg.FetchError(shown, res.Attempts, err)
	default:
		return res.Body, ctype, nil
	}
}

// MemoCost returns the bytes the parse memo holds.
func (d *Documents) MemoCost() int64 { return d.parsed.Cost() }
