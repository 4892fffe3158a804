package netguard

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"
)

// Config configures a [Guard]. The zero value of each field is the production
// default; Lookup and Dial are replaced by tests only.
type Config struct {
	// Allow lists canonical host names that may resolve to private addresses even for
	// a public origin (Options.InsecureAllowPrivateHosts).
	Allow map[string]bool
	// Lookup resolves a host name. nil: the system resolver.
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial connects to a checked ip:port. nil: a net.Dialer with a 10 s timeout.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
	// Refuse builds the error of a refused connection to host, which resolved to the
	// private address addr. The caller's package owns the error type (it wraps its
	// ErrPrivateAddress); nil: a plain error.
	Refuse func(host, addr string) error
}

// Guard dials only addresses the request's policy allows. It is immutable and safe
// for concurrent use.
type Guard struct {
	allow  map[string]bool
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	dial   func(ctx context.Context, network, address string) (net.Conn, error)
	refuse func(host, addr string) error
}

// New returns the Guard configured by cfg.
func New(cfg Config) *Guard {
	g := &Guard{allow: cfg.Allow, lookup: cfg.Lookup, dial: cfg.Dial, refuse: cfg.Refuse}
	if g.dial == nil {
		d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
		g.dial = d.DialContext
	}
	if g.lookup == nil {
		g.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	if g.refuse == nil {
		g.refuse = func(host, addr string) error {
			return fmt.Errorf("netguard: %s resolves to %s, a private address", host, addr)
		}
	}
	return g
}

// permits reports whether host, resolved to a, may be reached under ctx's policy.
func (g *Guard) permits(ctx context.Context, host string, a netip.Addr) bool {
	if !IsPrivate(a) || g.allow[strings.ToLower(host)] {
		return true
	}
	// A request without a policy did not come through the fetch pipeline or the policy
	// guard (it cannot happen on our transports); refuse rather than guess.
	return PrivateOK(ctx)
}

// DialContext resolves address itself, checks every IP, and connects to the first
// permitted one by IP, so the address checked is the address connected to.
func (g *Guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
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
				refused = g.refuse(host, a.Unmap().String())
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

// resolve returns host's addresses: an IP literal as is, a name through the resolver.
func (g *Guard) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	return g.lookup(ctx, host)
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
func (g *Guard) race(ctx context.Context, network string, addrs []string) (net.Conn, error) {
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
func (g *Guard) checkConn(ctx context.Context, host string, conn net.Conn) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(conn.RemoteAddr().String())
	if err != nil {
		return conn, nil // not an IP connection (a Unix socket): nothing to check
	}
	if !g.permits(ctx, host, ap.Addr()) {
		conn.Close()
		return nil, g.refuse(host, ap.Addr().Unmap().String())
	}
	return conn, nil
}

// CheckTarget resolves host and refuses it when any of its addresses is not permitted
// under ctx's policy: for connections the guard cannot see (a proxy's, a foreign
// RoundTripper's). A name that does not resolve is refused too.
func (g *Guard) CheckTarget(ctx context.Context, host string) error {
	addrs, err := g.resolve(ctx, host)
	if err != nil {
		return err
	}
	for _, a := range addrs {
		if !g.permits(ctx, host, a) {
			return g.refuse(host, a.Unmap().String())
		}
	}
	return nil
}
