package discovery_test

// A public origin never reaches a private address: not through a pooled connection,
// an allow-listed name or an address form that embeds a private one.

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wellknown-dev/discovery"
)

// TestPooledConnectionsKeepThePolicy: a connection opened for a private
// origin is never reused for a public origin's request, whether a consented redirect
// or an agent call. On a cold pool the request is refused; it must be refused on a
// warm one too.
func TestPooledConnectionsKeepThePolicy(t *testing.T) {
	t.Parallel()
	for _, warm := range []bool{false, true} {
		t.Run(fmt.Sprintf("warm=%v", warm), func(t *testing.T) {
			t.Parallel()
			var loopURL atomic.Value
			var redirect atomic.Bool
			e := newPublicEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.URL.Path == "/secret":
					fmt.Fprint(w, "# Secret\n\nthe private server answered\n")
				case redirect.Load() && strings.HasPrefix(r.Host, "public.example") && r.URL.Path == discovery.GuidePath:
					http.Redirect(w, r, loopURL.Load().(string)+"/secret", http.StatusFound)
				case r.URL.Path == discovery.GuidePath:
					w.Header().Set("Cache-Control", "no-store")
					fmt.Fprint(w, goodSkills)
				default:
					http.NotFound(w, r)
				}
			}), discovery.Options{Consent: discovery.AllowAll, InsecureAllowPrivateOrigins: true, MaxRetries: -1})
			loopURL.Store(e.loop)
			warmUp := func() {
				if warm { // a local origin, legitimately: its connection goes to a pool
					if _, err := e.c.Discover(t.Context(), e.loop); err != nil {
						t.Fatal(err)
					}
				}
			}
			warmUp()
			redirect.Store(true)
			_, err := e.c.Discover(t.Context(), e.public)
			if !errors.Is(err, discovery.ErrPrivateAddress) {
				t.Errorf("redirect from a public origin to a private one: error = %v", err)
			}
			if n := e.s.count("/secret"); n != 0 {
				t.Errorf("the private server was reached %d times through a redirect", n)
			}
			// The agent's own call, from the public origin's Discovery.
			redirect.Store(false)
			d, err := e.c.Discover(t.Context(), e.public)
			if err != nil {
				t.Fatal(err)
			}
			warmUp()
			resp, err := (&http.Client{Transport: guardOf(t, e.c, d, nil)}).Get(e.loop + "/secret")
			if err == nil {
				resp.Body.Close()
			}
			if !errors.Is(err, discovery.ErrPrivateAddress) {
				t.Errorf("agent call from a public origin to a private one: error = %v", err)
			}
			if n := e.s.count("/secret"); n != 0 {
				t.Errorf("the private server was reached %d times", n)
			}
		})
	}
}

// TestAllowListNamesOnlyThatHost: naming a host in InsecureAllowPrivateHosts
// lets that host resolve to a private address and does not make it a private origin:
// its redirects and agent calls reach no other private address.
func TestAllowListNamesOnlyThatHost(t *testing.T) {
	t.Parallel()
	var loop string
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/secret":
			fmt.Fprint(w, "# Secret\n")
		case strings.HasPrefix(r.Host, "example.com") && r.URL.Path == discovery.GuidePath:
			http.Redirect(w, r, loop+"/secret", http.StatusFound)
		case r.URL.Path == "/ok.md":
			fmt.Fprint(w, goodSkills)
		default:
			http.NotFound(w, r)
		}
	}))
	loop = s.URL
	// httptest's client dials example.com to the server itself: the allow list is
	// what lets that private peer through.
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: s.Client(), InsecureAllowPrivateHosts: []string{"example.com"},
		Consent: discovery.AllowAll, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Discover(t.Context(), "https://example.com")
	if !errors.Is(err, discovery.ErrPrivateAddress) || s.count("/secret") != 0 {
		t.Fatalf("redirect from an allow-listed host to another private address: error = %v, reached %d", err, s.count("/secret"))
	}
	// An agent call from example.com's Discovery to another private address.
	s.Config.Handler = docs(t, map[string]string{discovery.GuidePath: goodSkills, "/secret": "x"})
	d, err := c.Discover(t.Context(), "https://example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, base := range []http.RoundTripper{nil, s.Client().Transport} {
		resp, err := (&http.Client{Transport: guardOf(t, c, d, &discovery.GuardOptions{Base: base})}).Get(loop + "/secret")
		if err == nil {
			resp.Body.Close()
		}
		if !errors.Is(err, discovery.ErrPrivateAddress) {
			t.Errorf("agent call (base %T) from an allow-listed host to 127.0.0.1: error = %v", base, err)
		}
	}
	// The named host itself still works for agent calls.
	resp, err := (&http.Client{Transport: guardOf(t, c, d, nil)}).Get("https://example.com/.well-known/skills.md")
	if err != nil {
		t.Fatalf("the allow-listed host itself: %v", err)
	}
	resp.Body.Close()
}

