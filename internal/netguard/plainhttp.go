package netguard

import (
	"crypto/tls"
	"errors"
	"net/http"
	"net/url"

	"github.com/wellknown-dev/discovery/internal/httpx"
)

// plainHTTPError is the failure of an https request to a loopback server that answered
// in plain http: "localhost:8080" typed without a scheme (so https was assumed) is
// usually a local development server, and the error says to use http://. It wraps
// http.ErrSchemeMismatch, as net/http's own error for this case does, and the TLS
// error.
type plainHTTPError struct {
	host string // host:port of the request
	err  error  // the tls.RecordHeaderError
}

// Error implements the error interface.
func (e *plainHTTPError) Error() string {
	return http.ErrSchemeMismatch.Error() + " (the server speaks plain http: try http://" + e.host + ")"
}

// Unwrap returns http.ErrSchemeMismatch and the TLS error.
func (e *plainHTTPError) Unwrap() []error { return []error{http.ErrSchemeMismatch, e.err} }

// hintPlainHTTP returns err as a *plainHTTPError when it is the failure of an https
// request for u, a loopback URL, to a server that answered in plain http; any other
// err as it is. Every transport of this package applies it, so every request made
// through one (a discovery fetch, a skill, a catalog, an MCP session) gets the hint.
func hintPlainHTTP(u *url.URL, err error) error {
	var rec tls.RecordHeaderError
	if err == nil || u.Scheme != "https" || !httpx.IsLoopbackHost(u.Hostname()) ||
		!errors.As(err, &rec) || string(rec.RecordHeader[:]) != "HTTP/" {
		return err
	}
	return &plainHTTPError{host: u.Host, err: err}
}
