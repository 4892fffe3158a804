package mcpjson

import (
	"fmt"
	"net/url"
	"strings"
)

// reader accumulates a Document while reading one decoded document. Endpoints are
// recognised only under keys that name an MCP endpoint, at known depths.
type reader struct {
	*Document
	base   *url.URL       // the document's own URL (Options.URL); nil when unknown
	public bool           // base is set and its host is public: private endpoints are leftovers
	byURL  map[string]int // endpoint key (see endpointKey) → index in Servers
	byCmd  map[string]bool
	tools  map[string]bool // names already in ToolNames
}

func newReader(opts Options) *reader {
	r := &reader{Document: &Document{}, byURL: map[string]int{}, byCmd: map[string]bool{}, tools: map[string]bool{}}
	if u, err := url.Parse(opts.URL); err == nil && u.IsAbs() && u.Host != "" {
		r.base = u
		r.public = publicHost(u.Hostname())
	}
	return r
}

// flatKeys are the top-level keys whose string value is the URL of the one MCP
// server a flat card describes, in order of preference, with the transport each
// implies (TransportUnknown: read it from "transport").
var flatKeys = []struct {
	key       string
	transport Transport
}{
	{"mcp_endpoint", TransportUnknown}, {"endpoint", TransportUnknown}, {"mcpEndpoint", TransportUnknown},
	{"mcp_url", TransportUnknown}, {"mcpUrl", TransportUnknown}, {"mcp_server", TransportUnknown},
	{"mcpServer", TransportUnknown}, {"mcp_server_url", TransportUnknown}, {"mcpServerUrl", TransportUnknown},
	{"server_url", TransportUnknown}, {"serverUrl", TransportUnknown}, {"mcp", TransportUnknown},
	{"streamable_http_url", TransportStreamableHTTP}, {"sse_url", TransportSSE}, {"sse_endpoint", TransportSSE},
	{"sseUrl", TransportSSE},
}

// flatURL finds the server URL of a flat single-server document and its pointer. A
// bare "url" counts only beside a transport, or beside a list of MCP tool names that
// are not REST routes: on its own it is usually the site's home page.
func flatURL(v map[string]any) (ptr, u string) {
	for _, f := range flatKeys {
		if s := str(v, f.key); s != "" && !launcherLine(s) { // "mcp_server": "npx pkg" is a local command
			return "/" + f.key, s
		}
	}
	for _, k := range []string{"endpoint", "server", "remote", "connection", "gateway"} {
		o, ok := v[k].(map[string]any)
		if !ok {
			continue
		}
		// {"server": {"transport": "sse", "endpoint": url}}: the keys of a server entry.
		for _, ek := range entryURLKeys {
			if s := str(o, ek); s != "" && !launcherLine(s) {
				return "/" + k + "/" + ek, s
			}
		}
	}
	if s := transportURL(v["transport"]); s != "" {
		if str(v["transport"], "url") != "" {
			return "/transport/url", s
		}
		return "/transport/endpoint", s
	}
	if s := str(v, "url"); s != "" && (has(v, "transport") && !transportElsewhere(v["transport"], s) || has(v, "transports") ||
		mcpToolList(v["tools"]) && mcpLikeURL(s) || mcpPathURL(s)) {
		return "/url", s
	}
	// {"path": "/functions/v1/mcp", "mcp": {...}}: a path on the document's origin whose
	// segments name MCP (relative: kept with a warning, see Resolve).
	if s := str(v, "path"); strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//") && mcpPathURL(s) {
		return "/path", s
	}
	return "", ""
}

// transportElsewhere reports a transport object that gives an address of its own
// under another key ({"type": "http", "base_url": "https://x.ai/api"}) beside a
// top-level "url" that is only a site's home page (no path, no "mcp" in its host):
// that "url" is the home page, not the transport's endpoint.
func transportElsewhere(t any, home string) bool {
	o, ok := t.(map[string]any)
	if !ok || mcpLikeURL(home) {
		return false
	}
	for _, k := range sortedKeys(o) {
		if u, _ := o[k].(string); u != home && (strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")) {
			return true
		}
	}
	return false
}

// mcpPathURL reports a URL whose path names an MCP endpoint: a segment "mcp", a last
// segment "sse" ("https://x.run.app/sse", "https://x.dev/api/mcp/v1"), or a query
// value "mcp" ("/api.php?action=mcp"). A bare
// top-level "url" with such a path is the server's endpoint, not a home page.
func mcpPathURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	for _, vals := range u.Query() { // "?action=mcp"
		for _, q := range vals {
			if strings.EqualFold(q, "mcp") {
				return true
			}
		}
	}
	segs := strings.Split(strings.Trim(strings.ToLower(u.Path), "/"), "/")
	if segs[len(segs)-1] == "sse" {
		return true
	}
	for _, s := range segs {
		if s == "mcp" {
			return true
		}
	}
	return false
}

