package wkanthropic_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/wellknown-dev/discovery"
	wkanthropic "github.com/wellknown-dev/discovery/adapters/anthropic"
	"github.com/wellknown-dev/discovery/tools"
)

const skillsMD = "# Ticket Tracker\n\nThis API lets agents read repair ticket status.\n\n## API\n\n- Base URL: /api/v1\n"

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

// model is a scripted Messages API: while the conversation has no tool_result, it
// calls tool with input; then it answers with the text of the tool result it got.
type model struct {
	*httptest.Server
	mu      sync.Mutex
	results []map[string]any // the tool_result blocks received
	tools   []string         // tool names offered in the first request
}

func newModel(t *testing.T, tool string, input any) *model {
	t.Helper()
	m := &model{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Tools    []struct{ Name string } `json:"tools"`
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var result map[string]any
		last := req.Messages[len(req.Messages)-1]
		var blocks []map[string]any
		_ = json.Unmarshal(last.Content, &blocks)
		for _, b := range blocks {
			if b["type"] == "tool_result" {
				result = b
			}
		}
		m.mu.Lock()
		if m.tools == nil {
			for _, tl := range req.Tools {
				m.tools = append(m.tools, tl.Name)
			}
		}
		if result != nil {
			m.results = append(m.results, result)
		}
		m.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		msg := map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "scripted",
			"stop_sequence": nil, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1}}
		if result == nil {
			msg["content"] = []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": tool, "input": input}}
			msg["stop_reason"] = "tool_use"
		} else {
			msg["content"] = []any{map[string]any{"type": "text", "text": "The site is a ticket tracker."}}
			msg["stop_reason"] = "end_turn"
		}
		_ = json.NewEncoder(w).Encode(msg)
	}))
	t.Cleanup(m.Close)
	return m
}

// resultText is the text of a tool_result block as the model received it.
func resultText(b map[string]any) string {
	data, _ := json.Marshal(b["content"])
	return string(data)
}

// TestAgentLoop: the agent asks, the scripted model calls discover_site on the demo
// origin, Results dispatches it, the result goes back, the model answers.
func TestAgentLoop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, tool string
		input      func(origin string) any
		want       string
		isError    bool
	}{
		{"discover_site", tools.DiscoverSite, func(o string) any { return map[string]any{"origin": o} }, "Ticket Tracker", false},
		{"invalid input", tools.DiscoverSite, func(string) any { return map[string]any{"site": "x"} }, "origin", true},
		{"unknown tool", "delete_site", func(string) any { return map[string]any{} }, "the tools are", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			origin, ts := demo(t)
			m := newModel(t, tc.tool, tc.input(origin))
			client := anthropic.NewClient(option.WithBaseURL(m.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
			params := anthropic.MessageNewParams{
				Model:     "scripted",
				MaxTokens: 1024,
				Tools:     wkanthropic.Tools(ts),
				Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What does " + origin + " offer agents?"))},
			}
			var answer string
			for range 4 {
				msg, err := client.Messages.New(t.Context(), params)
				if err != nil {
					t.Fatal(err)
				}
				params.Messages = append(params.Messages, msg.ToParam())
				results := wkanthropic.Results(t.Context(), ts, msg)
				if len(results) == 0 {
					answer = msg.Content[0].Text
					break
				}
				params.Messages = append(params.Messages, anthropic.NewUserMessage(results...))
			}
			if answer != "The site is a ticket tracker." {
				t.Fatalf("answer %q", answer)
			}
			if got := strings.Join(m.tools, ","); got != "discover_site,list_skills,read_skill,read_skill_file,list_mcp_servers" {
				t.Errorf("tools offered: %s", got)
			}
			if len(m.results) != 1 {
				t.Fatalf("%d tool results", len(m.results))
			}
			r := m.results[0]
			if r["tool_use_id"] != "toolu_1" || !strings.Contains(resultText(r), tc.want) || (r["is_error"] == true) != tc.isError {
				t.Errorf("tool result: %v", r)
			}
		})
	}
}

// TestToolRunner: the SDK's tool runner calls the tools BetaTools gives it.
func TestToolRunner(t *testing.T) {
	t.Parallel()
	origin, ts := demo(t)
	m := newModel(t, tools.DiscoverSite, map[string]any{"origin": origin})
	client := anthropic.NewClient(option.WithBaseURL(m.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	runner := client.Beta.Messages.NewToolRunner(wkanthropic.BetaTools(ts), anthropic.BetaToolRunnerParams{
		BetaMessageNewParams: anthropic.BetaMessageNewParams{
			Model:     "scripted",
			MaxTokens: 1024,
			Messages:  []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("What does " + origin + " offer agents?"))},
		},
		MaxIterations: 4,
	})
	msg, err := runner.RunToCompletion(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) == 0 || msg.Content[0].Text != "The site is a ticket tracker." {
		t.Fatalf("answer %+v", msg.Content)
	}
	if len(m.results) != 1 || !strings.Contains(resultText(m.results[0]), "Ticket Tracker") || m.results[0]["is_error"] == true {
		t.Errorf("tool results: %v", m.results)
	}
}

// TestToolsSchemas: the tool definitions carry the toolset's input schemas.
func TestToolsSchemas(t *testing.T) {
	t.Parallel()
	_, ts := demo(t)
	data, err := json.Marshal(wkanthropic.Tools(ts)[0])
	if err != nil {
		t.Fatal(err)
	}
	got := string(data)
	for _, want := range []string{`"name":"discover_site"`, `"type":"object"`, `"required":["origin"]`, `"additionalProperties":false`, `"origin":{`} {
		if !strings.Contains(got, want) {
			t.Errorf("%s lacks %s", got, want)
		}
	}
	if strings.Contains(got, "$schema") {
		t.Errorf("%s has $schema", got)
	}
}
