package demo

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/aicatalog"
)

// Paths of the documents [EveryFamily] serves beside the well-known ones.
const (
	EveryCardPath    = "/byurl/mcp/server-card"                            // the Server Card by URL
	EveryTeamPath    = "/team/ai-catalog.json"                             // the nested catalog
	EveryIndexPath   = "/api/skills/index.json"                            // the index the catalog's agent-skills entry lists
	EveryScope       = "/docs"                                             // the scope of the scoped index
	EveryScopedIndex = EveryScope + "/.well-known/agent-skills/index.json" // the scoped index
)

// everyCard is a Server Card with one streamable-http remote at the origin's path.
func everyCard(name, path string) string {
	return fmt.Sprintf(`{"$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json", "name": %q, "version": "1.0.0", "description": "Test server.", "remotes": [{"type": "streamable-http", "url": "{S}%s"}]}`, name, path)
}

// everySkill is the SKILL.md of the skill name.
func everySkill(name string) string {
	return "---\nname: " + name + "\ndescription: Search this site.\n---\n\n# " + name + "\n"
}

// everyIndex is a v0.2.0 index listing the skill name, its SKILL.md at url.
func everyIndex(name, url, skillMD string) string {
	return fmt.Sprintf(`{"$schema": %q, "skills": [{"name": %q, "type": "skill-md", "description": "Search this site.", "url": %q, "digest": %q}]}`,
		agentskills.SchemaV020, name, url, agentskills.Digest([]byte(skillMD)))
}

// everyDocs are the documents of EveryFamily by path: Content-Type, then body, in
// which "{S}" is the origin the request was sent to.
var everyDocs = map[string][2]string{
	discovery.GuidePath: {"text/markdown", "# Every family\n\nA site publishing every family for agents.\n"},
	discovery.MCPPath:   {"application/json", `{"mcp_servers": [{"name": "main", "url": "{S}/mcp", "transport": "streamable-http"}]}`},
	aicatalog.WellKnownPath: {aicatalog.MediaType, `{"specVersion": "1.0", "entries": [
		{"identifier": "urn:air:every:mcp:inline", "type": "application/mcp-server-card+json", "data": ` + everyCard("com.example/inline", "/inline/mcp") + `},
		{"identifier": "urn:air:every:mcp:byurl", "type": "application/mcp-server-card+json", "url": "` + EveryCardPath + `"},
		{"identifier": "urn:air:every:catalog:team", "type": "application/ai-catalog+json", "url": "` + EveryTeamPath + `"}]}`},
	EveryCardPath: {aicatalog.TypeMCPServerCard, everyCard("com.example/byurl", "/byurl/mcp")},
	EveryTeamPath: {aicatalog.MediaType, `{"specVersion": "1.0", "entries": [
		{"identifier": "urn:air:every:a2a:agent", "type": "application/a2a-agent-card+json", "url": "/team/agent.json"},
		{"identifier": "urn:air:every:skills", "type": "application/agent-skills+json", "url": "` + EveryIndexPath + `"}]}`},
	EveryIndexPath:                    {"application/json", everyIndex("api-search", "api-search/SKILL.md", everySkill("api-search"))},
	EveryScopedIndex:                  {"application/json", everyIndex("docs-search", "/docs/s/SKILL.md", everySkill("docs-search"))},
	"/api/skills/api-search/SKILL.md": {"text/markdown", everySkill("api-search")},
	"/docs/s/SKILL.md":                {"text/markdown", everySkill("docs-search")},
	"/skill.md":                       {"text/markdown", "---\nname: every\ndescription: Use this site's documents for agents.\n---\n\n# Every family\n"},
}

// EveryFamily is a site that publishes every family a site can publish for agents,
// with a log of the requests it answered: skills.md, mcp.json, an AI Catalog with an
// inline Server Card, a card by URL (EveryCardPath) and a nested catalog
// (EveryTeamPath) whose agent-skills entry lists the index at EveryIndexPath; a
// scoped index (EveryScopedIndex, for the origin with EveryScope); and /skill.md.
// Documents that name the site use the origin each request was sent to, so one
// handler serves over HTTP or TLS on any port. Each document is sent with
// Cache-Control: max-age=300. It is safe for concurrent use.
type EveryFamily struct {
	mu   sync.Mutex
	hits map[string]int
}

// ServeHTTP answers a GET of one of the documents, and 404 to anything else.
func (e *EveryFamily) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	if e.hits == nil {
		e.hits = map[string]int{}
	}
	e.hits[r.URL.Path]++
	e.mu.Unlock()
	d, ok := everyDocs[r.URL.Path]
	if !ok || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	w.Header().Set("Content-Type", d[0])
	w.Header().Set("Cache-Control", "max-age=300")
	_, _ = w.Write([]byte(strings.ReplaceAll(d[1], "{S}", scheme+"://"+r.Host)))
}

// Requests returns the paths requested since the last call, as RequestLog lists
// them, and clears the log.
func (e *EveryFamily) Requests() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := RequestLog(e.hits)
	e.hits = nil
	return out
}

// RequestLog lists hits (requests by path) sorted, a path requested more than once
// as "path xN": a log to compare with a wanted one.
func RequestLog(hits map[string]int) []string {
	var out []string
	for p, n := range hits {
		if n > 1 {
			p = fmt.Sprintf("%s x%d", p, n)
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// NewClient is a Client for the test server ts on loopback, closed when tb ends: its
// HTTPClient trusts ts's certificate, private origins are allowed (loopback is one)
// and nothing is retried. A Client that cannot be built fails tb.
func NewClient(tb testing.TB, ts *httptest.Server) *discovery.Client {
	tb.Helper()
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: ts.Client(), MaxRetries: -1, InsecureAllowPrivateOrigins: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.CloseIdleConnections)
	return c
}

// Sorted returns paths sorted, as Requests lists them: for a wanted log.
func Sorted(paths ...string) []string {
	out := slices.Clone(paths)
	slices.Sort(out)
	return out
}

// The request logs of the discoveries of EveryFamily by a fresh Client.
var (
	// EveryDiscover is Discover's: skills.md alone.
	EveryDiscover = []string{discovery.GuidePath}
	// EveryDiscoverAll is DiscoverAll's of the origin (no path): the index the catalog
	// lists, after both well-known index paths, and the catalog read once.
	EveryDiscoverAll = Sorted(discovery.GuidePath, discovery.MCPPath, aicatalog.WellKnownPath, EveryCardPath, EveryTeamPath,
		agentskills.IndexPath, agentskills.LegacyIndexPath, EveryIndexPath, "/skill.md")
	// EveryDiscoverAllScoped is DiscoverAll's of the origin with EveryScope: the scoped
	// index, and /skill.md after the scoped one.
	EveryDiscoverAllScoped = Sorted(discovery.GuidePath, discovery.MCPPath, aicatalog.WellKnownPath, EveryCardPath, EveryTeamPath,
		EveryScopedIndex, EveryScope+"/skill.md", "/skill.md")
	// EveryListSkills is ListSkills' of the origin: both well-known index paths, the
	// catalog, the nested one and the index it lists.
	EveryListSkills = Sorted(agentskills.IndexPath, agentskills.LegacyIndexPath, aicatalog.WellKnownPath, EveryTeamPath, EveryIndexPath)
)
