package skillsmd

import (
	"strings"

	"github.com/wellknown-dev/discovery/internal/lazyre"
)

// Documents name their MCP server in a few ways: a label ("MCP endpoint:
// https://x/mcp", "**MCP Server:** `https://x/mcp`", "- Remote MCP: ..."), a table row
// whose first cell names MCP, a frontmatter key (mcp_url, mcp_endpoint, mcp_server,
// also under metadata), an endpoint written after a method or in a curl command whose
// path ends in /mcp or /sse or whose host is an "mcp." subdomain ("POST
// https://x/api/mcp"), or a client configuration in a code block ("mcpServers": {...
// "url": "https://mcp.x"}). Document.MCP lists each URL once, in document
// order, frontmatter keys last. They are data, never connected to: a client checks them (origin, scheme,
// consent) before use, as any other URL from the document.

// maxMCP bounds the MCP endpoints kept.
const maxMCP = 16

// mcpLabelRe finds a label naming an MCP server: "MCP", "MCP endpoint", "MCP server
// URL", "Remote MCP", "mcp_url", followed by ":" or "=".
var mcpLabelRe = lazyre.New(`(?i)(?:^|[^\w./-])["']?((?:remote |hosted )?mcp(?:[ _-]?(?:server|endpoint|url|uri))?(?:[ _-]?(?:url|uri|endpoint))?)["']?\s*[:=]\s*`)

// mcpKeys are frontmatter keys (folded as baseKeys are) that name the MCP endpoint.
var mcpKeys = map[string]bool{
	"mcp": true, "mcpurl": true, "mcpuri": true, "mcpendpoint": true, "mcpserver": true, "mcpserverurl": true,
}

// addMCP records an MCP endpoint once: an absolute http(s) URL without userinfo, or
// a path.
func (p *parser) addMCP(u string) {
	u = strings.TrimRight(u, ".,;:)")
	if !plausibleBase(u) || len(p.doc.MCP) >= maxMCP || isDocumentName(lastSegment(u)) {
		return // "/mcp.md" is a page about the server
	}
	for _, m := range p.doc.MCP {
		if strings.TrimRight(m, "/") == strings.TrimRight(u, "/") {
			return
		}
	}
	p.doc.MCP = append(p.doc.MCP, u)
}

// mcpLabels reads the MCP labels of one line of plain text ("MCP endpoint: x"). A
// label whose value is a page about the server ("MCP server: https://x/docs/mcp") is
// not its endpoint.
func (p *parser) mcpLabels(l string) {
	for _, m := range mcpLabelRe().FindAllStringSubmatchIndex(l, 4) {
		if v, _ := baseValue(l[m[1]:]); v != "" && !pageURL(v) {
			p.addMCP(v)
		}
	}
}

// pageURL reports a URL of a page to read rather than an endpoint to call: under a
// documentation, guide or blog path, or a source file on a code host.
func pageURL(u string) bool {
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		rest = u
	}
	host, path, _ := strings.Cut(rest, "/")
	switch strings.ToLower(host) {
	case "github.com", "www.github.com", "gitlab.com", "www.npmjs.com", "npmjs.com", "pypi.org":
		return true
	}
	for path != "" {
		var seg string
		seg, path, _ = strings.Cut(path, "/")
		switch strings.ToLower(seg) {
		case "docs", "doc", "documentation", "guide", "guides", "blog", "learn", "help", "tutorials", "wiki":
			return true
		}
	}
	return false
}

