package wkopenai_test

import (
	"context"
	"fmt"

	"github.com/openai/openai-go/v3"

	"github.com/wellknown-dev/discovery"
	wkopenai "github.com/wellknown-dev/discovery/adapters/openai"
	"github.com/wellknown-dev/discovery/tools"
)

// An agent loop with Chat Completions: offer the tools, dispatch the calls, send the
// results back until the model answers.
func Example() {
	ctx := context.Background()
	c, err := discovery.NewClient(nil)
	if err != nil {
		panic(err)
	}
	ts := tools.New(c, nil, nil)
	client := openai.NewClient() // OPENAI_API_KEY from the environment
	params := openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT4o,
		Tools:    wkopenai.ChatTools(ts),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What does example.com offer agents?")},
	}
	for {
		completion, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			panic(err)
		}
		next := wkopenai.ChatResults(ctx, ts, completion.Choices[0].Message)
		if next == nil {
			fmt.Println(completion.Choices[0].Message.Content)
			return
		}
		params.Messages = append(params.Messages, next...)
	}
}
