package mcpjson

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/wellknown-dev/discovery/internal/lazyre"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// normalize recognises the shape of a decoded document and maps it onto a Document.
// It reads known keys at known depths only: one real file embeds an "mcpServers"
// example deep inside another object, and that must not become a server. It returns
// no error for any JSON object: a spec-shaped document that breaks its schema outside
// its entries is treated as unsupported, as the spec says of a document with missing
// required fields (Shape unknown, no servers, a warning per problem); any other object gives a Document, with zero servers and a warning
// saying why when nothing usable was found.
func normalize(v map[string]any, opts Options) (*Document, error) {
	r := newReader(opts)
	if m, ok := v["mcp"].(map[string]any); ok {
		switch {
		case has(m, "spec_version") || has(m, "status"):
			r.Shape = ShapeSpec
			var ve *ValidationError
			if err := r.specChecked(v, m); errors.As(err, &ve) {
				u := newReader(opts)
				u.Shape = ShapeUnknown
				for _, p := range ve.Problems {
					u.warn(p.Pointer, "the document breaks the mcp.json schema ("+p.Message+"); treated as unsupported: fix it to be read")
				}
				return u.Document, nil
			} else if err != nil {
				return nil, err
			}
			r.finish(v)
			return r.Document, nil
		case has(m, "services"):
			r.Shape = ShapeLegacy
			r.legacy(m)
			r.finish(v)
			return r.Document, nil
		case has(m, "endpoints") || has(m, "servers") || has(m, "mcpServers"):
			r.Shape = ShapeMCPWrapper
			r.wrapper(v, m)
			r.finish(v)
			return r.Document, nil
		}
	}
	if why := openAPIStatement(v); why != "" {
		// An OpenAPI description: its "servers" are the bases of a REST API.
		r.Shape = ShapeNone
		r.warn("", "the document is an OpenAPI description ("+why+"), not an MCP discovery document; its servers are REST API bases, nothing to connect to")
		return r.Document, nil
	}
	if why := templateStatement(v); why != "" {
		// A template or sketch: its URLs and commands are examples, not servers.
		r.Shape = ShapeNone
		r.addToolNames(r.topTools(v, ""))
		r.warn("", "the document says it is a template ("+why+"); nothing in it is a real server, nothing to connect to")
		return r.Document, nil
	}
	r.Shape = detectShape(v)
	r.card(v)
	r.finish(v)
	return r.Document, nil
}

// openAPIStatement returns what says the document is an OpenAPI (or Swagger)
// description, or "": an "openapi" or "swagger" version ("3.1.0", "2.0") beside
// "paths" or "info". An "openapi" member that is a URL is a link, not this.
func openAPIStatement(v map[string]any) string {
	for _, k := range []string{"openapi", "swagger"} {
		ver := str(v, k)
		if ver == "" || ver[0] < '0' || ver[0] > '9' || !strings.Contains(ver, ".") {
			continue
		}
		if isObject(v["paths"]) || isObject(v["info"]) {
			return k + " is " + quote(ver)
		}
	}
	return ""
}

// templateStatement returns what in the document says it is only a template or
// sketch ("TEMPLATE ONLY — there is no hosted server at this origin yet"), or "": a
// "_template" key, or "template" with a statement that no server exists in a
// top-level note or description.
func templateStatement(v map[string]any) string {
	if _, ok := v["_template"]; ok {
		return "_template is set"
	}
	for _, k := range []string{"template", "$comment", "_comment", "note", "notes", "description"} {
		l := strings.ToLower(str(v, k))
		if !strings.Contains(l, "template") {
			continue
		}
		for _, ph := range []string{"template only", "no hosted", "not hosted yet", "does not exist yet", "there is no", "placeholder"} {
			if strings.Contains(l, ph) {
				return k + " says " + quote(ph)
			}
		}
	}
	return ""
}

