package secrets

import (
	"fmt"
	"net/url"
	"strings"
)

// ConsentURL returns u for a consent prompt about an agent's own call: as a redacted URL is,
// but with the query, so that the person sees what they approve ("?dry_run=true" or
// not): each parameter as sent, except that the value of one whose name suggests a
// credential (key, token, secret, signature, password, session, code) becomes "…",
// and any credential the detectors find in the rest is redacted. hidden reports that
// a value was replaced.
func ConsentURL(u *url.URL) (shown string, hidden bool) {
	if u == nil {
		return "", false
	}
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	if u.RawQuery == "" {
		return Redact(c.String()), false
	}
	var q strings.Builder
	for part := range strings.SplitSeq(u.RawQuery, "&") {
		if part == "" {
			continue
		}
		if q.Len() > 0 {
			q.WriteByte('&')
		}
		name, _, ok := strings.Cut(part, "=")
		if dn, err := url.QueryUnescape(name); err == nil {
			name = dn
		}
		if ok && (CredentialHeader(name) || secretParam(name)) {
			q.WriteString(part[:strings.IndexByte(part, '=')] + "=…")
			hidden = true
			continue
		}
		q.WriteString(part)
	}
	return Redact(c.String() + "?" + escapeInvisible(q.String())), hidden
}

// escapeInvisible percent-encodes the control, format and bidi characters and line
// separators url.Parse leaves raw in a query (U+202E, U+2028...): shown as they are,
// they would reorder or hide the rest of a consent prompt.
func escapeInvisible(s string) string {
	if !strings.ContainsFunc(s, Invisible) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !Invisible(r) {
			b.WriteRune(r)
			continue
		}
		for _, c := range []byte(string(r)) { // an invalid byte is U+FFFD here
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// secretParam reports query parameter names that carry credentials beyond those of
// credentialHeader: signatures, sessions, OAuth codes, passwords spelled short ("pwd",
// "pass"), session ids ("sid").
func secretParam(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"sig", "session", "code", "jwt", "otp", "access", "pwd", "pass"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return n == "sid" || strings.HasSuffix(n, "_sid") || strings.HasSuffix(n, "-sid")
}
