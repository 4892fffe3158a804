package mcpjson

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// toolKeys are the keys, beside "tools", under which cards list MCP tool names.
var toolKeys = []string{"advertised_tools", "advertisedTools", "mcpTools", "mcp_tools", "tool_names", "toolNames",
	"tools_summary", "toolsSummary", "tool_list", "toolList", "available_tools", "availableTools", "exposed_tools",
	"exposedTools", "supported_tools", "supportedTools"}

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
	// {"safe_tools": [...]}, {"publicTools": [...]}: a list under another key naming tools.
	var listKeys []string
	for k, e := range o {
		if isArray(e) && suffixToolKey(k) && !slices.Contains(toolKeys, k) {
			listKeys = append(listKeys, k)
		}
	}
	slices.Sort(listKeys)
	for _, k := range listKeys {
		add(r.toolNames(at+"/"+pointerToken(k), o[k]))
	}
	add(methodTools(o["methods"]))
	add(methodTools(o["operations"])) // {"operations": [{"name": "campaign_create", "scope": ...}]}
	// {"endpoints": {"base_url": ..., "tools": [...]}}, {"mcp": {"server": ..., "tools": [...]}},
	// {"server": {"url": ..., "capabilities": {"tools": [...]}}}: a tool list one level
	// down, in an object that describes the same server.
	for _, k := range innerToolObjects {
		inner, ok := o[k].(map[string]any)
		if !ok {
			continue
		}
		if isArray(inner["tools"]) || isObject(inner["tools"]) && k != "endpoints" {
			add(r.toolNames(at+"/"+k+"/tools", inner["tools"]))
		}
		add(r.toolNames(at+"/"+k+"/capabilities/tools", dig(inner, "capabilities", "tools")))
	}
	// {"_meta": {"com.acme/discovery": {"tools": [...]}}}: a registry server.json's
	// publisher metadata; {"webmcp": {"tools_on_page": [...]}}: the tools a page
	// registers with WebMCP.
	if m, ok := o["_meta"].(map[string]any); ok {
		add(r.groupTools(at+"/_meta", m))
		for _, k := range sortedKeys(m) {
			if isObject(m[k]) {
				add(r.groupTools(at+"/_meta/"+pointerToken(k), m[k]))
			}
		}
	}
	for _, k := range []string{"webmcp", "webMCP", "webMcp", "web_mcp", "WebMCP"} {
		if m, ok := o[k].(map[string]any); ok {
			for _, kk := range sortedKeys(m) {
				if strings.HasPrefix(strings.ToLower(kk), "tool") && isArray(m[kk]) {
					add(r.toolNames(at+"/"+k+"/"+pointerToken(kk), m[kk]))
				}
			}
		}
	}
	// Tools grouped by feature, category or tier: {"features": {"clients": {"tool":
	// "list_clients"}}}, {"capability_categories": [{"id": "crm", "tools": [...]}]},
	// {"tiers": {"public": {"tools": [...]}}}.
	for _, k := range toolGroupKeys {
		switch g := o[k].(type) {
		case map[string]any:
			for _, gk := range sortedKeys(g) {
				add(r.groupTools(at+"/"+k+"/"+pointerToken(gk), g[gk]))
			}
		case []any:
			for i, e := range g {
				add(r.groupTools(fmt.Sprintf("%s/%s/%d", at, k, i), e))
			}
		}
	}
	return out
}

// notToolWords are the first words of a "<word>_tools" key whose list is not of the
// server's tools: tools to come or gone, or other products'.
var notToolWords = map[string]bool{"planned": true, "upcoming": true, "coming": true, "future": true, "roadmap": true,
	"deprecated": true, "disabled": true, "removed": true, "retired": true, "legacy": true, "unsupported": true,
	"unavailable": true, "related": true, "similar": true, "other": true, "recommended": true, "external": true,
	"third": true, "thirdparty": true, "competitor": true, "competitors": true, "competing": true, "alternative": true,
	"alternatives": true, "required": true, "missing": true, "blocked": true, "forbidden": true, "excluded": true}

// suffixToolKey reports a key that names a list of the server's tools by a word and
// "tools" ("safe_tools", "publicTools", "read-tools"), not one of tools to come, gone
// or of other products (see notToolWords).
func suffixToolKey(k string) bool {
	var first string
	switch {
	case len(k) > 6 && (strings.HasSuffix(k, "_tools") || strings.HasSuffix(k, "-tools")):
		first = k[:len(k)-6]
	case len(k) > 5 && strings.HasSuffix(k, "Tools"):
		first = k[:len(k)-5]
	default:
		return false
	}
	w := first // its first word: up to a separator or an inner capital
	for i, r := range first {
		if i > 0 && (r == '_' || r == '-' || unicode.IsUpper(r)) {
			w = first[:i]
			break
		}
	}
	return !notToolWords[strings.ToLower(w)] && !notToolWords[strings.ToLower(first)]
}

// innerToolObjects are the keys of objects that describe the same server as the
// object they are in, whose tools are that server's.
var innerToolObjects = []string{"endpoints", "mcp", "server", "remote", "connection", "gateway", "protocol", "hosted"}

// toolGroupKeys are the keys under which an object groups its tools by feature,
// category or tier: a list or a map of groups, each with "tools" (or one "tool").
var toolGroupKeys = []string{"features", "categories", "capability_categories", "capabilityCategories", "tool_categories",
	"toolCategories", "toolsets", "toolSets", "tool_groups", "toolGroups", "groups", "modules", "tiers", "plans"}

// groupTools reads the tool names of one group of toolGroupKeys: its "tools" and its
// "tool". Anything else (a description, a price) names no tool.
func (r *reader) groupTools(ptr string, v any) []string {
	if list, ok := v.([]any); ok { // {"toolsets": {"core": ["search", "fetch"]}}
		return r.toolList(ptr, list)
	}
	g, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	if t := str(g, "tool"); t != "" {
		out = append(out, t)
	}
	if isArray(g["tools"]) || isObject(g["tools"]) {
		out = append(out, r.toolNames(ptr+"/tools", g["tools"])...)
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

// toolMethods are the protocol's methods on tools (tools/list, tools/call): a flag
// under one of them says the server supports the method, not that a tool has that name.
var toolMethods = map[string]bool{"list": true, "call": true}

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
			if n := firstString(str(x, "name"), str(x, "id"), str(x, "tool"), str(x, "toolName"), str(x, "tool_name"),
				str(x["function"], "name")); n != "" {
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
		p := ptr + "/" + pointerToken(k)
		if toolMeta[k] {
			// {"tools": {"listChanged": true, "supported": ["search", "fetch"]}}: a
			// list of names under "supported" or "enabled" is the server's tools.
			if list, ok := m[k].([]any); ok && (k == "supported" || k == "enabled") {
				out = append(out, r.toolList(p, list)...)
			}
			continue
		}
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
			// {"search_docs": true} names a tool; {"list": true, "call": true} says the
			// server answers the protocol's tools/list and tools/call, and names none.
			if x && !toolMethods[k] {
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
