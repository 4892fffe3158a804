package mcpjson

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// The shape readers know where sites usually put an endpoint. The candidate pass reads
// the rest: after them it considers every URL the document gives, scores it by the keys
// it sits under, its siblings and the URL itself, and lists it as a server only when
// the evidence is strong (candidateThreshold) and the URL is usable (https, or
// loopback where allowed: see addServer). A URL that scores some evidence but not
// enough is named in a warning that says why it was not taken.

// candidateThreshold is the score a URL needs to be read as an MCP endpoint by the
// candidate pass; candidateNote the score from which a URL not taken is named in a
// warning.
const (
	candidateThreshold = 4
	candidateNote      = 3
)

// candidateLimits bound the pass: how deep it walks and how many URLs it scores.
const (
	candidateDepth = 8
	candidateMax   = 256
)

// notEndpointKeyWords are words that, in any key on a URL's path, say the URL is
// something else: documentation, a home page, source code, an image, a licence, a
// schema, prices, an authorization server, an example, a package, a command's
// arguments.
var notEndpointKeyWords = []string{"doc", "homepage", "website", "site", "repo", "github", "gitlab", "source", "icon",
	"logo", "image", "licen", "schema", "pricing", "price", "terms", "privacy", "policy", "support", "contact",
	"changelog", "openapi", "swagger", "oauth", "auth", "token", "issuer", "jwks", "callback", "redirect", "example",
	"sample", "tutorial", "blog", "npm", "pypi", "package", "download", "install", "registry", "publisher", "vendor",
	"maintainer", "owner", "spec", "readme", "guide", "manual", "status", "health", "webhook", "llms", "skill",
	"card", "screenshot", "video", "demo", "signup", "login", "dashboard", "console", "playground", "legal", "about",
	"social", "twitter", "discord", "slack", "linkedin", "community", "feedback", "args", "command", "header",
	"link", "reference", "pointer", "inspector", "tool", "template", "deprecated", "legacy", "previous"}

// notEndpointKeys are whole keys (see normKey) that say the same: a command's
// environment, a $ref, an old address.
var notEndpointKeys = map[string]bool{"env": true, "ref": true, "old": true, "cmd": true, "run": true, "exec": true}

// candidate is one URL of the document and the evidence for it.
type candidate struct {
	ptr     string
	url     string
	keys    []string       // the keys from the document's root to the URL (array indexes as "")
	parent  map[string]any // the object holding the URL, nil for an array element
	score   int
	reasons []string
}

func (c *candidate) add(n int, why string) {
	c.score += n
	c.reasons = append(c.reasons, fmt.Sprintf("%+d %s", n, why))
}

// candidatesAllowed reports whether the candidate pass reads this document: not a
// spec-shaped document or a pointer (their shape is the whole story), nor one that
// says it runs no MCP server, that it is not MCP, or that its server is not live.
func (r *reader) candidatesAllowed(v map[string]any) bool {
	switch r.Shape {
	case ShapeSpec, ShapePointer, ShapeNone, ShapeLegacy:
		return false
	}
	return r.notLive == "" && notMCPStatement(v) == "" && noServerStatement(v) == "" && templateStatement(v) == ""
}

