package discovery_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/internal/demo"
)

const cardSchema = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"

// cardJSON is a Server Card with one streamable-http remote at url.
func cardJSON(name, url string) string {
	return fmt.Sprintf(`{"$schema": %q, "name": %q, "version": "1.0.0", "description": "Test server.", "remotes": [{"type": "streamable-http", "url": %q}]}`, cardSchema, name, url)
}

// everySite serves every family a site can publish for agents; "{S}" in a document
// is the server's URL. files may replace or add documents.
func everySite(t *testing.T, files map[string]string) *site {
	t.Helper()
	all := map[string]string{
		discovery.GuidePath: "# Example\n\nGuide for agents.\n",
		discovery.MCPPath:   `{"mcp_servers": [{"name": "main", "url": "{S}/mcp", "transport": "streamable-http"}]}`,
		aicatalog.WellKnownPath: `{"specVersion": "1.0", "entries": [
			{"identifier": "urn:air:test:mcp:inline", "type": "application/mcp-server-card+json", "data": ` + cardJSON("com.example/inline", "{S}/inline/mcp") + `},
			{"identifier": "urn:air:test:mcp:byurl", "type": "application/mcp-server-card+json", "url": "/byurl/mcp/server-card"},
			{"identifier": "urn:air:test:catalog:team", "type": "application/ai-catalog+json", "url": "/team/ai-catalog.json"},
			{"identifier": "urn:air:test:skills", "type": "application/agent-skills+json", "url": "/.well-known/agent-skills/index.json"}]}`,
		"/byurl/mcp/server-card": cardJSON("com.example/byurl", "{S}/byurl/mcp"),
		"/team/ai-catalog.json": `{"specVersion": "1.0", "entries": [
			{"identifier": "urn:air:test:a2a:agent", "type": "application/a2a-agent-card+json", "url": "/team/agent.json"}]}`,
		"/docs" + agentskills.IndexPath: `{"skills": [{"name": "docs-search", "description": "Search the docs.", "url": "/docs/s/SKILL.md"}]}`,
		"/docs/skill.md":                "---\nname: docs\ndescription: Use the docs of this site.\n---\n\n# Docs\n",
	}
	for k, v := range files {
		if v == "" {
			delete(all, k)
		} else {
			all[k] = v
		}
	}
	var s *site
	s = newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := all[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		switch {
		case strings.HasSuffix(r.URL.Path, ".md"):
			w.Header().Set("Content-Type", "text/markdown")
		case strings.HasSuffix(r.URL.Path, "server-card"):
			w.Header().Set("Content-Type", "application/mcp-server-card+json")
		default:
			w.Header().Set("Content-Type", "application/json")
		}
		_, _ = w.Write([]byte(strings.ReplaceAll(body, "{S}", s.URL)))
	}))
	return s
}

// hitsOf returns the paths requested, sorted, "path xN" for repeats.
func hitsOf(s *site) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return demo.RequestLog(s.hits)
}

func familyNames(d *discovery.Discovery) []string {
	var out []string
	for _, f := range d.All.Families {
		out = append(out, f.Name+" "+f.Via)
	}
	return out
}

