package discovery

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"
)

// The fast path. A discovery whose documents were all fresh (max-age or Expires,
// judged as the HTTP cache judges them) is kept, as returned, until the first of them
// goes stale: a call for the same origin string within that window is answered from
// memory, with neither the HTTP cache's serialised form nor the parser touched. It
// answers what the HTTP cache would (Source cache, no request), without its cost.
// Anything that is not a plain fresh answer (a stale copy, an error, a pointer that
// was followed, an origin that needed consent) is never kept, so last-good, consent
// and policy semantics are those of the slow path.

// freshBytes bounds the fast path's memory (least recently used entries go first);
// its cost counts the documents it keeps alive, which the parse memo may have evicted.
const freshBytes = 32 << 20

// freshEntry is one kept discovery.
type freshEntry struct {
	d     *Discovery // as a fresh cache hit returns it: Source cache, no attempts
	until time.Time  // when its first document goes stale
}

// fastDiscover returns the kept discovery of origin, if it is still fresh.
func (c *Client) fastDiscover(ctx context.Context, origin string, structured bool) (*Discovery, bool) {
	e, ok := c.fresh[b2i(structured)].Get(origin)
	if !ok || !c.now().Before(e.until) || ctx.Err() != nil {
		return nil, false
	}
	d := *e.d
	d.Fetches = slices.Clone(e.d.Fetches)
	d.Warnings = slices.Clone(e.d.Warnings)
	if c.observed() {
		c.observeFast(ctx, &d)
	}
	return &d, true
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
	case strings.HasSuffix(u, SkillsPath):
		return skillsSpec.kind
	case strings.HasSuffix(u, MCPPath):
		return mcpSpec.kind
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
	c.fresh[b2i(structured)].Set(origin, &freshEntry{d: &k, until: until}, cost)
}

// freshUntil is when a response with header h stops being fresh, as httpcache judges
// it (max-age, else Expires, from Date; no-cache or no-store: never fresh). The zero
// time means it is not fresh at all.
func freshUntil(h http.Header) time.Time {
	var maxAge string
	hasMaxAge := false
	// The first Cache-Control header only, as httpcache reads it: the two must agree
	// on what is fresh.
	for d := range strings.SplitSeq(h.Get("Cache-Control"), ",") {
		name, val, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "no-cache", "no-store":
			return time.Time{}
		case "max-age":
			maxAge, hasMaxAge = strings.Trim(strings.TrimSpace(val), `"`), true
		}
	}
	var lifetime time.Duration
	var expires time.Time
	switch exp := h.Get("Expires"); {
	case hasMaxAge:
		// As httpcache parses it (time.ParseDuration): what it cannot read is stale.
		d, err := time.ParseDuration(maxAge + "s")
		if err != nil || d <= 0 {
			return time.Time{}
		}
		lifetime = d
	case exp != "":
		t, err := time.Parse(time.RFC1123, exp)
		if err != nil {
			return time.Time{}
		}
		expires = t
	default:
		return time.Time{} // no lifetime: never fresh, and no need to read the Date
	}
	date, err := responseDate(h)
	if err != nil {
		return time.Time{}
	}
	if !expires.IsZero() {
		lifetime = expires.Sub(date)
	}
	if lifetime <= 0 {
		return time.Time{}
	}
	return date.Add(lifetime)
}

// earliest returns the earlier of two freshness ends, where zero means not fresh.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.IsZero() {
		return time.Time{}
	}
	if b.Before(a) {
		return b
	}
	return a
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// responseDate reads the Date of a response header h as the HTTP cache does
// (time.RFC1123, which takes any zone name: "UTC", "PST", "XYZ"), or as HTTP dates
// are written (http.ParseTime: IMF-fixdate, RFC 850, asctime). httpcache counts a
// copy's age from any Date RFC1123 reads, so freshUntil and capFreshness must read
// every such Date too: a cap that skipped "... UTC" left a year of max-age in place.
func responseDate(h http.Header) (time.Time, error) {
	v := h.Get("Date")
	t, err := http.ParseTime(v)
	if err != nil {
		t, err = time.Parse(time.RFC1123, v)
	}
	return t, err
}