// TestPrivateOriginsRefusedByDefault: a model can be talked into choosing a
// private origin; by default every entry point refuses it before any request.
func TestPrivateOriginsRefusedByDefault(t *testing.T) {
	t.Parallel()
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: goodSkills}))
	// Should the refusal ever regress, no packet may leave this machine.
	tr := s.Client().Transport.(*http.Transport).Clone()
	tr.DialContext = loopbackOnly
	hc := &http.Client{Transport: tr}
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	for _, origin := range []string{
		s.URL, "http://localhost:8080/admin", "https://169.254.169.254", "https://10.0.0.9", "http://127.0.0.1:1",
		"https://[::1]:8443", "https://[fd00::1]", "https://app.localhost", "https://192.168.1.1", "https://[::ffff:10.0.0.1]",
		"http://LOCALHOST:9", "https://100.64.0.1",
	} {
		_, err := c.Discover(t.Context(), origin)
		var pe *discovery.PrivateAddressError
		if !errors.Is(err, discovery.ErrPrivateAddress) || !errors.As(err, &pe) || !pe.Origin {
			t.Errorf("Discover(%q): error = %v", origin, err)
		}
		if !strings.Contains(fmt.Sprint(err), "InsecureAllowPrivateOrigins") {
			t.Errorf("Discover(%q): the error does not say what to do: %v", origin, err)
		}
		if _, err := c.ListSkills(t.Context(), origin); !errors.Is(err, discovery.ErrPrivateAddress) {
			t.Errorf("ListSkills(%q): error = %v", origin, err)
		}
		if _, err := c.Structured(t.Context(), origin); !errors.Is(err, discovery.ErrPrivateAddress) {
			t.Errorf("Structured(%q): error = %v", origin, err)
		}
	}
	if s.total() != 0 {
		t.Errorf("%d requests reached the server", s.total())
	}
	if _, err := discovery.Discover(t.Context(), "http://localhost:1"); !errors.Is(err, discovery.ErrPrivateAddress) {
		t.Errorf("package-level Discover: error = %v", err)
	}
	// Set by a person's tool, the local origin works.
	c, err = discovery.NewClient(&discovery.Options{HTTPClient: hc, InsecureAllowPrivateOrigins: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Discover(t.Context(), s.URL); err != nil {
		t.Errorf("with InsecureAllowPrivateOrigins: %v", err)
	}
}

// TestPrivateRanges: the address forms that embed or stand for a private
// address.
func TestPrivateRanges(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr    string
		private bool
	}{
		{"64:ff9b:1::a00:1", true},   // RFC 8215 local-use NAT64
		{"64:ff9b:1:ffff::1", true},  // anywhere in 64:ff9b:1::/48
		{"2002:0a00:0001::1", true},  // 6to4 of 10.0.0.1
		{"2002:a9fe:a9fe::1", true},  // 6to4 of 169.254.169.254
		{"2002:7f00:1::", true},      // 6to4 of 127.0.0.1
		{"2002:0808:0808::1", false}, // 6to4 of 8.8.8.8
		{"::a00:1", true},            // IPv4-compatible ::10.0.0.1
		{"::808:808", true},          // IPv4-compatible: deprecated, never a public host
		{"::ffff:0:a00:1", true},     // IPv4-translated ::ffff:0:10.0.0.1
		{"::ffff:0:808:808", true},   // IPv4-translated
		{"fec0::1", true},            // site-local
		{"feff::1", true},            // site-local, top of fec0::/10
		{"64:ff9b::a00:1", true},     // well-known NAT64 of 10.0.0.1
		{"64:ff9b::808:808", false},  // well-known NAT64 of 8.8.8.8
		{"::ffff:169.254.169.254", true},
		{"2606:4700::1111", false},
		{"8.8.8.8", false},
		{"169.254.169.254", true},
	} {
		if got := discovery.IsPrivate(netip.MustParseAddr(tc.addr)); got != tc.private {
			t.Errorf("IsPrivate(%s) = %v, want %v", tc.addr, got, tc.private)
		}
	}
}
