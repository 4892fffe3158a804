package catalog_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/catalog"
	"github.com/wellknown-dev/discovery/trust"
)

// TestWebSkillPublisher: a web skill activated with a Client that has trust roots
// carries its publisher check, and Prompt shows it from then on: verified with the
// publisher and key, or unverified and why.
func TestWebSkillPublisher(t *testing.T) {
	t.Parallel()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	key, err := trust.ParseSigningKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	jwks, _ := key.PublicJWKS()
	md := "---\nname: pdf\ndescription: Read PDFs.\n---\n# pdf\n"
	var manifest []byte
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case agentskills.IndexPath:
			fmt.Fprintf(w, `{"$schema": %q, "skills": [{"name": "pdf", "type": "skill-md", "description": "Read PDFs.", "url": "pdf/SKILL.md", "digest": %q}]}`,
				agentskills.SchemaV020, agentskills.Digest([]byte(md)))
		case "/.well-known/agent-skills/pdf/SKILL.md":
			fmt.Fprint(w, md)
		case "/.well-known/agent-skills/pdf/SKILL.md" + trust.ManifestSuffix:
			w.Write(manifest)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(ts.Close)
	id := ts.URL + "/.well-known/agent-skills/pdf/SKILL.md"
	m, _ := json.Marshal(map[string]any{"identity": id, "provenance": []any{map[string]any{"sourceDigest": trust.Digest([]byte(md))}}})
	if manifest, err = trust.Sign(m, key); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		roots []trust.Root
		want  string
	}{
		{"pinned key", []trust.Root{{Publisher: "Example Corp", Origin: ts.URL, JWKS: jwks}}, "verified: Example Corp (" + key.KeyID + ")"},
		{"no root for the origin", []trust.Root{{Origin: "https://example.com", JWKS: jwks}}, "unverified: no trust root covers this publisher"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client, err := discovery.NewClient(&discovery.Options{HTTPClient: ts.Client(), InsecureAllowPrivateOrigins: true, TrustRoots: tc.roots})
			if err != nil {
				t.Fatal(err)
			}
			c := catalog.New(nil)
			if err := c.AddWeb(t.Context(), client, ts.URL); err != nil {
				t.Fatal(err)
			}
			name := c.Entries()[0].Name
			if p := c.Prompt(0); strings.Contains(p, "verified:") {
				t.Errorf("a publisher shown before activation:\n%s", p)
			}
			a, err := c.Activate(t.Context(), name)
			if err != nil {
				t.Fatal(err)
			}
			if got := catalog.PublisherLine(a.Entry.Publisher); !strings.HasPrefix(got, tc.want) {
				t.Errorf("PublisherLine = %q, want %q", got, tc.want)
			}
			if p := c.Prompt(0); !strings.Contains(p, tc.want) {
				t.Errorf("prompt lacks %q:\n%s", tc.want, p)
			}
		})
	}
}
