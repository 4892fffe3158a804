// Package wkanthropic offers the discovery tools (package tools) to Claude through
// the Anthropic Go SDK (github.com/anthropics/anthropic-sdk-go/v2), in one line:
//
//	params.Tools = wkanthropic.Tools(ts)                                     // Messages API
//	messages = append(messages, anthropic.NewUserMessage(wkanthropic.Results(ctx, ts, msg)...))
//
// or, with the SDK's tool runner (beta), client.Beta.Messages.NewToolRunner(
// wkanthropic.BetaTools(ts), params).
//
// It is a module of its own, so the discovery module never depends on an LLM SDK.
// Every result is the text [tools.Toolset.CallForModel] returns: published content
// fenced and labelled as untrusted data, a failed call as a tool_result marked
// is_error, for the model to read and act on.
package wkanthropic

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/wellknown-dev/discovery/tools"
)

// Tools returns ts's tools as Messages API tool definitions, in [tools.Toolset.Tools]
// order.
func Tools(ts *tools.Toolset) []anthropic.ToolUnionParam {
	var out []anthropic.ToolUnionParam
	for _, t := range ts.Tools() {
		p := anthropic.ToolParam{Name: t.Name, Description: anthropic.String(t.Description)}
		p.InputSchema.Properties, p.InputSchema.Required, p.InputSchema.ExtraFields = splitSchema(t.InputSchema)
		out = append(out, anthropic.ToolUnionParam{OfTool: &p})
	}
	return out
}

// Dispatch runs the tool block calls and returns its tool_result block, marked
// is_error when the call failed (an unknown tool or invalid input included).
func Dispatch(ctx context.Context, ts *tools.Toolset, block anthropic.ToolUseBlock) anthropic.ContentBlockParamUnion {
	text, isError := ts.CallForModel(ctx, block.Name, block.Input)
	return anthropic.NewToolResultBlock(block.ID, text, isError)
}

// Results dispatches every tool_use block of msg, in order, and returns their
// tool_result blocks: the content of the next user message. It returns nil when msg
// calls no tool.
func Results(ctx context.Context, ts *tools.Toolset, msg *anthropic.Message) []anthropic.ContentBlockParamUnion {
	var out []anthropic.ContentBlockParamUnion
	for _, b := range msg.Content {
		if b.Type == "tool_use" {
			out = append(out, Dispatch(ctx, ts, b.AsToolUse()))
		}
	}
	return out
}

// BetaTools returns ts's tools for the SDK's tool runner
// (client.Beta.Messages.NewToolRunner): the runner calls them and sends their
// results back; a failed call becomes a tool_result marked is_error.
func BetaTools(ts *tools.Toolset) []anthropic.BetaTool {
	var out []anthropic.BetaTool
	for _, t := range ts.Tools() {
		bt := &betaTool{ts: ts, name: t.Name, description: t.Description}
		bt.schema.Properties, bt.schema.Required, bt.schema.ExtraFields = splitSchema(t.InputSchema)
		out = append(out, bt)
	}
	return out
}

// betaTool is one tool of a Toolset as the tool runner calls it.
type betaTool struct {
	ts                *tools.Toolset
	name, description string
	schema            anthropic.BetaToolInputSchemaParam
}

func (b *betaTool) Name() string                                    { return b.name }
func (b *betaTool) Description() string                             { return b.description }
func (b *betaTool) InputSchema() anthropic.BetaToolInputSchemaParam { return b.schema }

// Execute runs the tool; a failure is returned as an error whose text is the model's
// (the runner sends it as a tool_result marked is_error).
func (b *betaTool) Execute(ctx context.Context, input json.RawMessage) ([]anthropic.BetaToolResultBlockParamContentUnion, error) {
	text, isError := b.ts.CallForModel(ctx, b.name, input)
	if isError {
		return nil, errors.New(text)
	}
	return []anthropic.BetaToolResultBlockParamContentUnion{{OfText: &anthropic.BetaTextBlockParam{Text: text}}}, nil
}

// splitSchema splits a tool's input schema (an object schema) into the SDK's
// properties, required and other keywords; "$schema" and "type" are left out (the
// SDK writes type "object").
func splitSchema(raw json.RawMessage) (properties any, required []string, extra map[string]any) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return map[string]any{}, nil, nil // the tools' schemas are constants that decode
	}
	properties = m["properties"]
	if r, ok := m["required"].([]any); ok {
		for _, v := range r {
			if s, ok := v.(string); ok {
				required = append(required, s)
			}
		}
	}
	delete(m, "$schema")
	delete(m, "type")
	delete(m, "properties")
	delete(m, "required")
	if len(m) > 0 {
		extra = m
	}
	return properties, required, extra
}