// candidates runs the candidate pass over v (see the comment at the top of this file).
func (r *reader) candidates(v map[string]any, base Server) {
	if !r.candidatesAllowed(v) {
		return
	}
	var found []*candidate
	var walk func(ptr string, keys []string, x any, parent map[string]any, depth int)
	walk = func(ptr string, keys []string, x any, parent map[string]any, depth int) {
		if len(found) >= candidateMax || depth > candidateDepth {
			return
		}
		switch t := x.(type) {
		case map[string]any:
			for _, k := range sortedKeys(t) {
				walk(ptr+"/"+pointerToken(k), append(keys[:len(keys):len(keys)], k), t[k], t, depth+1)
			}
		case []any:
			for i, e := range t {
				walk(ptr+"/"+strconv.Itoa(i), append(keys[:len(keys):len(keys)], ""), e, nil, depth+1)
			}
		case string:
			if absoluteURL(t) {
				found = append(found, &candidate{ptr: ptr, url: t, keys: keys, parent: parent})
			}
		}
	}
	walk("", nil, v, nil, 0)
	// Once the shape readers found a remote server, another URL needs more evidence,
	// and one not taken is not worth a remark; a URL beside one they took is that
	// server's other address ("messagesEndpoint", "endpoint_events").
	threshold, note := candidateThreshold, candidateNote
	for _, s := range r.Servers {
		if !s.LocalOnly {
			threshold, note = candidateThreshold+2, candidateThreshold+2
			break
		}
	}
	taken := make(map[string]bool, len(r.byURL))
	for k := range r.byURL {
		taken[k] = true
	}
	added := false
	r.scoring = true
	defer func() { r.scoring = false }()
	for _, c := range found {
		if taken[endpointKey(c.url)] {
			continue // recorded when the shape reader took it
		}
		if why := r.setAside(c, taken); why != "" {
			r.noteCandidate(c, false, why)
			continue
		}
		if why := r.scoreCandidate(c); why != "" {
			r.noteCandidate(c, false, why)
			continue
		}
		switch {
		case c.score >= threshold:
			s := base
			s.Name = candidateName(c, base.Name)
			s.Transport = candidateTransport(c)
			s.LocalOnly, s.Command = false, ""
			n := len(r.Warnings)
			if r.addServer(c.ptr, c.ptr, s.withURL(c.url)) {
				r.warn(c.ptr, "url "+quoteURL(c.url)+" is read as an MCP endpoint from the evidence around it ("+
					strings.Join(c.reasons, ", ")+"), under a key no known shape lists")
				added = true
				r.noteCandidate(c, true, "")
			} else {
				r.noteCandidate(c, false, lastWarning(r.Warnings, n, "the URL is not usable"))
			}
		case c.score >= note:
			r.warn(c.ptr, fmt.Sprintf("url %s may be an MCP endpoint but was not taken: the evidence (%s) scores %d, under the %d needed",
				quoteURL(c.url), strings.Join(c.reasons, ", "), c.score, threshold))
			r.noteCandidate(c, false, fmt.Sprintf("its score %d is under the %d needed", c.score, threshold))
		default:
			r.noteCandidate(c, false, fmt.Sprintf("its score %d is under the %d needed", c.score, threshold))
		}
	}
	if added && r.Shape == ShapeUnknown {
		r.Shape = ShapeScored
	}
}

// besideTaken reports an object that holds a URL the shape readers took.
func besideTaken(parent map[string]any, taken map[string]bool) bool {
	for _, x := range parent {
		if s, ok := x.(string); ok && taken[endpointKey(s)] {
			return true
		}
	}
	return false
}

// withURL returns s with its URL set.
func (s Server) withURL(u string) Server { s.URL = u; return s }

// absoluteURL reports a string that is one absolute http, https, ws or wss URL.
func absoluteURL(s string) bool {
	if strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	l := strings.ToLower(s)
	for _, p := range []string{"https://", "http://", "wss://", "ws://"} {
		if strings.HasPrefix(l, p) && len(l) > len(p) {
			return true
		}
	}
	return false
}

// consumed reports a pointer at or under one the shape readers already judged and set
// aside, saying so in a warning: the candidate pass does not take it back.
func (r *reader) consumed(ptr string) bool {
	for _, w := range r.Warnings {
		if w.Pointer == "" || !(ptr == w.Pointer || strings.HasPrefix(ptr, w.Pointer+"/")) {
			continue
		}
		m := w.Message
		for _, s := range []string{"skipped", "not read", "not connected", "ignored", "not an MCP", "nothing to connect", "no local server"} {
			if strings.Contains(m, s) {
				return true
			}
		}
	}
	return false
}

// setAside says why the candidate pass does not score c at all, or "": a URL the
// shape readers judged and set aside, the other address of a server they took, or a
// file the document lists among its resources.
func (r *reader) setAside(c *candidate, taken map[string]bool) string {
	switch {
	case r.consumed(c.ptr):
		return "a known shape read it and set it aside (see the warning at its pointer)"
	case besideTaken(c.parent, taken):
		return "it stands beside an endpoint already taken: that server's other address"
	}
	if f, ok := r.resources[endpointKey(c.url)]; ok {
		return "the document lists it among its resources as a file (" + quote(f) + ")"
	}
	return ""
}

