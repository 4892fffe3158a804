package tools_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery/tools"
)

// connect serves ts's MCP server on the SDK's in-memory transport and returns a
// client session to it.
func connect(t *testing.T, ts *tools.Toolset) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := ts.MCPServer(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestMCPToolAnnotations: every tool tells an MCP client, in tools/list, that it only
// reads, from the open world, destroys nothing and may be called again safely.
func TestMCPToolAnnotations(t *testing.T) {
	t.Parallel()
	ts := tools.New(nil, nil, nil)
	res, err := connect(t, ts).ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != len(ts.Tools()) {
		t.Fatalf("%d tools listed, want %d", len(res.Tools), len(ts.Tools()))
	}
	for _, tool := range res.Tools {
		a := tool.Annotations
		if a == nil {
			t.Errorf("%s: no annotations", tool.Name)
			continue
		}
		if !a.ReadOnlyHint || !a.IdempotentHint || a.OpenWorldHint == nil || !*a.OpenWorldHint ||
			a.DestructiveHint == nil || *a.DestructiveHint {
			data, _ := json.Marshal(a)
			t.Errorf("%s: annotations %s, want read-only, open-world, not destructive, idempotent", tool.Name, data)
		}
	}
}

// TestMCPSession: the in-memory session lists the tools the MCP server serves and
// calls them, successes and failures alike.
func TestMCPSession(t *testing.T) {
	t.Parallel()
	full := fullSite(t)
	ts := tools.New(full.client, nil, nil)
	cs, err := ts.MCPSession(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: annotations %+v", tool.Name, tool.Annotations)
		}
	}
	if got := strings.Join(names, ","); got != "discover_site,list_mcp_servers,list_skills,read_skill,read_skill_file" &&
		got != "discover_site,list_skills,read_skill,read_skill_file,list_mcp_servers" {
		t.Errorf("tools = %s", got)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tools.DiscoverSite, Arguments: map[string]any{"origin": full.URL}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "Ticket Tracker") {
		t.Errorf("discover_site: %+v", res)
	}
	if got := fmt.Sprint(res.StructuredContent); !strings.Contains(got, "Ticket Tracker") {
		t.Errorf("structured: %s", got)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tools.DiscoverSite, Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "origin") {
		t.Errorf("discover_site without origin: %+v", res)
	}
}

// TestCallForModel: the text a model reads, and whether the call failed.
func TestCallForModel(t *testing.T) {
	t.Parallel()
	full := fullSite(t)
	ts := tools.New(full.client, localCatalog(t, nil), nil)
	for _, tc := range []struct {
		name, tool, input, want string
		isError                 bool
	}{
		{"success", tools.DiscoverSite, fmt.Sprintf(`{"origin": %q}`, full.URL), "Ticket Tracker", false},
		{"invalid input", tools.DiscoverSite, `{}`, "input", true},
		{"unknown tool", "rm_rf", `{}`, "the tools are", true},
		{"failure fenced", tools.ReadSkill, `{"name": "nope"}`, "<untrusted-error", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, isError := ts.CallForModel(t.Context(), tc.tool, json.RawMessage(tc.input))
			if isError != tc.isError || !strings.Contains(text, tc.want) {
				t.Errorf("isError=%v, text:\n%s", isError, text)
			}
		})
	}
}
