package discovery

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// This file holds the private-address guard: no connection from a public discovery
// origin may reach loopback, a private network, link-local addresses (cloud metadata
// at 169.254.169.254) or other special ranges. It is checked in the dialer, on the
// addresses actually connected to, after DNS resolution, so a host that resolves (or
// rebinds) to a private address cannot slip past a check made on its name.

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

// isPrivate reports whether a is in a range a public origin may not reach, including
// the IPv4-mapped, IPv4-compatible, IPv4-translated, NAT64 and 6to4 forms of such
// addresses.
func isPrivate(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a):
			a = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		case sixTo4.Contains(a):
			if isPrivate(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})) {
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

// PrivateAddressError reports a connection refused by the private-address guard. It
// wraps [ErrPrivateAddress].
type PrivateAddressError struct {
	Host string // the host name or literal that was asked for
	Addr string // the private address it resolved to
	// Origin is true when the discovery origin itself is private (localhost or a
	// private IP literal) and [Options.AllowPrivateOrigins] is off.
	Origin bool
}

// Error implements the error interface.
func (e *PrivateAddressError) Error() string {
	if e.Origin {
		return fmt.Sprintf("discovery: origin %s is private (localhost or a private IP literal) and is refused by default; "+
			"set Options.AllowPrivateOrigins when a person, not a model, chose it (local development)", e.Host)
	}
	if e.Host == e.Addr {
		return fmt.Sprintf("discovery: %s is a private address; refused from a public origin (see Options.InsecureAllowPrivateHosts)", e.Addr)
	}
	return fmt.Sprintf("discovery: %s resolves to %s, a private address; refused from a public origin (see Options.InsecureAllowPrivateHosts)", e.Host, e.Addr)
}

// Unwrap returns ErrPrivateAddress.
func (e *PrivateAddressError) Unwrap() error { return ErrPrivateAddress }

// dialPolicy travels in the request context: it says whether the request was made for
// an origin that may reach private addresses (the origin is one itself, and the Client
// allows private origins). It also selects the connection pool (see splitTransport),
// so a connection opened under one policy is never reused under another.
type dialPolicy struct{ privateOK bool }

type dialPolicyKey struct{}

func withDialPolicy(ctx context.Context, o Origin) context.Context {
	return context.WithValue(ctx, dialPolicyKey{}, &dialPolicy{privateOK: privateOrigin(o)})
}

// privateOKFrom reports whether ctx carries a policy that lets it reach any private
// address. A request without a policy gets the strict one.
func privateOKFrom(ctx context.Context) bool {
	p, _ := ctx.Value(dialPolicyKey{}).(*dialPolicy)
	return p != nil && p.privateOK
}

// privateOrigin reports whether o is itself a private origin: its host is localhost
// or a private or loopback IP literal (a developer testing locally). Only such an
// origin may reach any private address, and only when [Options.AllowPrivateOrigins]
// let it be discovered at all. A host named in Options.InsecureAllowPrivateHosts is
// not a private origin: that host, and only it, may resolve to a private address.
func privateOrigin(o Origin) bool {
	if o.Host == "localhost" || strings.HasSuffix(o.Host, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(o.Host)
	return err == nil && isPrivate(a)
}

// dialGuard dials only addresses the request's policy allows.
type dialGuard struct {
	allow  map[string]bool                                                      // canonical hosts always allowed
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)         // nil: the system resolver
	dial   func(ctx context.Context, network, address string) (net.Conn, error) // connects to a checked ip:port
}

func newDialGuard(allow map[string]bool) *dialGuard {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &dialGuard{allow: allow, dial: d.DialContext}
}

// permits reports whether host, resolved to a, may be reached under ctx's policy.
func (g *dialGuard) permits(ctx context.Context, host string, a netip.Addr) bool {
	if !isPrivate(a) || g.allow[strings.ToLower(host)] {
		return true
	}
	// A request without a policy did not come through this package's fetch or guard
	// (it cannot happen on our transports); refuse rather than guess.
	return privateOKFrom(ctx)
}

// DialContext resolves address itself, checks every IP, and connects to the first
// permitted one by IP, so the address checked is the address connected to.
func (g *dialGuard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	var refused error
	var permitted []string
	for _, a := range interleave(addrs) {
		if !g.permits(ctx, host, a) {
			if refused == nil {
				refused = &PrivateAddressError{Host: host, Addr: a.Unmap().String()}
			}
			continue
		}
		permitted = append(permitted, net.JoinHostPort(a.Unmap().String(), port))
	}
	switch {
	case len(permitted) > 0:
		return g.race(ctx, network, permitted)
	case refused != nil:
		return nil, refused
	}
	return nil, fmt.Errorf("discovery: %s has no address", host)
}

// resolve returns host's addresses: an IP literal as is, a name through the test
// hook or the system resolver.
func (g *dialGuard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	if g.lookup != nil {
		return g.lookup(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// fallbackDelay is how long a connection attempt runs alone before the next address
// is tried beside it (RFC 8305 "Happy Eyeballs"): a host whose IPv6 route is broken
// must not cost a full connect timeout.
const fallbackDelay = 300 * time.Millisecond

// interleave orders addresses by alternating families, starting with the first's.
func interleave(addrs []netip.Addr) []netip.Addr {
	if len(addrs) < 2 {
		return addrs
	}
	var first, other []netip.Addr
	for _, a := range addrs {
		if a.Unmap().Is4() == addrs[0].Unmap().Is4() {
			first = append(first, a)
		} else {
			other = append(other, a)
		}
	}
	out := make([]netip.Addr, 0, len(addrs))
	for i := 0; i < len(first) || i < len(other); i++ {
		if i < len(first) {
			out = append(out, first[i])
		}
		if i < len(other) {
			out = append(out, other[i])
		}
	}
	return out
}

// race dials the addresses in order, starting the next one when the previous fails or
// after fallbackDelay, and returns the first connection; the others are closed.
func (g *dialGuard) race(ctx context.Context, network string, addrs []string) (net.Conn, error) {
	if len(addrs) == 1 {
		return g.dial(ctx, network, addrs[0])
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		conn net.Conn
		err  error
	}
	results := make(chan result, len(addrs)) // buffered: no sender ever blocks
	launched, done := 0, 0
	launch := func() {
		a := addrs[launched]
		launched++
		go func() {
			c, err := g.dial(ctx, network, a)
			results <- result{c, err}
		}()
	}
	launch()
	timer := time.NewTimer(fallbackDelay)
	defer timer.Stop()
	var firstErr error
	for done < launched {
		select {
		case r := <-results:
			done++
			if r.err == nil {
				cancel()
				for range launched - done { // the losers end promptly once ctx is cancelled
					if l := <-results; l.conn != nil {
						l.conn.Close()
					}
				}
				return r.conn, nil
			}
			if firstErr == nil {
				firstErr = r.err
			}
			if launched < len(addrs) {
				launch()
				timer.Reset(fallbackDelay)
			}
		case <-timer.C:
			if launched < len(addrs) {
				launch()
				timer.Reset(fallbackDelay)
			}
		}
	}
	return nil, firstErr
}

// checkConn is the after-the-fact check for a caller's own dial function: the
// connection is closed, before any byte is sent, when its peer is not permitted.
func (g *dialGuard) checkConn(ctx context.Context, host string, conn net.Conn) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(conn.RemoteAddr().String())
	if err != nil {
		return conn, nil // not an IP connection (a Unix socket): nothing to check
	}
	if !g.permits(ctx, host, ap.Addr()) {
		conn.Close()
		return nil, &PrivateAddressError{Host: host, Addr: ap.Addr().Unmap().String()}
	}
	return conn, nil
}

// guardTransport returns base with the private-address guard on every connection. An
// *http.Transport is cloned (never modified): its dialer is replaced by the guard, or,
// when it has its own dial function, each new connection is checked before use. Any
// other RoundTripper is guarded per request, by resolving the host first; a
// connection it makes on its own cannot be seen, so prefer an *http.Transport.
func (g *dialGuard) guardTransport(base http.RoundTripper) http.RoundTripper {
	t, ok := base.(*http.Transport)
	if !ok {
		return &resolveFirst{g: g, base: base}
	}
	return split(g.guardHTTPTransport(t))
}

// guardHTTPTransport returns a clone of t whose every new connection is checked.
func (g *dialGuard) guardHTTPTransport(t *http.Transport) *http.Transport {
	t = t.Clone()
	//lint:ignore SA1019 a caller's transport may still set the deprecated Dial; it must be guarded too
	dial := t.Dial
	switch {
	case t.DialContext == nil && dial == nil:
		t.DialContext = g.DialContext
	default:
		orig := t.DialContext
		if orig == nil {
			orig = func(_ context.Context, n, a string) (net.Conn, error) { return dial(n, a) }
		}
		t.DialContext = func(ctx context.Context, network, address string) (net.Conn, error) {
			conn, err := orig(ctx, network, address)
			if err != nil {
				return nil, err
			}
			host, _, _ := net.SplitHostPort(address)
			return g.checkConn(ctx, host, conn)
		}
	}
	if proxy := t.Proxy; proxy != nil {
		// Through a proxy the dialer connects to the proxy only, and the proxy resolves
		// and connects to the target on its own: the guard above would see the proxy's
		// address, never the target's. So a proxied request's target is resolved here
		// and checked first (every request, pooled connections included: net/http asks
		// Proxy per request). The proxy resolves the name again, so a name whose answer
		// changes between the two lookups can still slip past; a name that resolves to
		// a private address, or a private literal, cannot.
		t.Proxy = func(req *http.Request) (*url.URL, error) {
			pu, err := proxy(req)
			if err != nil || pu == nil {
				return pu, err // direct: the dialer checks the target
			}
			if err := g.checkTarget(req.Context(), req.URL.Hostname()); err != nil {
				return nil, err
			}
			return pu, nil
		}
	}
	if dtls := t.DialTLSContext; dtls != nil {
		t.DialTLSContext = func(ctx context.Context, network, address string) (net.Conn, error) {
			conn, err := dtls(ctx, network, address)
			if err != nil {
				return nil, err
			}
			host, _, _ := net.SplitHostPort(address)
			return g.checkConn(ctx, host, conn)
		}
	}
	return t
}

// splitTransport keeps one connection pool per policy class: requests of a private
// origin (which may reach private addresses) and all others never share a connection.
// The guard checks a connection when it is dialled; were the pools shared, a
// connection opened for a local origin could later carry a public origin's request
// (a consented redirect, an agent call) to the private server without any check.
type splitTransport struct {
	public, private *http.Transport
}

// split returns a splitTransport of t and a clone of it (same settings, its own pool).
func split(t *http.Transport) *splitTransport {
	return &splitTransport{public: t, private: t.Clone()}
}

// RoundTrip implements http.RoundTripper, choosing the pool by the request's policy.
func (s *splitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if privateOKFrom(req.Context()) {
		return s.private.RoundTrip(req)
	}
	return s.public.RoundTrip(req)
}

// CloseIdleConnections closes the idle connections of both pools.
func (s *splitTransport) CloseIdleConnections() {
	s.public.CloseIdleConnections()
	s.private.CloseIdleConnections()
}

// resolveFirst guards a RoundTripper whose connections it cannot see: it resolves the
// request's host and refuses it when any address is not permitted.
type resolveFirst struct {
	g    *dialGuard
	base http.RoundTripper
}

// checkTarget resolves host and refuses it when any of its addresses is not permitted
// under ctx's policy: for connections the guard cannot see (a proxy's, a foreign
// RoundTripper's). A name that does not resolve is refused too.
func (g *dialGuard) checkTarget(ctx context.Context, host string) error {
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return err
	}
	for _, a := range addrs {
		if !g.permits(ctx, host, a) {
			return &PrivateAddressError{Host: host, Addr: a.Unmap().String()}
		}
	}
	return nil
}

// RoundTrip implements http.RoundTripper.
func (r *resolveFirst) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := r.g.checkTarget(req.Context(), req.URL.Hostname()); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	return r.base.RoundTrip(req)
}

// CloseIdleConnections forwards to the base transport.
func (r *resolveFirst) CloseIdleConnections() {
	if ci, ok := r.base.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}
