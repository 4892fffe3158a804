package main

import (
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/internal/demo"
)

// discover --structured reads every family: the AI Catalog, a nested catalog, an
// inline card and one by URL, the scoped skills index and /skill.md; --json lists
// them in families, cards and catalog.
func TestDiscoverEveryFamily(t *testing.T) {
	t.Parallel()
	card := func(name string) string {
		return `{"$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json", "name": "` + name + `", "version": "1.0.0", "description": "Test.", "remotes": [{"type": "streamable-http", "url": "http://127.0.0.1:9/mcp"}]}`
	}
	ts := httptest.NewServer(docs(map[string]string{
		"/.well-known/skills.md": "# Site\n",
		"/.well-known/ai-catalog.json": `{"specVersion": "1.0", "entries": [
			{"identifier": "urn:air:t:inline", "type": "application/mcp-server-card+json", "data": ` + card("com.example/inline") + `},
			{"identifier": "urn:air:t:byurl", "type": "application/mcp-server-card+json", "url": "/card.json"},
			{"identifier": "urn:air:t:team", "type": "application/ai-catalog+json", "url": "/team.json"}]}`,
		"/card.json": card("com.example/byurl"),
		"/team.json": `{"specVersion": "1.0", "entries": [{"identifier": "urn:air:t:agent", "type": "application/a2a-agent-card+json", "url": "/agent.json"}]}`,
		"/docs/.well-known/agent-skills/index.json": `{"skills": [{"name": "docs-search", "description": "Search.", "url": "/docs/s/SKILL.md"}]}`,
	}))
	t.Cleanup(ts.Close)
	r := runCLI(t, nil, "", "discover", "--structured", "--json", ts.URL+"/docs")
	var got struct {
		Families []struct{ Name, URL, Via string }
		Cards    []struct{ Name string }
		Catalog  []string
		Skills   *struct{ Title string } `json:"skills"`
		Index    *struct{ URL string }   `json:"skills_index"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil {
		t.Fatalf("discover --structured --json:\n%s", r)
	}
	if len(got.Cards) != 2 || got.Cards[0].Name != "com.example/inline" || got.Cards[1].Name != "com.example/byurl" {
		t.Errorf("cards = %+v", got.Cards)
	}
	if len(got.Catalog) != 2 || got.Index == nil || !strings.HasSuffix(got.Index.URL, "/docs/.well-known/agent-skills/index.json") {
		t.Errorf("catalog = %v, skills_index = %+v", got.Catalog, got.Index)
	}
	var names []string
	for _, f := range got.Families {
		names = append(names, f.Name+" "+f.Via)
	}
	if want := "skills.md well-known,ai-catalog well-known,ai-catalog ai-catalog,application/a2a-agent-card+json ai-catalog,mcp-server-card ai-catalog,mcp-server-card ai-catalog,agent-skills scope"; strings.Join(names, ",") != want {
		t.Errorf("families = %s\nwant %s", strings.Join(names, ","), want)
	}
	// scan --families reports the families of each origin; without it, the result is as before.
	r = runCLI(t, nil, ts.URL+"\n", "scan", "--families", "--quiet")
	var res struct {
		Families []string
		Cards    int
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || res.Cards != 2 ||
		strings.Join(res.Families, ",") != "skills.md,ai-catalog,application/a2a-agent-card+json,mcp-server-card" {
		t.Errorf("scan --families: %+v\n%s", res, r)
	}
	if r = runCLI(t, nil, ts.URL+"\n", "scan", "--quiet"); r.code != 0 || strings.Contains(r.stdout, "families") {
		t.Errorf("scan without --families:\n%s", r)
	}
	r = runCLI(t, nil, "", "discover", "--structured", ts.URL+"/docs")
	if r.code != 0 || !strings.Contains(r.stdout, "card server com.example/byurl: http://127.0.0.1:9/mcp") {
		t.Errorf("discover --structured:\n%s", r)
	}
}

// The demo site publishing every family (internal/demo.EveryFamily), through the CLI:
// discover reads skills.md alone; discover --structured --json every family, with
// exactly DiscoverAll's requests; skills list the skill of the index the site's AI
// Catalog lists (no well-known index is published), with exactly ListSkills' requests.
func TestDiscoverEveryFamilySite(t *testing.T) {
	t.Parallel()
	every := &demo.EveryFamily{}
	ts, ca := tlsOrigin(t, every)
	env := func() []string { return cliEnv(t, caFileEnv+"="+ca) } // a fresh HOME: nothing cached
	// discover lists the skills index beside skills.md: ListSkills' requests.
	r := runCLI(t, env(), "", "discover", ts.URL)
	if got, want := every.Requests(), demo.Sorted(append([]string{demo.EveryDiscover[0]}, demo.EveryListSkills...)...); !slices.Equal(got, want) {
		t.Errorf("discover requested\n%v\nwant\n%v", got, want)
	}
	if r.code != 0 || !strings.Contains(r.stdout, "api-search") || strings.Contains(r.stdout, "warning") {
		t.Errorf("discover:\n%s", r)
	}
	r = runCLI(t, env(), "", "discover", "--structured", "--json", ts.URL)
	if got := every.Requests(); !slices.Equal(got, demo.EveryDiscoverAll) {
		t.Errorf("discover --structured requested\n%v\nwant\n%v", got, demo.EveryDiscoverAll)
	}
	var got struct {
		Families []struct{ Name, URL, Via string }
		Cards    []struct{ Name string }
		Index    *struct{ URL string } `json:"skills_index"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil {
		t.Fatalf("discover --structured --json:\n%s", r)
	}
	var names []string
	for _, f := range got.Families {
		names = append(names, f.Name)
	}
	for _, want := range []string{"skills.md", "mcp.json", "ai-catalog", "mcp-server-card", "agent-skills", "application/a2a-agent-card+json", "skill.md"} {
		if !slices.Contains(names, want) {
			t.Errorf("families %v lack %s", names, want)
		}
	}
	if len(got.Cards) != 2 || got.Index == nil || got.Index.URL != ts.URL+demo.EveryIndexPath {
		t.Errorf("cards %+v, skills_index %+v", got.Cards, got.Index)
	}
	r = runCLI(t, env(), "", "skills", "list", ts.URL)
	if r.code != 0 || !strings.Contains(r.stdout, "api-search") || !strings.Contains(r.stdout, ts.URL+demo.EveryIndexPath) {
		t.Errorf("skills list:\n%s", r)
	}
	if got := every.Requests(); !slices.Equal(got, demo.EveryListSkills) {
		t.Errorf("skills list requested\n%v\nwant\n%v", got, demo.EveryListSkills)
	}
}
