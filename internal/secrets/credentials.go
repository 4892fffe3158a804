package secrets

import (
	"encoding/base64"
	"net/url"
	"strings"
)

// This file decides whether an outgoing request carries the caller's credentials, so
// that the policy guard can say so before the request goes to another origin. The
// decision is conservative: a credential hides in a header or parameter of any name
// (Cf-Access-Jwt-Assertion, X-Amzn-Oidc-Data, ?access_token=), so both the names and
// the values are looked at, and what looks like a credential counts as one.

// Credentials reports whether a request with header h and the raw query rawQuery
// carries a credential, and names where ("header X-Api-Key", "query parameter
// access_token"; never the value). A credential is:
//
//   - a header whose name suggests one ([CredentialHeader]), or one of extra (the
//     headers a discovery document names for an API key), in any spelling;
//   - a query parameter whose name suggests one ([CredentialParam]);
//   - a header or parameter value that holds what [Scan] recognises (bearer and basic
//     credentials, JSON Web Tokens, known key formats) or is shaped like a token
//     ([CredentialValue]), whatever its name;
//   - the same in the query of a URL carried in a header (Referer).
//
// Headers with no value are ignored: net/http does not send them.
//
// h is an http.Header (this package does not import net/http, which the parsers that
// share it have no use for).
func Credentials(h map[string][]string, rawQuery string, extra []string) (where string, ok bool) {
	for k, vs := range h {
		if len(vs) == 0 {
			continue
		}
		if CredentialHeader(k) || containsFold(extra, k) {
			return "header " + k, true
		}
		opaque := !plainHeader(k)
		for _, v := range vs {
			if CredentialValue(v, opaque) {
				return "header " + k, true
			}
			if i := strings.Index(v, "?"); i >= 0 && strings.Contains(v[:i], "://") {
				if name, ok := queryCredential(v[i+1:]); ok {
					return "header " + k + " (query parameter " + name + ")", true
				}
			}
		}
	}
	if name, ok := queryCredential(rawQuery); ok {
		return "query parameter " + name, true
	}
	return "", false
}

// queryCredential reports the first parameter of a raw query (without its '?') whose
// name or value is a credential. Parameters are split on '&' and ';', as servers
// differ on the second, and names and values are read percent-decoded.
func queryCredential(raw string) (string, bool) {
	if i := strings.IndexByte(raw, '#'); i >= 0 {
		raw = raw[:i]
	}
	for part := range strings.FieldsFuncSeq(raw, func(r rune) bool { return r == '&' || r == ';' }) {
		name, value, _ := strings.Cut(part, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if v, err := url.QueryUnescape(value); err == nil {
			value = v
		}
		if CredentialParam(name) || CredentialValue(value, false) || CredentialValue(name, false) {
			return Quote(name, 32), true
		}
	}
	return "", false
}

// credentialWords are words that make a header or parameter name one that carries a
// credential, wherever they appear in it: Authorization, Cookie, Proxy-Authorization,
// X-Auth-Token, Private-Token, Ocp-Apim-Subscription-Key, X-Amz-Security-Token,
// Cf-Access-Jwt-Assertion, X-Goog-Iap-Jwt-Assertion, X-Amzn-Oidc-Data, X-Session-Id,
// X-Csrf-Token...
var credentialWords = []string{
	"auth", "cookie", "token", "secret", "passw", "passphrase", "credential", "signature",
	"session", "sessid", "jwt", "assertion", "oidc", "saml", "bearer", "csrf", "xsrf", "apikey", "api-key", "api_key",
}

// credentialParts are whole parts of a name (between '-', '_', '.' or brackets) that
// mark a credential: short words that would catch too much as substrings.
var credentialParts = []string{"key", "keys", "sid", "sig", "pwd", "pass", "otp", "pin"}

// notCredentialNames are header names that the rules of CredentialHeader would catch
// but that carry no credential of the caller: a request's idempotency key, the
// WebSocket handshake nonce, and the MCP session id, which the server issued to this
// client and which goes back only to that server's endpoint.
var notCredentialNames = []string{"idempotency-key", "x-idempotency-key", "sec-websocket-key", "mcp-session-id"}

// CredentialHeader reports whether a request header name suggests it carries a
// credential, in any spelling (net/http sends the keys of a Header map as they are):
// a name holding one of the credential words (auth, cookie, token, secret, password,
// credential, signature, session, sessid, jwt, assertion, oidc, saml, bearer, csrf,
// xsrf, api key),
// one with a part "key", "sid", "sig", "pwd", "pass", "otp" or "pin", or one that
// ends in "key" (X-Functions-Key). Idempotency-Key, Sec-WebSocket-Key and
// Mcp-Session-Id are not credentials.
func CredentialHeader(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" || containsFold(notCredentialNames, n) {
		return false
	}
	return credentialName(n)
}

