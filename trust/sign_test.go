package trust

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

func TestParseSigningKey(t *testing.T) {
	t.Parallel()
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	p521, _ := ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	r2048, _ := rsa.GenerateKey(rand.Reader, 2048)
	r1024, _ := rsa.GenerateKey(rand.Reader, 1024)
	jwk := func(k any, kid, alg string) []byte {
		b, err := json.Marshal(jose.JSONWebKey{Key: k, KeyID: kid, Algorithm: alg})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name    string
		data    []byte
		alg     string
		kid     string // "" : the thumbprint, not checked
		wantErr bool
	}{
		{"PEM P-256", pemKey(t, p256), "ES256", "", false},
		{"PEM P-384", pemKey(t, p384), "ES384", "", false},
		{"PEM Ed25519", pemKey(t, ed), "EdDSA", "", false},
		{"PEM RSA-2048", pemKey(t, r2048), "PS256", "", false},
		{"JWK P-256 with kid", jwk(p256, "k1", ""), "ES256", "k1", false},
		{"JWK Ed25519", jwk(ed, "ed", "EdDSA"), "EdDSA", "ed", false},
		{"JWK RSA asking RS256", jwk(r2048, "r", "RS256"), "RS256", "r", false},
		{"PEM P-521", pemKey(t, p521), "", "", true},
		{"PEM RSA-1024", pemKey(t, r1024), "", "", true},
		{"public JWK", jwk(&p256.PublicKey, "k1", ""), "", "", true},
		{"JWK alg that does not fit", jwk(p256, "k1", "RS256"), "", "", true},
		{"symmetric JWK", []byte(`{"kty":"oct","k":"AAAA"}`), "", "", true},
		{"PEM of another type", []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), "", "", true},
		{"garbage", []byte("hello"), "", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k, err := ParseSigningKey(tc.data)
			if tc.wantErr {
				if !errors.Is(err, ErrKey) {
					t.Fatalf("ParseSigningKey() error = %v, want ErrKey", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSigningKey() error = %v", err)
			}
			if k.Algorithm != tc.alg || k.KeyID == "" || (tc.kid != "" && k.KeyID != tc.kid) {
				t.Errorf("ParseSigningKey() = alg %q kid %q, want alg %q kid %q", k.Algorithm, k.KeyID, tc.alg, tc.kid)
			}
		})
	}
}

func TestSignIsCanonicalAndStable(t *testing.T) {
	t.Parallel()
	k := newEd25519(t) // Ed25519 signatures are deterministic
	m := testManifest(t, testIdentity, Digest(artifact))
	a := sign(t, m, k)
	// Re-signing the signed output, or a reordered input, gives the same bytes.
	if b := sign(t, a, k); !bytes.Equal(a, b) {
		t.Errorf("Sign(Sign(m)) != Sign(m):\n%s\n%s", a, b)
	}
	if b := sign(t, bytes.ReplaceAll(m, []byte("\n"), []byte("\n\n")), k); !bytes.Equal(a, b) {
		t.Errorf("Sign() depends on whitespace")
	}
	if !strings.HasPrefix(string(a), `{"attestations":`) || strings.Contains(string(a), "\n") {
		t.Errorf("Sign() output is not JCS canonical: %s", a)
	}
	var got struct{ Signature string }
	if err := json.Unmarshal(a, &got); err != nil || strings.Count(got.Signature, ".") != 2 || strings.Contains(got.Signature, "..") == false {
		t.Errorf("Sign() signature %q is not a compact detached JWS", got.Signature)
	}
}

func TestSignRefuses(t *testing.T) {
	t.Parallel()
	k := newES256(t)
	tests := []struct {
		name string
		m    []byte
		k    *SigningKey
		want error
	}{
		{"nil key", testManifest(t, testIdentity, Digest(artifact)), nil, ErrKey},
		{"zero key", testManifest(t, testIdentity, Digest(artifact)), &SigningKey{}, ErrKey},
		{"no identity", []byte(`{"provenance":[]}`), k, ErrMalformed},
		{"weak digest", testManifest(t, testIdentity, "sha1:"+strings.Repeat("0", 40)), k, ErrWeakDigest},
		{"not an object", []byte(`[]`), k, ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := Sign(tc.m, tc.k); !errors.Is(err, tc.want) {
				t.Fatalf("Sign() error = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestManifestURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"https://example.com/.well-known/skills/pdf/SKILL.md", "https://example.com/.well-known/skills/pdf/SKILL.md.trust.json"},
		{"https://example.com/.well-known/skills.md?x=1#y", "https://example.com/.well-known/skills.md.trust.json"},
		{"http://example.com/skills.md", ""},
		{"https://example.com/", ""},
		{"https://u:p@example.com/a", ""},
		{"/relative", ""},
	}
	for _, tc := range tests {
		got, err := ManifestURL(tc.in)
		if (err != nil) != (tc.want == "") || got != tc.want {
			t.Errorf("ManifestURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
