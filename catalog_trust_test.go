package discovery_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/trust"
)

// catalogTrustSite serves an AI Catalog with an inline card, a card by URL and an
// Agent Skills index, each entry with the trustManifest manifests gives it by
// identifier ("" for none), and the documents in extra.
func catalogTrustSite(t *testing.T, extra map[string][]byte, manifests func(s *site) map[string][]byte) *site {
	t.Helper()
	var mu sync.Mutex
	docs := map[string][]byte{}
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		body, ok := docs[r.URL.Path]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	mu.Lock()
	defer mu.Unlock()
	for k, v := range extra {
		docs[k] = v
	}
	ms := manifests(s)
	tm := func(id string) string {
		if m := ms[id]; m != nil {
			return `, "trustManifest": ` + string(m)
		}
		return ""
	}
	docs[aicatalog.WellKnownPath] = []byte(`{"specVersion": "1.0", "entries": [
		{"identifier": "urn:air:test:mcp:inline", "type": "application/mcp-server-card+json", "data": ` + string(extra["inline"]) + tm("urn:air:test:mcp:inline") + `},
		{"identifier": "urn:air:test:mcp:byurl", "type": "application/mcp-server-card+json", "url": "/byurl/server-card"` + tm("urn:air:test:mcp:byurl") + `},
		{"identifier": "urn:air:test:skills", "type": "application/agent-skills+json", "url": "` + s.URL + agentskills.IndexPath + `"` + tm("urn:air:test:skills") + `}]}`)
	return s
}

// TestDiscoverAllCatalogTrustManifests: with Options.TrustRoots, DiscoverAll checks the
// trustManifest of the catalog's card entries against the card bytes it read, and of
// the Agent Skills index entry against the index bytes: results on Card.Publisher and
// Skills.Publisher; each refusal holds end to end on loopback.
func TestDiscoverAllCatalogTrustManifests(t *testing.T) {
	t.Parallel()
	inline := []byte(cardJSON("com.example/inline", "https://mcp.example.com/inline"))
	byURL := []byte(cardJSON("com.example/byurl", "https://mcp.example.com/byurl"))
	index := []byte(`{"$schema": "` + agentskills.SchemaV020 + `", "skills": [{"name": "pdf", "type": "skill-md", "description": "PDFs.", "url": "pdf/SKILL.md", "digest": "` + agentskills.Digest([]byte("x")) + `"}]}`)
	extra := map[string][]byte{"inline": inline, "/byurl/server-card": byURL, agentskills.IndexPath: index}
	digests := map[string]string{"urn:air:test:mcp:inline": agentskills.Digest(inline), "urn:air:test:mcp:byurl": agentskills.Digest(byURL), "urn:air:test:skills": agentskills.Digest(index)}
	es, ed := signingKey(t, false), signingKey(t, true)
	extra["/keys-ed.json"] = publicJWKS(t, ed)
	extra["/keys-es.json"] = publicJWKS(t, es)
	signAll := func(k *trust.SigningKey) func(*site) map[string][]byte {
		return func(*site) map[string][]byte {
			out := map[string][]byte{}
			for id, d := range digests {
				out[id] = signedManifest(t, id, d, k)
			}
			return out
		}
	}
	check := func(t *testing.T, s *site, roots []trust.Root) *discovery.Discovery {
		t.Helper()
		d, err := newClient(t, s, &discovery.Options{TrustRoots: roots}).DiscoverAll(t.Context(), s.URL)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.All.Cards) != 2 || d.All.Skills == nil {
			t.Fatalf("DiscoverAll() cards %+v, skills %+v; warnings %v", d.All.Cards, d.All.Skills, d.Warnings)
		}
		return d
	}
	for _, tc := range []struct {
		name  string
		key   *trust.SigningKey
		roots func(s *site) []trust.Root
		alg   string
	}{
		{"ES256 pinned", es, func(s *site) []trust.Root {
			return []trust.Root{{Publisher: "Example", Origin: s.URL, JWKS: publicJWKS(t, es)}}
		}, "ES256"},
		{"ES256 from a JWKS URL", es, func(s *site) []trust.Root {
			return []trust.Root{{Publisher: "Example", Origin: s.URL, JWKSURL: s.URL + "/keys-es.json"}}
		}, "ES256"},
		{"Ed25519 pinned", ed, func(s *site) []trust.Root {
			return []trust.Root{{Publisher: "Example", Origin: s.URL, JWKS: publicJWKS(t, ed)}}
		}, "EdDSA"},
		{"Ed25519 from a JWKS URL", ed, func(s *site) []trust.Root {
			return []trust.Root{{Publisher: "Example", Origin: s.URL, JWKSURL: s.URL + "/keys-ed.json"}}
		}, "EdDSA"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := catalogTrustSite(t, extra, signAll(tc.key))
			d := check(t, s, tc.roots(s))
			for _, c := range d.All.Cards {
				if c.Publisher == nil || !c.Publisher.Verified || c.Publisher.Algorithm != tc.alg || c.Publisher.Publisher != "Example" {
					t.Errorf("card %s: Publisher = %+v", c.Identifier, c.Publisher)
				}
			}
			if p := d.All.Skills.Publisher; p == nil || !p.Verified || p.Identity != "urn:air:test:skills" {
				t.Errorf("Skills.Publisher = %+v", p)
			}
			if d := check(t, s, nil); d.All.Cards[0].Publisher != nil || d.All.Skills.Publisher != nil {
				t.Errorf("without roots: card Publisher %+v, Skills.Publisher %+v", d.All.Cards[0].Publisher, d.All.Skills.Publisher)
			}
		})
	}

	// The refusals, each on the card fetched by URL (the others are signed well). The
	// catalog reader drops a manifest of another identity: unsigned.
	const id = "urn:air:test:mcp:byurl"
	f := newForger(t)
	refusals := f.refusals(t, id, "urn:air:test:mcp:inline", digests[id], digests["urn:air:test:mcp:inline"], es)
	for i := range refusals {
		if refusals[i].name == "identity of another artifact" {
			refusals[i].want = trust.ErrUnsigned
		}
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := catalogTrustSite(t, extra, func(*site) map[string][]byte {
				out := signAll(f.key)(nil)
				out[id] = tc.manifest
				return out
			})
			d := check(t, s, []trust.Root{{Origin: s.URL, JWKS: f.keys(t, tc)}})
			for _, c := range d.All.Cards {
				switch {
				case c.Identifier != id && !tc.hmac && (c.Publisher == nil || !c.Publisher.Verified):
					t.Errorf("card %s: Publisher = %+v, want verified", c.Identifier, c.Publisher)
				case c.Identifier == id && (c.Publisher == nil || c.Publisher.Verified || !strings.HasPrefix(c.Publisher.Reason, tc.want.Error())):
					t.Errorf("card %s: Publisher = %+v, want unverified: %v", c.Identifier, c.Publisher, tc.want)
				}
			}
		})
	}
}
