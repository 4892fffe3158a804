package tools_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/aicatalog"
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
