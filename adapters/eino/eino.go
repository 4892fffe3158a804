// Package wkeino lets an agent built with Eino (github.com/cloudwego/eino) use the
// discovery tools (package tools) through the in-memory MCP session
// [tools.Toolset.MCPSession] and Eino's tools for the official MCP Go SDK
// (github.com/cloudwego/eino-ext/components/tool/mcp/officialmcp), in two lines and
// without running `wellknown serve`:
//
//	cs, err := ts.MCPSession(ctx) // close it when done
//	einoTools, err := officialmcp.GetTools(ctx, &officialmcp.Config{Cli: cs, ToolCallResultHandler: wkeino.ErrorsForModel})
//
// then einoTools go in compose.ToolsNodeConfig.Tools, as for any Eino agent.
//
// Each result the model reads is the MCP result that Eino's tool encodes as JSON: its
// text content is the text [tools.Toolset.CallForModel] returns, published content
// fenced and labelled as untrusted data. Nothing listens on a network.
//
// It is a module of its own, so the discovery module never depends on an agent
// framework.
package wkeino

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrorsForModel is a ToolCallResultHandler for officialmcp.Config. Eino's tool
// turns a result marked IsError into a Go error, which ends the agent's run; the
// discovery tools mark a failed call so, with text that says what failed and what to
// do. ErrorsForModel clears the mark, so the model reads that text and can retry or
// answer. Other results pass unchanged.
func ErrorsForModel(_ context.Context, _ string, result *mcp.CallToolResult) (*mcp.CallToolResult, error) {
	if result == nil || !result.IsError {
		return result, nil
	}
	r := *result
	r.IsError = false
	return &r, nil
}
