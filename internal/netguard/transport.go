package netguard

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/url"
	"time"
)

// NewTransport returns the default transport: the guard as dialer, TLS 1.2 or later
// with certificate verification, no proxy, bounded header size and handshake time,
// and one connection pool per policy class.
func (g *Guard) NewTransport() *Pools {
	return split(&http.Transport{
		DialContext:            g.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 64 << 10,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
	})
}

// Wrap returns base with the guard on every connection. An *http.Transport is cloned
// (never modified): its dialer is replaced by the guard, or, when it has its own dial
// function, each new connection is checked before use; the clone keeps one pool per
// policy class. Any other RoundTripper is guarded per request, by resolving the host
// first; a connection it makes on its own cannot be seen, so prefer an
// *http.Transport.
func (g *Guard) Wrap(base http.RoundTripper) http.RoundTripper {
	t, ok := base.(*http.Transport)
	if !ok {
		return &resolveFirst{g: g, base: base}
	}
	return split(g.guardHTTPTransport(t))
}

// guardHTTPTransport returns a clone of t whose every new connection is checked.
func (g *Guard) guardHTTPTransport(t *http.Transport) *http.Transport {
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
		t.DialContext = g.checked(orig)
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
			if err := g.CheckTarget(req.Context(), req.URL.Hostname()); err != nil {
				return nil, err
			}
			return pu, nil
		}
	}
	if dtls := t.DialTLSContext; dtls != nil {
		t.DialTLSContext = g.checked(dtls)
	}
	return t
}

// checked returns dial with each connection it makes checked before use.
func (g *Guard) checked(dial func(ctx context.Context, network, address string) (net.Conn, error)) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		conn, err := dial(ctx, network, address)
		if err != nil {
			return nil, err
		}
		host, _, _ := net.SplitHostPort(address)
		return g.checkConn(ctx, host, conn)
	}
}

// Pools keeps one connection pool per policy class: requests of a private origin
// (which may reach private addresses) and all others never share a connection. The
// guard checks a connection when it is dialled; were the pools shared, a connection
// opened for a local origin could later carry a public origin's request (a consented
// redirect, an agent call) to the private server without any check.
type Pools struct {
	public, private *http.Transport
}

// split returns Pools of t and a clone of it (same settings, its own pool).
func split(t *http.Transport) *Pools {
	return &Pools{public: t, private: t.Clone()}
}

// RoundTrip implements http.RoundTripper, choosing the pool by the request's policy.
func (s *Pools) RoundTrip(req *http.Request) (*http.Response, error) {
	t := s.public
	if PrivateOK(req.Context()) {
		t = s.private
	}
	resp, err := t.RoundTrip(req)
	return resp, hintPlainHTTP(req.URL, err)
}

// CloseIdleConnections closes the idle connections of both pools.
func (s *Pools) CloseIdleConnections() {
	s.public.CloseIdleConnections()
	s.private.CloseIdleConnections()
}

// resolveFirst guards a RoundTripper whose connections it cannot see: it resolves the
// request's host and refuses it when any address is not permitted.
type resolveFirst struct {
	g    *Guard
	base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (r *resolveFirst) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := r.g.CheckTarget(req.Context(), req.URL.Hostname()); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	resp, err := r.base.RoundTrip(req)
	return resp, hintPlainHTTP(req.URL, err)
}

// CloseIdleConnections forwards to the base transport.
func (r *resolveFirst) CloseIdleConnections() {
	if ci, ok := r.base.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}
