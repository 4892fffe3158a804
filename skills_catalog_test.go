package discovery_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/internal/demo"
	"github.com/wellknown-dev/discovery/trust"
)

// catalogSkillMD is the SKILL.md the indexes of these tests list, and its digest.
const catalogSkillMD = "---\nname: from-catalog\ndescription: Listed through the AI Catalog.\n---\n\n# From the catalog\n"

func catalogSkillDigest() string {
	sum := sha256.Sum256([]byte(catalogSkillMD))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// catalogIndexJSON is a v0.2.0 index listing one skill-md skill at the relative url.
func catalogIndexJSON(url, digest string) string {
	return fmt.Sprintf(`{"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json", "skills": [
		{"name": "from-catalog", "type": "skill-md", "description": "Listed through the AI Catalog.", "url": %q, "digest": %q}]}`, url, digest)
}

func catalogOf(entries ...string) string {
	return `{"specVersion": "1.0", "entries": [` + strings.Join(entries, ",") + `]}`
}

func skillsEntry(id, urlOrData string) string {
	if strings.HasPrefix(urlOrData, "{") {
		return fmt.Sprintf(`{"identifier": %q, "type": "application/agent-skills+json", "data": %s}`, id, urlOrData)
	}
	return fmt.Sprintf(`{"identifier": %q, "type": "application/agent-skills+json", "url": %q}`, id, urlOrData)
}

// ListSkills, and so everything built on it, falls back to the index the AI Catalog
// lists only when neither well-known index path is published: by URL at any path,
// inline, or in a nested catalog. Relative skill URLs resolve against where the index
// was served from, and GetSkill verifies the digest. A site that publishes a
// well-known index makes exactly the requests it made before.
func TestListSkillsFromCatalog(t *testing.T) {
	t.Parallel()
	digest := catalogSkillDigest()
	tests := []struct {
		name      string
		files     map[string]string
		wantURL   string   // SkillsIndex.URL, after the server's URL
		wantSkill string   // the SKILL.md GetSkill fetches, after the server's URL
		wantHits  []string // every request of ListSkills, sorted
	}{
		{name: "by URL at a non-standard path",
			files: map[string]string{
				aicatalog.WellKnownPath:  catalogOf(skillsEntry("urn:air:t:skills", "/api/skills/index.json")),
				"/api/skills/index.json": catalogIndexJSON("from-catalog/SKILL.md", digest),
			},
			wantURL: "/api/skills/index.json", wantSkill: "/api/skills/from-catalog/SKILL.md",
			wantHits: []string{agentskills.IndexPath, agentskills.LegacyIndexPath, aicatalog.WellKnownPath, "/api/skills/index.json"}},
		{name: "inline data",
			files: map[string]string{
				aicatalog.WellKnownPath: catalogOf(skillsEntry("urn:air:t:skills", catalogIndexJSON("inline/SKILL.md", digest))),
			},
			wantURL: aicatalog.WellKnownPath, wantSkill: "/.well-known/inline/SKILL.md",
			wantHits: []string{agentskills.IndexPath, agentskills.LegacyIndexPath, aicatalog.WellKnownPath}},
		{name: "in a nested catalog",
			files: map[string]string{
				aicatalog.WellKnownPath: catalogOf(`{"identifier": "urn:air:t:team", "type": "application/ai-catalog+json", "url": "/team/catalog.json"}`),
				"/team/catalog.json":    catalogOf(skillsEntry("urn:air:t:skills", "skills.json")),
				"/team/skills.json":     catalogIndexJSON("/s/from-catalog/SKILL.md", digest),
			},
			wantURL: "/team/skills.json", wantSkill: "/s/from-catalog/SKILL.md",
			wantHits: []string{agentskills.IndexPath, agentskills.LegacyIndexPath, aicatalog.WellKnownPath, "/team/catalog.json", "/team/skills.json"}},
		{name: "a well-known index: the catalog is not read",
			files: map[string]string{
				agentskills.IndexPath:   catalogIndexJSON("/s/from-catalog/SKILL.md", digest),
				aicatalog.WellKnownPath: catalogOf(skillsEntry("urn:air:t:skills", "/api/skills/index.json")),
			},
			wantURL: agentskills.IndexPath, wantSkill: "/s/from-catalog/SKILL.md",
			wantHits: []string{agentskills.IndexPath}},
		{name: "the legacy index: the catalog is not read",
			files: map[string]string{
				agentskills.LegacyIndexPath: catalogIndexJSON("/s/from-catalog/SKILL.md", digest),
				aicatalog.WellKnownPath:     catalogOf(skillsEntry("urn:air:t:skills", "/api/skills/index.json")),
			},
			wantURL: agentskills.LegacyIndexPath, wantSkill: "/s/from-catalog/SKILL.md",
			wantHits: []string{agentskills.IndexPath, agentskills.LegacyIndexPath}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			files := mergeFiles(tc.files, map[string]string{tc.wantSkill: catalogSkillMD})
			s := newSite(t, docs(t, files))
			c := newClient(t, s, nil)
			ix, err := c.ListSkills(t.Context(), s.URL)
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Clone(tc.wantHits)
			slices.Sort(want)
			if got := hitsOf(s); !slices.Equal(got, want) {
				t.Errorf("ListSkills requested\n%v\nwant\n%v", got, want)
			}
			if ix.URL != s.URL+tc.wantURL || len(ix.Fetches) != len(tc.wantHits) {
				t.Errorf("URL = %s, %d fetches; want %s, %d", ix.URL, len(ix.Fetches), s.URL+tc.wantURL, len(tc.wantHits))
			}
			sk, err := c.GetSkill(t.Context(), ix, "from-catalog")
			if err != nil {
				t.Fatal(err)
			}
			if !sk.Verified || sk.Entry.URL != s.URL+tc.wantSkill || s.count(tc.wantSkill) != 1 {
				t.Errorf("skill %+v, verified %v; want %s fetched once", sk.Entry, sk.Verified, tc.wantSkill)
			}
		})
	}
}

