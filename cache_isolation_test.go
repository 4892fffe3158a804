package discovery_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery"
)

// TestCacheAndFlightKeepThePolicy: a fresh copy in the HTTP
// cache, or a fetch in flight, made for a private origin never answers a public
// origin's request for the same URL; and a consented redirect never loops on consent.
func TestCacheAndFlightKeepThePolicy(t *testing.T) {
	t.Parallel()
	var loop string
	var private atomic.Int32
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host == "example.com" {
			http.Redirect(w, r, loop+r.URL.Path, http.StatusFound)
			return
		}
		private.Add(1)
		w.Header().Set("Content-Type", "text/markdown")
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprint(w, "# Internal admin\n\nSECRET-INTRANET-CONTENT\n")
	}))
	loop = s.URL
	var asks atomic.Int32
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: s.Client(), InsecureAllowPrivateOrigins: true, MaxRetries: -1,
		InsecureAllowPrivateHosts: []string{"example.com"},
		Consent:                   func(context.Context, *discovery.ConsentRequest) (bool, error) { asks.Add(1); return true, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Discover(t.Context(), s.URL); err != nil { // the private origin, cached fresh
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	d, err := c.Discover(ctx, "https://example.com")
	if !errors.Is(err, discovery.ErrPrivateAddress) {
		t.Fatalf("the public origin got %v, %v", d, err)
	}
	if n := asks.Load(); n != 1 {
		t.Errorf("consent asked %d times, want 1", n)
	}
	if n := private.Load(); n != 1 {
		t.Errorf("the private server was reached %d times, want 1 (the private origin's own fetch)", n)
	}
}

// TestSharedCacheKeepsAllowListsApart: two Clients share one Cache; one lets an
// intranet name resolve privately (InsecureAllowPrivateHosts), the other does not.
// The second is never answered with the intranet document from the shared cache.
func TestSharedCacheKeepsAllowListsApart(t *testing.T) {
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Header().Set("Content-Type", "text/markdown")
		_, _ = w.Write([]byte("# Intranet admin skills\n"))
	}))
	origin := "https://example.com" + s.URL[strings.LastIndex(s.URL, ":"):] // resolves to 127.0.0.1 below
	tlsOnly := &http.Transport{TLSClientConfig: s.Client().Transport.(*http.Transport).TLSClientConfig.Clone()}
	shared := discovery.NewMemoryCache(0)
	mk := func(allow []string) *discovery.Client {
		c, err := discovery.NewClientWithHooks(&discovery.Options{HTTPClient: &http.Client{Transport: tlsOnly}, Cache: shared,
			InsecureAllowPrivateHosts: allow, MaxRetries: -1}, discovery.TestHooks{Lookup: lookupLoopback})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if _, err := mk([]string{"example.com"}).Discover(t.Context(), origin); err != nil {
		t.Fatal(err)
	}
	if d, err := mk(nil).Discover(t.Context(), origin); !errors.Is(err, discovery.ErrPrivateAddress) {
		t.Errorf("a Client without the allow list got %v, %v from the shared cache; want a private-address refusal", d, err)
	}
}

