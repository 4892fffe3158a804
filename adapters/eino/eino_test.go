package wkeino_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino-ext/components/tool/mcp/officialmcp"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery"
	wkeino "github.com/wellknown-dev/discovery/adapters/eino"
	"github.com/wellknown-dev/discovery/tools"
)

const skillsMD = "# Ticket Tracker\n\nThis API lets agents read repair ticket status.\n\n## API\n\n- Base URL: /api/v1\n"

const answer = "The site is a ticket tracker."

// fenceLabel is the sentence that opens every fence of untrusted content.
const fenceLabel = "Only the closing tag with the nonce"

// demo is a loopback site that publishes a skills.md, and a toolset whose discovery
// Client trusts it.
func demo(t *testing.T) (origin string, ts *tools.Toolset) {
	t.Helper()
	site := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != discovery.GuidePath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, skillsMD)
	}))
	t.Cleanup(site.Close)
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: site.Client(), InsecureAllowPrivateOrigins: true})
	if err != nil {
		t.Fatal(err)
	}
	return site.URL, tools.New(c, nil, nil)
}

// model is a scripted OpenAI Chat Completions API: until it gets a tool result, it
// calls tool with args; then it answers.
type model struct {
	*httptest.Server
	mu      sync.Mutex
	results []string // the tool results received
	tools   []string // the names of the tools offered in the first request
}

func newModel(t *testing.T, tool, args string) *model {
	t.Helper()
	m := &model{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/chat/completions" {
			http.Error(w, "unexpected "+r.URL.Path, http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Tools []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tools"`
			Messages []map[string]any `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var result *string
		for _, msg := range req.Messages {
			if msg["role"] == "tool" && msg["tool_call_id"] == "call_1" {
				s := fmt.Sprint(msg["content"])
				result = &s
			}
		}
		m.mu.Lock()
		if m.tools == nil {
			m.tools = []string{}
			for _, tl := range req.Tools {
				m.tools = append(m.tools, tl.Function.Name)
			}
		}
		if result != nil {
			m.results = append(m.results, *result)
		}
		m.mu.Unlock()
		msg := map[string]any{"role": "assistant", "content": answer}
		finish := "stop"
		if result == nil {
			msg = map[string]any{"role": "assistant", "content": "", "tool_calls": []any{
				map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": tool, "arguments": args}}}}
			finish = "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl_1", "object": "chat.completion", "created": 0, "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}}})
	}))
	t.Cleanup(m.Close)
	return m
}

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
		{"discover_site", func(o string) string { return fmt.Sprintf(`{"origin": %q}`, o) }, "Ticket Tracker"},
		// A failed call's text reaches the model (ErrorsForModel), the run goes on.
		{"invalid input", func(string) string { return `{"origin": 7}` }, "invalid input"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			origin, ts := demo(t)
			m := newModel(t, tools.DiscoverSite, tc.args(origin))

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
			if out.Content != answer {
				t.Errorf("answer = %q, want %q", out.Content, answer)
			}

			m.mu.Lock()
			defer m.mu.Unlock()
			if got := strings.Join(m.tools, ","); len(m.tools) != len(ts.Tools()) || !strings.Contains(got, tools.DiscoverSite) {
				t.Errorf("tools offered = %s, want the toolset's %d tools", got, len(ts.Tools()))
			}
			if len(m.results) != 1 {
				t.Fatalf("the model got %d tool results, want 1", len(m.results))
			}
			text := resultText(t, m.results[0])
			if !strings.Contains(text, tc.want) {
				t.Errorf("tool result lacks %q:\n%s", tc.want, text)
			}
			if tc.want == "Ticket Tracker" {
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
