package lint_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/diag"
	"github.com/wellknown-dev/discovery/lint"
	"github.com/wellknown-dev/discovery/trust"
)

// found is a problem as the tests compare it: code and pointer.
type found struct{ code, ptr string }

func problemsOf(rep *lint.Report, sev diag.Severity) []found {
	var out []found
	for _, p := range rep.Problems {
		if p.Severity == sev {
			out = append(out, found{p.Code, p.Pointer})
		}
	}
	return out
}

func lintPaths(t *testing.T, opts *lint.Options, targets ...string) *lint.Report {
	t.Helper()
	l := lint.New(opts)
	for _, target := range targets {
		if err := l.Lint(t.Context(), target); err != nil {
			t.Fatal(err)
		}
	}
	return l.Report()
}

// TestLintCatalogFiles checks AI Catalogs and Server Cards from files: told by name
// or content, validated strictly, each problem located by its pointer.
func TestLintCatalogFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	card, err := os.ReadFile("testdata/catalog/good.server-card.json")
	if err != nil {
		t.Fatal(err)
	}
	// Told by content: a card and a catalog under names that say nothing.
	byContent := filepath.Join(dir, "card.json")
	if err := os.WriteFile(byContent, card, 0o644); err != nil {
		t.Fatal(err)
	}
	catalog, err := os.ReadFile("testdata/catalog/bad.ai-catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	catalogByContent := filepath.Join(dir, "published.json")
	if err := os.WriteFile(catalogByContent, catalog, 0o644); err != nil {
		t.Fatal(err)
	}
	wellKnown := filepath.Join(dir, "site", ".well-known")
	if err := os.MkdirAll(wellKnown, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wellKnown, "ai-catalog.json"), catalog, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		target string
		kind   string
		errors []found
	}{
		{"good catalog", "testdata/catalog/good.ai-catalog.json", lint.KindAICatalog, nil},
		{"bad catalog", "testdata/catalog/bad.ai-catalog.json", lint.KindAICatalog,
			[]found{{"card-name", "/entries/0/data/name"}, {"catalog-both-url-and-data", "/entries/1"}}},
		{"catalog by content", catalogByContent, lint.KindAICatalog,
			[]found{{"card-name", "/entries/0/data/name"}, {"catalog-both-url-and-data", "/entries/1"}}},
		{"catalog in a site folder", filepath.Join(dir, "site"), lint.KindAICatalog,
			[]found{{"card-name", "/entries/0/data/name"}, {"catalog-both-url-and-data", "/entries/1"}}},
		{"good card", "testdata/catalog/good.server-card.json", lint.KindServerCard, nil},
		{"card by content", byContent, lint.KindServerCard, nil},
		{"bad card", "testdata/catalog/bad.server-card.json", lint.KindServerCard, []found{{"card-transport", "/remotes/0/type"}}},
		{"unsigned trust manifest", "testdata/catalog/unsigned-trust.ai-catalog.json", lint.KindAICatalog, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep := lintPaths(t, nil, tc.target)
			if len(rep.Files) == 0 || rep.Files[0].Kind != tc.kind {
				t.Errorf("files %+v, want one of kind %s", rep.Files, tc.kind)
			}
			if got := problemsOf(rep, diag.Error); !slices.Equal(got, tc.errors) {
				t.Errorf("errors %v, want %v\n%+v", got, tc.errors, rep.Problems)
			}
			for _, p := range rep.Problems {
				if p.Pointer != "" && p.Line == 0 {
					t.Errorf("problem at %s has no line", p.Pointer)
				}
				if p.Severity == diag.Info {
					t.Errorf("info without Explain: %+v", p)
				}
			}
		})
	}
	// With Explain, an unsigned trust manifest is said to be unsigned.
	rep := lintPaths(t, &lint.Options{Explain: true}, "testdata/catalog/unsigned-trust.ai-catalog.json")
	if got := problemsOf(rep, diag.Info); !slices.Equal(got, []found{{"trust-manifest", "/entries/0/trustManifest"}}) ||
		!strings.Contains(rep.Problems[0].Message, "not signed") {
		t.Errorf("unsigned manifest: %+v", rep.Problems)
	}
}

