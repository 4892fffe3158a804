package aicatalog_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wellknown-dev/discovery/aicatalog"
)

// site is a fake set of catalogs by URL, with a count of fetches per URL.
type site struct {
	docs  map[string]string
	calls map[string]int
	total atomic.Int32
}

func (s *site) fetch(ctx context.Context, u string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.total.Add(1)
	if s.calls == nil {
		s.calls = make(map[string]int)
	}
	s.calls[u]++
	d, ok := s.docs[u]
	if !ok {
		return nil, fmt.Errorf("GET %s: 404 Not Found", u)
	}
	return []byte(d), nil
}

func nestedEntry(id, url string) string {
	return fmt.Sprintf(`{"identifier": %q, "type": "application/ai-catalog+json", "url": %q}`, id, url)
}

func cardEntry(id string) string {
	return fmt.Sprintf(`{"identifier": %q, "type": "application/mcp-server-card+json", "url": "https://mcp.example/%s/server-card"}`, id, id)
}

func catalogOf(entries ...string) string {
	return `{"specVersion": "1.0", "entries": [` + strings.Join(entries, ",") + `]}`
}

func walkRoot(t *testing.T, s *site, rootURL string, opts *aicatalog.WalkOptions) *aicatalog.Walked {
	t.Helper()
	root, err := aicatalog.Parse([]byte(s.docs[rootURL]), aicatalog.Options{URL: rootURL})
	if err != nil {
		t.Fatal(err)
	}
	w, err := aicatalog.Walk(t.Context(), root, s.fetch, opts)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func foundIDs(w *aicatalog.Walked) string {
	var ids []string
	for _, f := range w.Entries {
		ids = append(ids, fmt.Sprintf("%s@%d%v", f.Entry.Identifier, f.Depth, f.Via))
	}
	return strings.Join(ids, " ")
}

func codes(ds []aicatalog.Diagnostic) map[string]int {
	m := make(map[string]int)
	for _, d := range ds {
		m[d.Code]++
	}
	return m
}

const rootURL = "https://acme.example/.well-known/ai-catalog.json"

// TestWalkNested: catalogs nested by URL (relative to their parent) and inline are
// followed depth first; their entries carry where they came from.
func TestWalkNested(t *testing.T) {
	t.Parallel()
	s := &site{docs: map[string]string{
		rootURL: catalogOf(cardEntry("a"), nestedEntry("urn:finance", "/catalogs/finance.json"),
			`{"identifier": "urn:suite", "type": "application/ai-catalog+json", "data": `+catalogOf(cardEntry("s1"), `{"identifier": "urn:bad", "type": "text/plain", "url": "http://x.example/"}`)+`}`,
			cardEntry("z")),
		"https://acme.example/catalogs/finance.json":      catalogOf(cardEntry("f1"), nestedEntry("urn:team", "team/trading.json")),
		"https://acme.example/catalogs/team/trading.json": catalogOf(cardEntry("t1")),
	}}
	w := walkRoot(t, s, rootURL, nil)
	want := "a@1[] f1@2[urn:finance] t1@3[urn:finance urn:team] s1@2[urn:suite] z@1[]"
	if got := foundIDs(w); got != want {
		t.Errorf("entries = %s\nwant      %s", got, want)
	}
	if len(w.Catalogs) != 4 || !w.Catalogs[3].Inline || w.Catalogs[2].URL != "https://acme.example/catalogs/team/trading.json" {
		t.Errorf("catalogs = %+v", w.Catalogs)
	}
	// The inline catalog's diagnostics and entries point into the root document.
	if !hasDiag(w.Diagnostics, aicatalog.Error, "url", "/entries/2/data/entries/1/url") {
		t.Errorf("diagnostics = %v", w.Diagnostics)
	}
	if p := w.Entries[3].Entry.Pointer; p != "/entries/2/data/entries/0" {
		t.Errorf("inline entry pointer = %q", p)
	}
	if s.total.Load() != 2 {
		t.Errorf("%d fetches, want 2", s.total.Load())
	}
}

// TestWalkBounds: cycles, repeats, depth, entry and fetch bounds, failed fetches and
// documents that are no catalog: each left-out entry has a diagnostic, and no catalog
// is fetched twice.
func TestWalkBounds(t *testing.T) {
	t.Parallel()
	chain := map[string]string{}
	for i := 1; i <= 8; i++ {
		u := fmt.Sprintf("https://acme.example/c%d.json", i)
		if i == 1 {
			u = rootURL
		}
		chain[u] = catalogOf(cardEntry(fmt.Sprintf("leaf%d", i)), nestedEntry(fmt.Sprintf("urn:c%d", i+1), fmt.Sprintf("https://acme.example/c%d.json", i+1)))
	}
	var wide []string
	for i := range 100 {
		wide = append(wide, nestedEntry(fmt.Sprintf("urn:w%d", i), fmt.Sprintf("https://acme.example/w%d.json", i)))
	}
	wideSite := map[string]string{rootURL: catalogOf(wide...)}
	for i := range 100 {
		wideSite[fmt.Sprintf("https://acme.example/w%d.json", i)] = catalogOf(cardEntry(fmt.Sprintf("w%d", i)), cardEntry(fmt.Sprintf("v%d", i)))
	}
	tests := []struct {
		name       string
		docs       map[string]string
		opts       *aicatalog.WalkOptions
		wantFound  int
		wantCode   string
		maxFetches int32
	}{
		{"self cycle", map[string]string{rootURL: catalogOf(cardEntry("a"), nestedEntry("urn:self", rootURL+"#again"))}, nil, 1, "cycle", 0},
		{"two-catalog cycle", map[string]string{
			rootURL:                       catalogOf(nestedEntry("urn:b", "https://acme.example/b.json")),
			"https://acme.example/b.json": catalogOf(cardEntry("b"), nestedEntry("urn:root", "https://ACME.example:443/.well-known/ai-catalog.json")),
		}, nil, 1, "cycle", 1},
		{"same content elsewhere", map[string]string{
			rootURL:                         catalogOf(nestedEntry("urn:b", "https://acme.example/b.json"), nestedEntry("urn:copy", "https://mirror.example/b.json")),
			"https://acme.example/b.json":   catalogOf(cardEntry("b")),
			"https://mirror.example/b.json": "\n" + catalogOf(cardEntry("b")) + "\n",
		}, nil, 1, "cycle", 2},
		{"same content as an ancestor", map[string]string{
			rootURL:                            catalogOf(nestedEntry("urn:b", "https://acme.example/b.json")),
			"https://acme.example/b.json":      catalogOf(nestedEntry("urn:b", "https://acme.example/b.json?copy")),
			"https://acme.example/b.json?copy": catalogOf(nestedEntry("urn:b", "https://acme.example/b.json?copy")),
		}, nil, 0, "cycle", 2},
		{"repeated reference", map[string]string{
			rootURL:                       catalogOf(nestedEntry("urn:b", "https://acme.example/b.json"), nestedEntry("urn:b2", "https://acme.example/b.json")),
			"https://acme.example/b.json": catalogOf(cardEntry("b")),
		}, nil, 1, "cycle", 1},
		{"depth 4", chain, nil, 4, "depth", 3},
		{"depth 2", chain, &aicatalog.WalkOptions{MaxDepth: 2}, 2, "depth", 1},
		{"fetch bound", wideSite, nil, 2 * aicatalog.DefaultMaxFetches, "limit", aicatalog.DefaultMaxFetches},
		{"entry bound", wideSite, &aicatalog.WalkOptions{MaxEntries: 10}, 6, "limit", 4},
		{"fetch fails", map[string]string{rootURL: catalogOf(nestedEntry("urn:gone", "https://acme.example/gone.json"), cardEntry("a"))}, nil, 1, "fetch", 1},
		{"not a catalog", map[string]string{
			rootURL:                       catalogOf(nestedEntry("urn:b", "https://acme.example/b.json"), cardEntry("a")),
			"https://acme.example/b.json": `<!doctype html><p>not found</p>`,
		}, nil, 1, "nested", 1},
		{"strict nested", map[string]string{
			rootURL:                       catalogOf(nestedEntry("urn:b", "https://acme.example/b.json")),
			"https://acme.example/b.json": `{"entries": []}`,
		}, &aicatalog.WalkOptions{Mode: aicatalog.Strict}, 0, "spec-version", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &site{docs: tc.docs}
			w := walkRoot(t, s, rootURL, tc.opts)
			if len(w.Entries) != tc.wantFound {
				t.Errorf("found %d entries (%s), want %d", len(w.Entries), foundIDs(w), tc.wantFound)
			}
			if codes(w.Diagnostics)[tc.wantCode] == 0 {
				t.Errorf("no %q diagnostic in %v", tc.wantCode, w.Diagnostics)
			}
			if s.total.Load() != tc.maxFetches {
				t.Errorf("%d fetches, want %d", s.total.Load(), tc.maxFetches)
			}
			for u, n := range s.calls {
				if n > 1 {
					t.Errorf("%s fetched %d times", u, n)
				}
			}
			if len(w.Diagnostics) > 3*32+10 {
				t.Errorf("%d diagnostics", len(w.Diagnostics))
			}
		})
	}
}