// mcpLikeURL reports a URL that is not just a site's home page: it has a path, or
// "mcp" in its host ("https://x-mcp.vercel.app").
func mcpLikeURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	return strings.Trim(u.Path, "/") != "" || strings.Contains(strings.ToLower(u.Hostname()), "mcp")
}

// card reads every non-spec shape: registry server.json and server cards, client
// configs, docs-site lists, maps keyed by name or by transport, flat cards and local
// manifests. Each collection is read at its known key; the same endpoint named twice
// is listed once.
func (r *reader) card(v map[string]any) {
	info, _ := v["serverInfo"].(map[string]any)
	base := Server{
		Name:         firstString(str(info, "name"), str(v, "name"), str(v, "server_name"), str(v, "title"), str(dig(v, "server"), "name"), str(info, "title")),
		Description:  firstString(str(v, "description"), str(info, "description"), str(dig(v, "server"), "description")),
		Auth:         authOf(firstOf(v, "authentication", "auth")),
		Capabilities: capabilities(v["capabilities"]),
		Tools:        r.topTools(v, ""),
	}
	if len(base.Tools) == 0 && (isObject(v["inputSchema"]) || isObject(v["input_schema"])) {
		if n := str(v, "name"); n != "" { // the document is one tool definition
			r.addToolNames([]string{n})
		}
	}
	r.addToolNames(base.Tools)
	r.SpecVersion = firstString(str(v, "spec_version"), str(v, "protocolVersion"), str(v, "schema_version"), str(v, "mcpVersion"), str(v, "mcp_version"))
	if r.SpecVersion == "" && (r.Shape == ShapeDocsSite || r.Shape == ShapeFlat) {
		r.SpecVersion = str(v, "version") // the docs-site manifests' own version field
	}
	if ref := firstString(str(v, "$ref"), str(v, "serverCard"), str(v, "server_card")); ref != "" {
		if why := CheckURL(ref); why != "" && why != relativeURL {
			r.warn("", "pointer "+why+"; ignored")
		} else {
			r.Pointer = ref
		}
	}
	r.remotes(v, base)
	r.serverList("/mcpServers", v["mcpServers"], base)
	r.serverList("/servers", v["servers"], base)
	if ptr, u := flatURL(v); u != "" {
		if why := notMCPStatement(v); why != "" && genericURLKey(ptr) {
			r.warn(ptr, "the document says it is not an MCP server ("+why+"); "+quoteURL(u)+" is not read as an MCP endpoint")
		} else {
			s := base
			s.URL = u
			s.Transport = r.flatTransport(ptr, v)
			r.addServer("", ptr, s)
		}
	}
	for _, k := range []string{"endpoints", "transports", "transport", "connections"} {
		r.endpoints("/"+k, v[k], base)
	}
	r.deploymentURLs(v, base)
	r.installURLs("", v, base)
	if list, ok := v["companion_servers"].([]any); ok {
		r.entries("/companion_servers", list, Server{Auth: base.Auth})
	}
	r.namedServers(v, base)
	r.packages(v, base)
	r.topLocal(v, base)
}

// namedServers reads server objects under a top-level key that names a server of its
// own ("discovery_server", "mcpServer": a key ending in "_server" or "Server"; a string
// there is read by flatURL) when the object has the keys of a server entry: a command,
// a URL under an entry key, or a transport.
func (r *reader) namedServers(v map[string]any, base Server) {
	for _, k := range sortedKeys(v) {
		lk := strings.ToLower(k)
		if !strings.HasSuffix(lk, "_server") && !strings.HasSuffix(k, "Server") {
			continue
		}
		o, ok := v[k].(map[string]any)
		if !ok || localCommand(o) == "" && !has(o, "transport") && !hasEntryURL(o) {
			continue
		}
		r.entry("/"+pointerToken(k), o, "", Server{Name: base.Name, Auth: base.Auth})
	}
}

func hasEntryURL(o map[string]any) bool {
	for _, k := range entryURLKeys {
		if str(o, k) != "" {
			return true
		}
	}
	return false
}

// deploymentKeys name a deployment of the one server a flat card describes
// ("production_url", "testnet_url"). On its own such a key does not name an MCP
// endpoint, so its URL counts only when its path does (a "mcp" segment, "/sse") and
// the card names a transport or another MCP endpoint beside it.
var deploymentKeys = []string{"production_url", "productionUrl", "testnet_url", "testnetUrl", "staging_url", "stagingUrl",
	"mainnet_url", "mainnetUrl"}

