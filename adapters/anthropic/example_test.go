package wkanthropic_test

import (
	"context"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/wellknown-dev/discovery"
	wkanthropic "github.com/wellknown-dev/discovery/adapters/anthropic"
	"github.com/wellknown-dev/discovery/tools"
)

// An agent loop with the Messages API: offer the tools, dispatch the calls, send the
// results back until Claude answers.
func Example() {
	ctx := context.Background()
	c, err := discovery.NewClient(nil)
	if err != nil {
		panic(err)
	}
	ts := tools.New(c, nil, nil)
	client := anthropic.NewClient() // ANTHROPIC_API_KEY from the environment
	params := anthropic.MessageNewParams{
		Model:     anthropic.ModelClaudeSonnet4_5,
		MaxTokens: 1024,
		Tools:     wkanthropic.Tools(ts),
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What does example.com offer agents?"))},
	}
	for {
		msg, err := client.Messages.New(ctx, params)
		if err != nil {
			panic(err)
		}
		params.Messages = append(params.Messages, msg.ToParam())
		results := wkanthropic.Results(ctx, ts, msg)
		if len(results) == 0 {
			fmt.Println(msg.Content[0].Text)
			return
		}
		params.Messages = append(params.Messages, anthropic.NewUserMessage(results...))
	}
}
