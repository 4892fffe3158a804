package discovery_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/wellknown-dev/discovery"
)

// TestNoCredentialsToOtherOrigins: site-supplied userinfo is never sent, and
// the caller's credentials go to another origin only when the consent request said so.
func TestNoCredentialsToOtherOrigins(t *testing.T) {
	t.Parallel()
	var auth sync.Map // path → Authorization seen
	record := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if a := r.Header.Get("Authorization") + r.Header.Get("Cookie"); a != "" {
				auth.Store(r.URL.Path, a)
			}
			next.ServeHTTP(w, r)
		})
	}
	other := newSite(t, record(docs(t, map[string]string{discovery.GuidePath: goodSkills, "/api": "{}"})))
	var self string
	s := newSite(t, record(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case discovery.GuidePath:
			// Same origin, with userinfo: net/http would send it as Basic auth.
			u, _ := url.Parse(self + "/moved.md")
			u.User = url.UserPassword("site", "hunter2")
			http.Redirect(w, r, u.String(), http.StatusFound)
		case "/moved.md":
			fmt.Fprint(w, goodSkills)
		case "/api":
			fmt.Fprint(w, "{}")
		default:
			http.NotFound(w, r)
		}
	})))
	self = s.URL
	var asked []discovery.ConsentRequest
	var mu sync.Mutex
	c := newClient(t, s, &discovery.Options{Consent: func(_ context.Context, r *discovery.ConsentRequest) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, *r)
		return !r.Credentials, nil // this user never sends credentials elsewhere
	}})
	d, err := c.Discover(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := auth.Load("/moved.md"); ok {
		t.Errorf("redirect userinfo was sent as %q", a)
	}
	hc := &http.Client{Transport: guardOf(t, c, d, nil)}
	// Userinfo in an agent call's URL is not sent either.
	u, _ := url.Parse(s.URL + "/api")
	u.User = url.UserPassword("site", "hunter2")
	if resp, err := hc.Get(u.String()); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if a, ok := auth.Load("/api"); ok {
		t.Errorf("agent call userinfo was sent as %q", a)
	}
	// The caller's own Authorization: same origin, it goes.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+"/api", nil)
	req.Header.Set("Authorization", "Bearer mine")
	if resp, err := hc.Do(req); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if a, _ := auth.Load("/api"); a != "Bearer mine" {
		t.Errorf("same-origin call: Authorization = %v", a)
	}
	// Another origin: the prompt says credentials would be sent; this user says no.
	for _, h := range []string{"Authorization", "Cookie", "Proxy-Authorization", "authorization", "COOKIE"} {
		req, _ = http.NewRequestWithContext(t.Context(), http.MethodGet, other.URL+"/api", nil)
		req.Header[h] = []string{"secret-value"} // as written: net/http sends the key as is
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		if !errors.Is(err, discovery.ErrConsentDenied) {
			t.Errorf("%s to another origin without consent for credentials: error = %v", h, err)
		}
	}
	if _, ok := auth.Load("/api"); ok && other.count("/api") > 0 {
		t.Errorf("credentials reached the other origin")
	}
	mu.Lock()
	var credAsks int
	for _, r := range asked {
		if r.Action == discovery.ConsentCrossOrigin && r.Credentials {
			credAsks++
			if !strings.Contains(r.Reason, "credentials") {
				t.Errorf("the prompt does not say credentials would be sent: %q", r.Reason)
			}
		}
	}
	mu.Unlock()
	if credAsks != 5 {
		t.Errorf("%d consent requests said credentials would be sent, want 5", credAsks)
	}
	// Without credentials, the same call is allowed (this user's rule) and carries none.
	if resp, err := hc.Get(other.URL + "/api"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if other.count("/api") != 1 {
		t.Errorf("other origin saw %d calls, want 1", other.count("/api"))
	}
	if a, ok := auth.Load("/api"); ok && a != "Bearer mine" {
		t.Errorf("credentials reached an origin: %v", a)
	}
	// Granted with credentials, they go.
	c2 := newClient(t, s, &discovery.Options{Consent: discovery.AllowAll})
	d2, err := c2.Discover(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	req, _ = http.NewRequestWithContext(t.Context(), http.MethodGet, other.URL+"/api", nil)
	req.Header.Set("Authorization", "Bearer granted")
	resp, err := (&http.Client{Transport: guardOf(t, c2, d2, nil)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if a, _ := auth.Load("/api"); a != "Bearer granted" {
		t.Errorf("granted credentials: Authorization = %v", a)
	}
}

// TestAPIKeyHeadersAreCredentials: credentials never go where they must not, whatever
// header carries them. Authorization, Cookie and Proxy-Authorization are not the only
// credentials: an API key in X-Api-Key (or the header mcp.json names) going to another
// origin, asked directly or after a redirect (which net/http follows with every header
// but Authorization and Cookie), is a request with ConsentRequest.Credentials true, so
// a host whose policy is "never send credentials elsewhere" keeps the key.
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
