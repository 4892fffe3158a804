// Package adaptertest is what the tests of the LLM SDK adapters (adapters/..., each a
// module of its own) share: the demo origin of package internal/demo with a toolset
// that trusts it, and a scripted model on loopback that speaks the OpenAI (Chat
// Completions and Responses) and Anthropic (Messages) APIs.
package adaptertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/internal/demo"
	"github.com/wellknown-dev/discovery/tools"
)

// Answer is what the scripted model says once it has a tool result.
const Answer = "The site is a ticket tracker."

// Purpose is a sentence of the demo origin's skills.md: discover_site's result on it
// holds it.
const Purpose = "Demo Tracker lets people check the status of repair tickets."

// Demo starts the demo origin on loopback (TLS) and returns it with a toolset whose
// discovery Client trusts it; both end with t.
func Demo(t testing.TB) (origin string, ts *tools.Toolset) {
	t.Helper()
	site, err := demo.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(site.Close)
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: site.Client(), InsecureAllowPrivateOrigins: true})
	if err != nil {
		t.Fatal(err)
	}
	return site.URL, tools.New(c, nil, nil)
}

// Result is a tool result the scripted model received.
type Result struct {
	ID      string // the call it answers: CallID, or ToolUseID
	Text    string // its content: the text (OpenAI), or its content blocks as JSON (Anthropic)
	IsError bool   // Anthropic's is_error
}

// The ids of the one tool call the scripted model makes.
const (
	CallID    = "call_1"  // OpenAI
	ToolUseID = "toolu_1" // Anthropic
)

// Model is a scripted model API on loopback: until the conversation holds the result
// of its tool call, it calls one tool with fixed arguments; then it answers Answer.
// It serves /chat/completions and /responses (OpenAI, base URL Model.URL+"/") and
// /v1/messages (Anthropic, base URL Model.URL).
type Model struct {
	*httptest.Server
	tool, args string

	mu      sync.Mutex
	results []Result
	tools   []map[string]any // the tools offered in the first request
}

// NewModel starts a Model that calls tool with args (a JSON object); it ends with t.
func NewModel(t testing.TB, tool, args string) *Model {
	t.Helper()
	m := &Model{tool: tool, args: args}
	m.Server = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.Close)
	return m
}

// Results returns the tool results received, in order.
func (m *Model) Results() []Result {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.results)
}

// Tools returns the tools offered in the first request, as sent.
func (m *Model) Tools() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.tools)
}

// ToolNames returns the names of the tools offered in the first request.
func (m *Model) ToolNames() []string {
	var names []string
	for _, tl := range m.Tools() {
		if f, ok := tl["function"].(map[string]any); ok {
			tl = f // Chat Completions
		}
		names = append(names, fmt.Sprint(tl["name"]))
	}
	return names
}

// request is what the scripted model reads of a request, of any of the three APIs.
type request struct {
	Tools    []map[string]any `json:"tools"`
	Messages []map[string]any `json:"messages"` // Chat Completions, Messages
	Input    []map[string]any `json:"input"`    // Responses
}

func (m *Model) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var out any
	var result *Result
	switch r.URL.Path {
	case "/chat/completions":
		result = chatResult(req)
		out = m.chatAnswer(result == nil)
	case "/responses":
		result = responsesResult(req)
		out = m.responsesAnswer(result == nil)
	case "/v1/messages":
		result = messagesResult(req)
		out = m.messagesAnswer(result == nil)
	default:
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	m.mu.Lock()
	if m.tools == nil {
		m.tools = append([]map[string]any{}, req.Tools...)
	}
	if result != nil {
		m.results = append(m.results, *result)
	}
	m.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// chatResult is the result of the model's call among the messages, or nil.
func chatResult(req request) *Result {
	return lastResult(req.Messages, "role", "tool", "tool_call_id", "content")
}

// responsesResult is the output of the model's call among the input items, or nil.
func responsesResult(req request) *Result {
	return lastResult(req.Input, "type", "function_call_output", "call_id", "output")
}

// lastResult is the last of items whose kind field is kind and whose id field is
// CallID, as a Result of its text field, or nil.
func lastResult(items []map[string]any, kindField, kind, idField, textField string) *Result {
	var res *Result
	for _, it := range items {
		if it[kindField] == kind && it[idField] == CallID {
			res = &Result{ID: CallID, Text: fmt.Sprint(it[textField])}
		}
	}
	return res
}

// messagesResult is the tool_result block of the last message, or nil.
func messagesResult(req request) *Result {
	if len(req.Messages) == 0 {
		return nil
	}
	blocks, _ := req.Messages[len(req.Messages)-1]["content"].([]any)
	var res *Result
	for _, b := range blocks {
		if b, ok := b.(map[string]any); ok && b["type"] == "tool_result" {
			content, _ := json.Marshal(b["content"])
			res = &Result{ID: fmt.Sprint(b["tool_use_id"]), Text: string(content), IsError: b["is_error"] == true}
		}
	}
	return res
}

func (m *Model) chatAnswer(call bool) map[string]any {
	msg := map[string]any{"role": "assistant", "content": Answer}
	finish := "stop"
	if call {
		msg = map[string]any{"role": "assistant", "content": "", "tool_calls": []any{
			map[string]any{"id": CallID, "type": "function", "function": map[string]any{"name": m.tool, "arguments": m.args}}}}
		finish = "tool_calls"
	}
	return map[string]any{"id": "chatcmpl_1", "object": "chat.completion", "created": 0, "model": "scripted",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}}}
}

func (m *Model) responsesAnswer(call bool) map[string]any {
	item := map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": Answer, "annotations": []any{}}}}
	if call {
		item = map[string]any{"type": "function_call", "id": "fc_1", "call_id": CallID, "name": m.tool, "arguments": m.args, "status": "completed"}
	}
	return map[string]any{"id": "resp_1", "object": "response", "created_at": 0, "model": "scripted", "status": "completed",
		"output": []any{item}, "parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{}}
}

func (m *Model) messagesAnswer(call bool) map[string]any {
	msg := map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "scripted",
		"stop_sequence": nil, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1},
		"content": []any{map[string]any{"type": "text", "text": Answer}}, "stop_reason": "end_turn"}
	if call {
		msg["content"] = []any{map[string]any{"type": "tool_use", "id": ToolUseID, "name": m.tool, "input": json.RawMessage(m.args)}}
		msg["stop_reason"] = "tool_use"
	}
	return msg
}