// deploymentURLs reads the deployment URLs of a flat card (see deploymentKeys).
func (r *reader) deploymentURLs(v map[string]any, base Server) {
	if !has(v, "transport") && !has(v, "transports") {
		if _, u := flatURL(v); u == "" {
			return
		}
	}
	for _, k := range deploymentKeys {
		if u := str(v, k); u != "" && mcpPathURL(u) {
			s := base
			s.URL, s.Transport = u, r.flatTransport("/"+k, v)
			r.addServer("", "/"+k, s)
		}
	}
}

// installTransportKeys are the keys of an "install" or "installation" object whose
// string value is the URL of the same server run remotely ({"npm": ..., "http": url}).
var installTransportKeys = []string{"http", "streamable_http", "streamable-http", "streamableHttp", "sse", "remote"}

// installURLs reads the remote endpoint an install object gives beside its local
// commands. Only a key naming an MCP transport counts, and only an absolute URL: a
// command line or a host name is not an endpoint.
func (r *reader) installURLs(at string, v map[string]any, base Server) {
	for _, k := range []string{"install", "installation"} {
		if line, ok := v[k].(string); ok { // "claude mcp add --transport http name https://x/mcp"
			if _, u := claudeAdd(line); u != "" {
				s := base
				s.URL, s.Transport = u, r.transport(at+"/"+k, claudeTransport(line))
				r.addServer(at, at+"/"+k, s)
			}
		}
		in, ok := v[k].(map[string]any)
		if !ok {
			continue
		}
		for _, tk := range installTransportKeys {
			u := strings.TrimSpace(str(in, tk))
			if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
				continue
			}
			s := base
			s.URL, s.Transport = u, normalizeTransport(tk)
			r.addServer(at, at+"/"+k+"/"+pointerToken(tk), s)
		}
	}
}

// flatTransport is the transport of a flat card's one URL: implied by its key
// (sse_url), or read from "transport".
func (r *reader) flatTransport(ptr string, v map[string]any) Transport {
	for _, f := range flatKeys {
		if "/"+f.key == ptr && f.transport != TransportUnknown {
			return f.transport
		}
	}
	if strings.HasPrefix(ptr, "/server/") || strings.HasPrefix(ptr, "/remote/") || strings.HasPrefix(ptr, "/endpoint/") ||
		strings.HasPrefix(ptr, "/connection/") || strings.HasPrefix(ptr, "/gateway/") {
		o := dig(v, strings.Split(ptr, "/")[1])
		objPtr := ptr[:strings.LastIndexByte(ptr, '/')]
		if t := r.transport(objPtr+"/transport", firstOf(o.(map[string]any), "transport", "type", "protocol")); t != TransportUnknown {
			return t
		}
	}
	t := v["transport"]
	if transportMap(t) {
		return TransportUnknown
	}
	return r.transport("/transport", t)
}

// remotes reads the "remotes" of a registry server.json or SEP-2127 card: one server
// per remote. Header templates ("Bearer {token}") say how to authenticate; their
// values are never kept.
func (r *reader) remotes(v map[string]any, base Server) {
	list, _ := v["remotes"].([]any)
	for i, e := range list {
		ptr := fmt.Sprintf("/remotes/%d", i)
		rm, ok := e.(map[string]any)
		if !ok {
			r.warn(ptr, fmt.Sprintf("remote is a JSON %s, not an object; skipped", kind(e)))
			continue
		}
		s := base
		s.URL = str(rm, "url")
		s.Transport = r.transport(ptr+"/type", firstOf(rm, "type", "transport"))
		if a := headerAuth(rm["headers"]); a != nil {
			s.Auth = a
		} else if a := authOf(firstOf(rm, "authentication", "auth")); a != nil {
			s.Auth = a
		}
		r.addServer(ptr, ptr+"/url", s)
	}
}

// headerAuth describes the auth that registry remote headers ask for, from the
// header names only: {"name": "Authorization", "value": "Bearer {token}"} is bearer.
func headerAuth(v any) *Auth {
	list, _ := v.([]any)
	for _, e := range list {
		name := str(e, "name")
		switch {
		case strings.EqualFold(name, "Authorization"):
			typ := "bearer"
			if !strings.HasPrefix(strings.ToLower(str(e, "value")), "bearer") && str(e, "value") != "" {
				typ = "unknown"
			}
			return &Auth{Type: typ}
		case name != "" && (isTrue(e, "isSecret") || strings.Contains(strings.ToLower(name), "key") || strings.Contains(strings.ToLower(name), "token")):
			return &Auth{Type: "api-key", Header: name}
		}
	}
	return nil
}

