package mcpjson

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// normalize recognises the shape of a decoded document and maps it onto a Document.
// It reads known keys at known depths only: one real file embeds an "mcpServers"
// example deep inside another object, and that must not become a server.
func normalize(v map[string]any) (*Document, error) {
	d := &Document{}
	if m, ok := v["mcp"].(map[string]any); ok {
		switch {
		case has(m, "spec_version") || has(m, "status"):
			d.Shape = ShapeSpec
			return d, d.specChecked(v, m)
		case has(m, "services"):
			d.Shape = ShapeLegacy
			d.legacy(m)
			return d, nil
		case has(m, "endpoints"):
			d.Shape = ShapeMCPWrapper
			name := firstString(str(dig(v, "server"), "name"), str(m, "name"), str(v, "name"))
			d.SpecVersion = str(m, "version")
			d.endpointMap("/mcp/endpoints", m["endpoints"], Server{Name: name, Description: str(m, "description"),
				Auth: authOf(firstOf(m, "authentication", "auth")), Capabilities: capabilities(m["capabilities"]),
				Tools: d.toolNames("/mcp/tools", m["tools"])})
			return d, d.needServers()
		}
	}
	base := Server{
		Name:         firstString(str(v, "name"), str(v, "server_name"), str(v, "title")),
		Description:  str(v, "description"),
		Auth:         authOf(firstOf(v, "authentication", "auth")),
		Capabilities: capabilities(v["capabilities"]),
	}
	switch {
	case isArray(v["remotes"]):
		d.Shape = ShapeCard2127
		base.Tools = d.toolNames("/tools", v["tools"])
		remotes, _ := v["remotes"].([]any)
		for i, r := range remotes {
			ptr := fmt.Sprintf("/remotes/%d", i)
			rm, ok := r.(map[string]any)
			if !ok {
				d.warn(ptr, "remote is not an object; skipped")
				continue
			}
			s := base
			s.URL = str(rm, "url")
			s.Transport = d.transport(ptr+"/type", rm["type"])
			d.addServer(ptr, ptr+"/url", s)
		}
		return d, d.needServers()
	case isObject(v["serverInfo"]) && (transportURL(v["transport"]) != "" || !has(v, "protocolVersion")) && isObject(v["transport"]):
		d.Shape = ShapeCard1649
		d.card(v, base)
		return d, d.needServers()
	case isObject(v["serverInfo"]) && has(v, "protocolVersion"):
		d.Shape = ShapeInitialize
		d.card(v, base)
		return d, d.needServers()
	case isObject(v["mcpServers"]):
		d.Shape = ShapeClientConfig
		servers, _ := v["mcpServers"].(map[string]any) // isObject above
		d.serverMap("/mcpServers", servers, base.Auth)
		return d, d.needServers()
	case isArray(v["servers"]):
		d.Shape = ShapeDocsSite
		d.SpecVersion = firstString(str(v, "version"), str(v, "mcpVersion"))
		list, _ := v["servers"].([]any)
		for i, e := range list {
			ptr := fmt.Sprintf("/servers/%d", i)
			if m, ok := e.(map[string]any); ok {
				d.addServer(ptr, ptr+"/url", d.entry(ptr, m, "", base.Auth))
			} else {
				d.warn(ptr, fmt.Sprintf("server entry is a JSON %s, not an object; skipped", kind(e)))
			}
		}
		if len(d.Servers) == 0 && str(v, "url") != "" { // "servers": [] beside a top-level url
			s := base
			s.URL = str(v, "url")
			s.Transport = d.transport("/transport", v["transport"])
			d.addServer("", "/url", s)
		}
		return d, d.needServers()
	case isObject(v["servers"]):
		d.Shape = ShapeServersMap
		servers, _ := v["servers"].(map[string]any) // isObject above
		d.serverMap("/servers", servers, base.Auth)
		return d, d.needServers()
	case has(v, "server_name") && isObject(v["endpoints"]):
		d.Shape = ShapeSEP1960
		d.SpecVersion = str(v, "spec_version")
		d.endpointMap("/endpoints", v["endpoints"], base)
		return d, d.needServers()
	}
	if ptr, u := flatURL(v); u != "" || isArray(v["endpoints"]) {
		d.Shape = ShapeFlat
		base.Tools = d.toolNames("/tools", v["tools"])
		if len(base.Tools) == 0 {
			base.Tools = d.toolNames("/capabilities/tools", dig(v, "capabilities", "tools"))
		}
		d.SpecVersion = firstString(str(v, "schema_version"), str(v, "version"))
		if u != "" {
			s := base
			s.URL = u
			s.Transport = d.transport("/transport", firstOf(v, "transport", "transports"))
			if s.Transport == TransportUnknown && ptr == "/sse_endpoint" {
				s.Transport = TransportSSE
			}
			d.addServer("", ptr, s)
		}
		if eps, ok := v["endpoints"].([]any); ok {
			for i, e := range eps {
				p := fmt.Sprintf("/endpoints/%d", i)
				if m, ok := e.(map[string]any); ok {
					s := d.entry(p, m, base.Name, base.Auth)
					s.Tools, s.Capabilities = base.Tools, base.Capabilities
					d.addServer(p, p+"/url", s)
				}
			}
		}
		return d, d.needServers()
	}
	if localKeys(v) {
		d.Shape = ShapeLocal
		s := base
		s.Tools = d.toolNames("/tools", v["tools"])
		s.LocalOnly, s.Transport, s.Command = true, TransportStdio, firstString(str(v, "command"), str(v, "package"), base.Name)
		d.addServer("", "", s)
		return d, nil
	}
	if ref := firstString(str(v, "$ref"), str(v, "serverCard"), str(v, "server_card")); ref != "" {
		d.Shape, d.Pointer = ShapePointer, ref
		if why := CheckURL(ref); why != "" && why != relativeURL {
			return nil, &ValidationError{Problems: []Problem{{Pointer: "", Message: "pointer " + why, Severity: SeverityError}}}
		}
		return d, nil
	}
	return nil, &ValidationError{Problems: []Problem{{Message: unknownShapeMsg, Severity: SeverityError}}}
}

