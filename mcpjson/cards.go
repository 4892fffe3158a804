package mcpjson

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"unicode"

	"golang.org/x/net/publicsuffix"
)

// reader accumulates a Document while reading one decoded document. Endpoints are
// recognised only under keys that name an MCP endpoint, at known depths.
type reader struct {
	*Document
	base   *url.URL       // the document's own URL (Options.URL); nil when unknown
	public bool           // base is set and its host is public: private endpoints are leftovers
	byURL  map[string]int // endpoint key (see endpointKey) → index in Servers
	// byCmd holds the local command lines listed, "\x00"+package for each package a
	// package runner runs and "\x01"+program for each program run by name (see addLocal).
	byCmd map[string]bool
	cmds  []string        // the local command lines listed, in order
	tools map[string]bool // names already in ToolNames
	// selfHosted says why a relative endpoint is not on the document's origin (see
	// selfHostedStatement), or "".
	selfHosted string
	// notLive says why the document's remote servers are not running yet (see
	// notLiveStatement), or "".
	notLive string
	// resources maps the endpointKey of each URL the document lists as a resource
	// file of a page or file format to that format (see resourceFiles).
	resources map[string]string
	// nonMCP maps the pointer of the object whose transport names a protocol that is
	// not MCP ({"endpoint": url, "transport": "rest"}) to that value (see
	// nonMCPTransport): a URL under a generic key there is no MCP endpoint.
	nonMCP map[string]string
	// routes maps the pointer of each object that describes one HTTP route by its own
	// request body ({"endpoint": url, "request_schema": {...}}) to the key of that
	// body (see requestRoutes): a URL under a generic key there is no MCP endpoint.
	routes map[string]string
	// bridges are the local bridge commands ("npx mcp-remote https://x.dev/mcp") whose
	// URL may be usable, judged once the whole document is read (see settleBridges).
	bridges []pendingBridge
	// scoring is set while the candidate pass runs: it records its own candidates.
	scoring bool
}

// pendingBridge is a local server whose command is a bridge to a remote URL.
type pendingBridge struct {
	ptr, url string
	s        Server
}

func newReader(opts Options) *reader {
	r := &reader{Document: &Document{}, byURL: map[string]int{}, byCmd: map[string]bool{}, tools: map[string]bool{},
		nonMCP: map[string]string{}}
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
	{"mcp_endpoint_url", TransportUnknown}, {"mcp_server_endpoint", TransportUnknown}, {"endpoint_url", TransportUnknown},
	{"endpointUrl", TransportUnknown}, {"streamable_http_url", TransportStreamableHTTP},
	{"streamable_http_endpoint", TransportStreamableHTTP}, {"sse_url", TransportSSE}, {"sse_endpoint", TransportSSE},
	{"sseUrl", TransportSSE}, {"mcp_sse_url", TransportSSE}, {"mcp_sse_endpoint", TransportSSE},
	{"http_endpoint", TransportStreamableHTTP}, {"streamable_endpoint", TransportStreamableHTTP},
	{"mcp_http_url", TransportStreamableHTTP}, {"mcp_http_endpoint", TransportStreamableHTTP},
	{"mcp_streamable_http_url", TransportStreamableHTTP},
}

// flatNorm indexes flatKeys by normKey, for keys spelled with other case or
// separators ("MCP_URL", "mcpServerURL", "mcp-endpoint").
var flatNorm = func() map[string]int {
	m := map[string]int{}
	for i, f := range flatKeys {
		if _, ok := m[normKey(f.key)]; !ok {
			m[normKey(f.key)] = i
		}
	}
	return m
}()

// normKey is a key without case and separators: "MCP_Server-URL" is "mcpserverurl".
func normKey(k string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', ' ', '.':
			return -1
		}
		return unicode.ToLower(r)
	}, k)
}

// flatKeyURL returns the first key of flatKeys that v gives a URL under (not a
// command line), exactly or spelled with other case or separators, and its value.
func flatKeyURL(v map[string]any) (key, u string) {
	for _, f := range flatKeys {
		if s := str(v, f.key); s != "" && !launcherLine(s) { // "mcp_server": "npx pkg" is a local command
			return f.key, s
		}
	}
	best := -1
	for k, e := range v {
		s, ok := e.(string)
		if !ok || strings.TrimSpace(s) == "" || launcherLine(s) {
			continue
		}
		if i, ok := flatNorm[normKey(k)]; ok && (best < 0 || i < best || i == best && k < key) {
			best, key = i, k
		}
	}
	if best < 0 {
		return "", ""
	}
	return key, str(v, key)
}

