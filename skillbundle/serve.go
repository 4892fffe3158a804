package skillbundle

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/wellknown-dev/discovery/agentskills"
)

// WrapTransport returns a transport that answers every request from the bundle and
// never calls base: use it as discovery.Options.WrapTransport, and the Client reads
// the bundle's origin with no network at all. The Client then verifies what it reads
// exactly as it verifies the origin: artifacts against the bundled index's digests,
// Trust Manifests against its TrustRoots (keys pinned in the roots; a JWKS URL or a
// DID cannot be fetched offline), RequireSignedSkills honoured, and URLs, identities
// and lock sources those of the origin.
//
// A GET or HEAD of a URL on the bundle's origin is answered with the bundled bytes
// and Content-Type, or 404 Not Found when the bundle does not hold it; any other
// method fails, and so does a request to another origin, wrapping [ErrNotInBundle].
func (b *Bundle) WrapTransport(base http.RoundTripper) http.RoundTripper {
	return bundleTransport{b}
}

type bundleTransport struct{ b *Bundle }

func (t bundleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		return nil, fmt.Errorf("%w: a bundle answers only GET and HEAD, not %s", ErrNotInBundle, req.Method)
	}
	o, err := originOf(req.URL)
	if err != nil || o != t.b.Manifest.Origin {
		return nil, fmt.Errorf("%w: %s is not on the bundle's origin %s (offline: nothing else is fetched)", ErrNotInBundle, redactURL(req), t.b.Manifest.Origin)
	}
	resp := &http.Response{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{}, Request: req}
	f := t.b.files[strings.TrimPrefix(req.URL.Path, "/")]
	if f == nil || req.URL.RawQuery != "" {
		resp.StatusCode, resp.Status = http.StatusNotFound, "404 Not Found"
		resp.Header.Set("Content-Type", "text/plain; charset=utf-8")
		resp.Body = http.NoBody
		return resp, nil
	}
	resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
	if f.ctype != "" {
		resp.Header.Set("Content-Type", f.ctype)
	}
	resp.Header.Set("Content-Length", strconv.Itoa(len(f.data)))
	resp.ContentLength = int64(len(f.data))
	resp.Body = io.NopCloser(bytes.NewReader(f.data))
	if req.Method == http.MethodHead {
		resp.Body = http.NoBody
	}
	return resp, nil
}

// redactURL is the request's URL without userinfo, query or fragment, for errors.
func redactURL(req *http.Request) string {
	u := *req.URL
	u.User, u.RawQuery, u.Fragment, u.RawFragment = nil, "", "", ""
	return u.String()
}

// Source returns what to pass to Client.ListSkills to read the bundle's index: its
// origin, with the path under which the index was found when it was not at the root.
func (b *Bundle) Source() string {
	p := mustPath(b.Manifest.Origin, b.Manifest.Index)
	for _, suffix := range []string{agentskills.IndexPath, agentskills.LegacyIndexPath} {
		if prefix, ok := strings.CutSuffix("/"+p, suffix); ok {
			return b.Manifest.Origin + prefix
		}
	}
	return b.Manifest.Origin
}
