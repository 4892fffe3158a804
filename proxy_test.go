package discovery_test

// Requests through an HTTP proxy keep the private-address guard.

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wellknown-dev/discovery"
)

// connectProxy is an HTTP CONNECT proxy on loopback that tunnels every request to
// target, whatever host it names: a proxy resolves names itself, and here every name
// "resolves" to the test site.
func connectProxy(t *testing.T, target string) (*url.URL, *atomic.Int32) {
	t.Helper()
	var tunnels atomic.Int32
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ErrorLog: quietLog(), Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
			return
		}
		up, err := net.Dial("tcp", target)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		tunnels.Add(1)
		// Hijack first, then answer on the raw connection: a status written through
		// the ResponseWriter before hijacking could reach the client mixed with the
		// tunnel's first bytes (a flake under load).
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			up.Close()
			return
		}
		if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
			conn.Close()
			up.Close()
			return
		}
		var wg sync.WaitGroup
		wg.Go(func() { _, _ = io.Copy(up, conn); up.Close() })
		wg.Go(func() { _, _ = io.Copy(conn, up); conn.Close() })
		wg.Wait()
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	return &url.URL{Scheme: "http", Host: ln.Addr().String()}, &tunnels
}

// TestProxiedRequestsKeepTheGuard: a public origin never reaches a private address
// through a proxy. With a proxy, the dialer connects to the proxy only, so it sees the
// proxy's address and never the target's, and the proxy resolves and connects on its
// own: a public origin whose name resolves to a private address (or the agent's call to
// one) would be reached. The target is resolved and checked too when a request goes
// through a proxy.
func TestProxiedRequestsKeepTheGuard(t *testing.T) {
	t.Parallel()
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: "# Behind the proxy\n", "/api": "{}"}))
	proxy, tunnels := connectProxy(t, s.Listener.Addr().String())
	port := s.URL[strings.LastIndex(s.URL, ":"):]
	mk := func(resolve string) *discovery.Client {
		tlsConf := s.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
		c, err := discovery.NewClientWithHooks(&discovery.Options{
			HTTPClient: &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy), TLSClientConfig: tlsConf}},
			// The proxy runs on loopback: allowed by name, as the Options doc says.
			InsecureAllowPrivateHosts: []string{"127.0.0.1"},
			MaxRetries:                -1,
		}, discovery.TestHooks{Lookup: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr(resolve)}, nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	// A name that resolves to a public address goes through the proxy as before.
	public := mk("93.184.215.14")
	d, err := public.Discover(t.Context(), "https://example.com"+port)
	if err != nil || d.Guide == nil {
		t.Fatalf("public name through the proxy: %v", err)
	}
	resp, err := (&http.Client{Transport: guardOf(t, public, d, nil)}).Get("https://example.com" + port + "/api")
	if err != nil {
		t.Fatalf("agent call through the proxy: %v", err)
	}
	resp.Body.Close()
	before := tunnels.Load()

	// The same name resolving to a private address is refused before the proxy is asked.
	for _, addr := range []string{"127.0.0.1", "169.254.169.254", "10.0.0.7", "::ffff:192.168.1.1"} {
		c := mk(addr)
		if d, err := c.Discover(t.Context(), "https://example.com"+port); !errors.Is(err, discovery.ErrPrivateAddress) {
			t.Errorf("origin resolving to %s through a proxy: Discover = %v, %v; want ErrPrivateAddress", addr, d, err)
		}
		o, err := discovery.ParseOrigin("https://example.com" + port)
		if err != nil {
			t.Fatal(err)
		}
		g, err := c.Guard(&discovery.Discovery{Origin: o}, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := (&http.Client{Transport: g}).Get("https://example.com" + port + "/api")
		if err == nil {
			resp.Body.Close()
		}
		if !errors.Is(err, discovery.ErrPrivateAddress) {
			t.Errorf("agent call to a name resolving to %s through a proxy: %v; want ErrPrivateAddress", addr, err)
		}
	}
	if n := tunnels.Load() - before; n != 0 {
		t.Errorf("%d tunnels opened to names resolving to private addresses", n)
	}
}