// mergeFiles merges its arguments into a new map, later ones winning.
func mergeFiles(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// An index the catalog lists is checked exactly as a well-known one: a digest
// mismatch fails GetSkill, and RequireSignedSkills refuses an unsigned skill.
func TestCatalogIndexVerification(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		aicatalog.WellKnownPath: catalogOf(skillsEntry("urn:air:t:skills", "/api/index.json")),
		"/api/index.json":       catalogIndexJSON("s/SKILL.md", catalogSkillDigest()),
		"/api/s/SKILL.md":       strings.Replace(catalogSkillMD, "# From", "# Changed", 1),
	}
	s := newSite(t, docs(t, files))
	c := newClient(t, s, nil)
	ix, err := c.ListSkills(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetSkill(t.Context(), ix, "from-catalog"); !errors.Is(err, agentskills.ErrDigestMismatch) {
		t.Errorf("GetSkill of a changed SKILL.md: %v, want ErrDigestMismatch", err)
	}
	good := newSite(t, docs(t, mergeFiles(files, map[string]string{"/api/s/SKILL.md": catalogSkillMD})))
	signed := newClient(t, good, &discovery.Options{RequireSignedSkills: true})
	ix, err = signed.ListSkills(t.Context(), good.URL)
	if err != nil {
		t.Fatal(err)
	}
	var verr *trust.VerifyError
	if _, err := signed.GetSkill(t.Context(), ix, "from-catalog"); !errors.As(err, &verr) {
		t.Errorf("GetSkill of an unsigned skill with RequireSignedSkills: %v, want a *trust.VerifyError", err)
	}
}

// Hostile catalogs behind ListSkills: each gets a bounded, clear outcome.
func TestListSkillsFromHostileCatalog(t *testing.T) {
	t.Parallel()
	many := manyCards(10000)
	index := catalogIndexJSON("/s/SKILL.md", catalogSkillDigest())
	tests := []struct {
		name     string
		files    map[string]string
		consent  discovery.ConsentFunc
		wantErr  error    // errors.Is; nil: found
		wantText []string // in the error, or in a warning when found
		maxHits  int      // requests at most
	}{
		{name: "another origin without consent",
			files:    map[string]string{aicatalog.WellKnownPath: catalogOf(skillsEntry("urn:air:x", "https://skills.other.example/index.json"))},
			wantErr:  discovery.ErrCrossOrigin,
			wantText: []string{"https://skills.other.example/index.json", "ConsentRedirect", "agent-skills"}, maxHits: 3},
		{name: "inline data that is not an index",
			files:    map[string]string{aicatalog.WellKnownPath: catalogOf(`{"identifier": "urn:air:c", "type": "application/mcp-server-card+json", "url": "/c"}`, skillsEntry("urn:air:x", `{"servers": []}`))},
			wantErr:  agentskills.ErrNotIndex,
			wantText: []string{"/.well-known/ai-catalog.json#/entries/1/data", "not an Agent Skills index"}, maxHits: 3},
		{name: "two agent-skills entries: the first wins",
			files: map[string]string{aicatalog.WellKnownPath: catalogOf(skillsEntry("urn:air:first", "/first.json"), skillsEntry("urn:air:second", "/second.json")),
				"/first.json": index, "/second.json": index},
			wantText: []string{"/entries/1", "urn:air:second", "not read", "urn:air:first"}, maxHits: 4},
		{name: "a catalog cycle",
			files: map[string]string{
				aicatalog.WellKnownPath: catalogOf(`{"identifier": "urn:air:a", "type": "application/ai-catalog+json", "url": "/b.json"}`),
				"/b.json":               catalogOf(`{"identifier": "urn:air:b", "type": "application/ai-catalog+json", "url": "/.well-known/ai-catalog.json"}`, skillsEntry("urn:air:s", "/idx.json")),
				"/idx.json":             index},
			wantText: []string{"cycle"}, maxHits: 5},
		{name: "a catalog cycle without an index",
			files: map[string]string{
				aicatalog.WellKnownPath: catalogOf(`{"identifier": "urn:air:a", "type": "application/ai-catalog+json", "url": "/b.json"}`),
				"/b.json":               catalogOf(`{"identifier": "urn:air:b", "type": "application/ai-catalog+json", "url": "/.well-known/ai-catalog.json"}`)},
			wantErr: discovery.ErrNotPublished, wantText: []string{"agent-skills entry"}, maxHits: 4},
		{name: "10,000 entries, the index first",
			files:   map[string]string{aicatalog.WellKnownPath: catalogOf(append([]string{skillsEntry("urn:air:s", "/idx.json")}, many...)...), "/idx.json": index},
			maxHits: 4},
		{name: "10,000 entries, the index last",
			files:   map[string]string{aicatalog.WellKnownPath: catalogOf(append(many, skillsEntry("urn:air:s", "/idx.json"))...), "/idx.json": index},
			wantErr: discovery.ErrNotPublished, maxHits: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSite(t, docs(t, mergeFiles(tc.files, map[string]string{"/s/SKILL.md": catalogSkillMD})))
			c := newClient(t, s, &discovery.Options{Consent: tc.consent})
			ix, err := c.ListSkills(t.Context(), s.URL)
			if n := s.total(); n > tc.maxHits {
				t.Errorf("%d requests %v, want at most %d", n, hitsOf(s), tc.maxHits)
			}
			text := fmt.Sprint(err)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				if len(ix.Index.Skills) != 1 || s.count("/second.json") != 0 {
					t.Errorf("index %+v, requests %v", ix.Index, hitsOf(s))
				}
				text = fmt.Sprint(ix.Warnings)
			} else if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			for _, w := range tc.wantText {
				if !strings.Contains(text, w) {
					t.Errorf("%q lacks %q", text, w)
				}
			}
		})
	}
}

