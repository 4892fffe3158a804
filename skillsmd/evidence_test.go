package skillsmd_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/skillsmd"
)

// TestExplain checks that Explain gives, for the base and each auth rule, the
// evidence that made it and, for each candidate not taken, why. The guides are our own.
func TestExplain(t *testing.T) {
	t.Parallel()
	for _, tc := range explainCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ev, err := skillsmd.Explain([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := skillsmd.Parse([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			if ev.BaseURL != doc.BaseURL || tc.base != "" && ev.BaseURL != tc.base {
				t.Errorf("BaseURL %q (Parse %q), want %q", ev.BaseURL, doc.BaseURL, tc.base)
			}
			if ev.BaseFrom != tc.baseFrom {
				t.Errorf("BaseFrom %q, want %q; %+v", ev.BaseFrom, tc.baseFrom, ev.Bases)
			}
			if doc.BaseURL != "" && !slices.ContainsFunc(ev.Bases, func(b skillsmd.BaseEvidence) bool { return b.Taken && b.Value == doc.BaseURL }) {
				t.Errorf("the base taken is not among the evidence: %+v", ev.Bases)
			}
			for v, why := range tc.rejected {
				i := slices.IndexFunc(ev.Bases, func(b skillsmd.BaseEvidence) bool { return b.Value == v })
				if i < 0 || ev.Bases[i].Taken || !strings.Contains(ev.Bases[i].Why, why) {
					t.Errorf("candidate %s: want not taken because %q; evidence %+v", v, why, ev.Bases)
				}
			}
			var taken []string
			for _, a := range ev.Auth {
				if a.Taken {
					taken = append(taken, a.Rule)
				}
			}
			if !slices.Equal(taken, doc.Auth) {
				t.Errorf("auth taken %q, Document.Auth %q", taken, doc.Auth)
			}
			for r, src := range tc.auth {
				i := slices.IndexFunc(ev.Auth, func(a skillsmd.AuthEvidence) bool { return a.Rule == r })
				if i < 0 || ev.Auth[i].Source != src || !ev.Auth[i].Taken {
					t.Errorf("auth %q: want taken from %s; evidence %+v", r, src, ev.Auth)
				}
			}
			for _, r := range tc.authNot {
				i := slices.IndexFunc(ev.Auth, func(a skillsmd.AuthEvidence) bool { return a.Rule == r })
				if i < 0 || ev.Auth[i].Taken || ev.Auth[i].Why == "" {
					t.Errorf("auth %q: want listed as not taken with why; evidence %+v", r, ev.Auth)
				}
			}
			for _, a := range ev.Auth {
				if a.Source == "" {
					t.Errorf("auth rule %q has no source", a.Rule)
				}
			}
		})
	}
}

// explainCases are guides of our own, with the evidence Explain must give.
var explainCases = []struct {
	name     string
	doc      string
	base     string // BaseURL
	baseFrom string
	rejected map[string]string // a base candidate not taken → part of its Why
	auth     map[string]string // an auth rule taken → its Source
	authNot  []string          // auth rules not taken
}{
	{name: "a credential sentence saying how to authenticate outranks a key handed out",
		doc:     "# Acme\n\n## Register\n\nThe response includes a one-time-shown API key.\n\n## Submit\n\nPOST /v1/items with bearer auth.\n",
		auth:    map[string]string{"POST /v1/items with bearer auth.": "prose"},
		authNot: []string{"The response includes a one-time-shown API key."}},
	{name: "label in the API section outranks one elsewhere",
		doc:  "# Acme\n\n## API\n\n- Base URL: https://api.acme.dev/v1\n\n## Notes\n\nBase URL: https://old.acme.dev/v0\n",
		base: "https://api.acme.dev/v1", baseFrom: "label",
		rejected: map[string]string{"https://old.acme.dev/v0": "stronger place"}},
	{name: "production environment bullet",
		doc:  "# Acme\n\n## Environments\n\n- **Production URL:** https://api.acme.dev\n- **Staging URL:** https://staging.acme.dev\n",
		base: "https://api.acme.dev", baseFrom: "environment"},
	{name: "prose states the base",
		doc:  "# Acme\n\nThe API is this site's `/api`.\n\n## Install\n\n```sh\ncurl http://localhost:3000/api/setup\n```\n",
		base: "/api", baseFrom: "prose"},
	{name: "a test server's localhost is set aside",
		doc:  "# Acme\n\n## Examples\n\n```sh\ncurl http://localhost:3000/v1/items\ncurl https://api.acme.dev/v1/items\ncurl https://api.acme.dev/v1/orders\n```\n",
		base: "https://api.acme.dev/v1", baseFrom: "endpoints",
		rejected: map[string]string{"http://localhost:3000/v1/items": "local server"}},
	{name: "documentation page is not a base",
		doc:  "# Acme\n\n## API\n\n- API: https://docs.acme.dev/docs/api\n- Base URL: https://api.acme.dev\n",
		base: "https://api.acme.dev", baseFrom: "label",
		rejected: map[string]string{"https://docs.acme.dev/docs/api": "page to read"}},
	{name: "auth only in request examples",
		doc:  "# Acme\n\n## API\n\nBase URL: https://api.acme.dev\n\n```sh\ncurl -H 'Authorization: Bearer $TOKEN' https://api.acme.dev/x\n```\n",
		base: "https://api.acme.dev", baseFrom: "label",
		auth: map[string]string{"Authorization: Bearer": "request-example"}},
	{name: "auth section outranks request examples",
		doc:     "# Acme\n\n## Auth\n\nSend your key in the X-Acme-Key header.\n\n## API\n\n```sh\ncurl -H 'X-Other-Token: t' https://api.acme.dev/x\n```\n",
		auth:    map[string]string{"Send your key in the X-Acme-Key header.": "auth-section"},
		authNot: []string{"X-Other-Token header"}},
}

// FuzzExplain checks that Explain never panics and agrees with Parse: the same base,
// the base taken among the evidence, every rule of Document.Auth taken with a source,
// every candidate not taken with a reason.
func FuzzExplain(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.md")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	for _, tc := range explainCases {
		f.Add([]byte(tc.doc))
	}
	// The fixture of "wellknown lint --explain" (in the command's testdata).
	if data, err := os.ReadFile("../cmd/wellknown/testdata/lint/explain/skills.md"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := skillsmd.Explain(data)
		doc, perr := skillsmd.Parse(data)
		if (err == nil) != (perr == nil) {
			t.Fatalf("Explain error %v, Parse error %v", err, perr)
		}
		if err != nil {
			return
		}
		if ev.BaseURL != doc.BaseURL || (doc.BaseURL == "") != (ev.BaseFrom == "") {
			t.Fatalf("Explain base %q from %q, Parse %q", ev.BaseURL, ev.BaseFrom, doc.BaseURL)
		}
		var taken []string
		for _, a := range ev.Auth {
			if a.Taken {
				taken = append(taken, a.Rule)
			}
			if a.Source == "" || a.Taken != (a.Why == "") {
				t.Fatalf("bad auth evidence %+v", a)
			}
		}
		if !slices.Equal(taken, doc.Auth) {
			t.Fatalf("auth taken %q, Document.Auth %q", taken, doc.Auth)
		}
		for _, b := range ev.Bases {
			if b.Taken != (b.Why == "") || b.Taken && b.Value != doc.BaseURL {
				t.Fatalf("bad base evidence %+v (BaseURL %q)", b, doc.BaseURL)
			}
		}
	})
}