// detectShape names the shape of a document that is not spec-shaped, checking the
// shapes in the order of the Shape constants; the first match wins.
func detectShape(v map[string]any) Shape {
	_, flat := flatURL(v)
	switch {
	case isArray(v["remotes"]) || isArray(v["packages"]):
		return ShapeCard2127
	case isObject(v["serverInfo"]) && isObject(v["transport"]) && (transportURL(v["transport"]) != "" || !has(v, "protocolVersion")):
		return ShapeCard1649
	case isObject(v["serverInfo"]) && has(v, "protocolVersion"):
		return ShapeInitialize
	case isObject(v["serverInfo"]) && flat != "":
		return ShapeCard1649
	case isObject(v["mcpServers"]) || isArray(v["mcpServers"]):
		return ShapeClientConfig
	case isArray(v["servers"]):
		return ShapeDocsSite
	case isObject(v["servers"]):
		return ShapeServersMap
	case flat == "" && (transportMap(v["endpoints"]) || transportMap(v["transports"]) || transportMap(v["connections"])):
		return ShapeSEP1960
	case flat != "" || objectList(v["endpoints"]) || objectList(v["transports"]) || transportMap(v["transport"]) ||
		isArray(v["companion_servers"]):
		return ShapeFlat
	case localKeys(v):
		return ShapeLocal
	case noServerStatement(v) != "":
		return ShapeNone
	case firstString(str(v, "$ref"), str(v, "serverCard"), str(v, "server_card")) != "":
		return ShapePointer
	}
	return ShapeUnknown
}

// objectList reports a JSON array holding at least one object (endpoint entries, not
// a list of transport names).
func objectList(v any) bool {
	list, _ := v.([]any)
	for _, e := range list {
		if isObject(e) {
			return true
		}
	}
	return false
}

// wrapper maps {"mcp": {...}} objects that are not the spec's: a near miss with
// "endpoints" keyed by transport, or "servers" (a list or a map).
func (r *reader) wrapper(v, m map[string]any) {
	name := firstString(str(dig(v, "server"), "name"), str(m, "name"), str(v, "name"))
	r.SpecVersion = str(m, "version")
	base := Server{Name: name, Description: str(m, "description"),
		Auth: authOf(firstOf(m, "authentication", "auth")), Capabilities: capabilities(m["capabilities"])}
	base.Tools = r.topTools(m, "/mcp")
	if len(base.Tools) == 0 {
		base.Tools = r.topTools(v, "")
	}
	r.addToolNames(base.Tools)
	if has(m, "endpoints") {
		r.endpoints("/mcp/endpoints", m["endpoints"], base)
	}
	for _, k := range []string{"servers", "mcpServers"} {
		r.serverList("/mcp/"+k, m[k], base)
	}
}

// finish records what a client must know when no server is usable, and collects the
// tool names of the whole document.
func (r *reader) finish(v map[string]any) {
	r.settleBridges()
	for _, s := range r.Servers {
		r.addToolNames(s.Tools)
	}
	if len(r.Servers) > 0 {
		return
	}
	why := noServerStatement(v)
	switch {
	case why != "":
		r.Shape = ShapeNone
		r.warn("", "the document says this site runs no MCP server ("+why+"); nothing to connect to")
	case r.Shape == ShapePointer, r.Shape == ShapeSpec:
		// The pointer is the content; a spec document may list only HTTP tools, and the
		// schema says what it requires.
	case r.Shape == ShapeUnknown && len(r.ToolNames) > 0:
		r.warn("", fmt.Sprintf("the document lists %d MCP tools but no endpoint, command or package to reach them; nothing to connect to", len(r.ToolNames)))
	case r.Shape == ShapeUnknown:
		r.warn("", unknownShapeMsg+"; nothing to connect to")
	default:
		r.warn("", fmt.Sprintf("%s document lists no usable MCP server; nothing to connect to", r.Shape))
	}
}

// noServerStatement returns what in the document says there is no MCP server here,
// or "": "mcp_available": false, a status such as "not_provided", or an empty server
// list with nothing beside it.
func noServerStatement(v map[string]any) string {
	for _, k := range []string{"mcp_available", "mcpAvailable", "available", "mcp_enabled", "enabled"} {
		if b, ok := v[k].(bool); ok && !b {
			return k + " is false"
		}
	}
	if s := strings.ToLower(str(v, "status")); s != "" {
		switch {
		case s == "none" || s == "unavailable" || s == "disabled" || s == "offline" || s == "planned" ||
			s == "coming_soon" || s == "coming-soon" || s == "inactive" || s == "deprecated" || s == "retired" ||
			strings.HasPrefix(s, "not_") || strings.HasPrefix(s, "not-") || strings.HasPrefix(s, "no_") || strings.HasPrefix(s, "no-"):
			return "status is " + quote(str(v, "status"))
		}
	}
	if why := notMCPStatement(v); why != "" {
		return why
	}
	if why := notLiveStatement(v); why != "" {
		return why
	}
	for _, k := range []string{"servers", "mcpServers", "remotes"} {
		switch t := v[k].(type) {
		case []any:
			if len(t) == 0 {
				return k + " is empty"
			}
		case map[string]any:
			if len(t) == 0 {
				return k + " is empty"
			}
		}
	}
	return ""
}

