package discovery_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/mcpjson"
)

// plantedSecrets are what a careless site publishes; none may appear in any error,
// warning, Fetch or consent request of the root package.
var plantedSecrets = []string{"hunter2pass", "SECRETQUERY123", "ghp_0123456789abcdefghijABCDEFGHIJ012345", "dXNlcjpodW50ZXIy"}

// TestNoSecretsInReports: URLs the site chooses (pointers, redirects, index
// schemas and entries) carry userinfo, queries and tokens; the root package's errors,
// warnings, Fetch records and consent requests repeat none of them.
func TestNoSecretsInReports(t *testing.T) {
	t.Parallel()
	const tok = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	var self string
	routes := map[string]func(w http.ResponseWriter, r *http.Request){
		// mcp.json points (same origin) with userinfo and a query; the target fails.
		discovery.MCPPath: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"serverCard": %q}`, self+"/card.json?access_token=SECRETQUERY123")
		},
		"/card.json": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) },
		// skills.md redirects, with userinfo and a query, to a path holding a token.
		discovery.GuidePath: func(w http.ResponseWriter, r *http.Request) {
			u, _ := url.Parse(self + "/" + tok + "/skills.md?sig=SECRETQUERY123")
			u.User = url.UserPassword("admin", "hunter2pass")
			http.Redirect(w, r, u.String(), http.StatusFound)
		},
		"/" + tok + "/skills.md": func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "" {
				w.WriteHeader(500)
				return
			}
			fmt.Fprint(w, goodSkills)
		},
		agentskills.IndexPath: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"$schema": "https://admin:hunter2pass@schemas.example/v9/schema.json?k=SECRETQUERY123", "skills": []}`)
		},
	}
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := routes[r.URL.Path]; ok {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	s.Config.ErrorLog = quietLog()
	self = s.URL
	var reports []string
	var mu sync.Mutex
	c := newClient(t, s, &discovery.Options{MaxRetries: -1, Consent: func(_ context.Context, r *discovery.ConsentRequest) (bool, error) {
		mu.Lock()
		reports = append(reports, r.URL, r.Reason)
		mu.Unlock()
		return true, nil
	}})
	add := func(v ...any) {
		mu.Lock()
		defer mu.Unlock()
		for _, x := range v {
			reports = append(reports, fmt.Sprintf("%v %+v", x, x))
		}
	}
	d, err := c.Structured(t.Context(), s.URL)
	add(err)
	if d != nil {
		add(d.Warnings, d.Fetches)
	}
	ix, err := c.ListSkills(t.Context(), s.URL)
	add(err)
	if ix != nil {
		add(ix.Warnings, ix.Fetches)
	}
	// An agent call to a URL with userinfo and a query, refused for another origin.
	if d != nil {
		u, _ := url.Parse("https://admin:hunter2pass@other.example/" + tok + "?access_token=SECRETQUERY123")
		_, err := c.Guard(&discovery.Discovery{}, nil)
		add(err)
		// Cross-origin yes, write no: both questions are asked, nothing is sent.
		record := func(_ context.Context, r *discovery.ConsentRequest) (bool, error) {
			mu.Lock()
			reports = append(reports, r.URL, r.Reason)
			mu.Unlock()
			return r.Action != discovery.ConsentWrite, nil
		}
		g, err := c.Guard(d, &discovery.GuardOptions{Consent: record})
		add(err)
		if g != nil {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, u.String(), nil)
			_, err := g.RoundTrip(req)
			add(err)
		}
		_, err = c.ConnectEndpoint(t.Context(), d, mcpjson.Server{URL: u.String()})
		add(err)
	}
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(reports, "\n")
	for _, p := range plantedSecrets {
		if strings.Contains(all, p) {
			t.Errorf("a report contains %q:\n%s", p, all)
		}
	}
	if !strings.Contains(all, "card.json") {
		t.Errorf("the reports lost what they are about:\n%s", all)
	}
}

// TestSecretsInBadLocations: a Location header that does
// not parse is quoted by net/http; the error repeats no userinfo or query from it.
func TestSecretsInBadLocations(t *testing.T) {
	t.Parallel()
	for _, loc := range []string{
		"https://u:PWSECRET99@other.example.com/%zz",
		"https://other.example.com/%zz?access_token=SECRETQUERY123",
	} {
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Location"] = []string{loc}
			w.WriteHeader(http.StatusFound)
		}))
		_, err := newClient(t, s, &discovery.Options{Consent: discovery.AllowAll, MaxRetries: -1}).Discover(t.Context(), s.URL)
		if err == nil || strings.Contains(err.Error(), "PWSECRET99") || strings.Contains(err.Error(), "SECRETQUERY123") {
			t.Errorf("Location %q: error = %v", loc, err)
		}
	}
}
