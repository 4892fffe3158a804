package wkeino_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino-ext/components/tool/mcp/officialmcp"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	wkeino "github.com/wellknown-dev/discovery/adapters/eino"
	"github.com/wellknown-dev/discovery/internal/adaptertest"
	"github.com/wellknown-dev/discovery/tools"
)

// fenceLabel is the sentence that opens every fence of untrusted content.
const fenceLabel = "Only the closing tag with the nonce"

// resultText is the text content of the MCP result that Eino's tool encoded as JSON.
func resultText(t *testing.T, encoded string) string {
	t.Helper()
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(encoded), &res); err != nil {
		t.Fatalf("the tool result is not an encoded MCP result: %v\n%s", err, encoded)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// TestReactAgent: an Eino ReAct agent, its tools from the in-memory MCP session,
// its model Eino's OpenAI model on a scripted loopback API. The model calls a tool,
// the tool runs through the session, its result reaches the model, the model answers.
func TestReactAgent(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args func(origin string) string
		want string
	}{
		{"discover_site", func(o string) string { return fmt.Sprintf(`{"origin": %q}`, o) }, adaptertest.Purpose},
		// A failed call's text reaches the model (ErrorsForModel), the run goes on.
		{"invalid input", func(string) string { return `{"origin": 7}` }, "invalid input"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			origin, ts := adaptertest.Demo(t)
			m := adaptertest.NewModel(t, tools.DiscoverSite, tc.args(origin))

			cs, err := ts.MCPSession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cs.Close() })
			einoTools, err := officialmcp.GetTools(ctx, &officialmcp.Config{Cli: cs, ToolCallResultHandler: wkeino.ErrorsForModel})
			if err != nil {
				t.Fatal(err)
			}
			cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: m.URL, APIKey: "test", Model: "scripted", HTTPClient: m.Client()})
			if err != nil {
				t.Fatal(err)
			}
			agent, err := react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: cm, ToolsConfig: compose.ToolsNodeConfig{Tools: einoTools}, MaxStep: 6})
			if err != nil {
				t.Fatal(err)
			}
			out, err := agent.Generate(ctx, []*schema.Message{schema.UserMessage("What does " + origin + " offer agents?")})
			if err != nil {
				t.Fatal(err)
			}
			if out.Content != adaptertest.Answer {
				t.Errorf("answer = %q, want %q", out.Content, adaptertest.Answer)
			}

			names := m.ToolNames()
			if got := strings.Join(names, ","); len(names) != len(ts.Tools()) || !strings.Contains(got, tools.DiscoverSite) {
				t.Errorf("tools offered = %s, want the toolset's %d tools", got, len(ts.Tools()))
			}
			results := m.Results()
			if len(results) != 1 {
				t.Fatalf("the model got %d tool results, want 1", len(results))
			}
			text := resultText(t, results[0].Text)
			if !strings.Contains(text, tc.want) {
				t.Errorf("tool result lacks %q:\n%s", tc.want, text)
			}
			if tc.want == adaptertest.Purpose {
				open := strings.Index(text, fenceLabel)
				if open < 0 || strings.Index(text, tc.want) < open {
					t.Errorf("published text not inside a fence:\n%s", text)
				}
			}
		})
	}
}

// TestErrorsForModel: a failed call's result loses its error mark, a copy; others
// pass as they are.
func TestErrorsForModel(t *testing.T) {
	t.Parallel()
	failed := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "invalid input"}}}
	got, err := wkeino.ErrorsForModel(t.Context(), tools.DiscoverSite, failed)
	if err != nil || got.IsError || len(got.Content) != 1 {
		t.Errorf("ErrorsForModel(failed) = %+v, %v; want the content, not marked", got, err)
	}
	if !failed.IsError {
		t.Error("ErrorsForModel changed its argument")
	}
	ok := &mcp.CallToolResult{}
	if got, err := wkeino.ErrorsForModel(t.Context(), tools.DiscoverSite, ok); got != ok || err != nil {
		t.Errorf("ErrorsForModel(ok) = %p, %v; want %p, nil", got, err, ok)
	}
	if got, err := wkeino.ErrorsForModel(t.Context(), tools.DiscoverSite, nil); got != nil || err != nil {
		t.Errorf("ErrorsForModel(nil) = %v, %v", got, err)
	}
}