func isTrue(v any, k string) bool { b, _ := dig(v, k).(bool); return b }

// serverList reads "servers" or "mcpServers" given as a list of entries or a map
// keyed by name.
func (r *reader) serverList(at string, v any, base Server) {
	switch t := v.(type) {
	case []any:
		r.entries(at, t, base)
	case map[string]any:
		for _, k := range sortedKeys(t) {
			ptr := at + "/" + pointerToken(k)
			o, ok := t[k].(map[string]any)
			if !ok {
				r.warn(ptr, fmt.Sprintf("server entry is a JSON %s, not an object; skipped", kind(t[k])))
				continue
			}
			r.entry(ptr, o, k, base)
		}
	}
}

// entries reads a list of server entries.
func (r *reader) entries(at string, list []any, base Server) {
	for i, e := range list {
		ptr := fmt.Sprintf("%s/%d", at, i)
		if o, ok := e.(map[string]any); ok {
			r.entry(ptr, o, "", base)
		} else {
			r.warn(ptr, fmt.Sprintf("server entry is a JSON %s, not an object; skipped", kind(e)))
		}
	}
}

// entry reads one server entry of the non-spec shapes: a remote endpoint, a local
// command or package, or both (an entry with a URL and an install line).
func (r *reader) entry(ptr string, o map[string]any, name string, base Server) {
	s := r.entryServer(ptr, o, name, base)
	r.addToolNames(s.Tools) // listed even when the endpoint is unusable and skipped
	if !s.LocalOnly {
		urlPtr := ptr + "/url"
		for _, k := range entryURLKeys {
			if str(o, k) != "" {
				urlPtr = ptr + "/" + k
				break
			}
		}
		r.addServer(ptr, urlPtr, s)
	}
	// {"install": {"npm": ..., "remote": url}}: the same server run remotely.
	remote := s
	remote.LocalOnly, remote.Transport = false, TransportUnknown
	r.installURLs(ptr, o, remote)
	if cmd := localCommand(o); cmd != "" || s.LocalOnly {
		l := s
		l.URL, l.LocalOnly, l.Transport = "", true, TransportStdio
		l.Command = firstString(cmd, str(o, "installCommand"), l.Name)
		r.addLocal(ptr, l)
	}
}

// entryURLKeys are the keys of a server entry whose string value is its endpoint.
var entryURLKeys = []string{"url", "serverUrl", "server_url", "endpoint", "mcp_url", "mcpUrl", "mcp_endpoint", "uri", "sse_url"}

// entryServer maps one server object; LocalOnly is set when it has no URL but runs
// locally.
func (r *reader) entryServer(ptr string, o map[string]any, name string, base Server) Server {
	s := Server{
		Name:         firstString(str(o, "name"), name, str(o, "title"), base.Name),
		Description:  firstString(str(o, "description"), base.Description),
		Transport:    r.transport(ptr+"/transport", firstOf(o, "transport", "type", "protocol")),
		Auth:         authOf(firstOf(o, "authentication", "auth")),
		Capabilities: capabilities(o["capabilities"]),
		Tools:        r.topTools(o, ptr),
	}
	for _, k := range entryURLKeys {
		if u := str(o, k); u != "" {
			s.URL = u
			if k == "sse_url" && s.Transport == TransportUnknown {
				s.Transport = TransportSSE
			}
			break
		}
	}
	if s.URL == "" {
		s.URL = firstString(transportURL(o["transport"]), str(o["endpoint"], "url"))
	}
	if s.Auth == nil {
		s.Auth = base.Auth
	}
	if len(s.Tools) == 0 {
		s.Tools = base.Tools // tools listed beside the servers belong to them
	}
	if len(s.Capabilities) == 0 {
		s.Capabilities = base.Capabilities
	}
	if s.URL == "" && (localCommand(o) != "" || s.Transport == TransportStdio) {
		s.LocalOnly, s.Transport = true, TransportStdio
	}
	return s
}

// localCommand returns the command line an entry gives for running the server
// locally, for display: "command" and "args", a "commands" list, a "package", a
// "stdio" line, an "install" or "run" line that starts with a launcher (npx, uvx,
// docker...), or a transport object with a command. "" when there is none.
func localCommand(o map[string]any) string {
	if c := commandLine(o); c != "" {
		return c
	}
	if t, ok := o["transport"].(map[string]any); ok {
		if c := commandLine(t); c != "" {
			return c
		}
		if st, ok := t["stdio"].(map[string]any); ok {
			return commandLine(st)
		}
	}
	return ""
}

