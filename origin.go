package discovery

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/wellknown-dev/discovery/internal/httpx"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Origin is a web origin (RFC 6454): scheme, host and port. It is a comparable value
// type; two Origins are the same origin exactly when they are equal. The zero Origin is
// not a valid origin (see [Origin.IsZero]).
type Origin struct {
	Scheme string // "https", or "http" for a loopback host only
	Host   string // lower-case ASCII (IDNs in punycode); an IPv6 literal without brackets
	Port   string // "" for the scheme's default port (443 or 80)
}

// ParseOrigin parses s as the origin of a web site. It accepts a bare host name
// ("example.com", taken as https), an absolute URL ("https://Example.COM:443/any/path?q#f"),
// an internationalised host name (converted to punycode) and an IPv6 literal in brackets.
// It lower-cases the scheme and host, drops the default port, and drops any path, query,
// fragment and userinfo.
//
// ParseOrigin returns an error wrapping [ErrInsecureOrigin] for http: unless the host is
// loopback (localhost, 127.0.0.0/8 or ::1), and for every scheme other than https and
// http; and an error wrapping [ErrInvalidOrigin] for anything that is not a host.
// Quotes, backticks and angle brackets around s, as people and models write them
// ("<https://example.com>", "`example.com`"), are removed; a bare IPv6 literal gets an
// error that says to bracket it. Error messages never repeat the userinfo, query or
// fragment of s.
func ParseOrigin(s string) (Origin, error) {
	s = cleanOrigin(s)
	if s == "" {
		return Origin{}, fmt.Errorf("%w: empty string", ErrInvalidOrigin)
	}
	if !strings.Contains(s, "://") {
		if strings.Count(s, ":") >= 2 && !strings.HasPrefix(s, "[") {
			if a, err := netip.ParseAddr(s); err == nil {
				return Origin{}, fmt.Errorf("%w: bracket IPv6 literals, as in [%s] or https://[%s]:8443", ErrInvalidOrigin, a, a)
			}
		}
		// A bare host ("example.com", "example.com:8443", "[::1]:8080"). A string with a
		// scheme but no "//" ("javascript:alert(1)", "mailto:x@y") is refused below,
		// because its "host" would then not parse.
		if m := malformedScheme(s); m != "" {
			return Origin{}, fmt.Errorf("%w: the scheme is missing its \"://\": write it as %s", ErrInvalidOrigin, m)
		}
		if i := strings.IndexByte(s, ':'); i > 0 && !strings.HasPrefix(s, "[") {
			scheme := strings.ToLower(s[:i])
			if _, err := strconv.Atoi(firstSegment(s[i+1:])); err != nil && httpx.ValidScheme(scheme) {
				return Origin{}, fmt.Errorf("%w: scheme %q is not allowed", ErrInsecureOrigin, scheme)
			}
		}
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return Origin{}, fmt.Errorf("%w: not a URL", ErrInvalidOrigin)
	}
	return originOf(u)
}

// cleanOrigin trims what people and models put around an origin they quote: blanks,
// matching quotes, backticks, angle brackets or parentheses, a Markdown link's
// brackets, and a trailing comma or semicolon.
func cleanOrigin(s string) string {
	for range 4 {
		s = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), ",;"))
		if len(s) < 2 {
			return s
		}
		switch first, last := s[0], s[len(s)-1]; {
		case first == last && (first == '"' || first == '\'' || first == '`'),
			first == '<' && last == '>', first == '(' && last == ')', first == '[' && last == ']' && !strings.Contains(s, "::"):
			s = s[1 : len(s)-1]
			continue
		}
		return s
	}
	return s
}

// malformedScheme returns the origin s was probably meant to be when it starts with
// "https" or "http" but lacks part of "://" ("https//example.com", "https:/example.com",
// "https:example.com"), else "". Read as a bare host, "https//example.com" would be the
// host "https".
func malformedScheme(s string) string {
	for _, scheme := range []string{"https", "http"} {
		if len(s) <= len(scheme) || !strings.EqualFold(s[:len(scheme)], scheme) {
			continue
		}
		rest := s[len(scheme):]
		trimmed := strings.TrimLeft(rest, ":/")
		if trimmed == rest || trimmed == "" || !strings.HasPrefix(rest, "/") && !strings.HasPrefix(rest, ":") {
			return ""
		}
		if _, err := strconv.Atoi(firstSegment(rest[1:])); err == nil && rest[0] == ':' {
			return "" // "http:8080" is a host named http with a port
		}
		host := firstSegment(trimmed)
		if at := strings.LastIndexByte(host, '@'); at >= 0 {
			host = host[at+1:] // never repeat userinfo
		}
		return strings.ToLower(scheme) + "://" + host
	}
	return ""
}

// firstSegment returns s up to the first '/', '?' or '#'.
func firstSegment(s string) string {
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		return s[:i]
	}
	return s
}

// originOf returns the origin of an absolute URL, applying the scheme rules of
// ParseOrigin. It is also used for every redirect hop and every agent call.
func originOf(u *url.URL) (Origin, error) {
	o, err := splitOrigin(u)
	if err != nil {
		return Origin{}, err
	}
	// Plain http is allowed for loopback hosts only: nothing but this
	// machine can observe or alter the traffic.
	if o.Scheme == "http" && !httpx.IsLoopbackHost(o.Host) {
		return Origin{}, fmt.Errorf("%w: %s uses http", ErrInsecureOrigin, o)
	}
	return o, nil
}