// specChecked validates a spec-shaped document and maps it. Problems outside the
// server and tool entries (no spec_version, a status that is not a string...) make
// the document unsupported (the spec's rule for missing required fields); an entry's
// problems only skip that entry.
func (r *reader) specChecked(root, m map[string]any) error {
	version, _ := m["spec_version"].(string)
	s, err := schemaFor(version, false)
	if err != nil {
		return err
	}
	var errs []Problem
	for _, p := range validate(s, root) {
		if strings.HasPrefix(p.Pointer, "/mcp/servers/") || strings.HasPrefix(p.Pointer, "/mcp/tools/") {
			continue // checked entry by entry in spec()
		}
		errs = append(errs, p)
	}
	if len(errs) > 0 {
		return &ValidationError{Problems: errs}
	}
	r.spec(m)
	return nil
}

// serverName is the 2026-04-12 rule for server names.
var serverName = lazyre.New(`^[a-z0-9-]+$`)

// spec maps the "mcp" object of a spec-shaped document.
func (r *reader) spec(m map[string]any) {
	r.Shape = ShapeSpec
	r.SpecVersion, r.Status = str(m, "spec_version"), str(m, "status")
	r.SpecURL, r.SkillsURL = str(m, "spec_url"), str(m, "skills_url")
	r.Notes, r.Contact = str(m, "notes"), str(m, "contact")
	if r.SpecVersion != "" && !knownVersions[r.SpecVersion] {
		r.warn("/mcp/spec_version", "unknown spec_version "+quote(r.SpecVersion)+"; processed with the newest known schema")
	}
	switch r.Status {
	case "draft", "stable", "experimental", "": // a missing status is the schema's to report
	default:
		r.warn("/mcp/status", "unknown status "+quote(r.Status)+"; treated as not stable")
	}
	servers, _ := m["servers"].([]any)
	seen := map[string]bool{}
	for i, e := range servers {
		ptr := fmt.Sprintf("/mcp/servers/%d", i)
		o, ok := e.(map[string]any)
		if !ok {
			r.warn(ptr, fmt.Sprintf("server entry is a JSON %s, not an object; skipped", kind(e)))
			continue
		}
		s := Server{Name: str(o, "name"), Description: str(o, "description"), URL: str(o, "url"),
			Auth: authOf(o["auth"]), Capabilities: strs(o["capabilities"])}
		if _, ok := o["transport"]; ok {
			s.Transport = r.transport(ptr+"/transport", o["transport"])
		} else {
			s.Transport = TransportSSE // the spec's default, "http+sse"
		}
		if s.Transport == TransportStdio { // the "url" of a stdio server names a command
			s.LocalOnly, s.Command, s.URL = true, s.URL, ""
		}
		if s.Name != "" && !serverName().MatchString(s.Name) {
			r.warn(ptr+"/name", "server name "+quote(s.Name)+" is not lowercase letters, digits and hyphens")
		}
		if s.Name != "" && seen[s.Name] {
			r.warn(ptr+"/name", "duplicate server name "+quote(s.Name)+"; the first entry is kept")
			continue
		}
		if r.addServer(ptr, ptr+"/url", s) {
			seen[s.Name] = true
		}
	}
	tools, _ := m["tools"].([]any)
	for i, e := range tools {
		ptr := fmt.Sprintf("/mcp/tools/%d", i)
		o, ok := e.(map[string]any)
		if !ok {
			r.warn(ptr, fmt.Sprintf("tool entry is a JSON %s, not an object; skipped", kind(e)))
			continue
		}
		t := Tool{Name: str(o, "name"), Description: str(o, "description"), URL: str(o, "url"),
			Capabilities: strs(o["capabilities"]), Methods: strs(o["methods"]),
			ContentTypes: strs(o["content_types"]), Auth: authOf(o["auth"])}
		if t.Name == "" {
			r.warn(ptr+"/name", "tool has no name; skipped")
			continue
		}
		if r.urlOK(ptr+"/url", t.URL) {
			r.Tools = append(r.Tools, t)
		}
	}
}