// commandLine reads command, args, commands, package, stdio, install and run from one
// object.
func commandLine(o map[string]any) string {
	if c := str(o, "command"); c != "" {
		return strings.TrimSpace(c + " " + strings.Join(strs(o["args"]), " "))
	}
	switch t := o["commands"].(type) {
	case []any:
		for _, e := range t {
			switch x := e.(type) {
			case string:
				if s := strings.TrimSpace(x); s != "" {
					return s
				}
			case map[string]any:
				if c := commandLine(x); c != "" {
					return c
				}
				for _, k := range sortedKeys(x) { // {"python3": ["server.py"]}
					return strings.TrimSpace(k + " " + strings.Join(strs(x[k]), " "))
				}
			}
		}
	case string:
		return strings.TrimSpace(t)
	}
	for _, k := range []string{"stdio", "install", "run", "npx", "uvx"} {
		switch t := o[k].(type) {
		case string:
			if s := strings.TrimSpace(t); launcherLine(s) {
				return s
			}
			if cmd, _ := claudeAdd(t); cmd != "" {
				return cmd
			}
		case map[string]any: // "stdio": {"command": ...}, or "run": {"npx": "npx -y pkg", "node": "..."}
			if has(t, "command") || has(t, "commands") {
				return commandLine(t)
			}
			for _, l := range []string{"npx", "uvx", "pipx", "docker", "bunx"} {
				if s := str(t, l); launcherLine(s) {
					return s
				}
			}
			for _, kk := range sortedKeys(t) {
				if s := str(t, kk); launcherLine(s) {
					return s
				}
			}
		}
	}
	if p := str(o, "package"); p != "" && !strings.Contains(p, "://") { // a package page URL is no command
		return p
	}
	return ""
}

// claudeAdd reads a "claude mcp add" line: the local command after " -- " ("claude mcp
// add geo -- node ./dist/mcp.js"), or the remote URL of "claude mcp add --transport
// http name https://x/mcp". Both are "" for any other line.
func claudeAdd(line string) (cmd, remote string) {
	f := strings.Fields(line)
	if len(f) < 4 || f[0] != "claude" || f[1] != "mcp" || f[2] != "add" {
		return "", ""
	}
	if _, after, ok := strings.Cut(line, " -- "); ok {
		return strings.TrimSpace(after), ""
	}
	for _, w := range f[3:] {
		if strings.HasPrefix(w, "https://") || strings.HasPrefix(w, "http://") {
			return "", w
		}
	}
	return "", ""
}

// launchers are the first words of a command line that runs an MCP server locally.
var launchers = map[string]bool{"npx": true, "uvx": true, "pipx": true, "docker": true, "podman": true, "node": true,
	"python": true, "python3": true, "deno": true, "bunx": true, "bun": true, "npm": true, "pnpm": true, "yarn": true,
	"uv": true, "pip": true, "go": true, "cargo": true, "java": true, "dotnet": true, "dnx": true}

func launcherLine(s string) bool {
	w, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	return launchers[w]
}

// topLocalCommand returns the command line a card gives at its top level for running
// its server locally, and its pointer: a command, a "server" object with a command,
// an "install" line, an "installation", "install" or "config" object with a command
// (or one per transport: {"stdio": {"command": ...}}), or an npm or PyPI package name.
func topLocalCommand(v map[string]any) (cmd, ptr string) {
	cmd = localCommand(v)
	if cmd == "" {
		for _, f := range flatKeys {
			if s := strings.TrimSpace(str(v, f.key)); launcherLine(s) {
				cmd, ptr = s, "/"+f.key
				break
			}
		}
	}
	if cmd == "" {
		if s, ok := v["server"].(map[string]any); ok {
			cmd, ptr = localCommand(s), "/server"
		}
	}
	if cmd == "" {
		if in, ok := v["install"].(map[string]any); ok {
			for _, k := range []string{"primary", "npm", "command"} {
				if c := firstString(str(in[k], "command"), str(in, k)); launcherLine(c) {
					cmd, ptr = c, "/install"
					break
				}
			}
		}
	}
	if cmd == "" { // {"installation": {"stdio": {"command": ...}}}, {"config": {"command": ...}}, {"usage": {"command": ...}}
		for _, k := range []string{"usage", "installation", "install", "config"} {
			in, ok := v[k].(map[string]any)
			if !ok {
				continue
			}
			if c := commandLine(in); c != "" && (k == "config" || has(in, "command")) {
				cmd, ptr = c, "/"+k
				break
			}
			for _, kk := range append([]string{"stdio"}, sortedKeys(in)...) { // stdio is the plain local run
				if c := str(in[kk], "command"); c != "" {
					cmd, ptr = commandLine(in[kk].(map[string]any)), "/"+k+"/"+pointerToken(kk)
					break
				}
			}
			if cmd != "" {
				break
			}
		}
	}
	if cmd == "" {
		if in, ok := firstOf(v, "installation", "install").(map[string]any); ok {
			if p := str(in, "npm"); p != "" {
				cmd, ptr = "npx -y "+p, "/installation/npm"
			} else if p := str(in, "pypi"); p != "" {
				cmd, ptr = "uvx "+p, "/installation/pypi"
			}
		}
	}
	return cmd, ptr
}