// A public site's catalog listing its index on a private address: an IP literal is
// left out by the reader, a name resolving to one is refused by the dialer even with
// consent; the private server is never reached.
func TestListSkillsPrivateIndexFromPublicCatalog(t *testing.T) {
	t.Parallel()
	var port, host string
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.Host, "public.example") && r.URL.Path == aicatalog.WellKnownPath:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, catalogOf(skillsEntry("urn:air:p", "https://"+host+":"+port+"/secret/index.json")))
		case r.URL.Path == "/secret/index.json":
			fmt.Fprint(w, catalogIndexJSON("/s/SKILL.md", catalogSkillDigest()))
		default:
			http.NotFound(w, r)
		}
	}))
	_, port, _ = net.SplitHostPort(s.Listener.Addr().String())
	c := insideClient(t, s)
	for _, tc := range []struct {
		host string
		want error
	}{{"inside.example", discovery.ErrPrivateAddress}, {"127.0.0.1", discovery.ErrNotPublished}} {
		host = tc.host
		if _, err := c.ListSkills(t.Context(), "https://public.example:"+port); !errors.Is(err, tc.want) {
			t.Errorf("index at %s: err = %v, want %v", tc.host, err, tc.want)
		}
		if n := s.count("/secret/index.json"); n != 0 {
			t.Errorf("index at %s: the private index was fetched %d times", tc.host, n)
		}
	}
}