// TestWalkCancel: a cancelled context stops the walk with its error.
func TestWalkCancel(t *testing.T) {
	t.Parallel()
	s := &site{docs: map[string]string{rootURL: catalogOf(nestedEntry("urn:b", "https://acme.example/b.json"))}}
	root, err := aicatalog.Parse([]byte(s.docs[rootURL]), aicatalog.Options{URL: rootURL})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := aicatalog.Walk(ctx, root, s.fetch, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Walk() error = %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithCancel(t.Context())
	stop := func(ctx context.Context, u string) ([]byte, error) { cancel(); return nil, ctx.Err() }
	if _, err := aicatalog.Walk(ctx, root, stop, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Walk() error = %v, want context.Canceled", err)
	}
}

// TestWalkOptions: invalid arguments are errors, never a panic.
func TestWalkOptions(t *testing.T) {
	t.Parallel()
	root, _ := aicatalog.Parse([]byte(catalogOf()), aicatalog.Options{})
	s := &site{}
	for _, tc := range []struct {
		root  *aicatalog.Catalog
		fetch aicatalog.FetchFunc
		opts  *aicatalog.WalkOptions
	}{
		{nil, s.fetch, nil},
		{root, s.fetch, &aicatalog.WalkOptions{MaxDepth: -1}},
		{root, s.fetch, &aicatalog.WalkOptions{MaxEntries: -1}},
		{root, s.fetch, &aicatalog.WalkOptions{MaxFetches: -1}},
	} {
		if _, err := aicatalog.Walk(t.Context(), tc.root, tc.fetch, tc.opts); err == nil {
			t.Errorf("Walk(%v, %v) succeeded", tc.root != nil, tc.opts)
		}
	}
}

// TestWalkDeepInline: catalogs nested inline beyond the depth bound are not read.
func TestWalkDeepInline(t *testing.T) {
	t.Parallel()
	doc := catalogOf(cardEntry("leaf"))
	for i := range 50 {
		doc = catalogOf(cardEntry(fmt.Sprintf("l%d", i)), `{"identifier": "urn:n", "type": "application/ai-catalog+json", "data": `+doc+`}`)
	}
	root, err := aicatalog.Parse([]byte(doc), aicatalog.Options{URL: rootURL})
	if err != nil {
		t.Fatal(err)
	}
	w, err := aicatalog.Walk(t.Context(), root, (&site{}).fetch, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Entries) != aicatalog.DefaultMaxDepth || codes(w.Diagnostics)["depth"] != 1 {
		t.Errorf("found %s; diagnostics %v", foundIDs(w), w.Diagnostics)
	}
}

// TestWalkWithoutFetch: a nil FetchFunc reads inline catalogs only.
func TestWalkWithoutFetch(t *testing.T) {
	t.Parallel()
	doc := catalogOf(nestedEntry("urn:b", "https://acme.example/b.json"),
		`{"identifier": "urn:in", "type": "application/ai-catalog+json", "data": `+catalogOf(cardEntry("inline"))+`}`)
	root, err := aicatalog.Parse([]byte(doc), aicatalog.Options{URL: rootURL})
	if err != nil {
		t.Fatal(err)
	}
	w, err := aicatalog.Walk(t.Context(), root, nil, &aicatalog.WalkOptions{Mode: aicatalog.Strict})
	if err != nil {
		t.Fatal(err)
	}
	if foundIDs(w) != "inline@2[urn:in]" || !hasDiag(w.Diagnostics, aicatalog.Error, "fetch", "/entries/0/url") {
		t.Errorf("found %s; diagnostics %v", foundIDs(w), w.Diagnostics)
	}
}