// scoreCandidate scores c. It returns why the evidence excludes it outright (a key
// that names something else, a URL that cannot be an endpoint, a transport that is
// not MCP), or "" when c is scored.
func (r *reader) scoreCandidate(c *candidate) string {
	if k := excludedByKey(c.keys); k != "" {
		return "the key " + quote(k) + " names something other than an endpoint"
	}
	if why := CheckURL(c.url); why != "" {
		return why
	}
	if why := r.unusable(c.url); why != "" {
		return why
	}
	if chatAPIURL(c.url) {
		return "a chat API (its path names a chat or completions route)"
	}
	scoreLeafKey(c)
	scoreKeysAbove(c)
	if why := scoreSiblings(c); why != "" {
		return why
	}
	if mcpPathURL(c.url) {
		c.add(2, "its path names MCP")
	}
	if mcpHostURL(c.url) {
		c.add(1, "its host names MCP")
	}
	if apiBasePath(c.url) || siteHomeURL(c.url) || hostRootURL(c.url) || r.ownRoot(c.url) {
		c.add(-2, "it is an API base or a site's root")
	}
	return ""
}

// excludedByKey returns a key on the path that names something other than an
// endpoint (docs, a repository, an icon, a licence, a schema...), or "".
func excludedByKey(keys []string) string {
	for _, k := range keys {
		nk := normKey(k)
		if notEndpointKeys[nk] {
			return k
		}
		for _, w := range notEndpointKeyWords {
			if strings.Contains(nk, w) {
				return k
			}
		}
	}
	return ""
}

// scoreLeafKey weighs the key the URL sits under.
func scoreLeafKey(c *candidate) {
	leaf := ""
	if n := len(c.keys); n > 0 {
		leaf = normKey(c.keys[n-1])
	}
	switch {
	case strings.Contains(leaf, "mcp"):
		c.add(3, "its key names MCP")
	case strings.Contains(leaf, "sse") || strings.Contains(leaf, "streamable"):
		c.add(2, "its key names an MCP transport")
	case strings.Contains(leaf, "endpoint") || strings.Contains(leaf, "remote") || strings.Contains(leaf, "hosted") ||
		leaf == "serverurl" || leaf == "serveruri" || leaf == "server":
		c.add(2, "its key names a server endpoint")
	case leaf == "url" || leaf == "uri" || leaf == "href" || leaf == "address" || leaf == "":
		c.add(1, "its key is a URL's")
	}
}

// scoreKeysAbove weighs the keys above the URL's own: MCP, or a list or map of
// endpoints or servers.
func scoreKeysAbove(c *candidate) {
	above := c.keys
	if len(above) > 0 {
		above = above[:len(above)-1]
	}
	mcpAbove, serverAbove := false, false
	for _, k := range above {
		nk := normKey(k)
		mcpAbove = mcpAbove || strings.Contains(nk, "mcp")
		for _, w := range []string{"endpoint", "server", "remote", "transport", "connection", "profile", "environment"} {
			serverAbove = serverAbove || strings.Contains(nk, w)
		}
	}
	switch {
	case mcpAbove:
		c.add(2, "it sits under a key that names MCP")
	case serverAbove:
		c.add(1, "it sits under a list or map of endpoints or servers")
	}
}