// topLocal reads a local manifest at the top level of a card: a command, a package,
// a "run" or "install" line, a "server" or "transport" object with a command, or a
// stdio transport beside a name.
func (r *reader) topLocal(v map[string]any, base Server) {
	cmd, ptr := topLocalCommand(v)
	if cmd == "" {
		if (stdioTransport(v["transport"]) || listsStdio(v["transport"]) || listsStdio(v["transports"])) && len(r.Servers) == 0 {
			cmd = firstString(str(v, "package"), base.Name, str(v, "server"))
		}
	}
	if cmd == "" {
		return
	}
	s := base
	s.URL, s.LocalOnly, s.Transport, s.Command = "", true, TransportStdio, cmd
	r.addLocal(ptr, s)
}

// packages reads the "packages" of a registry server.json: each is a local server,
// shown as the command that would run it. A package never gives a remote endpoint,
// even with an HTTP transport: it listens on the user's machine.
func (r *reader) packages(v map[string]any, base Server) {
	list, _ := v["packages"].([]any)
	cmd, _ := topLocalCommand(v)
	// {"pypi": {"name": ...}}: keyed by registry. Beside a top-level command it is the
	// same server published as a package, not a second one: a reader sees one server.
	if m, ok := v["packages"].(map[string]any); ok && cmd == "" {
		for _, k := range sortedKeys(m) {
			p, ok := m[k].(map[string]any)
			if !ok {
				continue
			}
			switch strings.ToLower(k) {
			case "npm", "pypi", "oci", "docker", "nuget":
			default:
				continue
			}
			q := map[string]any{"registryType": k}
			for kk, e := range p {
				q[kk] = e
			}
			if !has(p, "registryType") {
				q["registryType"] = k
			}
			if cmd := packageCommand(q); cmd != "" {
				s := base
				s.URL, s.LocalOnly, s.Transport, s.Command = "", true, TransportStdio, cmd
				r.addLocal("/packages/"+pointerToken(k), s)
			}
		}
	}
	for i, e := range list {
		ptr := fmt.Sprintf("/packages/%d", i)
		p, ok := e.(map[string]any)
		if !ok {
			r.warn(ptr, fmt.Sprintf("package is a JSON %s, not an object; skipped", kind(e)))
			continue
		}
		cmd := commandLine(p) // a package entry that gives its own command line
		if cmd == "" || cmd == str(p, "package") {
			cmd = packageCommand(p)
		}
		if cmd == "" {
			r.warn(ptr, "package has no identifier; skipped")
			continue
		}
		s := base
		s.URL, s.LocalOnly, s.Transport, s.Command = "", true, TransportStdio, cmd
		if t := normalizeTransport(str(p["transport"], "type")); t != TransportUnknown {
			s.Transport = t
		}
		r.addLocal(ptr, s)
	}
}

// packageCommand is the usual command line for a registry package, for display:
// npm through npx, PyPI through uvx, OCI images through docker, NuGet through dnx.
func packageCommand(p map[string]any) string {
	id, ver := str(p, "identifier"), str(p, "version")
	if id == "" {
		id = str(p, "name")
	}
	if id == "" {
		return ""
	}
	switch strings.ToLower(str(p, "registryType")) {
	case "npm":
		if ver != "" && !strings.Contains(id[1:], "@") {
			id += "@" + ver
		}
		return "npx -y " + id
	case "pypi":
		if ver != "" {
			id += "==" + ver
		}
		return "uvx " + id
	case "oci", "docker":
		if ver != "" && !strings.Contains(id[strings.LastIndex(id, "/")+1:], ":") && !strings.Contains(id, "@") {
			id += ":" + ver
		}
		return "docker run -i --rm " + id
	case "nuget":
		if ver != "" {
			id += "@" + ver
		}
		return "dnx " + id
	}
	return id
}

