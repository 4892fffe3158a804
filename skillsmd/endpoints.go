package skillsmd

import (
	"net"
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/wellknown-dev/discovery/internal/httpx"
)

// Some documents never label their API base: every endpoint is written in full
// ("GET https://api.example.com/v1/things", "curl -X POST https://x.example/api/y").
// A careful reader then takes the common prefix of those endpoints as the base. The
// parser does the same, as a last resort: the inferred base is used only when the
// document states none (no label, table row, heading or frontmatter key, and no
// placeholder such as "{BASE_URL}"), so any statement outranks it.
//
// Endpoints are read from list items, paragraphs (code spans included), table rows
// and code blocks: an HTTP method followed by an absolute URL, or a curl command
// line (its first URL). Skill files and other documents fetched with curl
// ("curl -s https://x/skill.md > SKILL.md") are not endpoints.

// maxEndpoints bounds the endpoints remembered for the inference.
const maxEndpoints = 256

// httpMethods are the methods that mark an endpoint line.
var httpMethods = [...]string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

// noteURLs records the endpoints and the MCP endpoints named in the text of block
// n, a code block if code is set. Both need an absolute URL ("://"), except the
// template variables noteEndpoints reads: the text is searched for one once.
func (p *parser) noteURLs(text string, n ast.Node, code bool) {
	urls := strings.Contains(text, "://")
	p.noteEndpoints(text, n, urls)
	if urls {
		p.mcpIn(text, code)
	}
	if !code {
		// Also beside an absolute URL of another scheme or place ("use the
		// deployment's `/mcp` URL ... fetch app://guide"): a word that is a path.
		p.mcpPathsIn(text)
	}
}

// noteEndpoints records the endpoint URLs of the text of block n (one line at a
// time); urls reports whether the text contains "://".
func (p *parser) noteEndpoints(text string, n ast.Node, urls bool) {
	if len(p.endpoints) >= maxEndpoints || len(p.bases) > 0 || p.placeholder > 0 {
		return // a base is already stated
	}
	vars := strings.Contains(text, "}/") || strings.IndexByte(text, '$') >= 0 // "{{API}}/x", "$API/x"
	if !urls && !vars {
		return // the common case: no absolute URL and no template variable at all
	}
	for rest := text; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if urls && strings.Contains(line, "://") {
			p.endpointsIn(line)
			p.assignmentIn(line)
		}
		if vars && (strings.Contains(line, "}/") || strings.IndexByte(line, '$') >= 0) {
			p.templateUsesIn(line, n)
		}
	}
	if p.endpointLine == 0 && len(p.endpoints) > 0 {
		p.endpointLine = p.lineOfNode(n)
	}
}

// endpointsIn records the endpoints of one line: each URL preceded by an HTTP
// method (spaces, "|", quotes and backticks between them are skipped), or the first
// URL of a line that starts a curl command.
func (p *parser) endpointsIn(line string) {
	t := strings.TrimLeft(line, " \t$>")
	if i := strings.Index(t, "curl "); i > 0 && strings.HasSuffix(strings.TrimRight(t[:i], " "), ":") {
		t = t[i:] // "Production curl: curl -H ... https://x/api/y": a list item's label, then its command
	}
	if strings.HasPrefix(t, "curl ") {
		if i := strings.Index(t, "http"); i >= 0 {
			// "curl -X POST https://..." names its method as plainly as "POST https://...".
			p.addEndpoint(t[i:], curlMethod(t[:i]))
		}
		return
	}
	if v, ok := p.endpointLabel(t); ok {
		p.addEndpoint(v, true) // "Endpoint: https://x/v1/y" names it as plainly as a method
		return
	}
	for off := 0; off < len(line); {
		i := strings.Index(line[off:], "http")
		if i < 0 {
			return
		}
		start := off + i
		off = start + 4
		if methodBefore(line[:start]) {
			p.addEndpoint(line[start:], true)
		}
	}
}

