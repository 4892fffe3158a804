package netguard

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
)

// The request rules of the policy guard: which requests only read, which can write
// whatever their method, and a capped response body. The guard itself (consent,
// origins, credentials) is the root package's Client.Guard.

// IsSafeMethod reports the methods that only read: GET (also spelled ""), HEAD and
// OPTIONS, exactly so spelled. TRACE, CONNECT and every other method are writes.
func IsSafeMethod(m string) bool {
	switch m {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	return false
}

// methodOverrides are the headers through which frameworks let a request name another
// method than the one it is sent with (Rails, Laravel, Express, Google APIs...).
var methodOverrides = []string{"X-Http-Method-Override", "X-Http-Method", "X-Method-Override"}

// maxOverridePeek bounds the body WriteSign reads to look for a "_method" field.
const maxOverridePeek = 4 << 20

// WriteSign reports why req can write whatever its method: it opens a tunnel
// (CONNECT), asks to switch protocols (an Upgrade header, "upgrade" in Connection, a
// WebSocket handshake header: the 101 that follows hands over a two-way stream), or
// overrides its method (an override header, or a "_method" parameter in the query or
// the body, in any spelling). Header names are compared in any case, as net/http
// sends them as written. It returns "" when there is no such sign. To look at a body,
// it reads it (up to maxOverridePeek bytes: a larger one counts as a sign) and returns
// a shallow copy of req that carries the body whole; req itself is not modified.
func WriteSign(req *http.Request) (*http.Request, string) {
	if strings.EqualFold(req.Method, http.MethodConnect) {
		return req, "it opens a tunnel (CONNECT)"
	}
	for k, vs := range req.Header {
		if len(vs) == 0 {
			continue
		}
		switch {
		case strings.EqualFold(k, "Upgrade"), strings.EqualFold(k, "HTTP2-Settings"),
			len(k) >= 14 && strings.EqualFold(k[:14], "Sec-WebSocket-"):
			return req, "it asks to switch protocols (Upgrade)"
		case strings.EqualFold(k, "Connection") && slices.ContainsFunc(vs, func(v string) bool {
			return strings.Contains(strings.ToLower(v), "upgrade")
		}):
			return req, "it asks to switch protocols (Upgrade)"
		case slices.ContainsFunc(methodOverrides, func(h string) bool { return strings.EqualFold(k, h) }):
			return req, "it overrides its method (" + k + ")"
		}
	}
	if req.URL != nil && mentionsMethodField(req.URL.RawQuery) {
		return req, "it overrides its method (_method)"
	}
	if req.Body == nil || req.Body == http.NoBody {
		return req, ""
	}
	orig := req.Body
	data, err := io.ReadAll(io.LimitReader(orig, maxOverridePeek+1))
	r := new(http.Request)
	*r = *req
	if err != nil || len(data) > maxOverridePeek {
		// Too large to look at: the transport gets everything, the part read first.
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(data), orig), orig}
		return r, "its body is too large to check for a method override"
	}
	orig.Close()
	r.Body = io.NopCloser(bytes.NewReader(data))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	if mentionsMethodField(string(data)) {
		return r, "it overrides its method (_method)"
	}
	return r, ""
}

// mentionsMethodField reports "_method" in a query or body, in any case, raw or
// percent-encoded ("%5Fmethod"): a form field, a JSON key or a query parameter that a
// framework may read as the request's method.
func mentionsMethodField(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "_method") || strings.Contains(l, "%5fmethod")
}

// IsEventStream reports a text/event-stream response, whose body the guard does not
// cap as one document (the MCP client bounds each call's events itself).
func IsEventStream(resp *http.Response) bool {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return strings.EqualFold(mt, "text/event-stream")
}

// CapBody returns rc bounded to limit bytes: a read past the limit fails with
// tooLarge (the root's ErrTooLarge, wrapped), and so does every read after it.
func CapBody(rc io.ReadCloser, limit int64, tooLarge error) io.ReadCloser {
	return &cappedBody{rc: rc, left: limit, tooLarge: tooLarge}
}

// cappedBody is a body of CapBody.
type cappedBody struct {
	rc       io.ReadCloser
	left     int64
	tooLarge error
}

// Read implements io.Reader.
func (c *cappedBody) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, c.tooLarge
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.rc.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return 0, c.tooLarge
	}
	return n, err
}

// Close implements io.Closer.
func (c *cappedBody) Close() error { return c.rc.Close() }
