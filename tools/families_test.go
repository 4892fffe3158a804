package tools_test

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/catalog"
	"github.com/wellknown-dev/discovery/internal/demo"
	"github.com/wellknown-dev/discovery/tools"
)

// A site whose MCP server is known only from a Server Card in its AI Catalog:
// list_mcp_servers and discover_site (structured) show the card's remote, labelled
// advisory, and discover_site lists the families.
func TestCatalogServersInTools(t *testing.T) {
	t.Parallel()
	card := `{"$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json", "name": "com.example/weather", "version": "1.0.0", "description": "Weather.", "remotes": [{"type": "streamable-http", "url": "https://127.0.0.1:9/mcp"}]}`
	s := newSite(t, map[string]doc{
		discovery.GuidePath: {"text/markdown", skillsMD},
		aicatalog.WellKnownPath: {"application/ai-catalog+json", fmt.Sprintf(`{"specVersion": "1.0", "entries": [
			{"identifier": "urn:air:test:mcp:weather", "type": "application/mcp-server-card+json", "data": %s}]}`, card)},
	})
	ts := tools.New(s.client, nil, nil)
	res, out := call(t, ts, 8192, "list_mcp_servers", fmt.Sprintf(`{"origin": %q}`, s.URL))
	cards, _ := out["card_servers"].([]any)
	if len(cards) != 1 || !strings.Contains(fmt.Sprint(cards[0]), "https://127.0.0.1:9/mcp") {
		t.Errorf("list_mcp_servers card_servers = %v", out["card_servers"])
	}
	if !strings.Contains(res.Text, "from a Server Card, advisory") {
		t.Errorf("list_mcp_servers text lacks the card server:\n%s", res.Text)
	}
	res, out = call(t, ts, 8192, "discover_site", fmt.Sprintf(`{"origin": %q, "structured": true}`, s.URL))
	if fams, _ := out["families"].([]any); len(fams) < 3 {
		t.Errorf("discover_site families = %v", out["families"])
	}
	if !strings.Contains(res.Text, "com.example/weather") {
		t.Errorf("discover_site text lacks the card server:\n%s", res.Text)
	}
}

// The demo site publishing every family (internal/demo.EveryFamily): discover_site
// (structured) reports each family with exactly DiscoverAll's requests, and
// list_skills lists the skill of the index its AI Catalog lists (the site publishes
// no well-known index), with exactly ListSkills' requests; read_skill reads it.
func TestEveryFamilySiteInTools(t *testing.T) {
	t.Parallel()
	every := &demo.EveryFamily{}
	srv := httptest.NewTLSServer(every)
	t.Cleanup(srv.Close)
	toolset := func() *tools.Toolset { return tools.New(demo.NewClient(t, srv), catalog.New(nil), nil) }
	res, out := call(t, toolset(), 8192, "discover_site", fmt.Sprintf(`{"origin": %q, "structured": true}`, srv.URL))
	if got := every.Requests(); !slices.Equal(got, demo.EveryDiscoverAll) {
		t.Errorf("discover_site requested\n%v\nwant\n%v", got, demo.EveryDiscoverAll)
	}
	fams := fmt.Sprint(out["families"])
	for _, want := range []string{"skills.md", "mcp.json", "ai-catalog", "mcp-server-card", "agent-skills", "skill.md", srv.URL + demo.EveryIndexPath} {
		if !strings.Contains(fams, want) {
			t.Errorf("discover_site families lack %q: %s", want, fams)
		}
	}
	if !strings.Contains(res.Text, "com.example/byurl") || !strings.Contains(res.Text, "com.example/inline") {
		t.Errorf("discover_site text lacks the card servers:\n%s", res.Text)
	}
	ts := toolset()
	res, _ = call(t, ts, tools.DefaultTextBudget, "list_skills", fmt.Sprintf(`{"origin": %q}`, srv.URL))
	// list_skills reads the index twice (to check the site, then catalog.AddWeb): the
	// second time from the HTTP cache, but for the 404s of the well-known paths.
	want := demo.Sorted(agentskills.IndexPath+" x2", agentskills.LegacyIndexPath+" x2", aicatalog.WellKnownPath, demo.EveryTeamPath, demo.EveryIndexPath)
	if got := every.Requests(); !slices.Equal(got, want) {
		t.Errorf("list_skills requested\n%v\nwant\n%v", got, want)
	}
	if !strings.Contains(res.Text, "api-search") {
		t.Errorf("list_skills lacks the skill the catalog's index lists:\n%s", res.Text)
	}
	if res, _ = call(t, ts, tools.DefaultTextBudget, "read_skill", `{"name": "api-search"}`); !strings.Contains(res.Text, "api-search") {
		t.Errorf("read_skill(api-search):\n%s", res.Text)
	}
}