// endpoints reads "endpoints", "transports" or "transport" when it lists endpoints:
// a map keyed by transport ({"sse": {"url": ...}, "json-rpc": {"url", "method"}}) or
// a list of endpoint objects ({"type", "url"}, or {"type": "stdio", "command"}).
func (r *reader) endpoints(at string, v any, base Server) {
	switch t := v.(type) {
	case []any:
		for i, e := range t {
			ptr := fmt.Sprintf("%s/%d", at, i)
			o, ok := e.(map[string]any)
			if !ok {
				continue // a list of transport names, read by transport()
			}
			b := base
			if str(o, "name") == "" {
				b.Name = base.Name
			}
			r.entry(ptr, o, b.Name, b)
		}
	case map[string]any:
		if transportMap(t) {
			r.endpointMap(at, t, base)
		}
	}
}

// transportMap reports an object keyed by transport names ({"sse": ..., "http": ...}).
func transportMap(v any) bool {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return false
	}
	n := 0
	for k, e := range m {
		if k == "type" || k == "url" || k == "endpoint" {
			return false
		}
		if normalizeTransport(k) != TransportUnknown || namesMCP(k) || strings.EqualFold(k, "messages") {
			switch e.(type) {
			case string, map[string]any:
				n++
			}
		}
	}
	return n > 0
}

// namesMCP reports a key that names an MCP endpoint without naming its transport:
// "alternate_mcp", "mcp-backup", "remoteMcp".
func namesMCP(k string) bool {
	for _, w := range strings.FieldsFunc(k, func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == ' ' }) {
		if strings.EqualFold(w, "mcp") {
			return true
		}
	}
	l := strings.ToLower(k)
	return strings.HasSuffix(l, "mcp") && len(k) > 3 && k[len(k)-3] == 'M'
}

// endpointMap maps {"transport": url or {"url": ...}} objects: one server per
// transport. A "messages" endpoint is the POST half of the SSE transport, not a server.
// A "stdio" entry with a command is a local server.
func (r *reader) endpointMap(at string, m map[string]any, base Server) {
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
		if strings.EqualFold(k, "mcp") {
			s.Transport = TransportStreamableHTTP
		}
		if s.Transport == TransportUnknown && !namesMCP(k) {
			r.warn(ptr, "endpoint "+quote(k)+" is not a known transport; skipped")
			continue
		}
		urlPtr := ptr
		switch e := m[k].(type) {
		case string:
			s.URL = e
		case map[string]any:
			if s.Transport == TransportStdio || has(e, "command") {
				if cmd := localCommand(e); cmd != "" {
					s.URL, s.LocalOnly, s.Transport, s.Command = "", true, TransportStdio, cmd
					r.addLocal(ptr, s)
				}
				continue
			}
			s.URL, urlPtr = firstString(str(e, "url"), str(e, "endpoint"), str(e, "uri")), ptr+"/url"
		default:
			continue
		}
		switch {
		case s.Name == "":
			s.Name = k
		case len(keys) > 1:
			s.Name += " (" + k + ")"
		}
		r.addServer(ptr, urlPtr, s)
	}
}

// addLocal adds a local server once per command line, and once per package run by a
// package runner: "npx -y @acme/cli mcp" (a client config) and "npx -y @acme/cli@0.9.0"
// (the same package in "packages") are one server.
func (r *reader) addLocal(ptr string, s Server) {
	pk := runnerPackage(s.Command)
	if r.byCmd[s.Command] || pk != "" && r.byCmd["\x00"+pk] {
		return
	}
	r.byCmd[s.Command] = true
	if pk != "" {
		r.byCmd["\x00"+pk] = true
	}
	r.addServer(ptr, "", s)
}

// runnerPackage returns the package a package-runner command line runs ("npx -y
// @acme/cli@0.9.0 mcp" gives "@acme/cli"; "uvx tool==1.2" gives "tool"), without its
// version; "" for any other command.
func runnerPackage(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) < 2 {
		return ""
	}
	switch f[0] {
	case "npx", "bunx", "uvx", "pipx", "dnx":
	default:
		return ""
	}
	for _, w := range f[1:] {
		if strings.HasPrefix(w, "-") || w == "run" {
			continue
		}
		if i := strings.LastIndexByte(w, '@'); i > 0 { // npm: "@scope/name@1.2", "name@latest"
			w = w[:i]
		}
		if i := strings.Index(w, "=="); i > 0 { // PyPI: "name==1.2"
			w = w[:i]
		}
		return strings.ToLower(w)
	}
	return ""
}