// endpointLabel reads a line that labels an endpoint URL: "Endpoint:", "Endpoint
// URL:" or "Request URL:", or a bare "URL:" in a section whose heading names an
// endpoint ("## Canonical endpoint" with "- URL: https://x/v1/chat" and "- Method:
// POST"). It returns the text after the label.
func (p *parser) endpointLabel(t string) (string, bool) {
	t = strings.TrimLeft(t, "-*+ ")
	if len(t) < len("URL: http://x.y") || t[0]|0x20 != 'u' && t[0]|0x20 != 'e' && t[0]|0x20 != 'r' {
		return "", false // the common case: one byte read
	}
	label, rest, ok := strings.Cut(t, ":")
	if !ok || len(label) > len("endpoint url") {
		return "", false
	}
	rest = strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(rest, "https://") && !strings.HasPrefix(rest, "http://") {
		return "", false
	}
	switch strings.ToLower(label) {
	case "endpoint", "endpoint url", "request url":
		return rest, true
	case "url":
		if p.section >= 0 && labelFollowsAny(p.doc.Sections[p.section].Heading, "endpoint") {
			return rest, true
		}
	}
	return "", false
}

// methodBefore reports whether s ends with an HTTP method, then separators.
func methodBefore(s string) bool {
	s = strings.TrimRight(s, " \t|`\"'*")
	for _, m := range httpMethods {
		if strings.HasSuffix(s, m) {
			head := s[:len(s)-len(m)]
			return head == "" || !isWordByte(head[len(head)-1])
		}
	}
	return false
}

// addEndpoint records the absolute URL at the start of s, if it is one; method
// tells whether an HTTP method preceded it.
func (p *parser) addEndpoint(s string, method bool) {
	if !strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "http://") {
		return
	}
	if j := strings.IndexAny(s, " \t\"'`<>()[]\\|"); j >= 0 {
		s = s[:j]
	}
	s = strings.TrimRight(s, ".,;:*")
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	scheme, rest, _ := strings.Cut(s, "://")
	host, path, _ := strings.Cut(rest, "/")
	if !plainHost(host) || localHost(host) || placeholderHost(host) { // also rejects userinfo ("user@host")
		if p.explain && localHost(host) {
			p.setAside(s, fromEndpoint, "a local server (an install script's or a test server's localhost URL), not the API")
		}
		return // a local test server ("curl http://localhost:3000/api/...") is not the API
	}
	if isDocumentName(path[strings.LastIndexByte(path, '/')+1:]) {
		return // a skill file or page, fetched rather than called
	}
	if len(p.endpoints) < maxEndpoints {
		p.endpoints = append(p.endpoints, endpoint{origin: scheme + "://" + strings.ToLower(host), path: "/" + path, method: method})
	}
}

// endpoint is an absolute endpoint URL met in the document, without its query.
type endpoint struct {
	origin string // "https://api.example.com"
	path   string // "/v1/things/1"
	method bool   // written after an HTTP method, not only in a curl command
}

// plainHost accepts a host name with a dot, or localhost, in ASCII: "你的域名" or
// "YOUR_DOMAIN" are placeholders, not hosts.
func plainHost(h string) bool {
	name := h
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		name = h[:i]
	}
	if name != "localhost" && !strings.Contains(name, ".") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i] | 0x20
		if !(c >= 'a' && c <= 'z' || name[i] >= '0' && name[i] <= '9' || name[i] == '.' || name[i] == '-') {
			return false
		}
	}
	return true
}

// localHost reports a host (with its port, if any) on this machine or a private
// network: where a document's examples run against a developer's machine, never its
// public API.
func localHost(h string) bool {
	if name, _, err := net.SplitHostPort(h); err == nil {
		h = name
	}
	return httpx.IsLocalHost(strings.Trim(h, "[]"))
}

// isDocumentName reports the last path segment of a document rather than an
// endpoint: "skill.md", "llms.txt", "index.html", "skill.json".
func isDocumentName(seg string) bool {
	seg = strings.ToLower(seg)
	for _, ext := range []string{".md", ".txt", ".html", ".htm"} {
		if strings.HasSuffix(seg, ext) {
			return true
		}
	}
	return seg == "skill.json" || seg == "package.json"
}

