// Package httpx holds the URL rules shared by the root package and the parsers, so
// that each rule is written once, and the one serve-until-done loop of the module's
// loopback servers ([Serve]).
package httpx

import (
	"net/netip"
	"strings"
)

// IsLoopbackHost reports whether host (as url.URL.Hostname gives it) is localhost, in
// 127.0.0.0/8 or ::1, including IPv4-mapped forms. Plain http is allowed only there.
func IsLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// IsLocalHost reports whether host (as url.URL.Hostname gives it) names this machine
// or a private network, as a document published on the public web would only by
// mistake (a development server, an intranet name): localhost and *.localhost (RFC
// 6761), the local names .local, .internal, .lan and .home.arpa, and IP addresses
// that are loopback, private (RFC 1918, fc00::/7), link-local or unspecified,
// IPv4-mapped forms included. The parsers use it to judge what a document points at;
// the connection guard in the root package decides what may be reached.
func IsLocalHost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if IsLoopbackHost(host) {
		return true
	}
	if a, err := netip.ParseAddr(host); err == nil {
		a = a.Unmap()
		return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsUnspecified()
	}
	for _, s := range []string{".localhost", ".local", ".internal", ".lan", ".home.arpa"} {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}

// ValidScheme reports whether s is a lower-case URL scheme (RFC 3986 §3.1).
func ValidScheme(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
		case i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return s != ""
}