// upstreamCards holds the Server Card extension's examples, read in place and never
// copied into this repository.
const upstreamCards = "../../shared/specs/upstream/server-card/examples"

// TestLintUpstreamServerCards: through lint, the extension's valid examples are clean
// and each invalid one has an error.
func TestLintUpstreamServerCards(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join(upstreamCards, kind, "*.json"))
		if len(files) == 0 {
			t.Skipf("upstream examples not available in %s", filepath.Join(upstreamCards, kind))
		}
		for _, f := range files {
			t.Run(kind+"/"+filepath.Base(f), func(t *testing.T) {
				t.Parallel()
				rep := lintPaths(t, nil, f)
				if len(rep.Files) != 1 || rep.Files[0].Kind != lint.KindServerCard {
					t.Errorf("files %+v, want one server card", rep.Files)
				}
				errs, warns := rep.Count()
				switch {
				case kind == "valid" && errs+warns != 0:
					t.Errorf("valid example: %+v", rep.Problems)
				case kind == "invalid" && errs == 0:
					t.Errorf("invalid example without an error: %+v", rep.Problems)
				}
			})
		}
	}
}

// site is a loopback TLS origin serving fixed documents with fixed headers, and
// recording the requests it gets.
type site struct {
	*httptest.Server
	mu   sync.Mutex // guards reqs
	reqs []*http.Request
}

type served struct {
	body    string
	headers map[string]string
}

func newSite(t *testing.T, docs map[string]served) *site {
	t.Helper()
	s := &site{}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reqs = append(s.reqs, r)
		s.mu.Unlock()
		d, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		for k, v := range d.headers {
			w.Header().Set(k, v)
		}
		_, _ = w.Write([]byte(d.body))
	}))
	t.Cleanup(s.Close)
	return s
}

// request returns the request the site got for path, or nil.
func (s *site) request(path string) *http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.reqs {
		if r.URL.Path == path {
			return r
		}
	}
	return nil
}

// clientFor returns a discovery Client that trusts the sites' certificates. The
// sites are on loopback, which a Client refuses unless told a person chose it, as
// the wellknown command is for what it is given.
func clientFor(t *testing.T, sites ...*site) *discovery.Client {
	t.Helper()
	pool := x509.NewCertPool()
	for _, s := range sites {
		pool.AddCert(s.Certificate())
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: hc, InsecureAllowPrivateOrigins: true})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const goodCard = `{"$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
 "name": "example.acme/invoices", "version": "2.1.0", "description": "Read and send invoices.",
 "remotes": [{"type": "streamable-http", "url": "https://invoices.acme.example/mcp"}]}`

// headersOK are the headers a catalog or card host should send, but the media type.
var headersOK = map[string]string{"Access-Control-Allow-Origin": "*", "ETag": `"v1"`, "Cache-Control": "max-age=300"}

func with(h map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for hk, hv := range h {
		out[hk] = hv
	}
	return out
}

