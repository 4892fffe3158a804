package wkopenai_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/wellknown-dev/discovery"
	wkopenai "github.com/wellknown-dev/discovery/adapters/openai"
	"github.com/wellknown-dev/discovery/tools"
)

const skillsMD = "# Ticket Tracker\n\nThis API lets agents read repair ticket status.\n\n## API\n\n- Base URL: /api/v1\n"

const answer = "The site is a ticket tracker."

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

// model is a scripted OpenAI API (Chat Completions and Responses): until it gets a
// function result, it calls tool with args; then it answers.
type model struct {
	*httptest.Server
	mu      sync.Mutex
	results []string         // the function results received
	tools   []map[string]any // the tools offered in the first request
}

func newModel(t *testing.T, tool, args string) *model {
	t.Helper()
	m := &model{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Tools    []map[string]any `json:"tools"`
			Messages []map[string]any `json:"messages"` // chat
			Input    []map[string]any `json:"input"`    // responses
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
		for _, item := range req.Input {
			if item["type"] == "function_call_output" && item["call_id"] == "call_1" {
				s := fmt.Sprint(item["output"])
				result = &s
			}
		}
		m.mu.Lock()
		if m.tools == nil {
			m.tools = req.Tools
		}
		if result != nil {
			m.results = append(m.results, *result)
		}
		m.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		var out map[string]any
		switch r.URL.Path {
		case "/chat/completions":
			msg := map[string]any{"role": "assistant", "content": answer}
			finish := "stop"
			if result == nil {
				msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
					map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": tool, "arguments": args}}}}
				finish = "tool_calls"
			}
			out = map[string]any{"id": "chatcmpl_1", "object": "chat.completion", "created": 0, "model": "scripted",
				"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}}}
		case "/responses":
			item := map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
				"content": []any{map[string]any{"type": "output_text", "text": answer, "annotations": []any{}}}}
			if result == nil {
				item = map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": tool, "arguments": args, "status": "completed"}
			}
			out = map[string]any{"id": "resp_1", "object": "response", "created_at": 0, "model": "scripted", "status": "completed",
				"output": []any{item}, "parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{}}
		default:
			http.Error(w, "unexpected "+r.URL.Path, http.StatusNotFound)
			return
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(m.Close)
	return m
}

var cases = []struct {
	name, tool string
	args       func(origin string) string
	want       string
}{
	// structured is optional: in strict mode the model sends null for it.
	{"discover_site", tools.DiscoverSite, func(o string) string { return fmt.Sprintf(`{"origin": %q, "structured": null}`, o) }, "Ticket Tracker"},
	{"invalid input", tools.DiscoverSite, func(string) string { return `{"origin": 7}` }, "invalid input"},
	{"unknown tool", "delete_site", func(string) string { return `{}` }, "the tools are"},
}

// TestChatCompletions: the agent asks, the scripted model calls a tool, ChatResults
// dispatches it, the result goes back, the model answers.
func TestChatCompletions(t *testing.T) {
	t.Parallel()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			origin, ts := demo(t)
			m := newModel(t, tc.tool, tc.args(origin))
			client := openai.NewClient(option.WithBaseURL(m.URL+"/"), option.WithAPIKey("test"), option.WithMaxRetries(0))
			params := openai.ChatCompletionNewParams{
				Model:    "scripted",
				Tools:    wkopenai.ChatTools(ts),
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What does " + origin + " offer agents?")},
			}
			var got string
			for range 4 {
				c, err := client.Chat.Completions.New(t.Context(), params)
				if err != nil {
					t.Fatal(err)
				}
				next := wkopenai.ChatResults(t.Context(), ts, c.Choices[0].Message)
				if next == nil {
					got = c.Choices[0].Message.Content
					break
				}
				params.Messages = append(params.Messages, next...)
			}
			if got != answer {
				t.Fatalf("answer %q", got)
			}
			if len(m.results) != 1 || !strings.Contains(m.results[0], tc.want) {
				t.Errorf("results: %q", m.results)
			}
			checkStrict(t, m.tools, func(tool map[string]any) map[string]any { return tool["function"].(map[string]any) })
		})
	}
}

// TestResponses: the same loop over the Responses API.
func TestResponses(t *testing.T) {
	t.Parallel()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			origin, ts := demo(t)
			m := newModel(t, tc.tool, tc.args(origin))
			client := openai.NewClient(option.WithBaseURL(m.URL+"/"), option.WithAPIKey("test"), option.WithMaxRetries(0))
			input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage("What does "+origin+" offer agents?", responses.EasyInputMessageRoleUser)}
			var got string
			for range 4 {
				resp, err := client.Responses.New(t.Context(), responses.ResponseNewParams{
					Model: "scripted",
					Tools: wkopenai.ResponseTools(ts),
					Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
				})
				if err != nil {
					t.Fatal(err)
				}
				next := wkopenai.ResponseResults(t.Context(), ts, resp)
				if next == nil {
					got = resp.OutputText()
					break
				}
				input = append(input, next...)
			}
			if got != answer {
				t.Fatalf("answer %q", got)
			}
			if len(m.results) != 1 || !strings.Contains(m.results[0], tc.want) {
				t.Errorf("results: %q", m.results)
			}
			checkStrict(t, m.tools, func(tool map[string]any) map[string]any { return tool })
		})
	}
}

// checkStrict: every tool is offered strict, with a schema strict mode accepts.
func checkStrict(t *testing.T, offered []map[string]any, fn func(map[string]any) map[string]any) {
	t.Helper()
	if len(offered) != 5 {
		t.Fatalf("%d tools offered", len(offered))
	}
	for _, tool := range offered {
		f := fn(tool)
		if f["strict"] != true {
			t.Errorf("%v: not strict", f["name"])
		}
		checkStrictSchema(t, fmt.Sprint(f["name"]), f["parameters"].(map[string]any))
	}
}

// checkStrictSchema: an object schema in which every property is required, no other
// is allowed, and no keyword strict mode refuses appears.
func checkStrictSchema(t *testing.T, name string, s map[string]any) {
	t.Helper()
	data, _ := json.Marshal(s)
	if s["additionalProperties"] != false || s["type"] != "object" {
		t.Errorf("%s: %s", name, data)
	}
	props := s["properties"].(map[string]any)
	req := fmt.Sprint(s["required"])
	for p := range props {
		if !strings.Contains(req, p) {
			t.Errorf("%s: %s not required: %s", name, p, data)
		}
	}
	for _, bad := range []string{"$schema", "minLength", "maxLength"} {
		if strings.Contains(string(data), bad) {
			t.Errorf("%s: %s in %s", name, bad, data)
		}
	}
}

// TestStrictSchema: optional properties become nullable, required ones do not.
func TestStrictSchema(t *testing.T) {
	t.Parallel()
	_, ts := demo(t)
	for _, tool := range ts.Tools() {
		s := wkopenai.StrictSchema(tool.InputSchema)
		checkStrictSchema(t, tool.Name, s)
		if tool.Name == tools.ReadSkillFile {
			data, _ := json.Marshal(s)
			want := `{"additionalProperties":false,"properties":{"name":{"description":"The skill's name exactly as list_skills shows it (it may be qualified, such as \"example.com/deploy\").","type":"string"},` +
				`"offset":{"description":"The byte offset to start from, as the previous part said. Default 0.","minimum":0,"type":["integer","null"]},` +
				`"path":{"description":"The file's path relative to the skill's root, as read_skill lists it.","type":"string"}},"required":["name","offset","path"],"type":"object"}`
			if string(data) != want {
				t.Errorf("read_skill_file:\n got %s\nwant %s", data, want)
			}
		}
	}
}