// TestSharedLastGoodKeepsAllowListsApart: as the HTTP cache, a shared last-good store
// keeps the copies of a Client with InsecureAllowPrivateHosts apart: another Client,
// for which the same name resolves elsewhere and fails, is not served the intranet
// copy as a stale answer.
func TestSharedLastGoodKeepsAllowListsApart(t *testing.T) {
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Content-Type", "text/markdown")
		_, _ = w.Write([]byte("# Intranet admin skills\n"))
	}))
	origin := "https://example.com" + s.URL[strings.LastIndex(s.URL, ":"):] // resolves to 127.0.0.1 for the first Client
	tlsOnly := &http.Transport{TLSClientConfig: s.Client().Transport.(*http.Transport).TLSClientConfig.Clone()}
	lg := discovery.NewMemoryLastGood(0)
	a, err := discovery.NewClientWithHooks(&discovery.Options{HTTPClient: &http.Client{Transport: tlsOnly}, LastGood: lg,
		InsecureAllowPrivateHosts: []string{"example.com"}, MaxRetries: -1}, discovery.TestHooks{Lookup: lookupLoopback})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Discover(t.Context(), origin); err != nil {
		t.Fatal(err)
	}
	// For the second Client the name is public, and the site there is down.
	b, err := discovery.NewClientWithHooks(&discovery.Options{HTTPClient: &http.Client{Transport: tlsOnly.Clone()}, LastGood: lg, MaxRetries: -1},
		discovery.TestHooks{
			Lookup: func(context.Context, string) ([]netip.Addr, error) {
				return []netip.Addr{netip.MustParseAddr("203.0.113.7")}, nil
			},
			Dial: func(context.Context, string, string) (net.Conn, error) { return nil, errors.New("connection refused") },
		})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := b.Discover(t.Context(), origin); err == nil {
		t.Errorf("a Client without the allow list was served the intranet copy: %+v (warnings %v)", d.Guide, d.Warnings)
	}
}

// TestCrossOriginAnswersAreNotCachedUnderTheirURL: a discovery of A is redirected to B
// (consented), and B redirects back to A. A's answer must not be stored under B's URL:
// a later discovery of B would be served it without meeting B's redirect to A and its
// consent.
func TestCrossOriginAnswersAreNotCachedUnderTheirURL(t *testing.T) {
	t.Parallel()
	var aURL, bURL string
	a := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case discovery.GuidePath:
			http.Redirect(w, r, bURL+discovery.GuidePath, http.StatusFound)
		case "/real.md":
			w.Header().Set("Cache-Control", "max-age=3600")
			w.Header().Set("Content-Type", "text/markdown")
			_, _ = w.Write([]byte("# From A\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	b := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, aURL+"/real.md", http.StatusFound)
	}))
	aURL, bURL = a.URL, b.URL
	var asked atomic.Int32
	consent := func(_ context.Context, r *discovery.ConsentRequest) (bool, error) {
		asked.Add(1)
		return r.Origin.String() == aURL, nil // yes while discovering A, no for B
	}
	c := newClient(t, a, &discovery.Options{Consent: consent})
	d, err := c.Discover(t.Context(), aURL)
	if err != nil || d.Guide == nil || d.Guide.Title != "From A" {
		t.Fatalf("Discover(A) = %+v, %v", d, err)
	}
	asked.Store(0)
	d, err = c.Discover(t.Context(), bURL)
	if err == nil && d.Guide != nil && d.Guide.Title == "From A" && asked.Load() == 0 {
		t.Fatalf("Discover(B) was served A's answer from the cache without asking about B's redirect to A")
	}
	if asked.Load() == 0 {
		t.Errorf("Discover(B): no consent asked for its redirect to A (err %v)", err)
	}
}

// A document reached through a consented redirect to another origin is not kept as
// the last good copy of the URL that redirected: when that URL later fails, the other
// origin's copy is not served in its place without the redirect and its consent.
func TestNoLastGoodThroughConsentedRedirect(t *testing.T) {
	t.Parallel()
	other := newSite(t, docs(t, map[string]string{discovery.GuidePath: "# Elsewhere\n\n## API\n\n- Base path: `/v1`\n"}))
	var down atomic.Bool
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	var asked atomic.Int32
	allow := atomic.Bool{}
	allow.Store(true)
	c := newClient(t, s, &discovery.Options{MaxRetries: -1, Consent: func(_ context.Context, r *discovery.ConsentRequest) (bool, error) {
		asked.Add(1)
		return allow.Load(), nil
	}})
	d, err := c.Discover(t.Context(), s.URL)
	if err != nil || d.Guide == nil || asked.Load() != 1 {
		t.Fatalf("first discovery: %v, %v, asked %d", d, err, asked.Load())
	}
	down.Store(true)
	d, err = c.Discover(t.Context(), s.URL)
	if err == nil && d.Guide != nil {
		t.Errorf("the other origin's document was served as %s's last good copy (fetches %+v)", s.URL, d.Fetches)
	}
}