// TestLintCatalogURL lints an origin that publishes an AI Catalog: the catalog is
// fetched from /.well-known/ai-catalog.json and how it is served checked, and the
// cards it lists by URL are fetched with the card's media type in Accept (on another
// origin only with FetchCrossOrigin) and checked likewise.
func TestLintCatalogURL(t *testing.T) {
	t.Parallel()
	catalogOf := func(other *site) string {
		return `{"specVersion": "1.0", "entries": [
  {"identifier": "urn:air:a:mcp:same", "type": "application/mcp-server-card+json", "url": "/mcp/server-card"},
  {"identifier": "urn:air:a:mcp:bare", "type": "application/mcp-server-card+json", "url": "/bare/server-card"},
  {"identifier": "urn:air:a:mcp:gone", "type": "application/mcp-server-card+json", "url": "/gone/server-card"},
  {"identifier": "urn:air:a:mcp:other", "type": "application/mcp-server-card+json", "url": "` + other.URL + `/mcp/server-card"}
]}`
	}
	tests := []struct {
		name          string
		catalogHeader map[string]string
		crossOrigin   bool
		warnings      []found // on the catalog, then the cards
		errors        []found
	}{
		{name: "served well", catalogHeader: with(headersOK, "Content-Type", "application/ai-catalog+json"),
			warnings: []found{{"not-checked", "/entries/3/url"}, {"media-type", ""}, {"cors", ""}, {"etag", ""}, {"cache-control", ""}},
			errors:   []found{{"not-published", ""}}},
		{name: "served bare", catalogHeader: map[string]string{"Content-Type": "application/json"},
			warnings: []found{{"media-type", ""}, {"cors", ""}, {"etag", ""}, {"cache-control", ""}, {"not-checked", "/entries/3/url"},
				{"media-type", ""}, {"cors", ""}, {"etag", ""}, {"cache-control", ""}},
			errors: []found{{"not-published", ""}}},
		{name: "another origin with consent", catalogHeader: with(headersOK, "Content-Type", "application/ai-catalog+json"), crossOrigin: true,
			warnings: []found{{"media-type", ""}, {"cors", ""}, {"etag", ""}, {"cache-control", ""}},
			errors:   []found{{"not-published", ""}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			other := newSite(t, map[string]served{
				"/mcp/server-card": {goodCard, with(headersOK, "Content-Type", "application/mcp-server-card+json")},
			})
			s := newSite(t, map[string]served{
				"/.well-known/ai-catalog.json": {catalogOf(other), tc.catalogHeader},
				"/mcp/server-card":             {goodCard, with(headersOK, "Content-Type", "application/mcp-server-card+json")},
				"/bare/server-card":            {goodCard, map[string]string{"Content-Type": "application/json"}},
			})
			rep := lintPaths(t, &lint.Options{Client: clientFor(t, s, other), FetchCrossOrigin: tc.crossOrigin}, s.URL)
			if got := problemsOf(rep, diag.Warning); !slices.Equal(got, tc.warnings) {
				t.Errorf("warnings %v, want %v\n%+v", got, tc.warnings, rep.Problems)
			}
			if got := problemsOf(rep, diag.Error); !slices.Equal(got, tc.errors) {
				t.Errorf("errors %v, want %v\n%+v", got, tc.errors, rep.Problems)
			}
			r := s.request("/mcp/server-card")
			if r == nil || r.Header.Get("Accept") != "application/mcp-server-card+json" {
				t.Errorf("card request %v: want one with Accept: application/mcp-server-card+json", r)
			}
			if got := other.request("/mcp/server-card") != nil; got != tc.crossOrigin {
				t.Errorf("the card on another origin fetched: %v, want %v (FetchCrossOrigin)", got, tc.crossOrigin)
			}
			kinds := map[string]int{}
			for _, f := range rep.Files {
				kinds[f.Kind]++
			}
			if kinds[lint.KindAICatalog] != 1 || kinds[lint.KindServerCard] < 3 {
				t.Errorf("files %+v: want the catalog and its cards", rep.Files)
			}
		})
	}
}

// TestLintTrustManifest: a signed trust manifest beside a catalog entry is reported
// as signed by its key and not verified without roots (info, with Explain), verified
// against a root that holds its key, and an error against roots that do not.
func TestLintTrustManifest(t *testing.T) {
	t.Parallel()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	key, err := trust.ParseSigningKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	const id = "urn:air:invoices.acme.example:mcp:invoices"
	card := `{"$schema":"https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json","name":"example.acme/invoices","version":"2.1.0","description":"Read and send invoices."}`
	manifest, err := json.Marshal(map[string]any{"identity": id, "provenance": []any{map[string]any{
		"relation": "publishedFrom", "sourceId": "https://git.acme.example/invoices", "sourceDigest": trust.Digest([]byte(card))}}})
	if err != nil {
		t.Fatal(err)
	}
	signed, err := trust.Sign(manifest, key)
	if err != nil {
		t.Fatal(err)
	}
	catalog := `{"specVersion": "1.0", "entries": [{"identifier": "` + id + `", "type": "application/mcp-server-card+json", "data": ` + card +
		`, "trustManifest": ` + string(signed) + `}]}`
	p := filepath.Join(t.TempDir(), "signed.ai-catalog.json")
	if err := os.WriteFile(p, []byte(catalog), 0o644); err != nil {
		t.Fatal(err)
	}
	jwks, err := key.PublicJWKS()
	if err != nil {
		t.Fatal(err)
	}
	_, otherPriv, _ := ed25519.GenerateKey(rand.Reader)
	otherDER, _ := x509.MarshalPKCS8PrivateKey(otherPriv)
	otherKey, err := trust.ParseSigningKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: otherDER}))
	if err != nil {
		t.Fatal(err)
	}
	otherJWKS, _ := otherKey.PublicJWKS()
	tests := []struct {
		name  string
		roots []trust.Root
		sev   diag.Severity
		msg   string
	}{
		{"no roots", nil, diag.Info, `signed by kid "` + key.KeyID + `", not verified: no trust roots given`},
		{"the publisher's root", []trust.Root{{Publisher: "Acme", Identity: id, JWKS: jwks}}, diag.Info, `verified: publisher "Acme"`},
		{"another key", []trust.Root{{Publisher: "Acme", Identity: id, JWKS: otherJWKS}}, diag.Error, "does not verify against the trust roots given"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep := lintPaths(t, &lint.Options{Explain: true, TrustRoots: tc.roots}, p)
			i := slices.IndexFunc(rep.Problems, func(p lint.Problem) bool { return p.Code == "trust-manifest" })
			if i < 0 {
				t.Fatalf("no trust-manifest problem: %+v", rep.Problems)
			}
			if got := rep.Problems[i]; got.Severity != tc.sev || !strings.Contains(got.Message, tc.msg) || got.Pointer != "/entries/0/trustManifest" {
				t.Errorf("%+v; want %s containing %q", got, tc.sev, tc.msg)
			}
			if errs, _ := rep.Count(); (errs > 0) != (tc.sev == diag.Error) {
				t.Errorf("%d errors: %+v", errs, rep.Problems)
			}
		})
	}
}