// needServers fails a non-spec document that yielded no usable server: its shape was
// recognised, but there is nothing a client could use.
func (d *Document) needServers() error {
	if len(d.Servers) > 0 {
		return nil
	}
	probs := []Problem{{Message: fmt.Sprintf("%s document lists no usable server", d.Shape), Severity: SeverityError}}
	for _, w := range d.Warnings {
		w.Severity = SeverityError
		probs = append(probs, w)
	}
	return &ValidationError{Problems: probs}
}

// specChecked validates a spec-shaped document and maps it. Problems outside the
// server and tool entries (no spec_version, a status that is not a string...) make
// the document unusable (MD-C-19); an entry's problems only skip that entry.
func (d *Document) specChecked(root, m map[string]any) error {
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
	d.spec(m)
	return nil
}

// serverName is the 2026-04-12 rule for server names.
var serverName = regexp.MustCompile(`^[a-z0-9-]+$`)

// spec maps the "mcp" object of a spec-shaped document.
func (d *Document) spec(m map[string]any) {
	d.Shape = ShapeSpec
	d.SpecVersion, d.Status = str(m, "spec_version"), str(m, "status")
	d.SpecURL, d.SkillsURL = str(m, "spec_url"), str(m, "skills_url")
	d.Notes, d.Contact = str(m, "notes"), str(m, "contact")
	if d.SpecVersion != "" && !knownVersions[d.SpecVersion] {
		d.warn("/mcp/spec_version", "unknown spec_version "+quote(d.SpecVersion)+"; processed with the newest known schema")
	}
	switch d.Status {
	case "draft", "stable", "experimental", "": // a missing status is the schema's to report
	default:
		d.warn("/mcp/status", "unknown status "+quote(d.Status)+"; treated as not stable")
	}
	servers, _ := m["servers"].([]any)
	seen := map[string]bool{}
	for i, e := range servers {
		ptr := fmt.Sprintf("/mcp/servers/%d", i)
		o, ok := e.(map[string]any)
		if !ok {
			d.warn(ptr, fmt.Sprintf("server entry is a JSON %s, not an object; skipped", kind(e)))
			continue
		}
		s := Server{Name: str(o, "name"), Description: str(o, "description"), URL: str(o, "url"),
			Auth: authOf(o["auth"]), Capabilities: strs(o["capabilities"])}
		if _, ok := o["transport"]; ok {
			s.Transport = d.transport(ptr+"/transport", o["transport"])
		} else {
			s.Transport = TransportSSE // the spec's default, "http+sse"
		}
		if s.Transport == TransportStdio { // the "url" of a stdio server names a command
			s.LocalOnly, s.Command, s.URL = true, s.URL, ""
		}
		if s.Name != "" && !serverName.MatchString(s.Name) {
			d.warn(ptr+"/name", "server name "+quote(s.Name)+" is not lowercase letters, digits and hyphens")
		}
		if s.Name != "" && seen[s.Name] {
			d.warn(ptr+"/name", "duplicate server name "+quote(s.Name)+"; the first entry is kept")
			continue
		}
		if d.addServer(ptr, ptr+"/url", s) {
			seen[s.Name] = true
		}
	}
	tools, _ := m["tools"].([]any)
	for i, e := range tools {
		ptr := fmt.Sprintf("/mcp/tools/%d", i)
		o, ok := e.(map[string]any)
		if !ok {
			d.warn(ptr, fmt.Sprintf("tool entry is a JSON %s, not an object; skipped", kind(e)))
			continue
		}
		t := Tool{Name: str(o, "name"), Description: str(o, "description"), URL: str(o, "url"),
			Capabilities: strs(o["capabilities"]), Methods: strs(o["methods"]),
			ContentTypes: strs(o["content_types"]), Auth: authOf(o["auth"])}
		if t.Name == "" {
			d.warn(ptr+"/name", "tool has no name; skipped")
			continue
		}
		if d.urlOK(ptr+"/url", t.URL) {
			d.Tools = append(d.Tools, t)
		}
	}
}