// legacy maps the 2024 wrapper: "version" for spec_version, "services" for servers,
// "endpoint" for url.
func (r *reader) legacy(m map[string]any) {
	r.SpecVersion = str(m, "version")
	r.warn("/mcp", "legacy document (2024 page): \"version\", \"services\" and \"endpoint\" read as spec_version, servers and url")
	services, _ := m["services"].([]any)
	for i, e := range services {
		ptr := fmt.Sprintf("/mcp/services/%d", i)
		if o, ok := e.(map[string]any); ok {
			r.entry(ptr, o, "", Server{})
		} else {
			r.warn(ptr, fmt.Sprintf("service entry is a JSON %s, not an object; skipped", kind(e)))
		}
	}
}

// capabilities reads a list of labels, or the keys of an object whose value is not false.
func capabilities(v any) []string {
	switch t := v.(type) {
	case []any:
		return strs(t)
	case map[string]any:
		var out []string
		for _, k := range sortedKeys(t) {
			if b, ok := t[k].(bool); !ok || b {
				out = append(out, k)
			}
		}
		return out
	}
	return nil
}

// authOf normalises an auth description given as a string or an object.
func authOf(v any) *Auth {
	switch t := v.(type) {
	case string:
		return &Auth{Type: normalizeAuth(t)}
	case map[string]any:
		a := &Auth{TokenEndpoint: str(t, "token_endpoint"), Scopes: strs(t["scopes"]), Header: str(t, "header")}
		switch {
		case str(t, "type") != "":
			a.Type = normalizeAuth(str(t, "type"))
		case isArray(t["methods"]) && len(strs(t["methods"])) > 0:
			a.Type = normalizeAuth(strs(t["methods"])[0])
		case t["required"] == false:
			a.Type = "none"
		default:
			a.Type = "unknown"
		}
		return a
	}
	return nil
}

func normalizeAuth(s string) string {
	l := strings.ToLower(strings.TrimSpace(s))
	switch l {
	case "apikey", "api_key", "api-key", "x-api-key", "key":
		return "api-key"
	case "oauth", "oauth2", "oauth2.0", "oauth 2.0", "oauth2.1":
		return "oauth2"
	case "bearer", "bearer-token", "token":
		return "bearer"
	case "none", "", "no", "public":
		return "none"
	}
	return l
}

// quote quotes a value from the document for a warning: credentials redacted, URL
// userinfo and queries removed, control characters dropped, at most 64 characters.
func quote(s string) string { return secrets.Quote(s, 64) }

// quoteURL quotes a URL from the document for a warning: its userinfo, query and
// fragment show as "…" (see secrets.Scrub); a URL that does not parse is not repeated.
func quoteURL(u string) string {
	if secrets.RedactURL(u) == secrets.UnparsableURL {
		return secrets.UnparsableURL
	}
	return secrets.Quote(u, 0)
}

// warn records a warning. Every document value in msg must have gone through quote or
// quoteURL, and every key in ptr through pointerToken.
func (d *Document) warn(ptr, msg string) {
	d.Warnings = append(d.Warnings, Problem{Pointer: ptr, Message: msg, Severity: SeverityWarning})
}

func has(v any, k string) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, ok = m[k]
	return ok
}

func isArray(v any) bool  { _, ok := v.([]any); return ok }
func isObject(v any) bool { _, ok := v.(map[string]any); return ok }

func firstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return nil
}