// mcpIn records the MCP endpoint URLs of a block, on public hosts (a developer's
// local server in an example is not the site's): URLs whose path ends in /mcp or /sse
// or whose host is an "mcp." subdomain, and in a code block that configures an MCP
// client ("mcpServers": {"x": {"url": "https://..."}}) every URL given as a url or
// endpoint. In prose, list items and tables, only URLs written after an HTTP method
// or in a curl command count ("POST https://x/mcp"), or in a line that names MCP
// ("Point your MCP client at https://x/mcp") when the URL is not a page about it
// ("https://x/docs/mcp"), since prose also links to pages about MCP. Only text
// holding "://" can name one (see noteURLs).
func (p *parser) mcpIn(text string, code bool) {
	mcp := strings.Contains(text, "mcp") // in each of the words below but "/sse"
	config := code && mcp && (strings.Contains(text, "mcpServers") || strings.Contains(text, "mcp_servers"))
	if !config && !(mcp && strings.Contains(text, "/mcp")) && !strings.Contains(text, "/sse") {
		return // the common case ("://mcp." contains "/mcp")
	}
	for rest := text; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		keyed := config && configURLKey(line)
		if !keyed && !mcpPath(line) {
			continue
		}
		curl := strings.HasPrefix(strings.TrimLeft(line, " \t$>"), "curl ")
		named := !code && strings.Contains(line, "MCP") // prose naming MCP, not a URL's "mcp"
		for off := 0; off < len(line); {
			i := strings.Index(line[off:], "http")
			if i < 0 {
				break
			}
			start := off + i
			off = start + 4
			switch {
			case code || curl || methodBefore(line[:start]):
				p.mcpURL(line[start:], keyed)
			case named && !pageURL(urlAt(line[start:])):
				p.mcpURL(line[start:], false)
			}
		}
	}
}

// mcpPathsIn records the MCP endpoint paths of text without absolute URLs: a path
// ending in /mcp or /sse in a line that names MCP ("Kanbots is an HTTP MCP server
// (`/api/mcp`)"). A path states no origin, so it is never the base (mcpOnlyBase).
func (p *parser) mcpPathsIn(text string) {
	if !strings.Contains(text, "MCP") || !mcpPath(text) {
		return // the common case
	}
	for rest := text; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if !strings.Contains(line, "MCP") || !mcpPath(line) {
			continue
		}
		for _, w := range strings.Fields(line) {
			w = strings.TrimRight(strings.Trim(w, "`\"'*()[]<>"), ".,;:")
			if strings.HasPrefix(w, "/") && !strings.HasPrefix(w, "//") && mcpEndpointPath(w) && !pageURL(w) {
				p.addMCP(w)
			}
		}
	}
}

// mcpPath reports whether s contains "/mcp" or "/sse".
func mcpPath(s string) bool {
	return strings.Contains(s, "/mcp") || strings.Contains(s, "/sse")
}

// configURLKey reports a line of a client configuration that gives a server's URL:
// "url", "serverUrl", "httpUrl", "endpoint" as a key.
func configURLKey(line string) bool {
	l := strings.ToLower(line)
	for _, k := range [...]string{`"url"`, `"serverurl"`, `"httpurl"`, `"endpoint"`, "url:", "url =", "endpoint:"} {
		if strings.Contains(l, k) {
			return true
		}
	}
	return false
}

// urlAt returns the URL at the start of s, up to the first blank or delimiter.
func urlAt(s string) string {
	if j := strings.IndexAny(s, " \t\"'`<>()[]{}\\|,"); j >= 0 {
		return s[:j]
	}
	return s
}

// mcpURL records the absolute URL at the start of s when its host is public and it
// names an MCP endpoint: its path ends in /mcp or /sse, its host is an "mcp."
// subdomain, or (keyed) a client configuration gives it as a server's URL.
func (p *parser) mcpURL(s string, keyed bool) {
	if !strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "http://") {
		return
	}
	if j := strings.IndexAny(s, " \t\"'`<>()[]{}\\|,"); j >= 0 {
		s = s[:j]
	}
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimRight(s, ".;:*")
	_, rest, _ := strings.Cut(s, "://")
	host, path, _ := strings.Cut(rest, "/")
	if !plainHost(host) || localHost(host) {
		return
	}
	if !keyed && !mcpEndpointPath("/"+path) && !strings.HasPrefix(strings.ToLower(host), "mcp.") {
		return
	}
	p.addMCP(s)
}

// mcpRow reads a table row whose first cell names MCP ("| MCP | https://x/mcp |").
func (p *parser) mcpRow(label, cells string) bool {
	l := " " + normalizeHeading(label) + " "
	if !strings.Contains(l, " mcp ") {
		return false
	}
	for _, w := range [...]string{" key ", " token ", " secret ", " password "} {
		if strings.Contains(l, w) {
			return true // "SYRA_MCP_API_KEY": a credential for MCP, not its endpoint
		}
	}
	if v, _ := rowValue(cells, true); v != "" && !pageURL(v) {
		p.addMCP(v)
	}
	return true
}
