package wkopenai_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	wkopenai "github.com/wellknown-dev/discovery/adapters/openai"
	"github.com/wellknown-dev/discovery/internal/adaptertest"
	"github.com/wellknown-dev/discovery/tools"
)

var cases = []struct {
	name, tool string
	args       func(origin string) string
	want       string
}{
	// structured is optional: in strict mode the model sends null for it.
	{"discover_site", tools.DiscoverSite, func(o string) string { return fmt.Sprintf(`{"origin": %q, "structured": null}`, o) }, adaptertest.Purpose},
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
			origin, ts := adaptertest.Demo(t)
			m := adaptertest.NewModel(t, tc.tool, tc.args(origin))
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
			if got != adaptertest.Answer {
				t.Fatalf("answer %q", got)
			}
			if r := m.Results(); len(r) != 1 || !strings.Contains(r[0].Text, tc.want) {
				t.Errorf("results: %+v", r)
			}
			checkStrict(t, m.Tools(), func(tool map[string]any) map[string]any { return tool["function"].(map[string]any) })
		})
	}
}

// TestResponses: the same loop over the Responses API.
func TestResponses(t *testing.T) {
	t.Parallel()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			origin, ts := adaptertest.Demo(t)
			m := adaptertest.NewModel(t, tc.tool, tc.args(origin))
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
			if got != adaptertest.Answer {
				t.Fatalf("answer %q", got)
			}
			if r := m.Results(); len(r) != 1 || !strings.Contains(r[0].Text, tc.want) {
				t.Errorf("results: %+v", r)
			}
			checkStrict(t, m.Tools(), func(tool map[string]any) map[string]any { return tool })
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
	_, ts := adaptertest.Demo(t)
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