// DiscoverAll uses the same lookup on the catalog it read: the catalog is fetched
// once, the index it lists once, and the index is Skills.
func TestDiscoverAllIndexFromCatalogOnce(t *testing.T) {
	t.Parallel()
	s := newSite(t, docs(t, map[string]string{
		discovery.GuidePath:      "# Site\n",
		aicatalog.WellKnownPath:  catalogOf(skillsEntry("urn:air:t:skills", "/api/skills/index.json")),
		"/api/skills/index.json": catalogIndexJSON("s/SKILL.md", catalogSkillDigest()),
	}))
	c := newClient(t, s, nil)
	d, err := c.DiscoverAll(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	if s.count(aicatalog.WellKnownPath) != 1 || s.count("/api/skills/index.json") != 1 {
		t.Errorf("requests %v, want the catalog and the index once each", hitsOf(s))
	}
	if d.All.Skills == nil || d.All.Skills.URL != s.URL+"/api/skills/index.json" {
		t.Fatalf("Skills = %+v", d.All.Skills)
	}
	if got := familyNames(d); !slices.Equal(got, []string{"skills.md well-known", "ai-catalog well-known", "agent-skills ai-catalog"}) {
		t.Errorf("Families = %v", got)
	}
}

// The demo site publishing every family (internal/demo.EveryFamily), discovered
// completely by the library, each discovery with exactly the requests it needs:
// Discover reads skills.md alone; DiscoverAll of the origin reads the index the nested
// catalog lists (the catalog once), of the origin with a path the scoped index;
// ListSkills alone reads the catalogs only after both well-known paths.
func TestEveryFamilySite(t *testing.T) {
	t.Parallel()
	every := &demo.EveryFamily{}
	ts := httptest.NewTLSServer(every)
	t.Cleanup(ts.Close)
	client := func() *discovery.Client { return demo.NewClient(t, ts) }
	if _, err := client().Discover(t.Context(), ts.URL+demo.EveryScope); err != nil {
		t.Fatal(err)
	}
	if got := every.Requests(); !slices.Equal(got, demo.EveryDiscover) {
		t.Errorf("Discover requested %v, want %v", got, demo.EveryDiscover)
	}
	for _, tc := range []struct {
		origin, index string
		want          []string
	}{
		{ts.URL, ts.URL + demo.EveryIndexPath, demo.EveryDiscoverAll},
		{ts.URL + demo.EveryScope, ts.URL + demo.EveryScopedIndex, demo.EveryDiscoverAllScoped},
	} {
		d, err := client().DiscoverAll(t.Context(), tc.origin)
		if err != nil {
			t.Fatal(err)
		}
		if got := every.Requests(); !slices.Equal(got, tc.want) {
			t.Errorf("DiscoverAll(%s) requested\n%v\nwant\n%v", tc.origin, got, tc.want)
		}
		if len(d.Fetches) != len(tc.want) {
			t.Errorf("DiscoverAll(%s): %d Fetches, want %d", tc.origin, len(d.Fetches), len(tc.want))
		}
		if len(d.All.Cards) != 2 || d.All.Cards[0].Card == nil || d.All.Cards[1].Card == nil || d.Guide == nil || d.MCP == nil || d.All.RootSkill == nil {
			t.Errorf("DiscoverAll(%s): cards %+v, guide %v, mcp %v, /skill.md %v", tc.origin, d.All.Cards, d.Guide != nil, d.MCP != nil, d.All.RootSkill != nil)
		}
		if d.All.Skills == nil || d.All.Skills.URL != tc.index {
			t.Errorf("DiscoverAll(%s): Skills %+v, want %s", tc.origin, d.All.Skills, tc.index)
		}
		for _, w := range d.Warnings {
			if w.Code == discovery.WarnCatalog || w.Code == discovery.WarnFetch {
				t.Errorf("DiscoverAll(%s): warning %v", tc.origin, w)
			}
		}
	}
	ix, err := client().ListSkills(t.Context(), ts.URL)
	if err != nil || ix.URL != ts.URL+demo.EveryIndexPath || ix.Index.Skills[0].URL != ts.URL+"/api/skills/api-search/SKILL.md" {
		t.Fatalf("ListSkills = %+v, %v", ix, err)
	}
	if got := every.Requests(); !slices.Equal(got, demo.EveryListSkills) {
		t.Errorf("ListSkills requested %v, want %v", got, demo.EveryListSkills)
	}
}

// An index the catalog lists on another origin is read with consent (ConsentRedirect,
// asked once, naming it), and its skill, relative to it, on that origin with
// ConsentArtifact, as for any artifact on another origin.
func TestListSkillsCrossOriginIndexWithConsent(t *testing.T) {
	t.Parallel()
	other := newSite(t, docs(t, map[string]string{
		"/index.json": catalogIndexJSON("s/SKILL.md", catalogSkillDigest()),
		"/s/SKILL.md": catalogSkillMD,
	}))
	s := newSite(t, docs(t, map[string]string{aicatalog.WellKnownPath: catalogOf(skillsEntry("urn:air:x", other.URL+"/index.json"))}))
	var mu sync.Mutex
	var asked []string
	consent := func(_ context.Context, r *discovery.ConsentRequest) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, fmt.Sprintf("%v %s", r.Action == discovery.ConsentRedirect, r.URL))
		return true, nil
	}
	c := newClient(t, s, &discovery.Options{Consent: consent})
	ix, err := c.ListSkills(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	if sk, err := c.GetSkill(t.Context(), ix, "from-catalog"); err != nil || !sk.Verified || other.count("/s/SKILL.md") != 1 {
		t.Fatalf("GetSkill = %+v, %v; requests of the other origin %v", sk, err, hitsOf(other))
	}
	if want := []string{"true " + other.URL + "/index.json", "false " + other.URL + "/s/SKILL.md"}; !slices.Equal(asked, want) {
		t.Errorf("consent asked %v, want %v", asked, want)
	}
}