// legacy maps the 2024 wrapper: "version" for spec_version, "services" for servers,
// "endpoint" for url.
func (d *Document) legacy(m map[string]any) {
	d.SpecVersion = str(m, "version")
	d.warn("/mcp", "legacy document (2024 page): \"version\", \"services\" and \"endpoint\" read as spec_version, servers and url")
	services, _ := m["services"].([]any)
	for i, e := range services {
		ptr := fmt.Sprintf("/mcp/services/%d", i)
		if o, ok := e.(map[string]any); ok {
			d.addServer(ptr, ptr+"/endpoint", d.entry(ptr, o, "", nil))
		} else {
			d.warn(ptr, fmt.Sprintf("service entry is a JSON %s, not an object; skipped", kind(e)))
		}
	}
}

// card maps a SEP-1649 server card or an initialize result: one server.
func (d *Document) card(v map[string]any, base Server) {
	info, _ := v["serverInfo"].(map[string]any) // nil reads as empty
	d.SpecVersion = str(v, "protocolVersion")
	s := base
	s.Name = firstString(str(info, "name"), str(info, "title"), base.Name)
	s.Description = firstString(base.Description, str(info, "description"))
	s.Tools = d.toolNames("/tools", v["tools"])
	s.Transport = d.transport("/transport", v["transport"])
	s.URL = firstString(transportURL(v["transport"]), str(v, "url"), str(v, "endpoint"))
	if s.URL == "" && (s.Transport == TransportStdio || has(v["transport"], "command")) {
		s.LocalOnly, s.Transport = true, TransportStdio
		s.Command = strings.TrimSpace(str(v["transport"], "command") + " " + strings.Join(strs(dig(v, "transport", "args")), " "))
	}
	d.addServer("", "/transport/url", s)
}

