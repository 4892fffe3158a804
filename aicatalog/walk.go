package aicatalog

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Bounds of a [Walk], when WalkOptions leaves them zero.
const (
	// DefaultMaxDepth is the deepest catalog a walk reads, the root being depth 1:
	// the depth of 4 the AI Catalog specification recommends (its ADR 0001: an
	// enterprise, a department, a team and a multi-artifact package).
	DefaultMaxDepth = 4
	// DefaultMaxFetches is how many nested catalogs a walk fetches at most: each is a
	// request, and a wide tree would otherwise multiply them.
	DefaultMaxFetches = 32
)

// FetchFunc fetches the nested catalog at url (absolute, https or loopback http) and
// returns its body. Walk calls it once per catalog, one call at a time, from the
// goroutine that called Walk. It must respect ctx, and it is where the caller applies
// its own policy: HTTPS and redirect rules, the origins it may contact (a catalog may
// list catalogs on other hosts), consent, a size cap on the body, caching. An error
// leaves that catalog out with a diagnostic; an error that wraps ctx's error stops
// the walk.
type FetchFunc func(ctx context.Context, url string) ([]byte, error)

// WalkOptions bounds a [Walk]. A nil *WalkOptions, or the zero value, uses the
// defaults.
type WalkOptions struct {
	// Mode is the mode nested catalogs are parsed in (Lenient, the zero value, or
	// Strict; a nested catalog Strict rejects is left out with its diagnostics).
	Mode Mode
	// MaxDepth is the deepest catalog read, the root being 1. 0 means
	// DefaultMaxDepth; negative is an error.
	MaxDepth int
	// MaxEntries bounds the entries read over the whole walk, the root's included. 0
	// means DefaultMaxEntries; negative is an error.
	MaxEntries int
	// MaxFetches bounds how many times fetch is called. 0 means DefaultMaxFetches;
	// negative is an error.
	MaxFetches int
}

// Walked is the outcome of a [Walk]: plain data, safe to read concurrently.
type Walked struct {
	// Entries lists every entry that is not a nested catalog, depth first, in
	// document order.
	Entries []Found
	// Catalogs lists every catalog read, the root first.
	Catalogs []Visited
	// Diagnostics lists the nested catalogs' diagnostics (Source says which) and one
	// for each entry left out by the walk: too deep, a cycle, a catalog already read,
	// a failed fetch, or over a bound. The root's own are in its Diagnostics.
	Diagnostics []Diagnostic
}

// Found is an entry reached by a walk.
type Found struct {
	Entry  Entry
	Source string   // URL of the catalog that lists it ("" for a root without URL); inline catalogs have their parent's
	Depth  int      // depth of that catalog, the root being 1
	Via    []string // identifiers of the nested catalog entries that lead to it from the root; nil for the root's entries
}

// Visited is one catalog a walk read.
type Visited struct {
	URL        string // where it was fetched from; for an inline catalog, the URL of the catalog that holds it
	Inline     bool   // read from an entry's "data"
	Identifier string // identifier of the entry that nests it; "" for the root
	Depth      int
	Digest     string // Catalog.Digest
	Host       *Host
}

