package discovery

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"
)

// The fast path (its store is internal/fetch's FastPath). A discovery whose documents
// were all fresh, as the HTTP cache judges them, is kept as returned until the first
// of them goes stale; a call for the same origin string meanwhile is answered from
// memory, as the HTTP cache would answer it (Source cache, no request), without its
// cost. Anything that is not a plain fresh answer (a stale copy, an error, a followed
// pointer, a consented redirect) is never kept: last-good, consent and policy
// semantics are those of the slow path.

// fastDiscover returns the kept discovery of origin, if it is still fresh.
func (c *Client) fastDiscover(ctx context.Context, origin string, structured, all bool) (*Discovery, bool) {
	if all { // DiscoverAll reads more than the fast path keeps
		return nil, false
	}
	kept, ok := c.fresh.Get(structured, origin)
	if !ok || ctx.Err() != nil {
		return nil, false
	}
	d := copyKept(kept)
	if c.observed() {
		c.observeFast(ctx, d)
	}
	return d, true
}

// copyKept copies a kept discovery for a caller, who may change it: with one fetch
// (skills.md alone, the common answer), the copy and its fetch are one allocation.
func copyKept(kept *Discovery) *Discovery {
	if len(kept.Fetches) != 1 {
		d := *kept
		d.Fetches, d.Warnings = slices.Clone(kept.Fetches), slices.Clone(kept.Warnings)
		return &d
	}
	one := &struct {
		d Discovery
		f [1]Fetch
	}{d: *kept, f: [1]Fetch{kept.Fetches[0]}}
	one.d.Fetches, one.d.Warnings = one.f[:], slices.Clone(kept.Warnings)
	return &one.d
}

// observeFast reports a fast answer as the slow path reports a fresh cache hit.
func (c *Client) observeFast(ctx context.Context, d *Discovery) {
	o := d.Origin.String()
	ctx, end := c.trace(ctx, TraceDiscover, Event{Kind: EventDiscover, Origin: o})
	for _, f := range d.Fetches {
		e := Event{Kind: EventFetch, Origin: o, URL: f.URL, Doc: docKind(f.URL), Source: f.Source, Status: f.StatusCode}
		fctx, fend := c.trace(ctx, TraceFetch, e)
		c.emit(fctx, e)
		fend(e)
	}
	e := Event{Kind: EventDiscover, Origin: o}
	c.emit(ctx, e)
	end(e)
}

// docKind names the kind of a well-known document by its URL.
func docKind(u string) string {
	switch {
	case strings.HasSuffix(u, GuidePath):
		return skillsSpec.Name
	case strings.HasSuffix(u, MCPPath):
		return mcpSpec.Name
	}
	return ""
}

// keepFresh keeps d for the fast path when every document in it is fresh until a
// common time; sizes are the body lengths of its documents.
func (c *Client) keepFresh(origin string, structured bool, d *Discovery, until time.Time, size int) {
	if until.IsZero() || !c.now().Before(until) {
		return
	}
	k := *d
	k.Fetches = slices.Clone(d.Fetches)
	for i := range k.Fetches {
		f := &k.Fetches[i]
		f.Source, f.Attempts = SourceCache, 0
		if f.StatusCode == http.StatusNotModified {
			f.StatusCode = http.StatusOK
		}
	}
	k.Warnings = slices.Clone(d.Warnings)
	cost := int64(len(origin) + 512 + 2*size + 128*len(k.Warnings))
	c.fresh.Keep(structured, origin, &k, until, cost)
}