// credentialName applies the name rules to a lower-case name.
func credentialName(n string) bool {
	if strings.HasSuffix(n, "key") || strings.HasSuffix(n, "keys") {
		return true
	}
	for _, w := range credentialWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	for part := range strings.FieldsFuncSeq(n, func(r rune) bool { return strings.ContainsRune("-_.[] ", r) }) {
		for _, p := range credentialParts {
			if part == p {
				return true
			}
		}
	}
	return false
}

// paramWords are words that make a query parameter name one that carries a
// credential beyond those of CredentialHeader: signatures ("sig", "X-Amz-Signature"),
// sessions, OAuth codes and access grants, one-time passwords, passwords spelled short.
var paramWords = []string{"sig", "session", "code", "jwt", "otp", "access", "pwd", "pass"}

// CredentialParam reports whether a query parameter name suggests it carries a
// credential: the rules of CredentialHeader, and also any name holding "sig",
// "session", "code", "jwt", "otp", "access", "pwd" or "pass", and "sid" alone or as
// a suffix ("_sid", "-sid"). These are the parameters whose values consent prompts hide.
func CredentialParam(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		return false
	}
	if credentialName(n) {
		return true
	}
	for _, w := range paramWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return n == "sid" || strings.HasSuffix(n, "_sid") || strings.HasSuffix(n, "-sid")
}

// CredentialValue reports whether a header or parameter value holds a credential
// whatever its name: something Scan recognises (a bearer or basic credential, a JSON
// Web Token, a key of a known format), or a value shaped like a token: three or five
// base64url segments separated by dots, the first of which decodes to a JSON object
// (a JWT or JWE of any header). With opaque, a single word of at least 24 characters
// of the base64 and base64url alphabets that mixes upper- and lower-case letters and
// digits counts too (an opaque session or access token; UUIDs, hex trace ids and
// words do not).
func CredentialValue(v string, opaque bool) bool {
	v = strings.TrimSpace(v)
	if len(v) < 8 {
		return false
	}
	if len(Scan(v)) > 0 {
		return true
	}
	for w := range strings.FieldsFuncSeq(v, func(r rune) bool { return strings.ContainsRune(" \t,;\"'", r) }) {
		if jwtShaped(w) {
			return true
		}
		if opaque {
			// "name=value" pairs inside a header value (a cookie-like list) are looked
			// at value by value.
			if _, val, ok := strings.Cut(w, "="); ok && strings.TrimRight(val, "=") != "" {
				w = val
			}
			if opaqueToken(w) {
				return true
			}
		}
	}
	return false
}

// jwtShaped reports a JWS (three segments) or JWE (five) compact serialization: base64url
// segments separated by dots, the first decoding to a JSON object.
func jwtShaped(w string) bool {
	segs := strings.Split(w, ".")
	if len(segs) != 3 && len(segs) != 5 {
		return false
	}
	for i, s := range segs {
		if !base64urlWord(s) || (s == "" && i != len(segs)-1) {
			return false
		}
	}
	head, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(segs[0], "="))
	if err != nil {
		return false
	}
	h := strings.TrimLeft(string(head), " \t\r\n")
	return strings.HasPrefix(h, "{")
}

func base64urlWord(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '=') {
			return false
		}
	}
	return true
}

// opaqueToken reports a single word of at least 24 bytes from the base64, base64url and
// token68 alphabets that holds upper- and lower-case letters and digits and at least 12
// distinct characters.
func opaqueToken(w string) bool {
	if len(w) < 24 || len(w) > 8<<10 {
		return false
	}
	var upper, lower, digit bool
	var seen [128]bool
	distinct := 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= '0' && c <= '9':
			digit = true
		case strings.IndexByte("-._~+/=", c) >= 0:
		default:
			return false
		}
		if !seen[c] {
			seen[c] = true
			distinct++
		}
	}
	return upper && lower && digit && distinct >= 12
}

// plainHeaders are request headers whose values the HTTP specifications define and
// which carry no credential: CredentialValue's opaque-token rule is not applied to
// them (a Content-MD5 digest or an entity tag looks random). Every other rule is.
var plainHeaders = []string{
	"accept", "accept-charset", "accept-encoding", "accept-language", "cache-control", "connection",
	"content-digest", "content-encoding", "content-language", "content-length", "content-md5",
	"content-type", "date", "digest", "etag", "expect", "host", "if-match", "if-modified-since",
	"if-none-match", "if-range", "if-unmodified-since", "last-event-id", "mcp-protocol-version",
	"origin", "pragma", "range", "referer", "repr-digest", "te", "traceparent", "tracestate",
	"mcp-session-id", "upgrade", "user-agent", "via", "want-content-digest", "want-repr-digest", "x-request-id",
	"x-correlation-id", "request-id", "x-amzn-trace-id", "x-b3-traceid", "x-b3-spanid",
	"idempotency-key", "x-idempotency-key", "sec-websocket-key", "sec-websocket-version",
}

// plainHeader reports a header in plainHeaders, in any spelling.
func plainHeader(k string) bool { return containsFold(plainHeaders, k) }

func containsFold(list []string, s string) bool {
	for _, e := range list {
		if strings.EqualFold(e, s) {
			return true
		}
	}
	return false
}