// serverMap maps {"name": {...}} objects (mcpServers, servers as a map), in key order.
func (d *Document) serverMap(at string, m map[string]any, auth *Auth) {
	for _, k := range sortedKeys(m) {
		ptr := at + "/" + pointerToken(k)
		o, ok := m[k].(map[string]any)
		if !ok {
			d.warn(ptr, "server entry is not an object; skipped")
			continue
		}
		d.addServer(ptr, ptr+"/url", d.entry(ptr, o, k, auth))
	}
}

// endpointMap maps {"transport": url or {"url": ...}} objects: one server per
// transport. A "messages" endpoint is the POST half of the SSE transport, not a server.
func (d *Document) endpointMap(at string, v any, base Server) {
	m, ok := v.(map[string]any)
	if !ok {
		d.warn(at, "endpoints is not an object")
		return
	}
	var keys []string
	for _, k := range sortedKeys(m) {
		if !strings.EqualFold(k, "messages") {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		ptr := at + "/" + pointerToken(k)
		s := base
		s.Transport = normalizeTransport(k)
		if s.Transport == TransportUnknown {
			d.warn(ptr, "endpoint "+quote(k)+" is not a known transport; skipped")
			continue
		}
		urlPtr := ptr
		switch e := m[k].(type) {
		case string:
			s.URL = e
		case map[string]any:
			s.URL, urlPtr = str(e, "url"), ptr+"/url"
		}
		switch {
		case s.Name == "":
			s.Name = k
		case len(keys) > 1:
			s.Name += " (" + k + ")"
		}
		d.addServer(ptr, urlPtr, s)
	}
}

// entry maps one server object of the non-spec shapes.
func (d *Document) entry(ptr string, o map[string]any, name string, auth *Auth) Server {
	s := Server{
		Name:         firstString(str(o, "name"), name),
		Description:  str(o, "description"),
		URL:          firstString(str(o, "url"), str(o, "serverUrl"), str(o, "endpoint"), transportURL(o["transport"])),
		Transport:    d.transport(ptr+"/transport", firstOf(o, "transport", "type")),
		Auth:         authOf(firstOf(o, "authentication", "auth")),
		Capabilities: capabilities(o["capabilities"]),
		Tools:        d.toolNames(ptr+"/tools", o["tools"]),
	}
	if s.Auth == nil {
		s.Auth = auth
	}
	if s.URL == "" && (has(o, "command") || has(o, "package") || s.Transport == TransportStdio) {
		s.LocalOnly, s.Transport = true, TransportStdio
		s.Command = firstString(strings.TrimSpace(str(o, "command")+" "+strings.Join(strs(o["args"]), " ")), str(o, "package"), str(o, "installCommand"))
	}
	return s
}

// addServer checks a server's URL and adds it, or skips it with a warning. ptr points
// at the entry, urlPtr at its URL.
func (d *Document) addServer(ptr, urlPtr string, s Server) bool {
	if s.LocalOnly {
		d.warn(ptr, "server "+quote(s.Name)+" is a local command, not a remote endpoint; it is listed but never connected to")
		d.Servers = append(d.Servers, s)
		return true
	}
	if s.Name == "" && d.Shape == ShapeSpec {
		d.warn(ptr+"/name", "server has no name; skipped")
		return false
	}
	if !d.urlOK(urlPtr, s.URL) {
		return false
	}
	if s.Name == "" {
		s.Name = "mcp"
	}
	d.Servers = append(d.Servers, s)
	return true
}

const relativeURL = "url is relative"

// urlOK warns about a relative URL (kept) and skips an unusable one.
func (d *Document) urlOK(ptr, u string) bool {
	switch why := CheckURL(u); why {
	case "":
		return true
	case relativeURL:
		d.warn(ptr, "relative URL "+quoteURL(u)+" breaks the spec (it must be absolute); kept, resolve it against the document URL")
		return true
	default:
		d.warn(ptr, why+"; entry skipped")
		return false
	}
}

// transport normalises a transport given as a string, an array (the first supported
// value wins) or an object ({"type": ...}), warning about values it does not know.
func (d *Document) transport(ptr string, v any) Transport {
	switch t := v.(type) {
	case nil:
		return TransportUnknown
	case string:
		n := normalizeTransport(t)
		if n == TransportUnknown {
			d.warn(ptr, "unknown transport "+quote(t))
		}
		return n
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				if n := normalizeTransport(s); n != TransportUnknown {
					return n
				}
			}
		}
		d.warn(ptr, "no known transport in the list")
	case map[string]any:
		return d.transport(ptr+"/type", t["type"])
	default:
		d.warn(ptr, fmt.Sprintf("transport is a JSON %s", kind(v)))
	}
	return TransportUnknown
}

