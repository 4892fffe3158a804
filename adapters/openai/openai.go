// Package wkopenai offers the discovery tools (package tools) to OpenAI models through
// the OpenAI Go SDK (github.com/openai/openai-go/v3), in one line, for Chat
// Completions:
//
//	params.Tools = wkopenai.ChatTools(ts)
//	params.Messages = append(params.Messages, wkopenai.ChatResults(ctx, ts, completion.Choices[0].Message)...)
//
// and for the Responses API:
//
//	params.Tools = wkopenai.ResponseTools(ts)
//	input = append(input, wkopenai.ResponseResults(ctx, ts, resp)...)
//
// It is a module of its own, so the discovery module never depends on an LLM SDK.
//
// The tools are declared in strict mode (strict: true): their schemas are rewritten
// as strict mode requires ([StrictSchema]): every property is required, an optional
// one accepts null, no other properties are allowed. The dispatchers drop the null
// properties before calling the tool, so null means "not given". Every result is the
// text [tools.Toolset.CallForModel] returns: published content fenced and labelled as
// untrusted data; a failed call's text says what failed and what to do (the APIs have
// no error flag for function results).
package wkopenai

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/wellknown-dev/discovery/tools"
)

// ChatTools returns ts's tools as Chat Completions function tools, strict, in
// [tools.Toolset.Tools] order.
func ChatTools(ts *tools.Toolset) []openai.ChatCompletionToolUnionParam {
	var out []openai.ChatCompletionToolUnionParam
	for _, t := range ts.Tools() {
		out = append(out, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: openai.String(t.Description),
			Parameters:  StrictSchema(t.InputSchema),
			Strict:      openai.Bool(true),
		}))
	}
	return out
}

// ChatDispatch runs the function call and returns the tool message that answers it.
func ChatDispatch(ctx context.Context, ts *tools.Toolset, call openai.ChatCompletionMessageToolCallUnion) openai.ChatCompletionMessageParamUnion {
	text, _ := ts.CallForModel(ctx, call.Function.Name, dropNulls(call.Function.Arguments))
	return openai.ToolMessage(text, call.ID)
}

// ChatResults returns the messages that follow msg: msg itself, as a parameter, then
// the answer to each of its function calls, in order. When msg calls no tool it
// returns nil: msg is the model's answer.
func ChatResults(ctx context.Context, ts *tools.Toolset, msg openai.ChatCompletionMessage) []openai.ChatCompletionMessageParamUnion {
	if len(msg.ToolCalls) == 0 {
		return nil
	}
	out := []openai.ChatCompletionMessageParamUnion{msg.ToParam()}
	for _, call := range msg.ToolCalls {
		if call.Type == "function" {
			out = append(out, ChatDispatch(ctx, ts, call))
		}
	}
	return out
}

// ResponseTools returns ts's tools as Responses API function tools, strict, in
// [tools.Toolset.Tools] order.
func ResponseTools(ts *tools.Toolset) []responses.ToolUnionParam {
	var out []responses.ToolUnionParam
	for _, t := range ts.Tools() {
		p := responses.ToolParamOfFunction(t.Name, StrictSchema(t.InputSchema), true)
		p.OfFunction.Description = openai.String(t.Description)
		out = append(out, p)
	}
	return out
}

// ResponseDispatch runs the function call and returns the function_call_output item
// that answers it.
func ResponseDispatch(ctx context.Context, ts *tools.Toolset, call responses.ResponseFunctionToolCall) responses.ResponseInputItemUnionParam {
	text, _ := ts.CallForModel(ctx, call.Name, dropNulls(call.Arguments))
	item := responses.ResponseInputItemParamOfFunctionCallOutput(text)
	item.OfFunctionCallOutput.CallID = openai.String(call.CallID)
	return item
}

// ResponseResults returns the input items that follow resp: its output items, as
// parameters, then the answer to each of its function calls, in order. When resp
// calls no function it returns nil: resp is the model's answer. (With
// previous_response_id, send only the items that answer, those of type
// function_call_output.)
func ResponseResults(ctx context.Context, ts *tools.Toolset, resp *responses.Response) []responses.ResponseInputItemUnionParam {
	var calls []responses.ResponseFunctionToolCall
	for _, item := range resp.Output {
		if item.Type == "function_call" {
			calls = append(calls, item.AsFunctionCall())
		}
	}
	if len(calls) == 0 {
		return nil
	}
	var out []responses.ResponseInputItemUnionParam
	for _, item := range resp.Output {
		var p responses.ResponseInputItemUnionParam
		if err := json.Unmarshal([]byte(item.RawJSON()), &p); err == nil {
			out = append(out, p)
		}
	}
	for _, call := range calls {
		out = append(out, ResponseDispatch(ctx, ts, call))
	}
	return out
}

// strictKeywords are the schema keywords StrictSchema keeps; the others (such as
// minLength and maxLength) are not accepted in strict mode. The tool checks its input
// against its full schema anyway.
var strictKeywords = []string{"type", "description", "enum", "items", "minimum", "maximum", "properties", "required", "additionalProperties"}

// StrictSchema returns the object schema raw (a tool's input schema) in the form
// OpenAI's strict mode requires: every property listed in required, an optional
// property's type extended with "null", additionalProperties false, and only the
// keywords strict mode accepts. A model that sends null for a property means it did
// not give it; the dispatchers drop such properties.
func StrictSchema(raw json.RawMessage) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return map[string]any{"type": "object", "properties": map[string]any{}, "required": []string{}, "additionalProperties": false}
	}
	return strictObject(m)
}

func strictObject(m map[string]any) map[string]any {
	out := keep(m)
	props, _ := m["properties"].(map[string]any)
	required := map[string]bool{}
	if r, ok := m["required"].([]any); ok {
		for _, v := range r {
			if s, ok := v.(string); ok {
				required[s] = true
			}
		}
	}
	names := make([]string, 0, len(props))
	strictProps := map[string]any{}
	for name, p := range props {
		names = append(names, name)
		ps, _ := p.(map[string]any)
		sp := keep(ps)
		if ps["type"] == "object" {
			sp = strictObject(ps)
		}
		if !required[name] {
			if typ, ok := sp["type"].(string); ok {
				sp["type"] = []any{typ, "null"}
			}
		}
		strictProps[name] = sp
	}
	slices.Sort(names)
	out["type"] = "object"
	out["properties"] = strictProps
	out["required"] = names
	out["additionalProperties"] = false
	return out
}

// keep returns the keywords of m strict mode accepts.
func keep(m map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range strictKeywords {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

// dropNulls returns the arguments a model sent with its null properties removed: in
// strict mode, null stands for a property not given. Arguments that are not a JSON
// object are returned as they are, for the tool to report.
func dropNulls(args string) json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(args), &m); err != nil || m == nil {
		return json.RawMessage(args)
	}
	for k, v := range m {
		if string(v) == "null" {
			delete(m, k)
		}
	}
	data, err := json.Marshal(m)
	if err != nil {
		return json.RawMessage(args)
	}
	return data
}