func firstString(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func str(v any, k string) string {
	m, _ := v.(map[string]any)
	s, _ := m[k].(string)
	return strings.TrimSpace(s)
}

func strs(v any) []string {
	a, _ := v.([]any)
	var out []string
	for _, e := range a {
		switch x := e.(type) {
		case string:
			out = append(out, x)
		case fmt.Stringer: // json.Number
			out = append(out, x.String())
		case bool:
			out = append(out, strconv.FormatBool(x))
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// notMCPPhrases are what a document writes to say that what it describes is not an
// MCP server (a REST or chat API published at the MCP path).
var notMCPPhrases = []string{"no mcp transport", "no mcp server", "no mcp endpoint", "not an mcp server",
	"not an mcp endpoint", "not a mcp server", "is not mcp", "not mcp-compatible", "not mcp compatible",
	"no native mcp", "does not speak mcp", "doesn't speak mcp", "does not implement mcp", "no mcp support"}

// notMCPStatement returns what in the document says it describes no MCP server, or
// "": an MCP transport of "none" ("mcp_transport": "none", "transport": {"type":
// "none"}), or one of notMCPPhrases in a top-level description or note.
func notMCPStatement(v map[string]any) string {
	for _, k := range []string{"mcp_transport", "mcpTransport", "transport", "protocol"} {
		t := firstString(str(v, k), str(v[k], "type"))
		if strings.EqualFold(t, "none") {
			return k + " is \"none\""
		}
	}
	for _, k := range []string{"description", "note", "notes", "summary", "mcp", "mcp_status", "mcpStatus", "transport_note"} {
		l := strings.ToLower(str(v, k))
		for _, ph := range notMCPPhrases {
			if strings.Contains(l, ph) {
				return k + " says " + quote(ph)
			}
		}
	}
	return ""
}

// notLivePhrases are what a document writes to say that the MCP server it describes
// is not running yet: its URL is reserved, planned or coming.
var notLivePhrases = []string{"reserved for a future", "reserved for future", "not yet live", "not live yet",
	"isn't live yet", "is not live", "not yet deployed", "not deployed yet", "not yet launched", "not launched yet",
	"not yet available", "not available yet", "not yet active", "not yet online", "not yet running", "not yet published",
	"not currently published", "not currently live", "not currently available", "not currently deployed", "not yet enabled",
	"coming soon", "under construction", "is planned", "will be available", "will be deployed", "will be hosted",
	"will go live", "will be live", "once deployed", "once it is deployed", "once live"}

// notLiveSubjects are the words one of which a sentence must hold for a notLivePhrase
// in it to speak of the server and not of some feature ("a watchlist is planned").
var notLiveSubjects = []string{"url", "uri", "endpoint", "endpoints", "server", "servers", "transport", "mcp"}

// notLiveStatement returns what in the document says its MCP server is not live
// ("Transport URL is reserved for a future streamable HTTP MCP server", "the MCP
// endpoint is not yet deployed"), or "": "live" or "deployed" false, one of
// notLivePhrases in a sentence of a top-level description or note that names the
// server, endpoint or URL, or in a top-level status or availability.
func notLiveStatement(v map[string]any) string {
	for _, k := range []string{"live", "is_live", "isLive", "deployed", "is_deployed", "isDeployed", "launched"} {
		if b, ok := v[k].(bool); ok && !b {
			return k + " is false"
		}
	}
	for _, k := range []string{"status", "availability", "mcp_status", "mcpStatus", "server_status", "serverStatus"} {
		l := strings.ToLower(str(v, k))
		for _, ph := range notLivePhrases {
			if strings.Contains(l, ph) {
				return k + " says " + quote(ph)
			}
		}
	}
	for _, k := range []string{"description", "note", "notes", "summary", "comment", "_comment", "$comment", "status_note",
		"statusNote", "remarks"} {
		text := strings.ToLower(str(v, k))
		if text == "" {
			continue
		}
		for _, sentence := range strings.FieldsFunc(strings.ReplaceAll(text, ". ", "\n"), func(r rune) bool {
			return r == '\n' || r == '!' || r == '?' || r == ';'
		}) {
			for _, ph := range notLivePhrases {
				if !strings.Contains(sentence, ph) {
					continue
				}
				words := strings.FieldsFunc(sentence, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
				for _, w := range notLiveSubjects {
					if slices.Contains(words, w) {
						return k + " says " + quote(ph)
					}
				}
			}
		}
	}
	return ""
}

// genericURLKey reports a flat card's URL pointer whose key does not itself name MCP
// ("/endpoint", "/serverUrl", "/url", "/server/url"): a statement that the document
// is not MCP outweighs it.
func genericURLKey(ptr string) bool {
	k := strings.ToLower(ptr[strings.LastIndexByte(ptr, '/')+1:])
	return !strings.Contains(k, "mcp") && !strings.Contains(k, "sse") && !strings.Contains(k, "streamable")
}