// flatURL finds the server URL of a flat single-server document and its pointer. A
// bare "url" counts only beside a transport, or beside a list of MCP tool names that
// are not REST routes: on its own it is usually the site's home page.
func flatURL(v map[string]any) (ptr, u string) {
	if k, s := flatKeyURL(v); s != "" {
		return "/" + pointerToken(k), s
	}
	for _, k := range endpointObjects {
		o, ok := v[k].(map[string]any)
		if !ok {
			continue
		}
		// {"server": {"transport": "sse", "endpoint": url}}: the keys of a server entry,
		// or {"server": {"transport": {"type": "http", "url": ...}}}.
		if ek, s := entryURL(o); s != "" {
			return "/" + k + "/" + pointerToken(ek), s
		}
		if ek, s := entryURL(dig(o, "transport")); s != "" {
			return "/" + k + "/transport/" + pointerToken(ek), s
		}
	}
	for _, k := range serviceObjects {
		// {"api": {"type": "http", "url": "https://x.dev/api/mcp/server"}}: an ai-plugin
		// manifest's API object is the MCP server only when its path says so.
		o, ok := v[k].(map[string]any)
		t := firstString(str(o, "type"), str(o, "protocol"), str(o, "transport"))
		if !ok || restType(t) {
			continue
		}
		if ek, s := entryURL(o); s != "" && (mcpPathURL(s) || mcpType(t)) {
			return "/" + k + "/" + pointerToken(ek), s
		}
	}
	if k, s := entryURL(dig(v, "transport")); s != "" {
		return "/transport/" + pointerToken(k), s
	}
	if k, s := infoURL(v); s != "" {
		return "/" + k, s
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

// infoObjects are the keys of an object naming the server ("serverInfo") that some
// cards also give the server's endpoint in.
var infoObjects = []string{"serverInfo", "server_info"}

// infoURL returns the endpoint a card gives inside its serverInfo object ({"serverInfo":
// {"name": ..., "transport": "streamable-http", "endpoint": "https://x.dev/mcp"}}) and
// its key below the card ("serverInfo/endpoint"), or "". A "url" or "uri" there is
// usually the server's home page: it counts only beside a transport named in the same
// object and when it is more than a site's root (see mcpLikeURL).
func infoURL(v map[string]any) (key, u string) {
	for _, k := range infoObjects {
		o, ok := v[k].(map[string]any)
		if !ok {
			continue
		}
		for _, ek := range entryURLKeys {
			s := str(o, ek)
			if s == "" || launcherLine(s) {
				continue
			}
			if (ek == "url" || ek == "uri" || ek == "URL") && (!has(o, "transport") || !mcpLikeURL(s)) {
				continue
			}
			return k + "/" + pointerToken(ek), s
		}
	}
	return "", ""
}

// webMCPTransports are the transports, by normKey, that run in the browser page
// rather than over the network (WebMCP, navigator.modelContext, postMessage).
var webMCPTransports = map[string]bool{"webmcp": true, "browser": true, "inbrowser": true, "inpage": true, "page": true,
	"navigatormodelcontext": true, "documentmodelcontext": true, "windowmodelcontext": true, "modelcontext": true,
	"postmessage": true, "webmcpbrowser": true, "browserwebmcp": true}

// webMCP reports a transport (a name, a list of names, or an object's "type") that runs
// in the browser page: its tools are called from the page's script, and the URL beside
// it is the page, not an MCP endpoint.
func webMCP(v any) bool {
	switch t := v.(type) {
	case string:
		return webMCPTransports[normKey(t)]
	case []any:
		for _, e := range t {
			if s, _ := e.(string); !webMCPTransports[normKey(s)] {
				return false
			}
		}
		return len(t) > 0
	case map[string]any:
		return webMCPTransports[normKey(firstString(str(t, "type"), str(t, "protocol"), str(t, "kind")))]
	}
	return false
}

func webMCPMsg(u string) string {
	if u == "" {
		return "the transport runs in the browser page (WebMCP), not over the network; nothing to connect to"
	}
	return "the transport runs in the browser page (WebMCP): " + quoteURL(u) + " is the page its tools run in, not an MCP endpoint; nothing to connect to"
}

// flatTransportValue is the published transport of a flat card's URL at ptr: that of
// the endpoint object holding it ({"server": {"transport": ...}}), or the card's own.
func flatTransportValue(v map[string]any, ptr string) any {
	if seg := strings.Split(ptr, "/"); len(seg) == 3 && seg[1] != "transport" {
		if o, ok := v[seg[1]].(map[string]any); ok {
			if t := firstOf(o, "transport", "type", "protocol"); t != nil {
				return t
			}
		}
	}
	return v["transport"]
}

// transportKeyURLs reads the endpoint keys of a flat card or a server entry that name
// a transport ("sseEndpoint", "sse_url", "streamable_http_url"; see flatKeys) beside
// the one endpoint already read, primary: {"mcpEndpoint": ".../api/mcp",
// "sseEndpoint": ".../sse"} is one server reached by two transports, one endpoint each.
// ptr points at the object.
func (r *reader) transportKeyURLs(ptr string, o map[string]any, base Server, primary string) {
	for _, k := range sortedKeys(o) {
		i, ok := flatNorm[normKey(k)]
		if !ok || flatKeys[i].transport == TransportUnknown {
			continue
		}
		u, _ := o[k].(string)
		if u = strings.TrimSpace(u); u == "" || launcherLine(u) || endpointKey(u) == endpointKey(primary) {
			continue
		}
		s := base
		s.URL, s.Transport = u, flatKeys[i].transport
		r.addServer(ptr, ptr+"/"+pointerToken(k), s)
	}
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

// apiBasePath reports a URL whose path is only the prefix of an HTTP API ("/v1",
// "/api", "/api/v2", "/rest", "/graphql"), on a host not named for MCP (see
// mcpHostURL): the base the API's routes hang off, not an MCP endpoint.
func apiBasePath(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.RawQuery != "" || mcpHostURL(raw) {
		return false
	}
	p := strings.Trim(strings.ToLower(u.Path), "/")
	if p == "" {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		switch {
		case seg == "api" || seg == "rest" || seg == "graphql" || seg == "gql":
		case len(seg) >= 2 && seg[0] == 'v' && seg[1] >= '0' && seg[1] <= '9': // "v1", "v2beta"
		default:
			return false
		}
	}
	return true
}

// chatAPIURL reports a URL whose path ends in the route of a chat or completions API
// ("/api/chat", "/v1/chat/completions"), on a host not named for MCP and with no
// segment naming MCP: a chatbot's API published as the site's "MCP" endpoint.
func chatAPIURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || mcpPathURL(raw) || mcpHostURL(raw) {
		return false
	}
	segs := strings.Split(strings.Trim(strings.ToLower(u.Path), "/"), "/")
	switch segs[len(segs)-1] {
	case "chat", "completions", "chat-completions", "chat_completions", "chatbot", "conversation":
		return true
	}
	return false
}

// cardLevel reports a pointer to the one URL of a flat card: a top-level key, or a
// key of a top-level object ("/endpoint", "/transport/endpoint", "/server/url"), not an
// entry of a list or map of servers.
func cardLevel(ptr string) bool {
	if strings.Count(ptr, "/") > 2 {
		return false
	}
	top := strings.Split(ptr, "/")[1]
	return top != "servers" && top != "endpoints" && top != "transports" && top != "connections" && top != "mcpServers"
}

// siteHomeURL reports the home page of a website: an absolute URL with no path, no
// query, on a registrable domain or its "www." host ("https://acme.com",
// "https://www.acme.co.uk/": one label under a public suffix of the ICANN section of
// the Public Suffix List) or on a site of a static-site host ("https://docs.netlify.app",
// see siteHosts), whose host is not named for MCP (see mcpHostURL). A site's web server
// answers there with its home page; an MCP server has a host or a path of its own. The
// root of any other host (a subdomain, an application platform's "x.onrender.com") is
// read as a home page too, as a flat card's one URL (see hostRootURL).
func siteHomeURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || mcpHostURL(raw) {
		return false
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if _, err := netip.ParseAddr(host); err == nil {
		return false
	}
	host = strings.TrimPrefix(host, "www.")
	suffix, icann := publicsuffix.PublicSuffix(host)
	rest, ok := strings.CutSuffix(host, "."+suffix)
	return (icann || siteHosts[suffix]) && ok && rest != "" && !strings.Contains(rest, ".")
}

// siteHosts are the suffixes (of the private section of the Public Suffix List) of
// static-site and docs hosts: each name under one is a website ("docs.netlify.app",
// "acme.github.io"), whose root is its home page. Application platforms, where a host's
// root may be the MCP server itself (workers.dev, fly.dev, onrender.com, hf.space...),
// are not among them.
var siteHosts = map[string]bool{"github.io": true, "gitlab.io": true, "codeberg.page": true, "netlify.app": true,
	"vercel.app": true, "pages.dev": true, "web.app": true, "firebaseapp.com": true, "readthedocs.io": true,
	"gitbook.io": true, "amplifyapp.com": true, "azurestaticapps.net": true, "webflow.io": true, "wixsite.com": true,
	"blogspot.com": true, "framer.website": true, "framer.app": true, "carrd.co": true, "notion.site": true,
	"lovable.app": true}

// hostRootURL reports the root of any host not named for MCP: an absolute URL with no
// path and no query ("https://docs.acme.dev", "https://api.acme.dev/",
// "https://acme.onrender.com"). As the one URL of a flat card, under a key that does
// not name MCP, it is the home page of the site or web app at that host (a docs site,
// a REST API's root, an app's landing page): an MCP server has a path or a host of its
// own. None of the endpoints expected over survey rounds 1-10 is such a root; the roots
// kept are on hosts named for MCP, or entries of mcpServers, servers and remotes lists,
// which keep a root.
func hostRootURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.IsAbs() && u.Host != "" && strings.Trim(u.Path, "/") == "" && u.RawQuery == "" &&
		!mcpHostURL(raw)
}

// resourceFiles records the URLs a card lists as resources of a page or file format
// ({"resources": [{"uri": "https://x.dev/api/current", "mimeType":
// "application/json"}]}, also under "capabilities"): such a URL is a file the site
// serves, and the same URL under a generic endpoint key is not an MCP endpoint.
func (r *reader) resourceFiles(v map[string]any) {
	for _, list := range []any{v["resources"], dig(v, "capabilities", "resources")} {
		l, _ := list.([]any)
		for _, e := range l {
			o, ok := e.(map[string]any)
			if !ok {
				continue
			}
			_, u := entryURL(o)
			f := ""
			for _, k := range []string{"mimeType", "mime_type", "mediaType", "media_type", "type", "format"} {
				if t := str(o, k); t != "" && contentFormat(t) {
					f = t
					break
				}
			}
			if u == "" || f == "" {
				continue
			}
			if r.resources == nil {
				r.resources = map[string]string{}
			}
			r.resources[endpointKey(u)] = f
		}
	}
}

// ownRoot reports the root of the document's own host ("https://docs.acme.dev/" for a
// document at https://docs.acme.dev/.well-known/mcp.json): the site's home page, when
// the host is not named for MCP.
func (r *reader) ownRoot(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && r.base != nil && u.IsAbs() && strings.EqualFold(u.Hostname(), r.base.Hostname()) &&
		strings.Trim(u.Path, "/") == "" && u.RawQuery == "" && !mcpHostURL(raw)
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
	r.selfHosted = selfHostedStatement(v)
	r.notLive = notLiveStatement(v)
	r.resourceFiles(v)
	r.routes = requestRoutes(v)
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
	if m, ok := v["remotes"].(map[string]any); ok { // {"remotes": {"streamable-http": url}}
		r.endpoints("/remotes", m, base)
	}
	r.serverList("/mcpServers", v["mcpServers"], base)
	r.serverList("/servers", v["servers"], base)
	if ptr, u := flatURL(v); u != "" {
		if why := notMCPStatement(v); why != "" && genericURLKey(ptr) {
			r.warn(ptr, "the document says it is not an MCP server ("+why+"); "+quoteURL(u)+" is not read as an MCP endpoint")
		} else if webMCP(flatTransportValue(v, ptr)) {
			r.warn(ptr, webMCPMsg(u))
		} else {
			s := base
			s.URL = u
			s.Transport = r.flatTransport(ptr, v)
			r.addServer("", ptr, s)
			r.transportKeyURLs("", v, base, u)
			if seg := strings.Split(ptr, "/"); len(seg) == 3 { // {"server": {"url": ..., "sse_url": ...}}
				if o, ok := v[seg[1]].(map[string]any); ok {
					r.transportKeyURLs("/"+seg[1], o, base, u)
				}
			}
		}
	}
	for _, k := range []string{"endpoints", "transports", "transport", "connections", "mcp_endpoints", "mcpEndpoints"} {
		r.endpoints("/"+k, v[k], base)
	}
	r.deploymentURLs(v, base)
	r.installURLs("", v, base)
	if list, ok := v["companion_servers"].([]any); ok {
		r.entries("/companion_servers", list, Server{Auth: base.Auth})
	}
	r.namedServers(v, base)
	r.packages(v, base)
	r.presets(v)
	r.topLocal(v, base)
	if len(r.Servers) == 0 {
		// {"name": ..., "url": "https://mcp.acme.dev", "capabilities": [...]}: with no other
		// server, a bare "url" on a host named for MCP is the endpoint, not a home page.
		if u := str(v, "url"); mcpHostURL(u) && !webMCP(v["transport"]) {
			s := base
			s.URL, s.Transport = u, r.flatTransport("/url", v)
			r.addServer("", "/url", s)
		}
	}
	r.candidates(v, base)
}

// mcpHostURL reports an absolute URL whose host has a label "mcp", or one that starts
// with "mcp-" or ends with "-mcp" ("https://mcp.acme.dev", "https://acme-mcp.fly.dev").
func mcpHostURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return false
	}
	for _, l := range strings.Split(strings.ToLower(u.Hostname()), ".") {
		if l == "mcp" || strings.HasPrefix(l, "mcp-") || strings.HasSuffix(l, "-mcp") {
			return true
		}
	}
	return false
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
	if i, ok := flatNorm[normKey(ptr[1:])]; ok && flatKeys[i].transport != TransportUnknown {
		return flatKeys[i].transport
	}
	if o, ok := dig(v, strings.Split(ptr, "/")[1]).(map[string]any); ok && strings.Count(ptr, "/") == 3 &&
		strings.Contains(ptr, "/transport/") {
		// {"server": {"transport": {"type": "http", "url": ...}}}
		return r.transport(ptr[:strings.LastIndexByte(ptr, '/')], o["transport"])
	} else if ok && strings.Count(ptr, "/") == 2 {
		// An endpoint object's URL ({"server": {...}}, see endpointObjects): its own transport.
		if strings.HasSuffix(ptr, "/sse_url") {
			return TransportSSE
		}
		objPtr := ptr[:strings.LastIndexByte(ptr, '/')]
		if t := r.transport(objPtr+"/transport", firstOf(o, "transport", "type", "protocol")); t != TransportUnknown {
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
		if webMCP(firstOf(rm, "type", "transport")) {
			r.warn(ptr, webMCPMsg(s.URL))
			continue
		}
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
	if why := disabledEntry(o); why != "" {
		// {"enabled": false, "comment": "enable when it is built"}: a client configuration's
		// server turned off, or one not built yet: not offered.
		r.warn(ptr, "server entry is disabled ("+why+"); skipped")
		return
	}
	if why := documentEntry(o); why != "" && localCommand(o) == "" {
		// {"name": "Services", "url": "https://x.dev/services/", "type": "html"}: a page or
		// a file of the site listed beside its MCP server, not a server.
		r.addToolNames(r.topTools(o, ptr))
		r.warn(ptr, "entry is "+why+", not an MCP server; skipped")
		return
	}
	s := r.entryServer(ptr, o, name, base)
	r.addToolNames(s.Tools) // listed even when the endpoint is unusable and skipped
	if webMCP(firstOf(o, "transport", "type", "protocol", "kind")) && localCommand(o) == "" {
		r.warn(ptr, webMCPMsg(s.URL))
		return
	}
	if !s.LocalOnly {
		urlPtr := ptr + "/url"
		if k, u := entryURL(o); u == s.URL {
			urlPtr = ptr + "/" + k
		} else if k, tu := entryURL(o["transport"]); tu == s.URL {
			urlPtr = ptr + "/transport/" + pointerToken(k)
		}
		if r.addServer(ptr, urlPtr, s) {
			r.transportKeyURLs(ptr, o, s, s.URL)
		}
	}
	// {"install": {"npm": ..., "remote": url}}: the same server run remotely.
	remote := s
	remote.LocalOnly, remote.Transport = false, TransportUnknown
	r.installURLs(ptr, o, remote)
	if cmd := localCommand(o); cmd != "" || s.LocalOnly {
		if r.unusableBridge(ptr, cmd) {
			return
		}
		l := s
		l.URL, l.LocalOnly, l.Transport = "", true, TransportStdio
		l.Command = firstString(cmd, str(o, "installCommand"), l.Name)
		r.addLocal(ptr, l)
	}
}

// disabledEntry says how a server entry is turned off ({"enabled": false}, {"disabled":
// true}, as client configurations write it), or returns "".
func disabledEntry(o map[string]any) string {
	if b, ok := o["enabled"].(bool); ok && !b {
		return `"enabled": false`
	}
	if b, ok := o["disabled"].(bool); ok && b {
		return `"disabled": true`
	}
	return ""
}

// documentEntry says what an entry is when its type names a document format or a
// kind of API other than MCP ({"type": "html"}, {"format": "json"}, {"mimeType":
// "text/html"}, {"type": "openapi"}), or returns "": such an entry lists a page, a
// file or a REST API of the site, never an MCP server.
func documentEntry(o map[string]any) string {
	for _, k := range []string{"type", "format", "kind"} {
		t := str(o, k)
		switch {
		case t == "" || normalizeTransport(t) != TransportUnknown || webMCP(t):
		case restType(t):
			return "a " + quote(t) + " API"
		case contentFormat(t):
			return "a " + quote(t) + " page or file"
		}
	}
	for _, k := range []string{"mimeType", "mime_type", "media_type", "mediaType"} {
		if t := str(o, k); strings.Contains(t, "/") && contentFormat(t) {
			return "a " + quote(t) + " page or file"
		}
	}
	return ""
}

// contentFormats are the names, by normKey, of the formats a site publishes pages and
// files in.
var contentFormats = map[string]bool{"html": true, "htm": true, "xhtml": true, "json": true, "jsonld": true, "xml": true,
	"rss": true, "atom": true, "feed": true, "text": true, "txt": true, "plaintext": true, "markdown": true, "md": true,
	"csv": true, "pdf": true, "yaml": true, "yml": true, "webpage": true, "website": true, "document": true,
	"file": true, "static": true, "staticfile": true, "sitemap": true, "image": true, "video": true, "llmstxt": true}

// contentFormat reports a type that names a page or file format ("html", "json",
// "markdown") or a media type ("text/html", "application/pdf") rather than a
// transport; "text/event-stream" is SSE.
func contentFormat(t string) bool {
	l := strings.ToLower(strings.TrimSpace(t))
	if i := strings.IndexByte(l, '/'); i > 0 {
		switch l[:i] {
		case "text", "application", "image", "audio", "video", "font":
			return l != "text/event-stream" && !strings.Contains(l, "mcp") && !strings.Contains(l, "json-rpc") &&
				!strings.Contains(l, "jsonrpc")
		}
		return false
	}
	return contentFormats[normKey(l)]
}

// entryURLKeys are the keys of a server entry whose string value is its endpoint.
var entryURLKeys = []string{"url", "serverUrl", "server_url", "endpoint", "mcp_url", "mcpUrl", "mcp_endpoint", "uri", "sse_url",
	"mcpEndpoint", "httpUrl", "http_url", "endpointPath", "endpoint_path", "streamable_http_url", "streamableHttpUrl",
	"endpoint_url", "endpointUrl", "serverURL", "URL"}

// endpointObjects are the top-level keys whose object describes the one server of a
// flat card by the keys of a server entry: {"server": {"url": ...}}, {"protocol":
// {"transport": "Streamable HTTP", "endpointPath": "/mcp"}}.
var endpointObjects = []string{"endpoint", "server", "remote", "connection", "gateway", "protocol", "mcp", "hosted"}

// serviceObjects are top-level keys whose object describes a service of the site that
// may be its MCP server ({"api": {"type": "http", "url": ...}}, as in ai-plugin
// manifests): read as an endpoint object only when its URL's path names MCP (see
// mcpPathURL) and its type names no other kind of API.
var serviceObjects = []string{"api", "service", "backend"}

// mcpType reports a type that names MCP or one of its own transports ("mcp",
// "streamable-http", "sse"), not plain "http".
func mcpType(t string) bool {
	switch normKey(t) {
	case "mcp", "streamablehttp", "httpstreamable", "sse", "httpsse", "mcphttp", "mcpsse", "mcpstreamablehttp":
		return true
	}
	return false
}

// restType reports an API type that is not MCP: "openapi", "rest", "graphql"...
func restType(t string) bool {
	switch normKey(t) {
	case "openapi", "swagger", "rest", "restapi", "graphql", "grpc", "soap", "odata", "webhook", "webhooks":
		return true
	}
	return false
}

// entryURL returns the endpoint of a server entry and its key. A generic "url" (or
// "uri") that is only a site's home page (no path, no "mcp" in its host) gives way to
// another endpoint key of the same entry ({"url": "https://x.dev", "endpoint":
// "https://x.dev/mcp"}); a command line under an endpoint key is not a URL.
func entryURL(v any) (key, u string) {
	o, _ := v.(map[string]any)
	if len(o) == 0 {
		return "", ""
	}
	for _, k := range entryURLKeys {
		s := str(o, k)
		if s == "" || launcherLine(s) {
			continue
		}
		if key == "" {
			key, u = k, s
			if (k != "url" && k != "uri") || mcpLikeURL(s) {
				return key, u
			}
			continue
		}
		return k, s // a more specific key than a home-page "url"
	}
	return key, u
}

// entryServer maps one server object; LocalOnly is set when it has no URL but runs
// locally.
func (r *reader) entryServer(ptr string, o map[string]any, name string, base Server) Server {
	s := Server{
		Name:         firstString(str(o, "name"), name, str(o, "title"), base.Name),
		Description:  firstString(str(o, "description"), base.Description),
		Transport:    r.transport(ptr+"/transport", firstOf(o, "transport", "type", "protocol", "kind")),
		Auth:         authOf(firstOf(o, "authentication", "auth")),
		Capabilities: capabilities(o["capabilities"]),
		Tools:        r.topTools(o, ptr),
	}
	k, u := entryURL(o)
	s.URL = u
	if k == "sse_url" && s.Transport == TransportUnknown {
		s.Transport = TransportSSE
	}
	// {"url": "https://x.dev", "transport": {"type": "sse", "url": "https://x.dev/sse"}}:
	// the transport's own URL is where to connect; a home-page "url" beside it is not.
	if tu := transportURL(o["transport"]); tu != "" && (s.URL == "" || (k == "url" || k == "uri") && !mcpLikeURL(s.URL)) {
		s.URL = tu
	}
	if s.URL == "" {
		s.URL = str(o["endpoint"], "url")
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
		} else if at != "/transport" {
			r.mcpPathEndpoints(at, t, base)
		}
	}
}

