package lint_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/lint"
	"github.com/wellknown-dev/discovery/trust"
)

// TestLintIndexTrustManifest: the manifest beside an index on disk is checked: its
// sourceDigest must be the digest of the index as it is now, and with trust roots it
// must verify.
func TestLintIndexTrustManifest(t *testing.T) {
	t.Parallel()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	key, err := trust.ParseSigningKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	other, _ := trust.ParseSigningKey(func() []byte {
		_, p, _ := ed25519.GenerateKey(rand.Reader)
		d, _ := x509.MarshalPKCS8PrivateKey(p)
		return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: d})
	}())
	skill := "---\nname: pdf\ndescription: Read PDF files.\n---\nUse pdftotext.\n"
	index := `{"$schema": "` + agentskills.SchemaV020 + `", "skills": [{"name": "pdf", "type": "skill-md", "description": "Read PDF files.", "url": "pdf/SKILL.md", "digest": "` + agentskills.Digest([]byte(skill)) + `"}]}`
	const identity = "https://example.com/.well-known/agent-skills/index.json"
	manifest := func(digest string) []byte {
		m, _ := json.Marshal(map[string]any{"identity": identity, "provenance": []any{map[string]any{"relation": "publishedFrom", "sourceId": identity, "sourceDigest": digest}}})
		s, err := trust.Sign(m, key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	pub, _ := key.PublicJWKS()
	otherPub, _ := other.PublicJWKS()
	tests := []struct {
		name     string
		manifest []byte
		roots    []trust.Root
		want     string // a problem message's text, with its severity
	}{
		{"verified", manifest(agentskills.Digest([]byte(index))), []trust.Root{{Publisher: "Example", Identity: identity, JWKS: pub}}, "info: the index is signed with kid"},
		{"no roots", manifest(agentskills.Digest([]byte(index))), nil, "info: the index is signed with kid"},
		{"stale after an edit", manifest(agentskills.Digest([]byte(index + " "))), nil, "error: no provenance sourceDigest is the digest of the index"},
		{"wrong key", manifest(agentskills.Digest([]byte(index))), []trust.Root{{Identity: identity, JWKS: otherPub}}, "error: the index's trust manifest does not verify"},
		{"not signed", nil, nil, "info: the index is not signed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), ".well-known", "agent-skills")
			if err := os.MkdirAll(filepath.Join(dir, "pdf"), 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, "pdf", "SKILL.md"), []byte(skill), 0o644)
			ixFile := filepath.Join(dir, "index.json")
			os.WriteFile(ixFile, []byte(index), 0o644)
			if tc.manifest != nil {
				os.WriteFile(ixFile+trust.ManifestSuffix, tc.manifest, 0o644)
			}
			l := lint.New(&lint.Options{Explain: true, TrustRoots: tc.roots})
			if err := l.Lint(t.Context(), ixFile); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range l.Report().Problems {
				if p.Code == "trust-manifest" {
					got = append(got, p.Severity.String()+": "+p.Message)
				}
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], tc.want) {
				t.Fatalf("trust-manifest problems = %q, want one starting %q", got, tc.want)
			}
		})
	}
}