// A site publishing every family: DiscoverAll finds each one, with exactly the
// requests it needs, each listed in Fetches; Discover still reads skills.md alone.
func TestDiscoverAllEveryFamily(t *testing.T) {
	t.Parallel()
	s := everySite(t, nil)
	c := newClient(t, s, nil)
	if _, err := c.Discover(t.Context(), s.URL+"/docs"); err != nil {
		t.Fatal(err)
	}
	if got := hitsOf(s); !slices.Equal(got, []string{discovery.GuidePath}) {
		t.Fatalf("Discover requested %v, want skills.md alone", got)
	}
	d, err := c.DiscoverAll(t.Context(), s.URL+"/docs")
	if err != nil {
		t.Fatal(err)
	}
	wantHits := []string{
		"/.well-known/ai-catalog.json", discovery.MCPPath, discovery.GuidePath + " x2",
		"/byurl/mcp/server-card", "/docs/.well-known/agent-skills/index.json", "/docs/skill.md", "/team/ai-catalog.json",
	}
	slices.Sort(wantHits)
	if got := hitsOf(s); !slices.Equal(got, wantHits) {
		t.Errorf("DiscoverAll requested\n%v\nwant\n%v", got, wantHits)
	}
	if len(d.Fetches) != 7 {
		t.Errorf("Fetches = %d, want 7 (one per document)", len(d.Fetches))
	}
	wantFam := []string{
		"skills.md well-known", "mcp.json well-known", "ai-catalog well-known", "ai-catalog ai-catalog",
		"application/a2a-agent-card+json ai-catalog", "agent-skills ai-catalog",
		"mcp-server-card ai-catalog", "mcp-server-card ai-catalog", "agent-skills scope", "skill.md scope",
	}
	if got := familyNames(d); !slices.Equal(got, wantFam) {
		t.Errorf("Families =\n%v\nwant\n%v", got, wantFam)
	}
	var names []string
	for _, k := range d.All.Cards {
		if k.Err != nil {
			t.Errorf("card %s: %v", k.Identifier, k.Err)
			continue
		}
		names = append(names, k.Card.Name)
		if srv := k.Servers(); len(srv) != 1 {
			t.Errorf("card %s: Servers() = %v", k.Identifier, srv)
		} else if _, err := c.ConnectEndpoint(t.Context(), d, srv[0]); err != nil {
			t.Errorf("ConnectEndpoint(%s): %v", srv[0].URL, err)
		}
	}
	if !slices.Equal(names, []string{"com.example/inline", "com.example/byurl"}) {
		t.Errorf("cards = %v", names)
	}
	if d.All.Skills == nil || d.All.Skills.URL != s.URL+"/docs"+agentskills.IndexPath || len(d.All.Skills.Index.Skills) != 1 {
		t.Errorf("Skills = %+v, want the scoped index", d.All.Skills)
	}
	if d.All.RootSkill == nil || d.All.RootSkill.Entry.Name != "docs" || d.All.RootSkill.Verified {
		t.Errorf("RootSkill = %+v", d.All.RootSkill)
	}
	text := d.ForModel(nil)
	for _, want := range []string{"com.example/byurl: " + s.URL + "/byurl/mcp (streamable-http, from a Server Card, advisory)", "Also published", "skill.md at " + s.URL + "/docs/skill.md", "/.well-known/ai-catalog.json"} {
		if !strings.Contains(text, want) {
			t.Errorf("ForModel lacks %q:\n%s", want, text)
		}
	}
	for _, w := range d.Warnings {
		if w.Code == discovery.WarnCatalog || w.Code == discovery.WarnFetch {
			t.Errorf("warning: %v", w)
		}
	}
}

