package mcpjson

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/wellknown-dev/discovery/internal/httpx"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// CheckURL says why rawURL is not a usable absolute endpoint, or returns "". A usable
// endpoint is an absolute https (or wss) URL, or http (ws) on a loopback host, with no
// userinfo. A
// relative URL gives "url is relative": usable only once resolved (see [Resolve]).
func CheckURL(rawURL string) string {
	if rawURL == "" {
		return "url is missing"
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return "url does not parse"
	}
	if u.User != nil {
		return "url carries userinfo (credentials in the URL)"
	}
	switch strings.ToLower(u.Scheme) {
	case "https", "wss":
	case "http", "ws":
		if !httpx.IsLoopbackHost(u.Hostname()) {
			return "url uses plain " + strings.ToLower(u.Scheme) + " on a non-loopback host"
		}
	case "":
		if u.Host != "" || strings.HasPrefix(rawURL, "//") {
			return "url is scheme-relative"
		}
		return relativeURL
	default:
		return "url scheme " + quote(u.Scheme) + " is not allowed"
	}
	if u.Host == "" {
		return "url has no host"
	}
	return ""
}

// Resolve resolves ref (as published: absolute or relative) against base, the URL the
// document was fetched from (RFC 3986), and checks the result with [CheckURL].
func Resolve(base, ref string) (*url.URL, error) {
	b, err := url.Parse(base)
	if err != nil || !b.IsAbs() {
		return nil, fmt.Errorf("mcpjson: base %s is not an absolute URL", quoteURL(base))
	}
	r, err := url.Parse(ref)
	if err != nil {
		// Not wrapped: a *url.Error repeats the whole reference, userinfo and query
		// included.
		return nil, errors.New("mcpjson: reference does not parse as a URL")
	}
	u := b.ResolveReference(r)
	if why := CheckURL(u.String()); why != "" {
		return nil, fmt.Errorf("mcpjson: %s", why)
	}
	return u, nil
}

// Relate tells where rawURL lives relative to origin ("https://example.com"): on the
// same origin (a relative URL is), on a subdomain of the origin's host, or elsewhere.
func Relate(origin, rawURL string) Relation {
	o, err := url.Parse(origin)
	if err != nil || o.Host == "" {
		return RelationOther
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return RelationOther
	}
	if !u.IsAbs() && u.Host == "" {
		return RelationSameOrigin
	}
	scheme := strings.ToLower(u.Scheme)
	switch scheme { // a WebSocket endpoint belongs to the origin of its HTTP twin
	case "wss":
		scheme = "https"
	case "ws":
		scheme = "http"
	}
	oh, uh := strings.ToLower(o.Hostname()), strings.ToLower(u.Hostname())
	if scheme == strings.ToLower(o.Scheme) && uh == oh && effectivePort(u) == effectivePort(o) {
		return RelationSameOrigin
	}
	if scheme == "https" && strings.HasSuffix(uh, "."+oh) {
		return RelationSubdomain
	}
	return RelationOther
}

func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "ws") {
		return "80"
	}
	return "443"
}

// Relation returns where s lives relative to origin; RelationLocal for a local command.
func (s Server) Relation(origin string) Relation {
	if s.LocalOnly {
		return RelationLocal
	}
	return Relate(origin, s.URL)
}

// Relation returns where t lives relative to origin.
func (t Tool) Relation(origin string) Relation { return Relate(origin, t.URL) }

// scanSecrets reports string values that look like credentials, by pointer, without
// the value (SD-S-7, MD-S-8).
func scanSecrets(v any, at string) []Problem {
	var out []Problem
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			out = append(out, scanSecrets(t[k], at+"/"+pointerToken(k))...)
		}
	case []any:
		for i, e := range t {
			out = append(out, scanSecrets(e, fmt.Sprintf("%s/%d", at, i))...)
		}
	case string:
		for _, f := range secrets.Scan(t) {
			out = append(out, Problem{Pointer: at, Severity: SeverityWarning,
				Message: "possible " + f.Kind + " published in the document (value not shown); remove it and rotate the credential"})
		}
	}
	return out
}
