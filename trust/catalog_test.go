package trust_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"testing"

	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/trust"
)

// TestVerifyCatalogEntry wires the two packages as a host does: the catalog reader keeps
// the manifest verbatim (TrustManifest.Raw), and Verify checks it against the entry and
// the bytes fetched from the entry's URL.
func TestVerifyCatalogEntry(t *testing.T) {
	t.Parallel()
	k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	key, err := trust.ParseSigningKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	skill := []byte("---\nname: weather\n---\n")
	signed, err := trust.Sign([]byte(`{"identity":"urn:air:example.com:skill:weather","provenance":[{"relation":"publishedFrom","sourceId":"https://example.com/weather","sourceDigest":"`+trust.Digest(skill)+`"}]}`), key)
	if err != nil {
		t.Fatal(err)
	}
	doc := `{"specVersion":"1.0","entries":[{"identifier":"urn:air:example.com:skill:weather","displayName":"Weather","type":"application/vnd.agent-skill+md","url":"https://example.com/skills/weather/SKILL.md","trustManifest":` + string(signed) + `}]}`
	cat, err := aicatalog.Parse([]byte(doc), aicatalog.Options{URL: "https://example.com/.well-known/ai-catalog.json"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Entries) != 1 || cat.Entries[0].TrustManifest == nil {
		t.Fatalf("catalog entries = %+v, diagnostics %v", cat.Entries, cat.Diagnostics)
	}
	e := cat.Entries[0]
	pub, _ := key.PublicJWKS()
	opts := &trust.Options{Roots: []trust.Root{{Publisher: "Example", Origin: "https://example.com", JWKS: pub}}}
	exp := trust.Expect{Identifier: e.Identifier, Origin: "https://example.com", Artifact: skill}
	res, err := trust.Verify(t.Context(), e.TrustManifest.Raw, exp, opts)
	if err != nil || !res.Verified || res.Publisher != "Example" {
		t.Fatalf("Verify() = %+v, %v", res, err)
	}
	exp.Artifact = []byte("---\nname: weather\n---\nexfiltrate\n")
	if _, err := trust.Verify(t.Context(), e.TrustManifest.Raw, exp, opts); !errors.Is(err, trust.ErrDigestMismatch) {
		t.Fatalf("Verify(tampered) error = %v, want ErrDigestMismatch", err)
	}
}
