package mcpjson

import (
	"encoding/json"
	"fmt"
	"strings"
)

// toolKeys are the keys, beside "tools", under which cards list MCP tool names.
var toolKeys = []string{"advertised_tools", "advertisedTools", "mcpTools", "mcp_tools", "tool_names", "toolNames",
	"tools_summary", "toolsSummary"}

// topTools reads the tool names an object lists: "tools", then "capabilities.tools",
// then the other keys of toolKeys, and a single "tool" name. at is the object's pointer.
func (r *reader) topTools(o map[string]any, at string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(names []string) {
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	add(r.toolNames(at+"/tools", o["tools"]))
	add(r.toolNames(at+"/capabilities/tools", dig(o, "capabilities", "tools")))
	for _, k := range toolKeys {
		add(r.toolNames(at+"/"+k, o[k]))
	}
	if t := str(o, "tool"); t != "" {
		add([]string{t})
	}
	add(methodTools(o["methods"]))
	// {"endpoints": {"base_url": ..., "tools": [...]}}, {"mcp": {"server": ..., "tools": [...]}}:
	// a tool list one level down, in an object that describes the same server.
	for _, k := range []string{"endpoints", "mcp"} {
		if inner, ok := o[k].(map[string]any); ok && isArray(inner["tools"]) {
			add(r.toolNames(at+"/"+k+"/tools", inner["tools"]))
		}
	}
	// {"features": {"clients": {"tool": "list_clients"}, "fw": {"tools": [...]}}}
	if f, ok := o["features"].(map[string]any); ok {
		for _, k := range sortedKeys(f) {
			fo, ok := f[k].(map[string]any)
			if !ok {
				continue
			}
			if t := str(fo, "tool"); t != "" {
				add([]string{t})
			}
			add(r.toolNames(at+"/features/"+pointerToken(k)+"/tools", fo["tools"]))
		}
	}
	return out
}

// methodTools reads tool names listed under "methods": a list of objects with a name
// ({"name": "search", "params": {...}}). JSON-RPC method names ("tools/call",
// "initialize") and HTTP verbs name no tool; any of them makes the list not a tool list.
func methodTools(v any) []string {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	var out []string
	for _, e := range list {
		o, ok := e.(map[string]any)
		if !ok {
			return nil
		}
		n := str(o, "name")
		switch {
		case n == "":
			return nil
		case strings.ContainsAny(n, "/ "), n == "initialize", n == "ping", strings.ToUpper(n) == n:
			return nil
		}
		out = append(out, n)
	}
	return out
}

// toolMeta are keys of a tools object that describe the list, not a tool or a group.
var toolMeta = map[string]bool{"note": true, "notes": true, "summary": true, "description": true, "count": true,
	"total": true, "total_count": true, "totalCount": true, "tools_count": true, "categories": true, "category": true,
	"tags": true, "discoveryMethod": true, "discovery_method": true, "listChanged": true, "list_changed": true,
	"subscribe": true, "$comment": true, "version": true, "source": true, "docs": true, "documentation": true,
	"url": true, "endpoint": true, "enabled": true, "supported": true, "dynamic": true}

// toolNames reads the tool names at ptr: a list of names or of objects with a name,
// an object keyed by tool name, an object of groups ({"read": [...], "write": [...]}),
// "dynamic" (listed at runtime), a count, or a capability object ({"listChanged": true}),
// which names no tool.
func (r *reader) toolNames(ptr string, v any) []string {
	switch t := v.(type) {
	case nil, bool:
		// "tools": true says tools exist, not which.
	case string:
		r.warn(ptr, "tools is "+quote(t)+", not a list of names: ask the server (tools/list)")
	case json.Number:
		r.warn(ptr, "tools is a count ("+quote(t.String())+"), not a list of names: ask the server (tools/list)")
	case []any:
		return r.toolList(ptr, t)
	case map[string]any:
		return r.toolMap(ptr, t, 0)
	}
	return nil
}

func (r *reader) toolList(ptr string, list []any) []string {
	var out []string
	for i, e := range list {
		switch x := e.(type) {
		case string:
			if n := strings.TrimSpace(x); n != "" {
				out = append(out, n)
			}
		case map[string]any:
			if n := firstString(str(x, "name"), str(x, "id"), str(x, "tool")); n != "" {
				out = append(out, n)
			} else {
				r.warn(fmt.Sprintf("%s/%d", ptr, i), "tool has no name; skipped")
			}
		default:
			r.warn(fmt.Sprintf("%s/%d", ptr, i), fmt.Sprintf("tool is a JSON %s; skipped", kind(e)))
		}
	}
	return out
}

// toolMap reads an object keyed by tool name, or by group (tier, category) whose
// values list tools. depth bounds the groups within groups.
func (r *reader) toolMap(ptr string, m map[string]any, depth int) []string {
	var out []string
	for _, k := range sortedKeys(m) {
		if toolMeta[k] {
			continue
		}
		p := ptr + "/" + pointerToken(k)
		switch x := m[k].(type) {
		case []any: // a group: {"read": [{"name": ...}, ...]}
			out = append(out, r.toolList(p, x)...)
		case map[string]any:
			if depth == 0 && !toolObject(x) && groupObject(x) {
				out = append(out, r.toolMap(p, x, depth+1)...)
			} else {
				out = append(out, k)
			}
		case string:
			out = append(out, k) // {"search": "Search the docs."}
		case bool:
			if x {
				out = append(out, k)
			}
		}
	}
	return out
}

// toolObject reports an object that describes one tool.
func toolObject(m map[string]any) bool {
	if len(m) == 0 {
		return true
	}
	for _, k := range []string{"description", "inputSchema", "input_schema", "parameters", "title", "annotations", "name", "outputSchema"} {
		if has(m, k) {
			return true
		}
	}
	return false
}

// groupObject reports an object whose members are all tool objects.
func groupObject(m map[string]any) bool {
	for _, e := range m {
		o, ok := e.(map[string]any)
		if !ok || !toolObject(o) {
			return false
		}
	}
	return true
}

// mcpToolList reports a tool list of MCP tool names, not of REST routes: a bare "url"
// beside it is the server's endpoint.
func mcpToolList(v any) bool {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return false
	}
	for _, e := range list {
		if o, ok := e.(map[string]any); ok && (has(o, "endpoint") || has(o, "path") || has(o, "method") || has(o, "urlTemplate")) {
			return false
		}
	}
	return true
}

// addToolNames records tool names in Document.ToolNames once each.
func (r *reader) addToolNames(names []string) {
	for _, n := range names {
		if !r.tools[n] {
			r.tools[n] = true
			r.ToolNames = append(r.ToolNames, n)
		}
	}
}