// inferBase returns the base implied by the recorded endpoints, or "". It reads the
// endpoints on the host most of them use (at least two distinct ones, or the only
// one when it was written after a method). When more than half of them start with
// the same "api" or version segments ("/api", "/api/v1", "/v2"), that is the base: a
// stray static file ("/paste-blocks/index.json") does not move it. Otherwise the base
// is the longest run of fixed path segments every endpoint has before its last
// segment, ended after its last "api" or version segment if it has one; one endpoint
// alone without such a segment gives its origin.
func (p *parser) inferBase() string {
	if len(p.endpoints) == 0 {
		return ""
	}
	origin, count, hosts, ok := p.endpointHost()
	if !ok {
		return "" // the endpoints disagree on the host
	}
	prefix, distinct, apiPrefixes := p.endpointDirs(origin)
	if len(distinct) == 1 && hosts == 1 {
		for path := range distinct {
			if singleURLPath(path) {
				return origin + path // one MCP, JSON-RPC or GraphQL endpoint: every call goes to that URL
			}
		}
	}
	if len(distinct) < 2 && !(hosts == 1 && p.endpoints[0].method) {
		return "" // one endpoint only counts when it is the only one, written after a method
	}
	if ap, ok := majorityAPIPrefix(apiPrefixes, count); ok {
		return origin + ap
	}
	prefix = basePrefix(prefix, len(distinct) == 1)
	if len(prefix) == 0 {
		return origin
	}
	return origin + "/" + strings.Join(prefix, "/")
}

// endpointHost returns the origin most recorded endpoints use, how many use it, and
// how many origins they use; false when two origins tie for the most.
func (p *parser) endpointHost() (origin string, count, hosts int, ok bool) {
	type hostCount struct {
		origin string
		n      int
	}
	var counts []hostCount
	for _, e := range p.endpoints {
		o := e.origin
		found := false
		for i := range counts {
			if counts[i].origin == o {
				counts[i].n++
				found = true
				break
			}
		}
		if !found {
			counts = append(counts, hostCount{o, 1})
		}
	}
	best, tie := 0, false
	for i := 1; i < len(counts); i++ {
		switch {
		case counts[i].n > counts[best].n:
			best, tie = i, false
		case counts[i].n == counts[best].n:
			tie = true
		}
	}
	if tie {
		return "", 0, 0, false
	}
	return counts[best].origin, counts[best].n, len(counts), true
}

// endpointDirs reads the recorded endpoints on origin: the folders every one has
// before its last segment (which names the resource), their distinct paths, and how
// many start with each "api" or version prefix.
func (p *parser) endpointDirs(origin string) (prefix []string, distinct map[string]bool, apiPrefixes map[string]int) {
	distinct = map[string]bool{}
	apiPrefixes = map[string]int{}
	first := true
	for _, e := range p.endpoints {
		if e.origin != origin {
			continue
		}
		distinct[e.path] = true
		segs := strings.Split(strings.Trim(e.path, "/"), "/")
		dir := segs[:len(segs)-1] // the last segment names the resource
		if ap := apiPrefix(dir); ap != "" {
			apiPrefixes[ap]++
		}
		if first {
			prefix, first = dir, false
			continue
		}
		n := 0
		for n < len(prefix) && n < len(dir) && prefix[n] == dir[n] {
			n++
		}
		prefix = prefix[:n]
	}
	return prefix, distinct, apiPrefixes
}

// majorityAPIPrefix returns the "api" or version prefix that more than half of the
// count endpoints start with, if one does.
func majorityAPIPrefix(apiPrefixes map[string]int, count int) (string, bool) {
	for ap, n := range apiPrefixes {
		if 2*n > count { // a strict majority: at most one prefix qualifies
			// An endpoint under a shorter API prefix ("/api/file/1" beside "/api/v1/x")
			// is not a stray file: the base is the prefix they share ("/api").
			for other := range apiPrefixes {
				if other != ap && strings.HasPrefix(ap, other+"/") {
					ap = other
				}
			}
			return ap, true
		}
	}
	return "", false
}

