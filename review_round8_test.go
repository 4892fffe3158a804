package discovery_test

// Round 8 of the security review: each test names its class and failed before its fix.

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
	"time"

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

// TestProxiedRequestsKeepTheGuard (class: a request to a private address from a
// public origin, through a proxy). With a proxy, the dialer connects to the proxy
// only, so the guard saw the proxy's address and never the target's: a public origin
// whose name resolves to a private address (or the agent's call to one) was reached
// through the proxy, which resolves and connects on its own. The target is now
// resolved and checked too when a request goes through a proxy.
func TestProxiedRequestsKeepTheGuard(t *testing.T) {
	t.Parallel()
	s := newSite(t, docs(t, map[string]string{discovery.SkillsPath: "# Behind the proxy\n", "/api": "{}"}))
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
	if err != nil || d.Skills == nil {
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

// TestAPIKeyHeadersAreCredentials (class: credentials sent where they must not go).
// The guard flagged only Authorization, Cookie and Proxy-Authorization as credentials.
// An API key in X-Api-Key (or the header mcp.json names) went to another origin with
// ConsentRequest.Credentials false: asked directly, or after a redirect, which
// net/http follows with every header but Authorization and Cookie. A host whose
// policy is "never send credentials elsewhere" let the key go.
func TestAPIKeyHeadersAreCredentials(t *testing.T) {
	t.Parallel()
	var leaked sync.Map // header → value seen by the other origin
	other := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, vs := range r.Header {
			if strings.Contains(strings.Join(vs, ","), "secret-key") {
				leaked.Store(k, vs[0])
			}
		}
		_, _ = w.Write([]byte("{}"))
	}))
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case discovery.MCPPath:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"mcp": {"spec_version": "2026-04-12", "status": "stable",
				"tools": [{"name": "orders", "url": "/api", "auth": {"type": "api-key", "header": "X-Site-Pass"}}]}}`))
		case "/moved":
			http.Redirect(w, r, other.URL+"/api", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	var mu sync.Mutex
	var asked []discovery.ConsentRequest
	c := newClient(t, s, &discovery.Options{MaxRetries: -1, Consent: func(_ context.Context, r *discovery.ConsentRequest) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, *r)
		return !r.Credentials, nil // this user never sends credentials elsewhere
	}})
	d, err := c.Structured(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: guardOf(t, c, d, nil)}
	for _, h := range []string{"X-Api-Key", "x-auth-token", "Private-Token", "X-Functions-Key", "Ocp-Apim-Subscription-Key", "X-Site-Pass"} {
		for _, start := range []string{other.URL + "/api", s.URL + "/moved"} {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, start, nil)
			req.Header[h] = []string{"secret-key"}
			resp, err := hc.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			if !errors.Is(err, discovery.ErrConsentDenied) {
				t.Errorf("%s to another origin (from %s): error = %v, want a refusal", h, start, err)
			}
		}
	}
	leaked.Range(func(k, v any) bool {
		t.Errorf("header %s reached the other origin", k)
		return true
	})
	// Headers that carry no credential still go without the credentials question.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, other.URL+"/api", nil)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Idempotency-Key", "k1")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("plain cross-origin read: %v", err)
	}
	resp.Body.Close()
}

// TestFreshnessIsCapped (class: a cache that hides what the site serves now). A
// document served once with max-age of a year (or a far Expires, or a Date a year
// ahead) was answered from the cache, and from the fast path, for that year without a
// request: a site that fixed a poisoned skills.md, or withdrew it (404), was never
// asked again by a long-running agent. Freshness is now capped at a day, and a Date
// in the future is read as now; past that the copy is revalidated.
func TestFreshnessIsCapped(t *testing.T) {
	t.Parallel()
	old := time.Now().Add(-48 * time.Hour).UTC().Format(http.TimeFormat)
	ahead := time.Now().Add(365 * 24 * time.Hour).UTC().Format(http.TimeFormat)
	for name, tc := range map[string]struct {
		headers [][2]string
		wait    time.Duration
	}{
		"max-age":     {[][2]string{{"Date", old}, {"Cache-Control", "public, max-age=31536000"}}, 0},
		"expires":     {[][2]string{{"Date", old}, {"Expires", time.Now().Add(365 * 24 * time.Hour).UTC().Format(http.TimeFormat)}}, 0},
		"two ages":    {[][2]string{{"Date", old}, {"Cache-Control", "max-age=31536000"}, {"Cache-Control", "max-age=60"}}, 0},
		"clock ahead": {[][2]string{{"Date", ahead}, {"Cache-Control", "max-age=1"}}, 2100 * time.Millisecond},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var withdrawn atomic.Bool
			s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if withdrawn.Load() {
					http.NotFound(w, r)
					return
				}
				for _, h := range tc.headers {
					w.Header().Add(h[0], h[1])
				}
				w.Header().Set("Content-Type", "text/markdown")
				_, _ = w.Write([]byte("# Poisoned\n"))
			}))
			c := newClient(t, s, &discovery.Options{MaxRetries: -1})
			if _, err := c.Discover(t.Context(), s.URL); err != nil {
				t.Fatal(err)
			}
			withdrawn.Store(true)
			time.Sleep(tc.wait)
			d, err := c.Discover(t.Context(), s.URL)
			if !errors.Is(err, discovery.ErrNotPublished) {
				t.Errorf("after the site withdrew skills.md: %v, %v; want ErrNotPublished (the copy is stale)", d, err)
			}
			if n := s.count(discovery.SkillsPath); n != 2 {
				t.Errorf("skills.md requested %d times, want 2", n)
			}
		})
	}
}
