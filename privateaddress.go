package discovery

import (
	"context"
	"fmt"
	"net/http"

	"github.com/wellknown-dev/discovery/internal/netguard"
)

// The root's side of the private-address guard (the dialer and the per-policy pools
// are package internal/netguard): the error it reports and the policy it applies.

// PrivateAddressError reports a connection refused by the private-address guard. It
// wraps [ErrPrivateAddress].
type PrivateAddressError struct {
	Host string // the host name or literal that was asked for
	Addr string // the private address it resolved to
	// Origin is true when the discovery origin itself is private (localhost or a
	// private IP literal) and [Options.InsecureAllowPrivateOrigins] is off.
	Origin bool
}

// Error implements the error interface.
func (e *PrivateAddressError) Error() string {
	if e.Origin {
		return fmt.Sprintf("discovery: origin %s is private (localhost or a private IP literal) and is refused by default; "+
			"set Options.InsecureAllowPrivateOrigins when a person, not a model, chose it (local development)", e.Host)
	}
	if e.Host == e.Addr {
		return fmt.Sprintf("discovery: %s is a private address; refused from a public origin (see Options.InsecureAllowPrivateHosts)", e.Addr)
	}
	return fmt.Sprintf("discovery: %s resolves to %s, a private address; refused from a public origin (see Options.InsecureAllowPrivateHosts)", e.Host, e.Addr)
}

// Unwrap returns ErrPrivateAddress.
func (e *PrivateAddressError) Unwrap() error { return ErrPrivateAddress }

// refusePrivate is the guard's error for host resolving to the private address addr.
func refusePrivate(host, addr string) error { return &PrivateAddressError{Host: host, Addr: addr} }

// privateOrigin reports whether o is itself a private origin: its host is localhost
// or a private or loopback IP literal (a developer testing locally). Only such an
// origin may reach any private address, and only when
// [Options.InsecureAllowPrivateOrigins] let it be discovered at all. A host named in
// Options.InsecureAllowPrivateHosts is not a private origin: that host, and only it,
// may resolve to a private address.
func privateOrigin(o Origin) bool { return netguard.PrivateHost(o.Host) }

// withDialPolicy returns ctx carrying the dial policy of a request made for origin o
// (see netguard.WithPolicy): it may reach private addresses only when o is private.
func withDialPolicy(ctx context.Context, o Origin) context.Context {
	return netguard.WithPolicy(ctx, privateOrigin(o))
}

// guardTransport returns base with the private-address guard on every connection.
func (c *Client) guardTransport(base http.RoundTripper) http.RoundTripper { return c.guard.Wrap(base) }