// basePrefix returns the base's folders from the folders the endpoints share: up to
// the first unclean segment, ended after the last "api" or version segment if there
// is one. single: one distinct endpoint, whose folders name its resource, not a base,
// unless they are "api" or a version ("POST https://x/agents/register").
func basePrefix(prefix []string, single bool) []string {
	for i, s := range prefix {
		if !cleanSegment(s) {
			prefix = prefix[:i]
			break
		}
	}
	api := false
	for i := len(prefix) - 1; i >= 0; i-- {
		if isAPISegment(prefix[i]) {
			prefix, api = prefix[:i+1], true
			break
		}
	}
	if !api && single {
		return nil
	}
	return prefix
}

// apiPrefix returns the leading path up to the end of the first run of "api" and
// version segments among dir's fixed segments ("/api/v1" of api/v1/things/x), or "".
func apiPrefix(dir []string) string {
	for i, s := range dir {
		if !cleanSegment(s) {
			return ""
		}
		if !isAPISegment(s) {
			continue
		}
		j := i + 1
		for j < len(dir) && isAPISegment(dir[j]) {
			j++
		}
		return "/" + strings.Join(dir[:j], "/")
	}
	return ""
}

// cleanSegment rejects a path segment that is a template ("{id}", "<name>", ":id",
// "POST_ID") rather than a fixed name.
func cleanSegment(s string) bool {
	if s == "" || strings.ContainsAny(s, "{}<>:$") {
		return false
	}
	return !isPlaceholder(s)
}

// isAPISegment reports "api" and version segments ("v1", "v2beta").
func isAPISegment(s string) bool {
	l := strings.ToLower(s)
	if l == "api" {
		return true
	}
	return len(l) >= 2 && l[0] == 'v' && l[1] >= '0' && l[1] <= '9'
}

// mcpOnlyBase returns the one MCP endpoint the document names (by a label, a
// frontmatter key, a client configuration or a line about connecting to it) when it
// writes no other endpoint at all, not even a path ("GET /v1/x"): every call then
// goes to that URL, as with a single MCP endpoint written after a method. "" otherwise.
func (p *parser) mcpOnlyBase() string {
	if len(p.doc.MCP) != 1 || len(p.endpoints) > 0 || len(p.varUses) > 0 {
		return ""
	}
	u := p.doc.MCP[0]
	if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return "" // a path ("/mcp") is on the origin, which states no more than none
	}
	if firstEndpointMention(p.src) >= 0 {
		return ""
	}
	return u
}

// mcpEndpointPath reports the path of an MCP endpoint: its last segment is "mcp" or
// "sse" ("/mcp", "/api/mcp", "/mcp/sse").
func mcpEndpointPath(path string) bool {
	last := lastSegment(path)
	return last == "mcp" || last == "sse"
}

// singleURLPath reports the path of an endpoint that takes every call of its
// protocol at one URL: MCP ("/mcp", "/sse"), A2A and JSON-RPC ("/api/a2a", "/rpc",
// "/jsonrpc") and GraphQL ("/graphql"). When it is the only endpoint a document
// writes, that URL is the base, not its "/api" prefix.
func singleURLPath(path string) bool {
	switch lastSegment(path) {
	case "mcp", "sse", "a2a", "rpc", "jsonrpc", "json-rpc", "graphql":
		return true
	}
	return false
}

// lastSegment returns the last segment of a URL path, lower-cased.
func lastSegment(path string) string {
	last := strings.ToLower(strings.TrimRight(path, "/"))
	return last[strings.LastIndexByte(last, '/')+1:]
}

// curlMethod reports a curl command (the part before its URL) that sets its method
// with -X or --request and an HTTP method.
func curlMethod(s string) bool {
	f := strings.Fields(s)
	for i, w := range f {
		if (w == "-X" || w == "--request") && i+1 < len(f) {
			m := strings.Trim(f[i+1], `"'`)
			for _, hm := range httpMethods {
				if m == hm {
					return true
				}
			}
		}
	}
	return false
}
