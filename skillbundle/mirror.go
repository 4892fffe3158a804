package skillbundle

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/internal/httpx"
)

// ErrMirror wraps every failure of a request sent to a mirror: unreachable, a
// redirect, an error status.
var ErrMirror = errors.New("skillbundle: mirror")

// Mirror fetches skill artifacts from a mirror of an origin, while everything that
// decides what is accepted still comes from the origin: the index (and so every
// digest), the Trust Manifests beside the artifacts, and the publishers' keys. A
// mirror changes where the artifact bytes come from, never what is accepted: bytes
// that differ from the origin's index are refused by the Client's digest check, a
// mirror cannot drop or replace a signature (none is read from it), and a mirror's
// own index is never read.
//
// The mirror has the origin's layout below its base URL: the artifact
// https://example.com/.well-known/agent-skills/pdf.tar.gz is read from
// MIRROR/.well-known/agent-skills/pdf.tar.gz. An unpacked bundle served by any
// static web server is such a mirror.
//
// Install it with Options.WrapTransport = m.WrapTransport, read the index with
// Client.ListSkills, call [Mirror.Use] with it, then Client.GetSkill: until Use,
// every request goes to the origin. A Mirror is safe for concurrent use.
type Mirror struct {
	base *url.URL
	mu   sync.Mutex
	// origin and paths are what Use set: the index's origin and the paths of the
	// artifacts it lists there.
	origin string
	paths  map[string]bool
}

// NewMirror returns a Mirror whose base URL is mirrorURL: https, or http on a
// loopback host (as origins are), without userinfo, query or fragment.
func NewMirror(mirrorURL string) (*Mirror, error) {
	u, err := url.Parse(mirrorURL)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%w: %q is not an absolute URL without userinfo, query or fragment", ErrMirror, mirrorURL)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && httpx.IsLoopbackHost(u.Hostname()):
	default:
		return nil, fmt.Errorf("%w: %s must be https (or http on a loopback host)", ErrMirror, u.Redacted())
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return &Mirror{base: u}, nil
}

// URL returns the mirror's base URL.
func (m *Mirror) URL() string { return m.base.String() }

// Use makes the artifacts ix lists on its own origin (each entry's URL, or each file
// of a file list) come from the mirror from now on. Artifacts on other origins, the
// index, Trust Manifests and keys still come from where they are published.
func (m *Mirror) Use(ix *discovery.SkillsIndex) {
	paths := map[string]bool{}
	origin := ix.Origin.String()
	add := func(raw string) {
		if u, err := url.Parse(raw); err == nil {
			if o, err := originOf(u); err == nil && o == origin && u.RawQuery == "" {
				paths[u.Path] = true
			}
		}
	}
	for _, e := range ix.Index.Skills {
		if len(e.Files) > 0 {
			for _, f := range e.Files {
				add(f.URL)
			}
			continue
		}
		add(e.URL)
	}
	delete(paths, urlPath(ix.Index.URL)) // an entry cannot make the index a mirrored file
	m.mu.Lock()
	m.origin, m.paths = origin, paths
	m.mu.Unlock()
}

func urlPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Path
}

// WrapTransport returns base with the mirror's artifacts redirected to the mirror: a
// GET of an artifact named by [Mirror.Use] is sent to the mirror's URL for it,
// through base (so the Client's private-address guard applies to the mirror too) and
// answered as if the origin had answered it; a redirect from the mirror is an error
// (a mirror serves each file at its path). Every other request goes to base unchanged.
// Use it as discovery.Options.WrapTransport.
func (m *Mirror) WrapTransport(base http.RoundTripper) http.RoundTripper {
	return &mirrorTransport{m: m, base: base}
}

type mirrorTransport struct {
	m    *Mirror
	base http.RoundTripper
}

func (t *mirrorTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	target, ok := t.m.target(req)
	if !ok {
		return t.base.RoundTrip(req)
	}
	out := req.Clone(req.Context())
	out.URL, out.Host = target, ""
	resp, err := t.base.RoundTrip(out)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrMirror, target.Redacted(), err)
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		resp.Body.Close()
		return nil, fmt.Errorf("%w %s answered %s: a mirror must serve the file at its path, not redirect", ErrMirror, target.Redacted(), resp.Status)
	}
	resp.Request = req
	return resp, nil
}

// target returns the mirror URL for req, when req is a GET of a mirrored artifact.
func (m *Mirror) target(req *http.Request) (*url.URL, bool) {
	if req.Method != http.MethodGet || req.URL.RawQuery != "" {
		return nil, false
	}
	o, err := originOf(req.URL)
	m.mu.Lock()
	ok := err == nil && o == m.origin && m.paths[req.URL.Path]
	m.mu.Unlock()
	if !ok {
		return nil, false
	}
	u := *m.base
	u.Path = m.base.Path + req.URL.Path
	return &u, true
}
