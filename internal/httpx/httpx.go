// Package httpx holds the URL rules shared by the root package and the parsers, so
// that each rule is written once.
package httpx

import "net/netip"

// IsLoopbackHost reports whether host (as url.URL.Hostname gives it) is localhost, in
// 127.0.0.0/8 or ::1, including IPv4-mapped forms. Plain http is allowed only there.
func IsLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
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