// addServer checks a server's URL and adds it, or skips it with a warning that says
// why. ptr points at the entry, urlPtr at its URL. The same endpoint listed twice
// (under two keys, or with and without a trailing slash) is kept once.
func (r *reader) addServer(ptr, urlPtr string, s Server) bool {
	if s.LocalOnly {
		r.warn(ptr, "server "+quote(s.Name)+" is a local command, not a remote endpoint; it is listed but never connected to")
		if s.Name == "" {
			s.Name = "mcp"
		}
		r.Servers = append(r.Servers, s)
		return true
	}
	if s.Name == "" && r.Shape == ShapeSpec {
		r.warn(ptr+"/name", "server has no name; skipped")
		return false
	}
	if !r.urlOK(urlPtr, s.URL) {
		return false
	}
	if s.Name == "" {
		s.Name = "mcp"
	}
	key := endpointKey(s.URL)
	if i, ok := r.byURL[key]; ok && r.Shape != ShapeSpec {
		prev := &r.Servers[i]
		switch {
		case prev.Transport == TransportUnknown:
			prev.Transport = s.Transport
		case s.Transport != TransportUnknown && s.Transport != prev.Transport:
			r.Servers = append(r.Servers, s) // one URL, two transports
			return true
		}
		if len(prev.Tools) == 0 {
			prev.Tools = s.Tools
		}
		return true
	}
	r.byURL[key] = len(r.Servers)
	r.Servers = append(r.Servers, s)
	return true
}

const relativeURL = "url is relative"

// urlOK warns about a relative URL (kept) and skips an unusable one, saying why.
func (r *reader) urlOK(ptr, u string) bool {
	why := CheckURL(u)
	if why == "" || why == relativeURL || why == "url does not parse" {
		if w := r.unusable(u); w != "" {
			why = w
		}
	}
	switch why {
	case "":
		return true
	case relativeURL:
		r.warn(ptr, "relative URL "+quoteURL(u)+" breaks the spec (it must be absolute); kept, resolve it against the document URL")
		return true
	default:
		r.warn(ptr, why+"; entry skipped")
		return false
	}
}

// transport normalises a transport given as a string, an array (the first supported
// value wins) or an object ({"type": ...}), warning about values it does not know.
func (r *reader) transport(ptr string, v any) Transport {
	switch t := v.(type) {
	case nil:
		return TransportUnknown
	case string:
		n := normalizeTransport(t)
		if n == TransportUnknown {
			r.warn(ptr, "unknown transport "+quote(t))
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
		r.warn(ptr, "no known transport in the list")
	case map[string]any:
		if transportMap(t) {
			return TransportUnknown // keyed by transport: read by endpoints()
		}
		return r.transport(ptr+"/type", firstOf(t, "type", "protocol"))
	default:
		r.warn(ptr, fmt.Sprintf("transport is a JSON %s", kind(v)))
	}
	return TransportUnknown
}

func normalizeTransport(s string) Transport {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "http+sse", "sse", "http-sse", "legacy-sse", "server-sent-events":
		return TransportSSE
	case "streamable-http", "streamable_http", "streamablehttp", "http", "https", "http-streamable",
		"http_streamable", "streamable", "shttp", "json-rpc", "jsonrpc", "jsonrpc-http", "json-rpc-http", "mcp-http":
		return TransportStreamableHTTP
	case "ws", "wss", "websocket":
		return TransportWebSocket
	case "stdio", "npm", "npx", "local", "pypi", "uvx", "docker", "oci":
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

// localKeys reports a local-only manifest: a command, a package, a run or install
// line, a stdio transport, or a server object with a command.
func localKeys(v map[string]any) bool {
	if cmd, _ := topLocalCommand(v); cmd != "" || has(v["server"], "command") {
		return true
	}
	if _, u := flatURL(v); u == "" && !has(v, "remotes") && !has(v, "servers") && !has(v, "mcpServers") &&
		(listsStdio(v["transport"]) || listsStdio(v["transports"])) {
		return true
	}
	return stdioTransport(v["transport"])
}

// listsStdio reports a list of transport names that includes stdio ("transports":
// ["stdio", "shttp"]): without a URL, the server is run locally.
func listsStdio(v any) bool {
	list, _ := v.([]any)
	for _, e := range list {
		if s, _ := e.(string); strings.EqualFold(strings.TrimSpace(s), "stdio") {
			return true
		}
	}
	return false
}

// stdioTransport reports a transport given as "stdio" (or "npm"...), or a list of
// such names only.
func stdioTransport(v any) bool {
	switch t := v.(type) {
	case string:
		return normalizeTransport(t) == TransportStdio
	case []any:
		for _, e := range t {
			if s, _ := e.(string); normalizeTransport(s) != TransportStdio {
				return false
			}
		}
		return len(t) > 0
	}
	return false
}

// claudeTransport returns the --transport value of a "claude mcp add" line, or "".
func claudeTransport(line string) string {
	f := strings.Fields(line)
	for i, w := range f {
		if w == "--transport" && i+1 < len(f) {
			return f[i+1]
		}
		if v, ok := strings.CutPrefix(w, "--transport="); ok {
			return v
		}
	}
	return ""
}
