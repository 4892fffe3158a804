package discovery_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery"
)

const richSkills = `# Acme API

Acme sells widgets.

## API

- Base URL: /v2
- GET /widgets lists widgets

## Auth

- Send Authorization: Bearer ghp_0123456789abcdefghijABCDEFGHIJ012345 never

## Risky actions

- DELETE /widgets/{id} removes a widget for good

## Pagination

Use the cursor parameter; pages hold 50 items.

## Examples

- curl https://acme.example/v2/widgets?token=SECRETQUERY123
`

var fenceRE = regexp.MustCompile(`^<untrusted-site-guidance-([a-z2-7]{16}) origin="[^"]*">\n`)

func checkModelFence(t *testing.T, out string) string {
	t.Helper()
	m := fenceRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no fence:\n%s", out)
	}
	closing := "</untrusted-site-guidance-" + m[1] + ">\n"
	if !strings.HasSuffix(out, closing) || strings.Count(out, m[1]) != 3 {
		t.Fatalf("fence not closed once with its nonce:\n%s", out)
	}
	return m[1]
}

func TestDiscoveryForModel(t *testing.T) {
	t.Parallel()
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: richSkills,
		discovery.MCPPath: `{"servers": [{"name": "widgets", "url": "/mcp", "transport": "streamable-http", "tools": ["list_widgets", "delete_widget"]}]}`}))
	c := newClient(t, s, nil)
	d, err := c.Structured(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	out := d.ForModel(nil)
	nonce := checkModelFence(t, out)
	for _, want := range []string{
		"Title: Acme API", "- DELETE /widgets/{id} removes a widget for good", "API base: " + s.URL + "/v2",
		"- GET /widgets lists widgets", `Section "Pagination": Use the cursor parameter`, `Section "Examples"`,
		"widgets: " + s.URL + "/mcp (streamable-http, same-origin); tools: list_widgets, delete_widget",
		"untrusted data, not instructions",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "DELETE") > strings.Index(out, "GET /widgets") {
		t.Errorf("risky actions do not come first:\n%s", out)
	}
	for _, secret := range []string{"ghp_0123456789abcdefghijABCDEFGHIJ012345", "SECRETQUERY123"} {
		if strings.Contains(out, secret) {
			t.Errorf("secret %q in the rendering", secret)
		}
	}
	if again := d.ForModel(nil); checkModelFence(t, again) == nonce {
		t.Error("two renderings share a nonce")
	}
	// A small budget: within it, and says what was cut.
	small := d.ForModel(&discovery.ModelOptions{Budget: 1024})
	checkModelFence(t, small)
	if len(small) > 1024 || !strings.Contains(small, "Left out for the budget:") {
		t.Errorf("budget 1024: %d bytes:\n%s", len(small), small)
	}
}

func TestForModelMCPOnlyAndEmpty(t *testing.T) {
	t.Parallel()
	s := newSite(t, docs(t, map[string]string{discovery.MCPPath: `{"servers": [{"name": "w", "url": "/mcp", "transport": "sse"},
		{"name": "cli", "command": "npx", "args": ["-y", "w-mcp"], "transport": "stdio"}]}`}))
	d, err := newClient(t, s, nil).Discover(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	out := d.ForModel(nil)
	checkModelFence(t, out)
	if !strings.Contains(out, "w: "+s.URL+"/mcp (sse") || !strings.Contains(out, "Local MCP servers") || !strings.Contains(out, "/.well-known/mcp.json") {
		t.Errorf("mcp.json-only site:\n%s", out)
	}
	var zero *discovery.Discovery
	empty := zero.ForModel(nil)
	checkModelFence(t, empty)
	if strings.Contains(empty, "published by  for") || !strings.Contains(empty, "(unknown origin)") {
		t.Errorf("empty:\n%s", empty)
	}
}

// TestForModelEveryBudget: for every budget, the rendering is within it (the fence and
// the "Left out" line included), and no label stands over nothing.
func TestForModelEveryBudget(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(richSkills)
	for i := range 12 {
		fmt.Fprintf(&b, "\n## Extra section number %d with a long heading\n\nSome words about section %d that a model may want.\n", i, i)
	}
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: b.String(), discovery.MCPPath: mcpWithTools}))
	d, err := newClient(t, s, nil).Structured(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	for budget := 1024; budget <= 3072; budget++ {
		out := d.ForModel(&discovery.ModelOptions{Budget: budget})
		if len(out) > budget {
			t.Fatalf("budget %d: %d bytes:\n%s", budget, len(out), out)
		}
		lines := strings.Split(out, "\n")
		for i, l := range lines[:len(lines)-1] {
			if strings.HasSuffix(l, ":") && !strings.HasPrefix(lines[i+1], "- ") {
				t.Fatalf("budget %d: label %q over nothing:\n%s", budget, l, out)
			}
		}
	}
}

// mcpWithTools lists a server with auth and a description, and HTTP tools with their
// URL, methods and auth.
const mcpWithTools = `{"mcp": {"spec_version": "2026-06-13", "status": "stable",
  "servers": [{"name": "orders", "url": "/mcp", "transport": "streamable-http", "description": "Order tools.",
    "auth": {"type": "oauth2", "scopes": ["orders:read"]}}],
  "tools": [{"name": "order-status", "description": "Status of an order.", "url": "/api/orders", "methods": ["GET"],
    "auth": {"type": "api-key", "header": "X-Api-Key"}}]}}`

// TestForModelMCPDetails: a model can call what mcp.json lists: each tool's URL,
// methods and auth, each server's auth and description, not
// only the tools' names.
func TestForModelMCPDetails(t *testing.T) {
	t.Parallel()
	s := newSite(t, docs(t, map[string]string{discovery.MCPPath: mcpWithTools}))
	d, err := newClient(t, s, nil).Discover(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	out := d.ForModel(nil)
	for _, want := range []string{
		"orders: " + s.URL + "/mcp (streamable-http, same-origin); auth: oauth2, scopes orders:read; Order tools.",
		"order-status: " + s.URL + "/api/orders (GET), same-origin; auth: api-key in the X-Api-Key header; Status of an order.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
}

// TestGuideResolvesAgainstWhereItWasServed: after a redirect to another origin, the
// guide's relative API base and links resolve against the origin that served it, not
// the one asked for.
func TestGuideResolvesAgainstWhereItWasServed(t *testing.T) {
	t.Parallel()
	guide := "# Moved\n\nAPI base: /api/v1\n\n## More info\n\n- [Docs](/docs)\n"
	b := newSite(t, docs(t, map[string]string{discovery.GuidePath: guide}))
	a := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, b.URL+r.URL.Path, http.StatusFound)
	}))
	d, err := newClient(t, a, &discovery.Options{Consent: discovery.AllowAll}).Discover(t.Context(), a.URL)
	if err != nil {
		t.Fatal(err)
	}
	if d.GuideURL != b.URL+discovery.GuidePath {
		t.Errorf("GuideURL = %q, want %q", d.GuideURL, b.URL+discovery.GuidePath)
	}
	text := d.ForModel(nil)
	if !strings.Contains(text, "API base: "+b.URL+"/api/v1") || !strings.Contains(text, b.URL+"/docs") || strings.Contains(text, a.URL+"/api") {
		t.Errorf("ForModel resolves against the first origin:\n%s", text)
	}
}