// Hostile and partial sites: each gets a bounded, clear outcome.
func TestDiscoverAllHostile(t *testing.T) {
	t.Parallel()
	many := manyCards(10000)
	tests := []struct {
		name    string
		files   map[string]string
		consent bool
		check   func(t *testing.T, s *site, d *discovery.Discovery)
	}{
		{name: "cycle", files: map[string]string{
			aicatalog.WellKnownPath: `{"specVersion": "1.0", "entries": [{"identifier": "urn:air:a", "type": "application/ai-catalog+json", "url": "/b.json"}]}`,
			"/b.json":               `{"specVersion": "1.0", "entries": [{"identifier": "urn:air:b", "type": "application/ai-catalog+json", "url": "/.well-known/ai-catalog.json"}]}`,
		}, check: func(t *testing.T, s *site, d *discovery.Discovery) {
			if s.count(aicatalog.WellKnownPath) != 1 || s.count("/b.json") != 1 {
				t.Errorf("requests %v", hitsOf(s))
			}
			if !hasWarning(d, "cycle") {
				t.Errorf("no cycle warning: %v", d.Warnings)
			}
		}},
		{name: "10000 card entries", files: map[string]string{
			aicatalog.WellKnownPath: `{"specVersion": "1.0", "entries": [` + strings.Join(many, ",") + `]}`,
		}, check: func(t *testing.T, s *site, d *discovery.Discovery) {
			n := 0
			for _, p := range hitsOf(s) {
				if strings.HasPrefix(p, "/cards/") {
					n++
				}
			}
			if n > 8 || len(d.All.Cards) > 32 {
				t.Errorf("%d card requests, %d cards: unbounded", n, len(d.All.Cards))
			}
			if !hasWarning(d, "not read") {
				t.Errorf("no warning of cards left out: %v", d.Warnings)
			}
		}},
		{name: "cross-origin card without consent", files: map[string]string{
			aicatalog.WellKnownPath: `{"specVersion": "1.0", "entries": [{"identifier": "urn:air:x", "type": "application/mcp-server-card+json", "url": "https://cards.other.example/card"}]}`,
		}, check: func(t *testing.T, s *site, d *discovery.Discovery) {
			if len(d.All.Cards) != 1 || !errors.Is(d.All.Cards[0].Err, discovery.ErrConsentDenied) && !errors.Is(d.All.Cards[0].Err, discovery.ErrCrossOrigin) {
				t.Errorf("cards = %+v, want consent refused", d.All.Cards)
			}
		}},
		{name: "schema-invalid and other-version cards", files: map[string]string{
			aicatalog.WellKnownPath: `{"specVersion": "1.0", "entries": [
				{"identifier": "urn:air:bad", "type": "application/mcp-server-card+json", "data": {"name": 7, "remotes": "x"}},
				{"identifier": "urn:air:v2", "type": "application/mcp-server-card+json", "url": "/v2/server-card"}]}`,
			"/v2/server-card": strings.Replace(cardJSON("com.example/v2", "{S}/mcp"), "/v1/", "/v2/", 1),
		}, check: func(t *testing.T, s *site, d *discovery.Discovery) {
			if len(d.All.Cards) != 2 {
				t.Fatalf("cards = %+v", d.All.Cards)
			}
			for _, k := range d.All.Cards {
				if k.Card == nil && k.Err == nil {
					t.Errorf("card %s: neither read nor failed", k.Identifier)
				}
				if k.Card != nil && len(k.Card.Diagnostics) == 0 {
					t.Errorf("card %s: read without a diagnostic", k.Identifier)
				}
			}
		}},
		{name: "index from the catalog", files: map[string]string{"/docs" + agentskills.IndexPath: "",
			aicatalog.WellKnownPath: `{"specVersion": "1.0", "entries": [{"identifier": "urn:air:s", "type": "application/agent-skills+json", "url": "/elsewhere/index.json"}]}`,
			"/elsewhere/index.json": `{"skills": [{"name": "from-catalog", "description": "Listed by the catalog.", "url": "/s/SKILL.md"}]}`},
			check: func(t *testing.T, s *site, d *discovery.Discovery) {
				if d.All.Skills == nil || d.All.Skills.Index.Skills[0].Name != "from-catalog" || s.count("/elsewhere/index.json") != 1 {
					t.Errorf("Skills = %+v, requests %v", d.All.Skills, hitsOf(s))
				}
			}},
		{name: "only a catalog", files: map[string]string{discovery.GuidePath: "", discovery.MCPPath: "", "/docs" + agentskills.IndexPath: "", "/docs/skill.md": ""},
			check: func(t *testing.T, s *site, d *discovery.Discovery) {
				if d.All.Catalog == nil || len(d.All.Cards) != 2 || len(d.Fetches) < 4 {
					t.Errorf("catalog %v, cards %d, fetches %d", d.All.Catalog != nil, len(d.All.Cards), len(d.Fetches))
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := everySite(t, tc.files)
			c := newClient(t, s, nil)
			d, err := c.DiscoverAll(t.Context(), s.URL)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, s, d)
		})
	}
}

