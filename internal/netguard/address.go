// Package netguard keeps connections made for a public discovery origin away from
// the machine's own network: loopback, private ranges, link-local addresses (cloud
// metadata at 169.254.169.254) and the other special ranges. The check is made in the
// dialer, on the addresses actually connected to, after DNS resolution, so a host
// that resolves (or rebinds) to a private address cannot slip past a check made on
// its name. It also keeps one connection pool per policy class, so a connection
// opened under one policy is never reused under another.
//
// The policy of a request is one small immutable value in its context, set by
// [WithPolicy]: net/http calls the dialer with the request's context, and that is the
// only way a per-request decision reaches it.
package netguard

import (
	"net/netip"
	"strings"
)

// blockedPrefixes are the ranges a public origin may never reach.
var blockedPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",       // "this network", unspecified
		"10.0.0.0/8",      // RFC 1918
		"100.64.0.0/10",   // CGNAT, RFC 6598
		"127.0.0.0/8",     // loopback
		"169.254.0.0/16",  // link-local, cloud metadata
		"172.16.0.0/12",   // RFC 1918
		"192.0.0.0/24",    // IETF protocol assignments
		"192.168.0.0/16",  // RFC 1918
		"198.18.0.0/15",   // benchmarking
		"224.0.0.0/4",     // multicast
		"240.0.0.0/4",     // reserved, broadcast
		"::/128",          // unspecified
		"::1/128",         // loopback
		"fc00::/7",        // unique local
		"fec0::/10",       // site-local (deprecated, still routed inside some networks)
		"::/96",           // IPv4-compatible ::a.b.c.d (deprecated; never a public host)
		"::ffff:0:0:0/96", // IPv4-translated ::ffff:0:a.b.c.d (SIIT, RFC 6145)
		"64:ff9b:1::/48",  // local-use NAT64 (RFC 8215): a translator inside this network
		"fe80::/10",       // link-local
		"ff00::/8",        // multicast
		"100::/64",        // discard
		"2001:db8::/32",   // documentation
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// Prefixes that embed an IPv4 address, which is checked too: the well-known NAT64
// prefix (RFC 6052, the address in the last 32 bits) and 6to4 (RFC 3056, bits 16-47).
var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4 = netip.MustParsePrefix("2002::/16")
)

// IsPrivate reports whether a is in a range a public origin may not reach, including
// the IPv4-mapped, IPv4-compatible, IPv4-translated, NAT64 and 6to4 forms of such
// addresses.
func IsPrivate(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a):
			a = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		case sixTo4.Contains(a):
			if IsPrivate(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})) {
				return true
			}
		}
	}
	for _, p := range blockedPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return !a.IsValid()
}

// PrivateHost reports whether host, in canonical form, names a private origin:
// localhost (and *.localhost) or a private or loopback IP literal (a developer testing
// locally). Only such an origin may reach any private address. A host merely allowed
// to resolve privately (Config.Allow) is not a private origin.
func PrivateHost(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && IsPrivate(a)
}