// Walk follows the nested catalogs of root (entries of type [TypeAICatalog], by "url"
// through fetch or inline in "data"), depth first, and returns every other entry it
// reaches. It does no I/O of its own: fetch does it.
//
// It is bounded, as the specification asks of clients (its sections on nested
// catalogs and their security): catalogs deeper than MaxDepth are not read, nor more
// than MaxEntries entries in all nor more than MaxFetches fetches; a catalog whose URL
// (without fragment) or content digest was already read in this walk is not read
// again, which ends cycles (A lists B, B lists A) and repeated references alike. Each
// entry left out gets a diagnostic (at most 32 of one code, then a count). Nested
// catalogs are parsed with Parse, their entry URLs resolved against their own URL.
//
// A nil fetch reads inline nested catalogs only (a linter checking one document
// offline): each nested catalog by URL is left out with a diagnostic.
//
// Walk returns an error only for invalid options or when ctx is done (the walk so far
// is then discarded).
func Walk(ctx context.Context, root *Catalog, fetch FetchFunc, opts *WalkOptions) (*Walked, error) {
	var o WalkOptions
	if opts != nil {
		o = *opts
	}
	for _, b := range []struct {
		name string
		v    int
	}{{"MaxDepth", o.MaxDepth}, {"MaxEntries", o.MaxEntries}, {"MaxFetches", o.MaxFetches}} {
		if b.v < 0 {
			return nil, fmt.Errorf("aicatalog: WalkOptions.%s is negative (%d)", b.name, b.v)
		}
	}
	if root == nil {
		return nil, errors.New("aicatalog: Walk of a nil catalog")
	}
	w := &walker{fetch: fetch, opts: o, out: &Walked{}, urls: make(map[string]bool), digests: make(map[string]bool)}
	if w.opts.MaxDepth == 0 {
		w.opts.MaxDepth = DefaultMaxDepth
	}
	if w.opts.MaxEntries == 0 {
		w.opts.MaxEntries = DefaultMaxEntries
	}
	if w.opts.MaxFetches == 0 {
		w.opts.MaxFetches = DefaultMaxFetches
	}
	if k := urlKey(root.URL); k != "" {
		w.urls[k] = true
	}
	w.digests[root.Digest] = true
	w.out.Catalogs = append(w.out.Catalogs, Visited{URL: root.URL, Depth: 1, Digest: root.Digest, Host: root.Host})
	if err := w.catalog(ctx, root, 1, nil); err != nil {
		return nil, err
	}
	w.summarise()
	return w.out, nil
}

type walker struct {
	fetch   FetchFunc
	opts    WalkOptions
	out     *Walked
	entries int             // entries read so far
	fetches int             // fetch calls so far
	urls    map[string]bool // catalog URLs read (urlKey)
	digests map[string]bool // catalog digests read
	perCode map[string]int
}

func (w *walker) diag(sev Severity, code, source, at, msg string) {
	if w.perCode == nil {
		w.perCode = make(map[string]int)
	}
	w.perCode[code]++
	if w.perCode[code] > maxDiagsPerCode {
		return
	}
	w.out.Diagnostics = append(w.out.Diagnostics, Diagnostic{Severity: sev, Code: code, Source: sourceOf(source), Where: at, Message: msg})
}

func (w *walker) summarise() {
	for i := 0; i < len(w.out.Diagnostics); i++ {
		d := w.out.Diagnostics[i]
		if n := w.perCode[d.Code]; n > maxDiagsPerCode {
			delete(w.perCode, d.Code)
			w.out.Diagnostics = append(w.out.Diagnostics, Diagnostic{Severity: d.Severity, Code: d.Code,
				Message: fmt.Sprintf("%d more diagnostics of this code are not listed", n-maxDiagsPerCode)})
		}
	}
}

// catalog reads the entries of c, at depth, reached through via.
func (w *walker) catalog(ctx context.Context, c *Catalog, depth int, via []string) error {
	for i, e := range c.Entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if w.entries >= w.opts.MaxEntries {
			w.diag(Error, "limit", c.URL, e.Pointer, fmt.Sprintf("the walk has read %d entries, its bound; entry left out", w.opts.MaxEntries))
			continue
		}
		w.entries++
		if e.Type != TypeAICatalog {
			w.out.Entries = append(w.out.Entries, Found{Entry: e, Source: c.URL, Depth: depth, Via: via})
			continue
		}
		if err := w.nested(ctx, c, i, depth, via); err != nil {
			return err
		}
	}
	return nil
}

