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
	"github.com/wellknown-dev/discovery/mcpjson"
)

// consentLog records the requests a ConsentFunc received and answers with answer.
type consentLog struct {
	mu     sync.Mutex // guards reqs
	reqs   []discovery.ConsentRequest
	answer func(*discovery.ConsentRequest) (bool, error)
}

func (l *consentLog) fn(ctx context.Context, req *discovery.ConsentRequest) (bool, error) {
	l.mu.Lock()
	l.reqs = append(l.reqs, *req)
	l.mu.Unlock()
	return l.answer(req)
}

func (l *consentLog) actions() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.reqs {
		out = append(out, r.Action.String()+" "+r.Method)
	}
	return out
}

func TestTransportGuard(t *testing.T) {
	t.Parallel()
	api := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == discovery.GuidePath {
			fmt.Fprint(w, "# Skills\n\n## API\n\n- Base path: /api\n")
			return
		}
		fmt.Fprint(w, "ok")
	}))
	other := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") }))
	yes := func(*discovery.ConsentRequest) (bool, error) { return true, nil }
	no := func(*discovery.ConsentRequest) (bool, error) { return false, nil }
	boom := errors.New("prompt failed")
	fail := func(*discovery.ConsentRequest) (bool, error) { return false, boom }
	tests := []struct {
		name        string
		method      string
		target      string // "api", "other" or a literal URL
		answer      func(*discovery.ConsentRequest) (bool, error)
		nilConsent  bool
		wantErr     error
		wantActions []string
		wantSent    bool
	}{
		{"same-origin GET passes", http.MethodGet, "api", no, false, nil, nil, true},
		{"same-origin HEAD passes", http.MethodHead, "api", no, false, nil, nil, true},
		{"same-origin POST denied", http.MethodPost, "api", no, false, discovery.ErrConsentDenied, []string{"write POST"}, false},
		{"same-origin DELETE allowed", http.MethodDelete, "api", yes, false, nil, []string{"write DELETE"}, true},
		{"nil consent denies writes", http.MethodPut, "api", nil, true, discovery.ErrConsentDenied, nil, false},
		{"consent error aborts", http.MethodPatch, "api", fail, false, boom, []string{"write PATCH"}, false},
		{"cross-origin GET denied", http.MethodGet, "other", no, false, discovery.ErrConsentDenied, []string{"cross-origin GET"}, false},
		{"cross-origin GET allowed", http.MethodGet, "other", yes, false, nil, []string{"cross-origin GET"}, true},
		{"cross-origin POST asks twice", http.MethodPost, "other", yes, false, nil, []string{"cross-origin POST", "write POST"}, true},
		{"http target refused", http.MethodGet, "http://example.com/api", yes, false, discovery.ErrInsecureOrigin, nil, false},
		{"ftp target refused", http.MethodGet, "ftp://example.com/api", yes, false, discovery.ErrInsecureOrigin, nil, false},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := fmt.Sprintf("/api/%d", i) // parallel subtests share the servers
			log := &consentLog{answer: tc.answer}
			opts := &discovery.Options{Consent: log.fn}
			if tc.nilConsent {
				opts.Consent = nil
			}
			c := newClient(t, api, opts)
			d, err := c.Discover(t.Context(), api.URL)
			if err != nil {
				t.Fatal(err)
			}
			target := tc.target
			switch target {
			case "api":
				target = api.URL + path + "?token=secret"
			case "other":
				target = other.URL + path + "?token=secret"
			}
			hc := &http.Client{Transport: guardOf(t, c, d, &discovery.GuardOptions{Base: api.Client().Transport})}
			req, err := http.NewRequestWithContext(t.Context(), tc.method, target, strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := hc.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("error = %v, want %v", err, tc.wantErr)
			}
			// net/http's own *url.Error quotes the caller's URL; ours must not.
			var ue *url.Error
			if errors.As(err, &ue) && strings.Contains(ue.Err.Error(), "secret") {
				t.Errorf("error %q leaks the query", ue.Err)
			}
			if sent := api.count(path)+other.count(path) > 0; sent != tc.wantSent {
				t.Errorf("request sent = %v, want %v", sent, tc.wantSent)
			}
			if got := log.actions(); strings.Join(got, ",") != strings.Join(tc.wantActions, ",") {
				t.Errorf("consent asked for %v, want %v", got, tc.wantActions)
			}
			for _, r := range log.reqs {
				if r.Origin.String() != api.URL || strings.Contains(r.URL, "secret") || r.Reason == "" {
					t.Errorf("ConsentRequest = %+v", r)
				}
			}
		})
	}
}

