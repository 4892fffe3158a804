package discovery

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Sentinel errors. Test for them with [errors.Is]; messages may change.
var (
	// ErrInvalidOrigin is returned by [ParseOrigin] (and so by every call that takes an
	// origin) when the string is not a host name, an IP literal or an absolute URL.
	ErrInvalidOrigin = errors.New("discovery: invalid origin")

	// ErrInsecureOrigin is returned when a URL would be fetched without TLS: an http:
	// origin whose host is not loopback, a scheme other than https and http, a redirect
	// from https to http, or an agent call through [Client.Guard] to such a URL.
	ErrInsecureOrigin = errors.New("discovery: insecure origin: https is required (plain http only for loopback hosts)")

	// ErrCrossOrigin is returned when a redirect leaves the discovery origin and the
	// [ConsentFunc] did not allow it. Exactly one request was sent. The error names the
	// target, so the caller may retry with the new origin (example.com to www.example.com).
	ErrCrossOrigin = errors.New("discovery: redirect to another origin")

	// ErrConsentDenied is returned when the [ConsentFunc] answered false (or is nil) for an
	// action that needs the user's consent: a write, or a request to another origin.
	ErrConsentDenied = errors.New("discovery: consent denied")

	// ErrNotPublished is returned by [Client.Discover] and [Client.Structured] when the
	// origin publishes neither /.well-known/skills.md nor /.well-known/mcp.json (404, 410, or
	// an HTML page served in their place). It is an answer, not a failure.
	ErrNotPublished = errors.New("discovery: origin publishes no discovery document")

	// ErrTooLarge is returned when a document body, after decompression, is larger than
	// [Options.MaxDocumentBytes]. Reading stops at the cap.
	ErrTooLarge = errors.New("discovery: document exceeds the size limit")

	// ErrTooManyRedirects is returned when a fetch meets more than five redirects.
	ErrTooManyRedirects = errors.New("discovery: too many redirects")

	// ErrPrivateAddress is wrapped (by a [*PrivateAddressError]) when a connection from
	// a public origin would reach a private address: loopback, RFC 1918, link-local
	// (cloud metadata), CGNAT, unique-local, multicast, unspecified, or a mapped form of
	// these. It applies to discovery fetches, every redirect hop, and agent calls
	// through [Client.Guard].
	ErrPrivateAddress = errors.New("discovery: private address refused")

	// ErrLocalOnly is returned when the agent would connect to an MCP server that the
	// document describes as a local command or package (mcpjson.Server.LocalOnly):
	// nothing is ever spawned or connected for it; a person may install it.
	ErrLocalOnly = errors.New("discovery: the server is a local command; nothing to connect to")

	// ErrRetryAfterTooLong is returned (wrapped in an [*HTTPError]) when a server asks the
	// client to wait longer than the Retry-After cap; the client gives up at once instead
	// of sleeping, and falls back to the last good copy when it has one.
	ErrRetryAfterTooLong = errors.New("discovery: Retry-After exceeds the cap")
)

// HTTPError reports an unexpected HTTP status from a discovery endpoint, after retries.
type HTTPError struct {
	URL        string // redacted: no userinfo, query or fragment
	StatusCode int
	Attempts   int   // requests sent for this document, retries included
	Err        error // a more specific cause such as ErrRetryAfterTooLong, or nil
}

// Error implements the error interface.
func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("discovery: GET %s: %d %s", e.URL, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Attempts > 1 {
		msg += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	if e.Err != nil {
		msg += ": " + unprefixed(e.Err)
	}
	return msg
}

// Unwrap returns the specific cause, if any.
func (e *HTTPError) Unwrap() error { return e.Err }

// FetchError reports a discovery document that could not be retrieved or used: a network
// failure after retries, a body over the cap, or content that failed to parse or validate.
// Err is the cause; it wraps the parser's error ([*skillsmd.SyntaxError],
// [*mcpjson.SyntaxError], [*mcpjson.ValidationError]) when the content was at fault.
type FetchError struct {
	URL      string // redacted: no userinfo, query or fragment
	Attempts int    // requests sent for this document, retries included
	Err      error
}

// Error implements the error interface.
func (e *FetchError) Error() string {
	return fmt.Sprintf("discovery: GET %s: %s", e.URL, unprefixed(e.Err))
}

// unprefixed returns err's text without a leading "discovery: ", so that wrapping one
// of this package's errors does not say "discovery:" twice, and scrubbed: a cause from
// net/http may quote a URL the site chose (a Location header that does not parse), with
// its userinfo or query.
func unprefixed(err error) string {
	if err == nil {
		return "<nil>"
	}
	return secrets.Scrub(strings.TrimPrefix(err.Error(), "discovery: "))
}

// RedirectError reports a redirect to another origin that was not followed: the
// ConsentFunc said no (or failed). It wraps that answer's error, and so
// [ErrCrossOrigin]. A caller can retry with To (the apex-to-www case) without parsing
// a message.
type RedirectError struct {
	From Origin // the discovery origin
	To   Origin // where the redirect went
	URL  string // the redirect's target, redacted
	Err  error  // the consent answer: wraps ErrCrossOrigin, or the hook's error
}

// Error implements the error interface.
func (e *RedirectError) Error() string {
	return fmt.Sprintf("discovery: %s redirects to another origin, %s: %s", e.From, e.To, unprefixed(e.Err))
}

// Unwrap returns the consent answer's error.
func (e *RedirectError) Unwrap() error { return e.Err }

// errNilContext is returned when a nil context.Context is passed.
var errNilContext = errors.New("discovery: nil Context; pass context.Background() or a request's context")

// Unwrap returns the cause.
func (e *FetchError) Unwrap() error { return e.Err }