func hasWarning(d *discovery.Discovery, text string) bool {
	return slices.ContainsFunc(d.Warnings, func(w discovery.Warning) bool { return strings.Contains(w.Message, text) })
}

// A site that publishes nothing: ErrNotPublished, after one request per family.
func TestDiscoverAllNothing(t *testing.T) {
	t.Parallel()
	s := newSite(t, http.NotFoundHandler())
	c := newClient(t, s, nil)
	if _, err := c.DiscoverAll(t.Context(), s.URL); !errors.Is(err, discovery.ErrNotPublished) {
		t.Fatalf("err = %v, want ErrNotPublished", err)
	}
	if got := len(hitsOf(s)); got != 6 {
		t.Errorf("requests %v, want 6", hitsOf(s))
	}
}

// A public site's catalog listing a card on a private address: an IP literal is left
// out by the reader, a name resolving to one is refused by the dialer, even with
// consent to fetch from another origin; the private server is never reached.
func TestDiscoverAllPrivateCardFromPublicCatalog(t *testing.T) {
	t.Parallel()
	var port string
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.Host, "public.example") && r.URL.Path == aicatalog.WellKnownPath:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"specVersion": "1.0", "entries": [
				{"identifier": "urn:air:p:literal", "type": "application/mcp-server-card+json", "url": "https://127.0.0.1:%s/secret-card"},
				{"identifier": "urn:air:p:name", "type": "application/mcp-server-card+json", "url": "https://inside.example:%s/secret-card"}]}`, port, port)
		case r.URL.Path == "/secret-card":
			fmt.Fprint(w, cardJSON("com.example/secret", "https://inside.example/mcp"))
		default:
			http.NotFound(w, r)
		}
	}))
	_, port, _ = net.SplitHostPort(s.Listener.Addr().String())
	c := insideClient(t, s)
	d, err := c.DiscoverAll(t.Context(), "https://public.example:"+port)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.count("/secret-card"); n != 0 {
		t.Errorf("the private card was fetched %d times", n)
	}
	if len(d.All.Cards) != 1 || !errors.Is(d.All.Cards[0].Err, discovery.ErrPrivateAddress) {
		t.Errorf("cards = %+v, want the named one refused with ErrPrivateAddress", d.All.Cards)
	}
	if !hasWarning(d, "private") {
		t.Errorf("no warning for the IP literal left out: %v", d.Warnings)
	}
}

// An origin given with a path is a scope: ListSkills and RootSkill look under it
// first, then at the origin's root; a path with dot segments is no scope.
func TestScopedLookups(t *testing.T) {
	t.Parallel()
	s := everySite(t, map[string]string{"/docs" + agentskills.IndexPath: "", "/docs/skill.md": "",
		agentskills.LegacyIndexPath: `{"skills": [{"name": "root", "description": "At the root.", "url": "/r/SKILL.md"}]}`,
		"/skill.md":                 "---\nname: root\ndescription: The site's skill.\n---\n# Root\n"})
	c := newClient(t, s, nil)
	ix, err := c.ListSkills(t.Context(), s.URL+"/docs/")
	if err != nil {
		t.Fatal(err)
	}
	var probed []string
	for _, f := range ix.Fetches {
		probed = append(probed, strings.TrimPrefix(f.URL, s.URL))
	}
	if want := []string{"/docs" + agentskills.IndexPath, "/docs" + agentskills.LegacyIndexPath, agentskills.IndexPath, agentskills.LegacyIndexPath}; !slices.Equal(probed, want) || ix.URL != s.URL+agentskills.LegacyIndexPath {
		t.Errorf("probed %v, used %s", probed, ix.URL)
	}
	sk, err := c.RootSkill(t.Context(), s.URL+"/docs")
	if err != nil || sk.Entry.URL != s.URL+"/skill.md" || sk.Verified {
		t.Fatalf("RootSkill = %+v, %v", sk, err)
	}
	before := s.count("/x/.well-known/agent-skills/index.json")
	if _, err := c.ListSkills(t.Context(), s.URL+"/x/../.well-known"); err != nil || s.count("/x/.well-known/agent-skills/index.json") != before {
		t.Errorf("a path with dot segments: %v, requests %v", err, hitsOf(s))
	}
}

// TestDiscoverAllCatalogWalkIsBoundedInTime: a catalog whose nested catalogs and cards
// all trickle (each answered only when the client gives up on it) holds DiscoverAll
// for a bounded time in all, not 40 document timeouts one after the other: once the
// walk's time is spent, what is left is not fetched, and said so in a warning.
func TestDiscoverAllCatalogWalkIsBoundedInTime(t *testing.T) {
	t.Parallel()
	var entries []string
	for i := range 32 {
		entries = append(entries, fmt.Sprintf(`{"identifier":"urn:air:c%d","type":"application/ai-catalog+json","url":"/slow/catalog/%d"}`, i, i))
	}
	for i := range 8 {
		entries = append(entries, fmt.Sprintf(`{"identifier":"urn:air:k%d","type":"application/mcp-server-card+json","url":"/slow/card/%d"}`, i, i))
	}
	catalog := `{"specVersion": "1.0", "entries": [` + strings.Join(entries, ",") + `]}`
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/slow/") {
			<-r.Context().Done() // trickles until the client gives up
			return
		}
		if r.URL.Path != aicatalog.WellKnownPath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(catalog))
	}))
	c := newClient(t, s, &discovery.Options{DocumentTimeout: 100 * time.Millisecond, AttemptTimeout: 100 * time.Millisecond, MaxRetries: -1})
	d, err := c.DiscoverAll(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	slow := 0
	for _, p := range hitsOf(s) {
		if strings.HasPrefix(p, "/slow/") {
			slow++
		}
	}
	// The walk has 2 document timeouts in all: a handful of requests, never the 40.
	if slow >= 20 {
		t.Errorf("%d trickling documents requested one after the other; the walk's time is not bounded", slow)
	}
	if !hasWarning(d, "time") {
		t.Errorf("no warning of what the walk left out for lack of time: %v", d.Warnings)
	}
}

// insideClient is a Client, with consent to everything, whose "public.example" is a
// public address (203.0.113.7) and "inside.example" a loopback one, both dialled to s.
func insideClient(t *testing.T, s *site) *discovery.Client {
	t.Helper()
	_, port, _ := net.SplitHostPort(s.Listener.Addr().String())
	pub, loop := netip.MustParseAddr("203.0.113.7"), netip.MustParseAddr("127.0.0.1")
	var dialer net.Dialer
	hooks := discovery.TestHooks{
		Lookup: func(_ context.Context, host string) ([]netip.Addr, error) {
			if host == "inside.example" {
				return []netip.Addr{loop}, nil
			}
			return []netip.Addr{pub}, nil
		},
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if addr == net.JoinHostPort(pub.String(), port) {
				addr = s.Listener.Addr().String()
			}
			return dialer.DialContext(ctx, network, addr)
		},
	}
	tlsOnly := &http.Transport{TLSClientConfig: s.Client().Transport.(*http.Transport).TLSClientConfig.Clone()}
	tlsOnly.TLSClientConfig.ServerName = "example.com"
	c, err := discovery.NewClientWithHooks(&discovery.Options{HTTPClient: &http.Client{Transport: tlsOnly}, Consent: discovery.AllowAll, MaxRetries: -1}, hooks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// manyCards returns n catalog entries of Server Cards by URL, /cards/0 on.
func manyCards(n int) []string {
	many := make([]string, n)
	for i := range many {
		many[i] = fmt.Sprintf(`{"identifier":"urn:air:n%d","type":"application/mcp-server-card+json","url":"/cards/%d"}`, i, i)
	}
	return many
}
