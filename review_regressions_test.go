package discovery_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery"
)

// Regressions from the security review of the fast path, the revalidation from memory
// and the fleet lock (each failed before its fix).

// TestFastPathNeverSkipsConsent: a cross-origin redirect the user allowed once is
// asked again on the next call, even when the target's answer is fresh for an hour.
func TestFastPathNeverSkipsConsent(t *testing.T) {
	b := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Header().Set("Content-Type", "text/markdown")
		_, _ = w.Write([]byte("# From B\n"))
	}))
	a := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, b.URL+discovery.SkillsPath, http.StatusFound)
	}))
	var asked atomic.Int32
	consent := func(context.Context, *discovery.ConsentRequest) (bool, error) { return asked.Add(1) == 1, nil } // allow once
	c := newClient(t, a, &discovery.Options{Consent: consent, MaxRetries: -1})
	if _, err := c.Discover(t.Context(), a.URL); err != nil {
		t.Fatal(err)
	}
	_, err := c.Discover(t.Context(), a.URL)
	if !errors.Is(err, discovery.ErrCrossOrigin) || asked.Load() != 2 {
		t.Errorf("second Discover = %v after %d questions, want a refusal after asking again", err, asked.Load())
	}
}

// TestNoStoreIsNeverRemembered: a no-store answer with an ETag is not kept for a
// conditional request later.
func TestNoStoreIsNeverRemembered(t *testing.T) {
	var conditional atomic.Int32
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") != "" {
			conditional.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		_, _ = w.Write([]byte("# Per request\n"))
	}))
	c := newClient(t, s, &discovery.Options{MaxRetries: -1})
	for range 2 {
		if _, err := c.Discover(t.Context(), s.URL); err != nil {
			t.Fatal(err)
		}
	}
	if n := conditional.Load(); n != 0 {
		t.Errorf("%d conditional requests for a no-store document", n)
	}
}

type countingDeletes struct {
	discovery.Cache
	deletes atomic.Int32
}

func (c *countingDeletes) Delete(k string) { c.deletes.Add(1); c.Cache.Delete(k) }

// TestFleetWaitLeavesNoMark: a waiter that had no cached copy (so httpcache deleted
// nothing) leaves no mark behind that would swallow a later, real Delete.
func TestFleetWaitLeavesNoMark(t *testing.T) {
	var fail atomic.Bool
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		time.Sleep(150 * time.Millisecond)
		w.Header().Set("Cache-Control", "max-age=1")
		w.Header().Set("ETag", `"1"`)
		w.Header().Set("Content-Type", "text/markdown")
		_, _ = w.Write([]byte("# Fleet\n"))
	}))
	shared := &countingDeletes{Cache: discovery.NewMemoryCache(0)}
	opts := &discovery.Options{Cache: shared, FleetLock: &memLock{}, MaxRetries: -1, MaxStale: -1}
	a, b := newClient(t, s, opts), newClient(t, s, opts)
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = a.Discover(t.Context(), s.URL) })
	time.Sleep(30 * time.Millisecond)
	wg.Go(func() { _, _ = b.Discover(t.Context(), s.URL) }) // waits for a, with no cached copy
	wg.Wait()
	time.Sleep(2100 * time.Millisecond) // stale
	fail.Store(true)
	before := shared.deletes.Load()
	_, _ = b.Discover(t.Context(), s.URL)
	if shared.deletes.Load() == before {
		t.Error("httpcache's Delete after a failed revalidation was swallowed by a leftover mark")
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
// copy as a stale answer (security review, round 8).
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
		t.Errorf("a Client without the allow list was served the intranet copy: %+v (warnings %v)", d.Skills, d.Warnings)
	}
}

// TestCrossOriginAnswersAreNotCachedUnderTheirURL: a discovery of A is redirected to B
// (consented), and B redirects back to A. A's answer must not be stored under B's URL:
// a later discovery of B would be served it without meeting B's redirect to A and its
// consent (security review, round 8).
func TestCrossOriginAnswersAreNotCachedUnderTheirURL(t *testing.T) {
	t.Parallel()
	var aURL, bURL string
	a := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case discovery.SkillsPath:
			http.Redirect(w, r, bURL+discovery.SkillsPath, http.StatusFound)
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
	if err != nil || d.Skills == nil || d.Skills.Title != "From A" {
		t.Fatalf("Discover(A) = %+v, %v", d, err)
	}
	asked.Store(0)
	d, err = c.Discover(t.Context(), bURL)
	if err == nil && d.Skills != nil && d.Skills.Title == "From A" && asked.Load() == 0 {
		t.Fatalf("Discover(B) was served A's answer from the cache without asking about B's redirect to A")
	}
	if asked.Load() == 0 {
		t.Errorf("Discover(B): no consent asked for its redirect to A (err %v)", err)
	}
}
