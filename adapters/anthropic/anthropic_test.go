package wkanthropic_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	wkanthropic "github.com/wellknown-dev/discovery/adapters/anthropic"
	"github.com/wellknown-dev/discovery/internal/adaptertest"
	"github.com/wellknown-dev/discovery/tools"
)

// TestAgentLoop: the agent asks, the scripted model calls discover_site on the demo
// origin, Results dispatches it, the result goes back, the model answers.
func TestAgentLoop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, tool string
		input      func(origin string) string
		want       string
		isError    bool
	}{
		{"discover_site", tools.DiscoverSite, func(o string) string { return fmt.Sprintf(`{"origin": %q}`, o) }, adaptertest.Purpose, false},
		{"invalid input", tools.DiscoverSite, func(string) string { return `{"site": "x"}` }, "origin", true},
		{"unknown tool", "delete_site", func(string) string { return `{}` }, "the tools are", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			origin, ts := adaptertest.Demo(t)
			m := adaptertest.NewModel(t, tc.tool, tc.input(origin))
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
			if answer != adaptertest.Answer {
				t.Fatalf("answer %q", answer)
			}
			if got := strings.Join(m.ToolNames(), ","); got != "discover_site,list_skills,read_skill,read_skill_file,list_mcp_servers" {
				t.Errorf("tools offered: %s", got)
			}
			results := m.Results()
			if len(results) != 1 {
				t.Fatalf("%d tool results", len(results))
			}
			r := results[0]
			if r.ID != adaptertest.ToolUseID || !strings.Contains(r.Text, tc.want) || r.IsError != tc.isError {
				t.Errorf("tool result: %+v", r)
			}
		})
	}
}

// TestToolRunner: the SDK's tool runner calls the tools BetaTools gives it.
func TestToolRunner(t *testing.T) {
	t.Parallel()
	origin, ts := adaptertest.Demo(t)
	m := adaptertest.NewModel(t, tools.DiscoverSite, fmt.Sprintf(`{"origin": %q}`, origin))
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
	if len(msg.Content) == 0 || msg.Content[0].Text != adaptertest.Answer {
		t.Fatalf("answer %+v", msg.Content)
	}
	if r := m.Results(); len(r) != 1 || !strings.Contains(r[0].Text, adaptertest.Purpose) || r[0].IsError {
		t.Errorf("tool results: %+v", r)
	}
}

// TestToolsSchemas: the tool definitions carry the toolset's input schemas.
func TestToolsSchemas(t *testing.T) {
	t.Parallel()
	_, ts := adaptertest.Demo(t)
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