func normalizeTransport(s string) Transport {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "http+sse", "sse", "http-sse", "legacy-sse":
		return TransportSSE
	case "streamable-http", "streamable_http", "streamablehttp", "http", "https":
		return TransportStreamableHTTP
	case "ws", "wss", "websocket":
		return TransportWebSocket
	case "stdio", "npm", "npx", "local":
		return TransportStdio
	}
	return TransportUnknown
}

// transportURL returns the URL inside a transport object, if any.
func transportURL(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	return firstString(str(m, "url"), str(m, "endpoint"))
}

// flatURL finds the server URL of a flat single-server document and its pointer. A
// bare "url" counts only beside a transport: on its own it is usually the site's home.
func flatURL(v map[string]any) (string, string) {
	for _, k := range []string{"mcp_endpoint", "endpoint", "mcpEndpoint", "mcp_url"} {
		if s := str(v, k); s != "" {
			return "/" + k, s
		}
	}
	if s := str(dig(v, "server"), "url"); s != "" {
		return "/server/url", s
	}
	if s := transportURL(v["transport"]); s != "" {
		return "/transport/url", s
	}
	if s := str(v, "url"); s != "" && (has(v, "transport") || has(v, "transports")) {
		return "/url", s
	}
	if s := str(v, "sse_endpoint"); s != "" {
		return "/sse_endpoint", s
	}
	return "", ""
}

// localKeys reports a local-only manifest: a command, a package, or a stdio/npm transport.
func localKeys(v map[string]any) bool {
	if has(v, "command") || has(v, "package") {
		return true
	}
	t, _ := v["transport"].(string)
	return normalizeTransport(t) == TransportStdio
}

// toolNames reads the tool names a card lists: objects with a name, strings, or a map
// keyed by name. A number (a count) or anything else is a warning.
func (d *Document) toolNames(ptr string, v any) []string {
	var out []string
	switch t := v.(type) {
	case nil:
	case []any:
		for i, e := range t {
			switch x := e.(type) {
			case string:
				out = append(out, x)
			case map[string]any:
				if n := str(x, "name"); n != "" {
					out = append(out, n)
				} else {
					d.warn(fmt.Sprintf("%s/%d", ptr, i), "tool has no name; skipped")
				}
			default:
				d.warn(fmt.Sprintf("%s/%d", ptr, i), fmt.Sprintf("tool is a JSON %s; skipped", kind(e)))
			}
		}
	case map[string]any:
		out = sortedKeys(t)
	case bool:
		// "capabilities": {"tools": true} says tools exist, not which.
	default:
		d.warn(ptr, fmt.Sprintf("tools is a JSON %s, not a list of tools; ignored", kind(v)))
	}
	return out
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
