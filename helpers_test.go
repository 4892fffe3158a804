package discovery_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/wellknown-dev/discovery"
)

// site is a TLS test origin that counts requests per path.
type site struct {
	*httptest.Server
	mu   sync.Mutex // guards hits and reqs
	hits map[string]int
	reqs []*http.Request
}

func (s *site) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *site) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, v := range s.hits {
		n += v
	}
	return n
}

func (s *site) last() *http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		return nil
	}
	return s.reqs[len(s.reqs)-1]
}

// newSite starts a TLS server on loopback running h, counting requests per path.
func newSite(t *testing.T, h http.Handler) *site {
	t.Helper()
	s := &site{hits: map[string]int{}}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.reqs = append(s.reqs, r.Clone(r.Context()))
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// newClient returns a Client that trusts the test servers' certificate.
func newClient(t *testing.T, s *site, opts *discovery.Options) *discovery.Client {
	t.Helper()
	var o discovery.Options
	if opts != nil {
		o = *opts
	}
	if o.HTTPClient == nil {
		o.HTTPClient = s.Client()
	}
	o.InsecureAllowPrivateOrigins = true // the test servers are on loopback
	c, err := discovery.NewClient(&o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// docs serves fixed documents by path; other paths are 404.
func docs(t *testing.T, files map[string]string) http.Handler {
	t.Helper()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		switch {
		case strings.HasSuffix(r.URL.Path, ".md"):
			w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		case strings.HasSuffix(r.URL.Path, ".json"):
			w.Header().Set("Content-Type", "application/json")
		}
		_, _ = w.Write([]byte(body))
	})
}

// newTLSServer starts a TLS test server on loopback.
func newTLSServer(h http.Handler) *httptest.Server { return httptest.NewTLSServer(h) }

func readFileB(b *testing.B, name string) string {
	b.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// quietLog drops the test servers' own log lines (TLS handshake errors are expected).
func quietLog() *log.Logger { return log.New(io.Discard, "", 0) }

// publicEnv is a Client whose "public.example" is a public address (203.0.113.7) that
// the dial hook sends to the test server, so a public origin can be tested on loopback.
type publicEnv struct {
	s      *site
	c      *discovery.Client
	loop   string // the server as a private origin: https://127.0.0.1:port
	public string // https://public.example:port
}

func newPublicEnv(t *testing.T, h http.Handler, opts discovery.Options) *publicEnv {
	t.Helper()
	s := newSite(t, h)
	_, port, _ := net.SplitHostPort(s.Listener.Addr().String())
	pub := netip.MustParseAddr("203.0.113.7")
	var d net.Dialer
	hooks := discovery.TestHooks{
		Lookup: func(_ context.Context, host string) ([]netip.Addr, error) { return []netip.Addr{pub}, nil },
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if addr == net.JoinHostPort(pub.String(), port) {
				addr = s.Listener.Addr().String()
			}
			return d.DialContext(ctx, network, addr)
		},
	}
	tlsOnly := &http.Transport{TLSClientConfig: s.Client().Transport.(*http.Transport).TLSClientConfig.Clone()}
	tlsOnly.TLSClientConfig.ServerName = "example.com" // httptest's certificate names example.com
	opts.HTTPClient = &http.Client{Transport: tlsOnly}
	c, err := discovery.NewClientWithHooks(&opts, hooks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return &publicEnv{s: s, c: c, loop: s.URL, public: "https://public.example:" + port}
}

// loopbackOnly dials loopback addresses only: tests that name private or public
// addresses must never send a packet to them.
func loopbackOnly(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if host != "localhost" {
		if a, err := netip.ParseAddr(host); err != nil || !a.Unmap().IsLoopback() {
			return nil, fmt.Errorf("test dialer: %s is not loopback; refused", addr)
		}
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

var (
	errAny  = errors.New("any error")
	errHook = errors.New("the consent UI crashed")
)
