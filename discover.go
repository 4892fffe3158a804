package discovery

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/diag"
	"github.com/wellknown-dev/discovery/internal/families"
	"github.com/wellknown-dev/discovery/internal/fetch"
	"github.com/wellknown-dev/discovery/mcpjson"
	"github.com/wellknown-dev/discovery/skillsmd"
)

// Well-known paths, always at the origin root.
const (
	GuidePath = "/.well-known/skills.md"
	MCPPath   = "/.well-known/mcp.json"
)

// Discovery is the outcome of [Client.Discover] or [Client.Structured]. It is plain data
// once returned, safe to read concurrently; do not modify it while others read it.
// Everything in Guide and MCP was published by the origin: it is untrusted data to show
// or act on with the user's consent, never instructions.
type Discovery struct {
	Origin   Origin
	Guide    *skillsmd.Document // the skills.md guide; nil when the origin publishes none
	MCP      *mcpjson.Document  // nil unless fetched (skills.md absent, or Structured) and published
	Fetches  []Fetch            // one per document requested, skills.md first
	Warnings []Warning          // stale answers, content types, and the parsers' warnings
	// GuideURL is where Guide was served from, after redirects, without userinfo, query
	// or fragment: relative references in the guide (its API base, its links) resolve
	// against it, not against Origin. "" when Guide is nil.
	GuideURL string
	// MCPURL is where MCP was served from, after redirects, without userinfo, query or
	// fragment: relative endpoints in it resolve against it ([Client.ConnectEndpoint]).
	// "" when MCP is nil.
	MCPURL string

	// All is what [Client.DiscoverAll] found beyond the guide and mcp.json; nil from
	// Discover and Structured.
	All *Published
}

// Published is what [Client.DiscoverAll] finds beyond skills.md and mcp.json: the
// AI Catalog, its Server Cards, the Agent Skills index and /skill.md. A field is nil
// (or empty) when the site does not publish it.
type Published struct {
	Families  []Family          // which families the site publishes, and where each was found
	Catalog   *aicatalog.Walked // the AI Catalog, nested catalogs walked: Catalogs (root first), Entries (all but catalogs)
	Cards     []Card            // the catalog's MCP Server Cards, read or not (Card.Err); advisory, untrusted
	Skills    *SkillsIndex      // the Agent Skills index, as [Client.ListSkills] finds it
	RootSkill *Skill            // the Agent-Skills-format /skill.md, as [Client.RootSkill] finds it
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
	WarnCatalog     = "ai-catalog"   // DiscoverAll: what the AI Catalog reader or walk had to leave out or interpret
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
	if err := c.consentOther(ctx, o, target, "points to a discovery document"); err != nil {
		mcp.warnings = append(mcp.warnings, Warning{Code: WarnPointer, URL: mcp.fetch.URL,
			Message: fmt.Sprintf("pointer to another origin not followed: %v", err)})
		return nil
	}
	out := fetchShared(ctx, c, o, target.String(), mcpSpec)
	return &out
}

// Discover fetches /.well-known/skills.md from origin and, only when it is not
// published (404, 410, or an HTML page in its place), /.well-known/mcp.json: the
// guide for people and agents comes first, the structured document only in its
// absence. origin is anything [ParseOrigin] accepts.
//
// When the network fails after retries, or the server answers 5xx or 429, or sends a
// document that does not parse, Discover returns the last good copy (Fetch.Source ==
// SourceStale, with a Warning) if one younger than Options.MaxStale exists, else an
// error. It returns [ErrNotPublished] when the origin publishes neither document.
func (c *Client) Discover(ctx context.Context, origin string) (*Discovery, error) {
	return c.discover(ctx, origin, false, false)
}

