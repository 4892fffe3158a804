package mcpclient_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/mcpclient"
)

// TestDiscoverSkillsNamesWhyMCPJSONIsUnusable: a site that publishes a skills.md and
// an mcp.json that cannot be read (malformed, an HTTP error) is not a site that lists
// no MCP server: DiscoverSkills returns the cause, not ErrNoServers. A site with no
// mcp.json at all still gives ErrNoServers.
func TestDiscoverSkillsNamesWhyMCPJSONIsUnusable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		mcp      func(w http.ResponseWriter)
		noServer bool   // errors.Is(err, ErrNoServers)
		want     string // in the error's text
	}{
		{"absent", func(w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound) }, true, "lists no MCP server"},
		{"malformed", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"servers": [`)
		}, false, "invalid JSON"},
		{"server error", func(w http.ResponseWriter) { w.WriteHeader(http.StatusInternalServerError) }, false, "500"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case discovery.GuidePath:
					w.Header().Set("Content-Type", "text/markdown")
					fmt.Fprint(w, "# Site\n\nGuidance.\n")
				case discovery.MCPPath:
					tc.mcp(w)
				default:
					http.NotFound(w, r)
				}
			}))
			defer ts.Close()
			c, err := discovery.NewClient(&discovery.Options{InsecureAllowPrivateOrigins: true, MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseIdleConnections()
			found, err := mcpclient.DiscoverSkills(t.Context(), c, ts.URL, nil)
			if err == nil {
				found.Close()
				t.Fatal("no error")
			}
			if got := errors.Is(err, mcpclient.ErrNoServers); got != tc.noServer {
				t.Errorf("errors.Is(err, ErrNoServers) = %v, want %v: %v", got, tc.noServer, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
		})
	}
}