// TestConnectEndpoint: an endpoint URL taken from the discovery document (or given as
// mcpjson.Server{URL: u}) must be usable, and one on another origin needs
// ConsentConnect. (It was TestAuthorizeConnect, for the removed
// Discovery.AuthorizeConnect.)
func TestConnectEndpoint(t *testing.T) {
	t.Parallel()
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: "# Skills\n"}))
	log := &consentLog{answer: func(*discovery.ConsentRequest) (bool, error) { return false, nil }}
	c := newClient(t, s, &discovery.Options{Consent: log.fn})
	d, err := c.Discover(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		url     string
		wantErr error
	}{
		{s.URL + "/mcp", nil},
		{"https://mcp.other.example/mcp", discovery.ErrConsentDenied},
		{"http://mcp.other.example/mcp", discovery.ErrInsecureOrigin},
		{"https://user:pw@mcp.other.example/mcp", discovery.ErrInvalidOrigin},
		{"/relative", nil}, // resolved against the mcp.json URL: same origin
		{"//other.example/x", discovery.ErrConsentDenied},
		{"javascript:alert(1)", discovery.ErrInsecureOrigin},
	}
	for _, tc := range tests {
		if _, err := c.ConnectEndpoint(t.Context(), d, mcpjson.Server{URL: tc.url}); !errors.Is(err, tc.wantErr) && (tc.wantErr != nil || err != nil) {
			t.Errorf("ConnectEndpoint(%q) = %v, want %v", tc.url, err, tc.wantErr)
		}
	}
	if got := log.actions(); strings.Join(got, ",") != "connect POST,connect POST" {
		t.Errorf("consent asked for %v", got)
	}
	var zero discovery.Discovery
	if _, err := c.Guard(&zero, nil); err == nil {
		t.Error("a zero Discovery got a guard")
	}
	if _, err := c.ConnectEndpoint(t.Context(), &zero, mcpjson.Server{URL: s.URL + "/mcp"}); err == nil {
		t.Error("a zero Discovery authorised a connection")
	}
	if _, err := new(discovery.Client).Guard(d, nil); err == nil {
		t.Error("a zero Client gave a guard")
	}
}

// TestMCPURLIsPlainData: where mcp.json was served from after redirects is an
// exported field of the Discovery, without the query, and relative endpoints resolve
// against it.
func TestMCPURLIsPlainData(t *testing.T) {
	t.Parallel()
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case discovery.MCPPath:
			http.Redirect(w, r, "/v2/mcp.json?sig=SECRET123", http.StatusFound)
		case "/v2/mcp.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"servers": [{"name": "w", "url": "./mcp", "transport": "streamable-http"}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	c := newClient(t, s, nil)
	d, err := c.Structured(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	if d.MCPURL != s.URL+"/v2/mcp.json" {
		t.Errorf("MCPURL = %q, want %q", d.MCPURL, s.URL+"/v2/mcp.json")
	}
	if d.MCP == nil || len(d.MCP.Servers) != 1 {
		t.Fatalf("MCP = %+v", d.MCP)
	}
	u, err := c.ConnectEndpoint(t.Context(), d, d.MCP.Servers[0])
	if err != nil || u.String() != s.URL+"/v2/mcp" {
		t.Errorf("ConnectEndpoint = %v, %v; want %s/v2/mcp", u, err, s.URL)
	}
	// A Discovery made by hand (plain data) works the same.
	u, err = c.ConnectEndpoint(t.Context(), &discovery.Discovery{Origin: d.Origin, MCPURL: d.MCPURL}, d.MCP.Servers[0])
	if err != nil || u.String() != s.URL+"/v2/mcp" {
		t.Errorf("ConnectEndpoint (by hand) = %v, %v", u, err)
	}
}