// splitOrigin returns the canonical origin of an absolute http or https URL, without
// the loopback rule of originOf.
func splitOrigin(u *url.URL) (Origin, error) {
	scheme := strings.ToLower(u.Scheme)
	if scheme != "https" && scheme != "http" {
		return Origin{}, fmt.Errorf("%w: scheme %q is not allowed", ErrInsecureOrigin, scheme)
	}
	if u.Opaque != "" {
		return Origin{}, fmt.Errorf("%w: %s URL has no host", ErrInvalidOrigin, scheme)
	}
	host, err := canonicalHost(u.Hostname())
	if err != nil {
		return Origin{}, err
	}
	port := u.Port() // "" also for "example.com:", the default port (RFC 3986 §3.2.3)
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return Origin{}, fmt.Errorf("%w: port %q is out of range", ErrInvalidOrigin, port)
		}
		port = strconv.Itoa(n) // "0443" is 443
		if (scheme == "https" && n == 443) || (scheme == "http" && n == 80) {
			port = ""
		}
	}
	return Origin{Scheme: scheme, Host: host, Port: port}, nil
}

// hostProfile is IDNA2008 lookup (UTS 46 mapping, so "BÜCHER" is "bücher") with DNS
// length checks: no empty label, none over 63 bytes, 253 bytes in all.
var hostProfile = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.VerifyDNSLength(true), idna.StrictDomainName(true))

// canonicalHost lower-cases h and converts an IDN to punycode. IP literals are kept in
// their canonical text form; IPv6 zones are refused (they name an interface of this
// machine, not a site).
func canonicalHost(h string) (string, error) {
	if h == "" {
		return "", fmt.Errorf("%w: no host", ErrInvalidOrigin)
	}
	if strings.Contains(h, ":") { // IPv6 literal (url.URL.Hostname strips the brackets)
		a, err := netip.ParseAddr(h)
		if err != nil || a.Zone() != "" || !a.Is6() {
			return "", fmt.Errorf("%w: bad IPv6 literal", ErrInvalidOrigin)
		}
		return a.String(), nil
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a.String(), nil
	}
	h = strings.TrimSuffix(h, ".") // "example.com." is example.com
	if !utf8.ValidString(h) {
		return "", fmt.Errorf("%w: host is not valid UTF-8", ErrInvalidOrigin)
	}
	ascii, err := hostProfile.ToASCII(h)
	if err != nil || ascii == "" {
		return "", fmt.Errorf("%w: host is not a valid domain name", ErrInvalidOrigin)
	}
	// The canonical form must be a fixed point, or two spellings of one host could
	// compare unequal (or a canonical origin fail to parse again).
	if again, err := hostProfile.ToASCII(ascii); err != nil || again != ascii || strings.HasSuffix(ascii, ".") {
		return "", fmt.Errorf("%w: host is not a valid domain name", ErrInvalidOrigin)
	}
	// A last label that is a number makes the host an IPv4 address to URL parsers and
	// some resolvers ("2130706433" and "0x7f.1" are 127.0.0.1); standard dotted quads
	// were handled above, so anything else of the kind is refused.
	last := ascii[strings.LastIndexByte(ascii, '.')+1:]
	if strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x") && strings.Trim(last[2:], "0123456789abcdef") == "" {
		return "", fmt.Errorf("%w: host looks like a non-standard IPv4 address", ErrInvalidOrigin)
	}
	return strings.ToLower(ascii), nil
}

// String returns the origin's serialisation, such as "https://example.com" or
// "http://[::1]:8080". The zero Origin gives "".
func (o Origin) String() string {
	if o.IsZero() {
		return ""
	}
	return o.Scheme + "://" + o.hostPort()
}

// hostPort returns the URL authority of o: host, and ":port" when it is not the default.
func (o Origin) hostPort() string {
	if o.Port != "" {
		return net.JoinHostPort(o.Host, o.Port)
	}
	if strings.Contains(o.Host, ":") {
		return "[" + o.Host + "]"
	}
	return o.Host
}

// IsZero reports whether o is the zero Origin.
func (o Origin) IsZero() bool { return o == Origin{} }

// IsLoopback reports whether o's host is localhost, in 127.0.0.0/8 or ::1.
func (o Origin) IsLoopback() bool { return httpx.IsLoopbackHost(o.Host) }

// Matches reports whether u is on origin o: same scheme, same host (compared after the
// canonicalisation of [ParseOrigin]) and same effective port. A relative URL never matches.
func (o Origin) Matches(u *url.URL) bool {
	if u == nil || !u.IsAbs() {
		return false
	}
	other, err := splitOrigin(u)
	return err == nil && other == o
}

// Resolve resolves ref (an absolute URL, or a path such as "/api/v1") against the origin
// and returns the absolute URL. It never walks above the origin root.
func (o Origin) Resolve(ref string) (*url.URL, error) {
	r, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return nil, fmt.Errorf("discovery: bad reference: %w", err)
	}
	base := &url.URL{Scheme: o.Scheme, Host: o.hostPort(), Path: "/"}
	return base.ResolveReference(r), nil
}

// redact returns u as text without userinfo, query or fragment, and with any
// credential in its path redacted, for error messages, warnings and consent prompts.
func redact(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	return secrets.Redact(c.String())
}