// nested reads the nested catalog of entry i of parent, which is at depth.
func (w *walker) nested(ctx context.Context, parent *Catalog, i, depth int, via []string) error {
	e := parent.Entries[i]
	if depth+1 > w.opts.MaxDepth {
		w.diag(Error, "depth", parent.URL, e.Pointer, fmt.Sprintf("nested catalog at depth %d, deeper than the bound of %d; not read", depth+1, w.opts.MaxDepth))
		return nil
	}
	var data []byte
	url, inline := e.URL, e.Data != nil
	if inline {
		data, url = e.Data, parent.URL
	} else {
		k := urlKey(e.URL)
		switch {
		case k == "":
			w.diag(Error, "fetch", parent.URL, e.Pointer+"/url", "nested catalog URL is not absolute; not read")
			return nil
		case w.urls[k]:
			w.diag(Error, "cycle", parent.URL, e.Pointer+"/url", "nested catalog "+secrets.Quote(secrets.RedactURL(e.URL), 0)+" was already read in this walk (a cycle or a repeated reference); not read again")
			return nil
		case w.fetch == nil:
			w.diag(Error, "fetch", parent.URL, e.Pointer+"/url", "nested catalog not fetched: Walk was given no FetchFunc")
			return nil
		case w.fetches >= w.opts.MaxFetches:
			w.diag(Error, "limit", parent.URL, e.Pointer, fmt.Sprintf("the walk has fetched %d catalogs, its bound; nested catalog not read", w.opts.MaxFetches))
			return nil
		}
		w.urls[k] = true
		w.fetches++
		var err error
		data, err = w.fetch(ctx, e.URL)
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				return err
			}
			w.diag(Error, "fetch", parent.URL, e.Pointer+"/url", "nested catalog not fetched: "+secrets.ScrubError(err.Error()))
			return nil
		}
	}
	c, err := Parse(data, Options{URL: url, Mode: w.opts.Mode, MaxEntries: max(1, w.opts.MaxEntries-w.entries)})
	source := url
	if inline {
		source = parent.URL
	}
	if err != nil {
		var ve *ValidationError
		if errors.As(err, &ve) {
			for _, d := range ve.Diagnostics {
				w.nestedDiag(d, source, e, inline)
			}
		}
		w.diag(Error, "nested", parent.URL, e.Pointer, "nested catalog not read: "+err.Error())
		return nil
	}
	if w.digests[c.Digest] {
		w.diag(Error, "cycle", parent.URL, e.Pointer, "nested catalog has the content of a catalog already read in this walk; not read again")
		return nil
	}
	w.digests[c.Digest] = true
	for _, d := range c.Diagnostics {
		w.nestedDiag(d, source, e, inline)
	}
	w.out.Catalogs = append(w.out.Catalogs, Visited{URL: url, Inline: inline, Identifier: e.Identifier, Depth: depth + 1, Digest: c.Digest, Host: c.Host})
	if inline {
		// Entries of an inline catalog point into the parent document.
		for j := range c.Entries {
			c.Entries[j].Pointer = e.Pointer + "/data" + c.Entries[j].Pointer
		}
		c.URL = parent.URL
	}
	return w.catalog(ctx, c, depth+1, append(append([]string(nil), via...), e.Identifier))
}

// nestedDiag records a nested catalog's diagnostic; those of an inline catalog point
// into the parent document.
func (w *walker) nestedDiag(d Diagnostic, source string, e Entry, inline bool) {
	at := d.Where
	if inline {
		at = e.Pointer + "/data" + at
	}
	w.diag(d.Severity, d.Code, source, at, d.Message)
}

// urlKey is the key a catalog URL is remembered by: absolute, scheme and host
// lower-cased, without fragment; "" when the URL is not absolute.
func urlKey(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return ""
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	if p := u.Port(); (u.Scheme == "https" && p == "443") || (u.Scheme == "http" && p == "80") {
		u.Host = strings.TrimSuffix(u.Host, ":"+p)
	}
	if u.Path == "" {
		u.Path = "/"
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}