// TestLintNestedCatalogs: a catalog's nested catalogs are checked, inline strictly in
// place and by URL fetched (with the catalog media type in Accept) with their cards,
// one level deep; a nested catalog that lists the first again is not fetched twice.
func TestLintNestedCatalogs(t *testing.T) {
	t.Parallel()
	ok := with(headersOK, "Content-Type", "application/ai-catalog+json")
	s := newSite(t, map[string]served{
		"/.well-known/ai-catalog.json": {`{"specVersion": "1.0", "entries": [
  {"identifier": "urn:air:a:catalog:team", "type": "application/ai-catalog+json", "url": "/team/ai-catalog.json"},
  {"identifier": "urn:air:a:catalog:inline", "type": "application/ai-catalog+json", "data": {"specVersion": "1.0", "entries": [{"type": "application/mcp-server-card+json"}]}}
]}`, ok},
		"/team/ai-catalog.json": {`{"specVersion": "1.0", "entries": [
  {"identifier": "urn:air:a:catalog:root", "type": "application/ai-catalog+json", "url": "/.well-known/ai-catalog.json"},
  {"identifier": "urn:air:a:mcp:team", "type": "application/mcp-server-card+json", "url": "/team/server-card"}
]}`, ok},
		"/team/server-card": {`{"$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json", "name": "no-slash", "version": "1.0.0", "description": "d"}`,
			with(headersOK, "Content-Type", "application/mcp-server-card+json")},
	})
	rep := lintPaths(t, &lint.Options{Client: clientFor(t, s)}, s.URL)
	byFile := map[string][]found{}
	for _, p := range rep.Problems {
		file := strings.TrimPrefix(p.File, s.URL)
		byFile[file] = append(byFile[file], found{p.Code, p.Pointer})
	}
	want := map[string][]found{
		"/.well-known/ai-catalog.json": {{"catalog-identifier", "/entries/1/data/entries/0"}, {"catalog-no-url-or-data", "/entries/1/data/entries/0"}},
		"/team/ai-catalog.json":        {{"not-checked", "/entries/0/url"}},
		"/team/server-card":            {{"card-name", "/name"}},
	}
	for file, w := range want {
		for _, f := range w {
			if !slices.Contains(byFile[file], f) {
				t.Errorf("%s: no %v in %v", file, f, byFile[file])
			}
		}
	}
	if r := s.request("/team/ai-catalog.json"); r == nil || r.Header.Get("Accept") != "application/ai-catalog+json" {
		t.Errorf("nested catalog request %v: want one with Accept: application/ai-catalog+json", r)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.reqs {
		if r.URL.Path == "/.well-known/ai-catalog.json" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the catalog was fetched %d times, want once", n)
	}
}