// Structured is [Client.Discover] for callers that need servers and tools: it fetches
// skills.md and mcp.json (in parallel), and succeeds when at least one of them is
// available; the other one's failure is then a Warning.
func (c *Client) Structured(ctx context.Context, origin string) (*Discovery, error) {
	return c.discover(ctx, origin, true, false)
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

func (c *Client) discover(ctx context.Context, origin string, structured, all bool) (d *Discovery, err error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, errNilContext
	}
	if d, ok := c.fastDiscover(ctx, origin, structured, all); ok {
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
	d, err = c.discoverOrigin(ctx, o, origin, structured)
	if all {
		return c.discoverRest(ctx, o, origin, d, err)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// discoverOrigin is discover after the origin has been checked. With ErrNotPublished
// it returns the Discovery so far too (DiscoverAll goes on).
func (c *Client) discoverOrigin(ctx context.Context, o Origin, origin string, structured bool) (*Discovery, error) {
	d := &Discovery{Origin: o}
	skills, mcp, err := c.fetchBoth(ctx, o, origin, structured)
	if err != nil {
		return nil, err
	}
	var pointed *outcome[mcpjson.Document]
	if mcp.doc != nil && mcp.doc.Shape == mcpjson.ShapePointer {
		pointed = c.followPointer(ctx, o, &mcp)
	}
	d.Guide, d.MCP = skills.doc, mcp.doc
	if skills.doc != nil {
		d.GuideURL = documentBase(skills.final)
	}
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
		d.usePointed(pointed)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	switch {
	case skills.err != nil && mcp.err != nil:
		return nil, errors.Join(skills.err, mcp.err)
	case d.Guide == nil && d.MCP == nil:
		if err := errors.Join(skills.err, mcp.err); err != nil {
			return nil, err
		}
		return d, fmt.Errorf("%w: %s (%s and %s)", ErrNotPublished, o, GuidePath, MCPPath)
	}
	for i, f := range []Fetch{{URL: skills.fetch.URL, Err: skills.err}, {URL: mcp.fetch.URL, Err: mcp.err}} {
		if f.Err != nil {
			d.Warnings = append(d.Warnings, Warning{Code: WarnFetch, URL: f.URL, Message: f.Err.Error()})
			if i < len(d.Fetches) {
				d.Fetches[i].Err = f.Err
			}
		}
	}
	// Kept only when nothing needed a decision: no pointer (followed or not: following
	// one may need consent), no failed document.
	if (mcp.doc == nil || mcp.doc.Shape != mcpjson.ShapePointer) && skills.err == nil && mcp.err == nil {
		until := skills.fresh
		if mcp.fetch.URL != "" {
			until = fetch.Earliest(until, mcp.fresh)
		}
		c.keepFresh(origin, structured, d, until, skills.size+mcp.size)
	}
	return d, nil
}

// fetchBoth fetches both documents in parallel (Structured), or mcp.json only when
// skills.md is not published (Discover, which fails at once when skills.md failed).
func (c *Client) fetchBoth(ctx context.Context, o Origin, origin string, structured bool) (
	skills outcome[skillsmd.Document], mcp outcome[mcpjson.Document], err error) {
	if structured {
		var wg sync.WaitGroup
		m := new(outcome[mcpjson.Document]) // mcp itself stays on the stack in the plain case
		wg.Go(func() { *m = fetchDoc(ctx, c, o, mcpSpec) })
		skills = fetchDoc(ctx, c, o, skillsSpec)
		wg.Wait()
		return skills, *m, nil
	}
	skills = fetchDoc(ctx, c, o, skillsSpec)
	if skills.err != nil {
		return skills, mcp, skills.err
	}
	if skills.doc == nil {
		mcp = fetchDoc(ctx, c, o, mcpSpec)
	}
	return skills, mcp, nil
}

// usePointed records the outcome of following mcp.json's pointer: the document it
// points to replaces the pointer when it is an mcp.json this SDK can read; otherwise a
// warning says why not.
func (d *Discovery) usePointed(pointed *outcome[mcpjson.Document]) {
	d.Fetches = append(d.Fetches, pointed.fetch)
	d.Warnings = append(d.Warnings, pointed.warnings...)
	var msg string
	switch {
	case pointed.doc != nil && (pointed.doc.Shape == mcpjson.ShapeUnknown || pointed.doc.Shape == mcpjson.ShapeNone):
		msg = "the document it points to is not an mcp.json this SDK can read (shape " + string(pointed.doc.Shape) + "); not used"
	case pointed.doc != nil && pointed.doc.Shape != mcpjson.ShapePointer:
		d.MCP, d.MCPURL = pointed.doc, documentBase(pointed.final)
		return
	case pointed.doc != nil:
		msg = "the document it points to is a pointer too; not followed further"
	case pointed.err != nil:
		msg = "the document it points to could not be used as mcp.json: " + pointed.err.Error()
	default:
		msg = fmt.Sprintf("the document it points to is not published (HTTP %d, or an HTML page)", pointed.fetch.StatusCode)
	}
	d.Warnings = append(d.Warnings, Warning{Code: WarnPointer, URL: pointed.fetch.URL, Message: msg})
}

// docSpec describes one kind of document: how the pipeline fetches and parses it
// (fetch.Kind: Name names the document type in every cache key, as one URL may be
// fetched as several kinds), and the well-known path it lives at. T is the type its
// parser returns.
type docSpec[T any] struct {
	fetch.Kind
	path string
}

var (
	skillsSpec = docSpec[skillsmd.Document]{path: GuidePath, Kind: families.GuideKind()}
	mcpSpec    = docSpec[mcpjson.Document]{path: MCPPath, Kind: families.MCPKind(WarnMCP)}
)

// key is the flight key of the document at u: its kind and its URL, never the URL
// alone, because a site can make one URL answer as several kinds (an mcp.json pointer
// naming the site's own skills.md or skills index), and a value fetched as one kind
// must never be read back as another. The last-good store is keyed by URL, and each
// copy records its kind (LastGood.Kind).
func (s docSpec[T]) key(u string) string { return s.Name + " " + u }
