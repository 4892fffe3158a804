package wkeino_test

import (
	"context"
	"fmt"
	"os"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino-ext/components/tool/mcp/officialmcp"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/wellknown-dev/discovery"
	wkeino "github.com/wellknown-dev/discovery/adapters/eino"
	"github.com/wellknown-dev/discovery/tools"
)

// A ReAct agent of Eino with the discovery tools, over the in-memory MCP session.
func Example() {
	ctx := context.Background()
	c, err := discovery.NewClient(nil)
	if err != nil {
		panic(err)
	}
	cs, err := tools.New(c, nil, nil).MCPSession(ctx)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	einoTools, err := officialmcp.GetTools(ctx, &officialmcp.Config{Cli: cs, ToolCallResultHandler: wkeino.ErrorsForModel})
	if err != nil {
		panic(err)
	}
	model, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{Model: "gpt-4o", APIKey: os.Getenv("OPENAI_API_KEY")})
	if err != nil {
		panic(err)
	}
	agent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: model,
		ToolsConfig:      compose.ToolsNodeConfig{Tools: einoTools},
	})
	if err != nil {
		panic(err)
	}
	answer, err := agent.Generate(ctx, []*schema.Message{schema.UserMessage("What does example.com offer agents?")})
	if err != nil {
		panic(err)
	}
	fmt.Println(answer.Content)
}
