package discovery_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/aicatalog"
)

// TestPlainHTTPHintOnEveryFetch: an https:// URL naming a loopback server that speaks
// plain http fails with a hint to use http://, whichever call made the request.
func TestPlainHTTPHintOnEveryFetch(t *testing.T) {
	t.Parallel()
	plain := httptest.NewServer(docs(t, map[string]string{
		discovery.GuidePath:          goodSkills,
		agentskills.IndexPath:        `{"skills": []}`,
		discovery.RootSkillPath:      "---\nname: site\ndescription: The site.\n---\n\n# Site\n",
		"/card/mcp/server-card.json": cardJSON("com.example/plain", "https://127.0.0.1/mcp"),
	}))
	t.Cleanup(plain.Close)
	host := strings.TrimPrefix(plain.URL, "http://")
	hint := "try http://" + host
	// A TLS origin whose AI Catalog lists a Server Card on the plain-http server.
	tlsSite := newSite(t, docs(t, map[string]string{
		discovery.GuidePath: goodSkills,
		aicatalog.WellKnownPath: `{"specVersion": "1.0", "entries": [{"identifier": "urn:air:test:mcp:plain", ` +
			`"type": "application/mcp-server-card+json", "url": "https://` + host + `/card/mcp/server-card.json"}]}`,
	}))
	c := newClient(t, tlsSite, &discovery.Options{MaxRetries: -1, Consent: discovery.AllowAll})
	ix, err := agentskills.ParseIndex([]byte(`{"$schema": "`+agentskills.SchemaV020+`", "skills": [{"name": "site", "type": "skill-md", `+
		`"description": "The site.", "url": "https://`+host+`/skill.md", "digest": "sha256:`+strings.Repeat("0", 64)+`"}]}`),
		"https://"+host+agentskills.IndexPath, agentskills.Lenient)
	if err != nil {
		t.Fatal(err)
	}
	o, err := discovery.ParseOrigin("https://" + host)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"Discover", func() error { _, err := c.Discover(t.Context(), "https://"+host); return err }},
		{"Discover without a scheme", func() error { _, err := c.Discover(t.Context(), host); return err }},
		{"Structured", func() error { _, err := c.Structured(t.Context(), "https://"+host); return err }},
		{"ListSkills", func() error { _, err := c.ListSkills(t.Context(), "https://"+host); return err }},
		{"RootSkill", func() error { _, err := c.RootSkill(t.Context(), "https://"+host); return err }},
		{"GetSkill", func() error {
			_, err := c.GetSkill(t.Context(), &discovery.SkillsIndex{Origin: o, Index: ix, URL: "https://" + host + agentskills.IndexPath}, "site")
			return err
		}},
		{"DiscoverAll's Server Card", func() error {
			d, err := c.DiscoverAll(t.Context(), tlsSite.URL)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.All.Cards) != 1 {
				t.Fatalf("Cards = %+v", d.All.Cards)
			}
			return d.All.Cards[0].Err
		}},
	} {
		err := tc.call()
		if err == nil || !strings.Contains(err.Error(), hint) || strings.Count(err.Error(), hint) != strings.Count(err.Error(), "discovery: GET") {
			t.Errorf("%s: error = %v, want the hint %q once per failed request", tc.name, err, hint)
		}
		if !errors.Is(err, http.ErrSchemeMismatch) {
			t.Errorf("%s: error does not wrap http.ErrSchemeMismatch: %v", tc.name, err)
		}
	}
	// The same server over http:// works, and a hint never comes with another failure.
	if _, err := c.Discover(t.Context(), plain.URL); err != nil {
		t.Errorf("with the scheme: %v", err)
	}
	tlsOnly := newSite(t, http.NotFoundHandler())
	if _, err := c.Discover(t.Context(), tlsOnly.URL); err == nil || strings.Contains(err.Error(), "try http://") {
		t.Errorf("a 404 site: error = %v", err)
	}
}
