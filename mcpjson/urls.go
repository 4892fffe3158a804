package mcpjson

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
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
// the value (neither file may hold keys, tokens, passwords or other secrets: an auth
// object says how to authenticate, never with what), in pointer order (members by key, elements by index).
// The walk builds no pointer: one is made only for a finding, which is rare.
func scanSecrets(v any, at string) []Problem {
	var s secretScan
	s.walk(v)
	if len(s.found) == 0 {
		return nil
	}
	sort.SliceStable(s.found, func(i, j int) bool { return pathLess(s.found[i].path, s.found[j].path) })
	out := make([]Problem, len(s.found))
	for i, f := range s.found {
		var b strings.Builder
		b.WriteString(at)
		for _, st := range f.path {
			b.WriteByte('/')
			if st.index >= 0 {
				b.WriteString(strconv.Itoa(st.index))
			} else {
				b.WriteString(pointerToken(st.key))
			}
		}
		out[i] = Problem{Pointer: b.String(), Severity: SeverityWarning,
			Message: "possible " + f.kind + " published in the document (value not shown); remove it and rotate the credential"}
	}
	return out
}

// pathStep is one step of a JSON pointer: an object key, or an array index (>= 0).
type pathStep struct {
	key   string
	index int // -1 for a key
}

type secretFinding struct {
	path []pathStep
	kind string
}

// secretScan walks a decoded document, keeping the path to the current value.
type secretScan struct {
	path  []pathStep
	found []secretFinding
}

func (s *secretScan) walk(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			s.path = append(s.path, pathStep{k, -1})
			s.walk(e)
			s.path = s.path[:len(s.path)-1]
		}
	case []any:
		for i, e := range t {
			s.path = append(s.path, pathStep{index: i})
			s.walk(e)
			s.path = s.path[:len(s.path)-1]
		}
	case string:
		for _, f := range secrets.Scan(t) {
			s.found = append(s.found, secretFinding{path: slices.Clone(s.path), kind: f.Kind})
		}
	}
}

// pathLess orders paths as a walk by sorted keys and increasing indices visits them.
// Steps at one depth under one parent are both keys or both indices.
func pathLess(a, b []pathStep) bool {
	for i := range min(len(a), len(b)) {
		x, y := a[i], b[i]
		switch {
		case x.index >= 0 && y.index >= 0 && x.index != y.index:
			return x.index < y.index
		case x.index < 0 && y.index < 0 && x.key != y.key:
			return x.key < y.key
		case (x.index < 0) != (y.index < 0):
			return x.index < 0
		}
	}
	return len(a) < len(b)
}