// scoreSiblings weighs what stands beside the URL: its transport (it returns why
// when that names one that is not MCP, or stdio) and headers or auth.
func scoreSiblings(c *candidate) string {
	if c.parent == nil {
		return ""
	}
	if t, ok := firstOf(c.parent, "transport", "type", "protocol", "kind").(string); ok {
		switch n := normalizeTransport(t); {
		case nonMCPTransport(t), contentFormat(t), restType(t):
			return "its transport or type " + quote(t) + " is not MCP"
		case n == TransportStdio:
			return "its transport " + quote(t) + " is a local command's"
		case n != TransportUnknown || mcpType(t):
			c.add(2, "its transport "+quote(t)+" is MCP's")
		}
	}
	for _, k := range routeBodyKeys {
		if isObject(c.parent[k]) {
			return "it sits beside " + quote(k) + ", the request body of one HTTP route, not an MCP server"
		}
	}
	if isObject(c.parent["headers"]) || c.parent["auth"] != nil || c.parent["authentication"] != nil {
		c.add(1, "it gives headers or auth")
	}
	return ""
}

// candidateName names a server found by the candidate pass: the "name" beside its
// URL, the document's own name, or the map key above the URL ("production").
func candidateName(c *candidate, docName string) string {
	if n := firstString(str(c.parent, "name"), str(c.parent, "title")); n != "" {
		return n
	}
	if docName != "" {
		return docName
	}
	for i := len(c.keys) - 2; i >= 0; i-- {
		if c.keys[i] != "" {
			return c.keys[i]
		}
	}
	return ""
}

// candidateTransport is the transport of a URL found by the candidate pass: its
// sibling "transport" (or "type"), else what its key or the key above says ("sse",
// "streamable").
func candidateTransport(c *candidate) Transport {
	if t, ok := firstOf(c.parent, "transport", "type", "protocol").(string); ok {
		if n := normalizeTransport(t); n != TransportUnknown && n != TransportStdio {
			return n
		}
	}
	for i := len(c.keys) - 1; i >= 0 && i >= len(c.keys)-2; i-- {
		k := normKey(c.keys[i])
		switch {
		case strings.Contains(k, "sse"):
			return TransportSSE
		case strings.Contains(k, "streamable"):
			return TransportStreamableHTTP
		}
	}
	if u, err := url.Parse(c.url); err == nil && strings.HasSuffix(strings.ToLower(u.Path), "/sse") {
		return TransportSSE
	}
	return TransportUnknown
}

// Candidate is one URL an mcp.json reader considered as an MCP endpoint, and what it
// made of it: the evidence for it and, when it was not taken, why. It explains the
// reader's decisions to a publisher (wellknown lint --explain); it is data, never a
// server to connect to.
type Candidate struct {
	URL     string   // as published; untrusted
	Pointer string   // RFC 6901 pointer to the URL in the document
	Score   int      // the candidate pass's score; 0 for a URL a known shape read
	Taken   bool     // it is the URL of one of the Document's Servers
	Scored  bool     // judged by the candidate pass; false: by the reader of a known shape
	Reasons []string // the candidate pass's evidence, in the order weighed ("+3 its key names MCP"); nil when a known shape read it (Document.Shape says which)
	Why     string   // why it was not taken; "" when Taken
}

// maxCandidates bounds Document.Candidates.
const maxCandidates = candidateMax

// noteCandidate records the candidate pass's decision on c.
func (r *reader) noteCandidate(c *candidate, taken bool, why string) {
	if len(r.Candidates) >= maxCandidates {
		return
	}
	r.Candidates = append(r.Candidates, Candidate{URL: c.url, Pointer: c.ptr, Score: c.score, Taken: taken, Scored: true, Reasons: c.reasons, Why: why})
}

// noteServer records the decision of a shape reader on the URL u at ptr (ok: taken),
// unless the candidate pass, which records its own, is the caller. warned is the
// number of warnings before the decision: a URL not taken is explained by the
// warning said about it.
func (r *reader) noteServer(ptr, u string, warned int, ok *bool) {
	if r.scoring || u == "" || len(r.Candidates) >= maxCandidates {
		return
	}
	c := Candidate{URL: u, Pointer: ptr, Taken: *ok}
	if !*ok {
		c.Why = lastWarning(r.Warnings, warned, "not usable")
	}
	r.Candidates = append(r.Candidates, c)
}

// lastWarning returns the message of the last of ws added after the first n, or def.
func lastWarning(ws []Problem, n int, def string) string {
	if len(ws) > n {
		return ws[len(ws)-1].Message
	}
	return def
}