// mcpPathEndpoints reads an endpoint map keyed by neither transport nor MCP
// ({"primary": "https://x.dev/mcp", "health": "https://x.dev/health"}): only a URL
// whose path names MCP (see mcpPathURL) is an endpoint; the others are the site's
// other services.
func (r *reader) mcpPathEndpoints(at string, m map[string]any, base Server) {
	for _, k := range sortedKeys(m) {
		ptr, u := at+"/"+pointerToken(k), ""
		switch e := m[k].(type) {
		case string:
			u = strings.TrimSpace(e)
		case map[string]any:
			var ek string
			if ek, u = entryURL(e); u != "" {
				ptr += "/" + pointerToken(ek)
			}
		}
		if u == "" || !mcpPathURL(u) || launcherLine(u) {
			continue
		}
		s := base
		if s.Name == "" {
			s.Name = k
		}
		s.URL, s.Transport = u, r.transport(ptr, dig(m[k], "transport"))
		r.addServer(at+"/"+pointerToken(k), ptr, s)
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
		if webMCP(k) {
			r.warn(ptr, "endpoint "+quote(k)+" runs in the browser page (WebMCP), not over the network; skipped")
			continue
		}
		if s.Transport == TransportUnknown && !namesMCP(k) {
			r.warn(ptr, "endpoint "+quote(k)+" is not a known transport; skipped")
			continue
		}
		urlPtr := ptr
		switch e := m[k].(type) {
		case string:
			if c := runLine(e); c != "" || s.Transport == TransportStdio {
				// {"stdio": "npx -y @acme/x-mcp"}: a command line, never a relative URL.
				s.URL, s.LocalOnly, s.Transport, s.Command = "", true, TransportStdio, firstString(c, strings.TrimSpace(e))
				r.addLocal(ptr, s)
				continue
			}
			s.URL = e
		case map[string]any:
			if namesMCP(k) && transportMap(e) { // {"mcp": {"sse": url, "streamable_http": url}}
				r.endpointMap(ptr, e, base)
				continue
			}
			if s.Transport == TransportStdio || has(e, "command") {
				if cmd := localCommand(e); cmd != "" {
					s.URL, s.LocalOnly, s.Transport, s.Command = "", true, TransportStdio, cmd
					r.addLocal(ptr, s)
				}
				continue
			}
			var ek string
			ek, s.URL = entryURL(e)
			urlPtr = ptr + "/" + pointerToken(firstString(ek, "url"))
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

// addServer checks a server's URL and adds it, or skips it with a warning that says
// why. ptr points at the entry, urlPtr at its URL. The same endpoint listed twice
// (under two keys, or with and without a trailing slash) is kept once.
func (r *reader) addServer(ptr, urlPtr string, s Server) (ok bool) {
	if !s.LocalOnly {
		defer r.noteServer(firstString(urlPtr, ptr), s.URL, len(r.Warnings), &ok)
	}
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
	at := firstString(urlPtr, ptr)
	if r.notLive != "" {
		r.warn(at, "the document says its MCP server is not live yet ("+r.notLive+"); "+quoteURL(s.URL)+" is not connected to")
		return false
	}
	if why := r.notAnEndpoint(at, s); why != "" {
		r.warn(at, "url "+quoteURL(s.URL)+" "+why)
		return false
	}
	if !r.urlOK(urlPtr, s.URL) {
		return false
	}
	if s.Name == "" {
		s.Name = "mcp"
	}
	r.keepServer(s)
	return true
}

// notAnEndpoint returns why the URL of s, at the pointer at, is not an MCP endpoint
// although it stands where one could (an API base, a chat API, a home page, a file, a
// route of another protocol), or "" when nothing says so.
func (r *reader) notAnEndpoint(at string, s Server) string {
	if r.Shape != ShapeSpec && s.Transport != TransportSSE && apiBasePath(s.URL) && genericURLKey(at) &&
		!strings.Contains(at, "/mcpServers/") && !strings.HasPrefix(at, "/remotes/") {
		return "is the base of an HTTP API (its path is only an API prefix such as /v1), not an MCP endpoint; entry skipped"
	}
	if r.Shape != ShapeSpec && genericURLKey(at) && !strings.Contains(at, "/mcpServers/") && !strings.HasPrefix(at, "/remotes/") {
		if chatAPIURL(s.URL) {
			return "is a chat API (its path names a chat or completions route), not an MCP endpoint; entry skipped"
		}
		if cardLevel(at) && (siteHomeURL(s.URL) || r.ownRoot(s.URL)) {
			return "is the site's home page (the root of its own domain), not an MCP endpoint; entry skipped"
		}
		if cardLevel(at) && hostRootURL(s.URL) {
			return "is the root of its host (the home page of the site or web app there), not an MCP endpoint; entry skipped"
		}
		if f, ok := r.resources[endpointKey(s.URL)]; ok {
			return "is listed among the document's resources as a file (" + quote(f) + "), not an MCP endpoint; entry skipped"
		}
	}
	if t, ok := r.nonMCPAt(at); ok && r.Shape != ShapeSpec && genericURLKey(at) && !mcpPathURL(s.URL) && !mcpHostURL(s.URL) {
		// {"endpoint": "https://api.x.dev/v1/quote", "transport": "rest"}: a paid REST
		// route, not an MCP server.
		return "is given with transport " + quote(t) + ", a protocol that is not MCP, under a key that does not name MCP; not an MCP endpoint: entry skipped"
	}
	if k, ok := pointerIn(r.routes, at); ok && r.Shape != ShapeSpec && genericURLKey(at) && !mcpPathURL(s.URL) && !mcpHostURL(s.URL) {
		// {"endpoint": "https://x.dev/api/v1/extract", "transport": "https",
		// "request_schema": {...}}: one HTTP route and the body it takes, not an MCP
		// server (an MCP endpoint takes JSON-RPC; its tools carry their own schemas).
		return "is given beside " + quote(k) + ", the request body of one HTTP route, under a key that does not name MCP; not an MCP endpoint: entry skipped"
	}
	return ""
}

// keepServer adds s, or merges it into the server already listed at the same
// endpoint: the same endpoint listed twice (under two keys, or with and without a
// trailing slash) is kept once, unless it is given with two transports.
func (r *reader) keepServer(s Server) {
	key := endpointKey(s.URL)
	if i, ok := r.byURL[key]; ok && r.Shape != ShapeSpec {
		prev := &r.Servers[i]
		switch {
		case prev.Transport == TransportUnknown:
			prev.Transport = s.Transport
		case s.Transport != TransportUnknown && s.Transport != prev.Transport:
			r.Servers = append(r.Servers, s) // one URL, two transports
			return
		}
		if len(prev.Tools) == 0 {
			prev.Tools = s.Tools
		}
		return
	}
	r.byURL[key] = len(r.Servers)
	r.Servers = append(r.Servers, s)
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
		if r.selfHosted != "" {
			r.warn(ptr, "relative URL "+quoteURL(u)+" is a path on a server the reader must host ("+r.selfHosted+"), not on this origin; entry skipped")
			return false
		}
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
			if nonMCPTransport(t) {
				r.nonMCP[transportOwner(ptr)] = t
			}
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

// transportSeparators are the separators a published transport name is written
// with ("Streamable HTTP", "http_sse", "HTTP/SSE"); normalizeTransport reads them as "-".
var transportSeparators = strings.NewReplacer(" ", "-", "_", "-", "/", "-")

// nonMCPTransport reports a published transport value that names a protocol other
// than MCP: a REST, GraphQL, gRPC, SOAP or webhook API, a plain JSON route ("http-json"),
// or a paid route ("x402-rest"). A value that also names MCP or one of its transports
// ("mcp-rest-bridge", "sse") is not one.
func nonMCPTransport(t string) bool {
	words := strings.FieldsFunc(strings.ToLower(t), func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) })
	other := false
	for _, w := range words {
		switch w {
		case "mcp", "sse", "stdio", "streamable", "streamablehttp", "jsonrpc", "rpc", "ws", "wss", "websocket":
			return false
		case "rest", "restful", "graphql", "grpc", "soap", "odata", "webhook", "webhooks", "openapi", "swagger", "x402", "json":
			other = true
		}
	}
	return other || restType(t)
}

// transportOwner is the pointer of the object a transport value at ptr describes:
// "/endpoint" for "/endpoint/transport" and "/endpoint/transport/type", "" for
// "/transport".
func transportOwner(ptr string) string {
	ptr = strings.TrimSuffix(ptr, "/type")
	ptr = strings.TrimSuffix(ptr, "/protocol")
	if i := strings.LastIndexByte(ptr, '/'); i >= 0 {
		return ptr[:i]
	}
	return ""
}

// routeBodyKeys are the keys under which a document describes the request body of one
// HTTP route beside its URL.
var routeBodyKeys = []string{"request_schema", "requestSchema", "request_body", "requestBody", "body_schema",
	"bodySchema", "request_format", "requestFormat"}

// requestRoutes maps the pointer of every object, at the top level or up to two
// levels down, that gives the request body of an HTTP route (see routeBodyKeys) to
// the key it gives it under.
func requestRoutes(v map[string]any) map[string]string {
	out := map[string]string{}
	var walk func(ptr string, o map[string]any, depth int)
	walk = func(ptr string, o map[string]any, depth int) {
		for _, k := range routeBodyKeys {
			if isObject(o[k]) {
				out[ptr] = k
				break
			}
		}
		if depth == 2 {
			return
		}
		for _, k := range sortedKeys(o) {
			switch x := o[k].(type) {
			case map[string]any:
				walk(ptr+"/"+pointerToken(k), x, depth+1)
			case []any:
				for i, e := range x {
					if m, ok := e.(map[string]any); ok {
						walk(fmt.Sprintf("%s/%s/%d", ptr, pointerToken(k), i), m, depth+1)
					}
				}
			}
		}
	}
	walk("", v, 0)
	return out
}

// pointerIn returns the value m holds for ptr or for the nearest object that holds it.
func pointerIn(m map[string]string, ptr string) (string, bool) {
	for {
		if v, ok := m[ptr]; ok {
			return v, true
		}
		if ptr == "" {
			return "", false
		}
		ptr = ptr[:strings.LastIndexByte(ptr, '/')]
	}
}

// nonMCPAt returns the non-MCP transport value (see nonMCPTransport) stated by the
// object at ptr or by one that holds it, if any.
func (r *reader) nonMCPAt(ptr string) (string, bool) {
	for {
		if t, ok := r.nonMCP[ptr]; ok {
			return t, true
		}
		if ptr == "" {
			return "", false
		}
		ptr = ptr[:strings.LastIndexByte(ptr, '/')]
	}
}

func normalizeTransport(s string) Transport {
	switch transportSeparators.Replace(strings.ToLower(strings.TrimSpace(s))) {
	case "http+sse", "sse", "http-sse", "legacy-sse", "server-sent-events":
		return TransportSSE
	case "streamable-http", "streamablehttp", "http", "https", "http-streamable",
		"streamable", "shttp", "json-rpc", "jsonrpc", "jsonrpc-http", "json-rpc-http", "mcp-http":
		return TransportStreamableHTTP
	case "ws", "wss", "websocket":
		return TransportWebSocket
	case "stdio", "npm", "npx", "local", "pypi", "uvx", "docker", "oci":
		return TransportStdio
	}
	return TransportUnknown
}

// transportURL returns the URL inside a transport object (under a key of a server
// entry, see entryURL), if any.
func transportURL(v any) string {
	_, u := entryURL(v)
	return u
}

// selfHostedStatement returns what in the document says its server is not served from
// the document's origin, so that a relative endpoint names a path on a server the
// reader must run or host ("requires_self_hosted_server": true, "public_endpoint":
// false, "hosted": false), at the top level or in a "deployment" or "hosting" object;
// "" when nothing does.
func selfHostedStatement(v map[string]any) string {
	for _, at := range []string{"", "deployment", "hosting", "deploy"} {
		o := v
		if at != "" {
			var ok bool
			if o, ok = v[at].(map[string]any); !ok {
				continue
			}
			at += "."
		}
		for _, k := range []string{"requires_self_hosted_server", "requiresSelfHostedServer", "requires_self_hosting",
			"requiresSelfHosting", "self_hosted_only", "selfHostedOnly", "self_host_required", "selfHostRequired"} {
			if b, ok := o[k].(bool); ok && b {
				return at + k + " is true"
			}
		}
		// (A null "public_endpoint" says so too, but null members are dropped on decoding.)
		for _, k := range []string{"hosted", "remote_available", "remoteAvailable", "public_endpoint", "publicEndpoint",
			"remote_endpoint", "remoteEndpoint", "hosted_endpoint", "hostedEndpoint"} {
			if b, ok := o[k].(bool); ok && !b {
				return at + k + " is false"
			}
		}
	}
	return ""
}
