package mcpjson

import (
	"net/url"
	"strings"

	"github.com/wellknown-dev/discovery/internal/httpx"
)

// unusable says why an endpoint that passes CheckURL (or is relative, or does not
// parse) still cannot be used as written, or returns "":
//   - text, a word or a name under a URL key ("coming soon", "none", "@acme/x-mcp",
//     a host without a scheme): no URL;
//   - a URI template ("/mcp/sse/{connector_id}"): a variable must be filled in first;
//   - a placeholder host ("TODO:", "your-worker.workers.dev", "<host>"), and, in a
//     public document (Options.URL), the reserved example domains (RFC 2606);
//   - in a public document, a loopback or private address: it names the publisher's
//     own machine or network, never the reader's server;
//   - the document's own URL: an mcp.json is not an MCP endpoint.
func (r *reader) unusable(raw string) string {
	if strings.ContainsAny(strings.TrimSpace(raw), " \t\r\n") {
		return "url is text (" + quote(raw) + "), not a URL"
	}
	if strings.ContainsAny(raw, "{}") || strings.Contains(strings.ToLower(raw), "%7b") {
		return "url is a URI template (a {variable} must be filled in before connecting)"
	}
	if strings.ContainsAny(raw, "<>") || strings.Contains(raw, "${") || strings.HasPrefix(raw, "$") {
		return "url is a placeholder (" + quote(raw) + "), not a real endpoint" // "<DEPLOYMENT_URL>/api/mcp"
	}
	if !strings.Contains(raw, "/") && !strings.Contains(raw, ":") {
		return "url is a word (" + quote(raw) + "), not a URL"
	}
	if !strings.Contains(raw, "://") && !strings.HasPrefix(raw, "/") && !strings.HasPrefix(raw, "./") &&
		!strings.HasPrefix(raw, "../") && !strings.Contains(raw, ":") {
		// "@acme/x-mcp", "api.acme.dev/mcp": a package name or a host without a scheme.
		return "url " + quote(raw) + " has no scheme and is not a path, not a URL"
	}
	auth := authority(raw)
	if placeholderHost(auth) {
		return "url is a placeholder, not a real endpoint"
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	if r.public && host != "" {
		switch {
		case reservedHost(host):
			return "url is on a reserved example domain (a placeholder) in a public document"
		case !publicHost(host):
			return "url is a loopback or private address in a public document (it cannot be the reader's endpoint)"
		}
	}
	if r.base != nil {
		ref := r.base.ResolveReference(u)
		if endpointKey(ref.String()) == endpointKey(r.base.String()) {
			return "url is the address of this mcp.json document itself, not an MCP endpoint"
		}
	}
	if doc := documentPath(u.Path); doc != "" {
		return "url is " + doc + ", not an MCP endpoint"
	}
	if site := codeHostPage(u); site != "" {
		return "url is a page on " + site + " (a code-hosting site or package registry: the server's source or package), not an MCP endpoint"
	}
	if site := staticPagesHost(host); site != "" {
		return "url is on " + site + ", a static file host that answers no MCP request, not an MCP endpoint"
	}
	return ""
}

// staticPagesHosts are the suffixes of hosts that only serve static files (GitHub,
// GitLab and Codeberg Pages): no MCP server runs there.
var staticPagesHosts = []string{"github.io", "gitlab.io", "codeberg.page"}

// staticPagesHost returns the static file host (see staticPagesHosts) host is on, or "".
func staticPagesHost(host string) string {
	host = strings.TrimSuffix(host, ".")
	for _, h := range staticPagesHosts {
		if host == h || strings.HasSuffix(host, "."+h) {
			return h
		}
	}
	return ""
}

// codeHosts are the web hosts of code-hosting sites and package registries, without
// "www.": a URL there is a repository, package or project page, never an MCP endpoint.
var codeHosts = map[string]bool{"github.com": true, "gist.github.com": true, "raw.githubusercontent.com": true,
	"gitlab.com": true, "bitbucket.org": true, "codeberg.org": true, "git.sr.ht": true, "npmjs.com": true,
	"pypi.org": true, "crates.io": true, "pkg.go.dev": true, "rubygems.org": true, "nuget.org": true,
	"packagist.org": true, "hub.docker.com": true, "jsr.io": true, "marketplace.visualstudio.com": true,
	"open-vsx.org": true}

// codeHostPage returns the host of a URL on a code-hosting site or package registry
// (see codeHosts), or "". GitLab serves its own MCP endpoint under /api/: a URL there
// is not a page.
func codeHostPage(u *url.URL) string {
	host := strings.TrimPrefix(strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), "www.")
	if !codeHosts[host] || host == "gitlab.com" && strings.HasPrefix(strings.ToLower(u.Path), "/api/") {
		return ""
	}
	return host
}

// authority returns the part of a URL between "//" and the next "/", "?" or "#",
// lower-cased; "" for a relative reference.
func authority(raw string) string {
	_, rest, ok := strings.Cut(raw, "//")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return strings.ToLower(rest)
}

// placeholderHost reports a host that a template left unfilled.
func placeholderHost(auth string) bool {
	if auth == "" {
		return false
	}
	if strings.ContainsAny(auth, "<>") {
		return true
	}
	for _, w := range []string{"todo", "your-", "your_", "yourdomain", "yoursite", "your.", "xxx", "placeholder",
		"changeme", "change-me", "replace-me", "replace_me"} {
		if strings.HasPrefix(auth, w) || strings.Contains(auth, "."+w) || strings.Contains(auth, "@"+w) {
			return true
		}
	}
	return false
}

// reservedHost reports the RFC 2606 example domains and special-use names.
func reservedHost(host string) bool {
	for _, d := range []string{"example.com", "example.org", "example.net", "example", "test", "invalid"} {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// publicHost reports a host that is neither loopback, private, link-local nor a local
// name (httpx.IsLocalHost).
func publicHost(host string) bool { return host != "" && !httpx.IsLocalHost(host) }

// endpointKey identifies an endpoint for de-duplication: scheme and host lower-cased,
// no trailing slash, no fragment.
func endpointKey(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Scheme, u.Host, u.Fragment = strings.ToLower(u.Scheme), strings.ToLower(u.Host), ""
	return strings.TrimSuffix(u.String(), "/")
}

// documentPath says what document a URL path names, or "": a path under /.well-known/
// (a server card, a discovery document) or a file with a document extension
// (".json", ".md"...). An MCP endpoint is neither: such a URL under "url" is a pointer.
func documentPath(path string) string {
	p := strings.ToLower(path)
	switch {
	case strings.Contains(p, "/.well-known/"):
		return "a well-known discovery document (" + quote(path) + ")"
	case strings.HasSuffix(p, ".json"), strings.HasSuffix(p, ".md"), strings.HasSuffix(p, ".yaml"), strings.HasSuffix(p, ".yml"),
		strings.HasSuffix(p, ".txt"), strings.HasSuffix(p, ".html"):
		return "a document (" + quote(path) + ")"
	}
	return ""
}
