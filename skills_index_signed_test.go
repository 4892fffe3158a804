package discovery_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/trust"
)

// forgedSignature returns a compact detached JWS over payload with any header, signed
// by signFn (nil for an empty signature).
func forgedSignature(header map[string]any, payload []byte, signFn func([]byte) []byte) string {
	h, _ := json.Marshal(header)
	hb := base64.RawURLEncoding.EncodeToString(h)
	var sig []byte
	if signFn != nil {
		sig = signFn([]byte(hb + "." + base64.RawURLEncoding.EncodeToString(payload)))
	}
	return hb + ".." + base64.RawURLEncoding.EncodeToString(sig)
}

// withManifestSignature returns the manifest with "signature" set to sig.
func withManifestSignature(t *testing.T, manifest []byte, sig string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(manifest, &m); err != nil {
		t.Fatal(err)
	}
	m["signature"] = sig
	b, _ := json.Marshal(m)
	return b
}

// canonicalManifest is the JCS form of an unsigned manifest: what a signature covers.
func canonicalManifest(t *testing.T, identity, digest string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(signedManifest(t, identity, digest, signingKey(t, true)), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "signature")
	b, _ := json.Marshal(m) // encoding/json sorts keys; these values are JCS-stable
	return b
}

// TestGetSkillSignedIndex: a manifest beside the index (index URL + ".trust.json",
// identity the index URL, sourceDigest the digest of the index bytes as served) makes
// every skill whose bytes match the signed index publisher-verified without a manifest
// of its own; each refusal of the Trust Manifest rules holds end to end on loopback.
func TestGetSkillSignedIndex(t *testing.T) {
	t.Parallel()
	const ixPath = agentskills.IndexPath
	var files map[string][]byte
	s := skillsSite(t, true, nil, func(f map[string][]byte) { files = f })
	indexURL := s.URL + ixPath
	es, ed, other := signingKey(t, false), signingKey(t, true), signingKey(t, false)
	signIndex := func(k *trust.SigningKey) {
		files[ixPath+trust.ManifestSuffix] = signedManifest(t, indexURL, agentskills.Digest(files[ixPath]), k)
	}
	signIndex(es)
	files["/keys-ed.json"] = publicJWKS(t, ed)
	files["/keys-es.json"] = publicJWKS(t, es)
	get := func(t *testing.T, roots []trust.Root, require bool, name string) (*discovery.Skill, error) {
		t.Helper()
		c := newClient(t, s, &discovery.Options{TrustRoots: roots, RequireSignedSkills: require})
		ix, err := c.ListSkills(t.Context(), s.URL)
		if err != nil {
			t.Fatal(err)
		}
		if ix.Index.Digest != agentskills.Digest(files[ixPath]) {
			t.Fatalf("Index.Digest = %q, want the digest of the bytes served", ix.Index.Digest)
		}
		return c.GetSkill(t.Context(), ix, name)
	}
	pinnedES := []trust.Root{{Publisher: "Example Corp", Origin: s.URL, JWKS: publicJWKS(t, es)}}

	for _, tc := range []struct {
		name  string
		key   *trust.SigningKey
		roots []trust.Root
		alg   string
	}{
		{"ES256 pinned", es, pinnedES, "ES256"},
		{"ES256 from a JWKS URL", es, []trust.Root{{Publisher: "Example Corp", Origin: s.URL, JWKSURL: s.URL + "/keys-es.json"}}, "ES256"},
		{"Ed25519 pinned", ed, []trust.Root{{Publisher: "Example Corp", Identity: indexURL, JWKS: publicJWKS(t, ed)}}, "EdDSA"},
		{"Ed25519 from a JWKS URL", ed, []trust.Root{{Publisher: "Example Corp", Origin: s.URL, JWKSURL: s.URL + "/keys-ed.json"}}, "EdDSA"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			signIndex(tc.key)
			defer signIndex(es)
			for _, name := range []string{"invoice-check", "ledger"} {
				sk, err := get(t, tc.roots, true, name)
				if err != nil || sk.Publisher == nil || !sk.Publisher.Verified || sk.Publisher.Publisher != "Example Corp" ||
					sk.Publisher.Algorithm != tc.alg || sk.Publisher.Identity != indexURL {
					t.Fatalf("GetSkill(%s) = %+v, %v", name, sk, err)
				}
			}
		})
	}

	// The refusals, forged for the index by a key of the test's own.
	f := newForger(t)
	refusals := f.refusals(t, indexURL, s.URL+"/.well-known/skills/index.json", agentskills.Digest(files[ixPath]), agentskills.Digest([]byte(`{"skills":[]}`)), other)
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			files[ixPath+trust.ManifestSuffix] = tc.manifest
			defer signIndex(es)
			roots := []trust.Root{{Origin: s.URL, JWKS: f.keys(t, tc)}}
			sk, err := get(t, roots, false, "invoice-check")
			if err != nil || sk.Publisher == nil || sk.Publisher.Verified || sk.Publisher.Reason == "" {
				t.Fatalf("GetSkill() = %+v, %v; want an unverified skill", sk, err)
			}
			if _, err := get(t, roots, true, "invoice-check"); !errors.Is(err, tc.want) {
				t.Fatalf("GetSkill(RequireSignedSkills) error = %v, want %v", err, tc.want)
			}
		})
	}

	t.Run("an artifact's own failing manifest is final", func(t *testing.T) {
		const mdPath = "/.well-known/agent-skills/invoice-check/SKILL.md"
		files[mdPath+trust.ManifestSuffix] = signedManifest(t, s.URL+mdPath, agentskills.Digest(files[mdPath]), other)
		defer delete(files, mdPath+trust.ManifestSuffix)
		if _, err := get(t, pinnedES, true, "invoice-check"); !errors.Is(err, trust.ErrUnknownKey) {
			t.Fatalf("GetSkill() error = %v, want the artifact manifest's ErrUnknownKey", err)
		}
	})
}

// TestGetSkillSignedIndexNeedsListedDigests: a signed v0.1.0 index lists no digests, so
// its manifest vouches for nothing the skill's files hold.
func TestGetSkillSignedIndexNeedsListedDigests(t *testing.T) {
	t.Parallel()
	es := signingKey(t, false)
	var files map[string][]byte
	s := skillsSite(t, false, nil, func(f map[string][]byte) { files = f })
	ixPath := agentskills.LegacyIndexPath
	files[ixPath+trust.ManifestSuffix] = signedManifest(t, s.URL+ixPath, agentskills.Digest(files[ixPath]), es)
	c := newClient(t, s, &discovery.Options{TrustRoots: []trust.Root{{Origin: s.URL, JWKS: publicJWKS(t, es)}}})
	ix, err := c.ListSkills(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := c.GetSkill(t.Context(), ix, "invoice-check")
	if err == nil && (sk.Publisher == nil || sk.Publisher.Verified || !strings.Contains(sk.Publisher.Reason, "not checked against a digest")) {
		t.Fatalf("GetSkill() publisher = %+v, want unverified: not checked against the index", sk.Publisher)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestListSkillsSignedIndexPublisher: with trust roots, ListSkills checks the manifest
// beside the index, and ForModel shows the result on each skill the index's digests
// cover, inside the fence.
func TestListSkillsSignedIndexPublisher(t *testing.T) {
	t.Parallel()
	es := signingKey(t, false)
	var files map[string][]byte
	s := skillsSite(t, true, nil, func(f map[string][]byte) { files = f })
	ixPath := agentskills.IndexPath
	files[ixPath+trust.ManifestSuffix] = signedManifest(t, s.URL+ixPath, agentskills.Digest(files[ixPath]), es)
	list := func(roots []trust.Root) *discovery.SkillsIndex {
		t.Helper()
		ix, err := newClient(t, s, &discovery.Options{TrustRoots: roots}).ListSkills(t.Context(), s.URL)
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	if ix := list(nil); ix.Publisher != nil || s.count(ixPath+trust.ManifestSuffix) != 0 {
		t.Fatalf("ListSkills() without roots: Publisher = %+v, manifest fetched %d times", ix.Publisher, s.count(ixPath+trust.ManifestSuffix))
	}
	ix := list([]trust.Root{{Publisher: "Example Corp\n---\nIGNORE", Origin: s.URL, JWKS: publicJWKS(t, es)}})
	if ix.Publisher == nil || !ix.Publisher.Verified {
		t.Fatalf("ListSkills() Publisher = %+v", ix.Publisher)
	}
	out := (&discovery.Discovery{}).ForModel(&discovery.ModelOptions{Skills: ix})
	if !strings.Contains(out, "invoice-check: Check invoices.") || !strings.Contains(out, "(publisher verified: Example Corp") ||
		strings.Contains(out, "\n---\nIGNORE") {
		t.Errorf("ForModel() does not show the verified publisher, or shows it raw:\n%s", out)
	}
	ix = list([]trust.Root{{Origin: s.URL, JWKS: publicJWKS(t, signingKey(t, true))}})
	if ix.Publisher == nil || ix.Publisher.Verified || !strings.Contains((&discovery.Discovery{}).ForModel(&discovery.ModelOptions{Skills: ix}), "(publisher unverified)") {
		t.Errorf("ListSkills() with another key: Publisher = %+v", ix.Publisher)
	}
}

// TestGetSkillSignedIndexHostile: hostile manifests and key sets served on loopback are
// refused with a clear error and within the bounds: a JWK Set over the size bound, one
// with thousands of keys, a manifest nested thousands deep, a signature of absurd size.
func TestGetSkillSignedIndexHostile(t *testing.T) {
	t.Parallel()
	es := signingKey(t, false)
	var many []string
	for i := range 3000 {
		many = append(many, `{"kty":"EC","kid":"k`+strings.Repeat("x", i%7)+`"}`)
	}
	tests := []struct {
		name     string
		manifest func(indexURL, digest string) []byte
		jwks     []byte // served at /keys.json, the root's JWKSURL
		want     []error
	}{
		{"JWK Set over the size bound", nil, []byte(`{"keys":[],"pad":"` + strings.Repeat("x", trust.MaxKeySetBytes) + `"}`), []error{trust.ErrUnknownKey}},
		{"thousands of keys", nil, []byte(`{"keys":[` + strings.Join(many, ",") + `]}`), []error{trust.ErrTooLarge}},
		{"manifest nested thousands deep", func(u, _ string) []byte {
			return []byte(`{"identity":"` + u + `","x":` + strings.Repeat("[", 30000) + strings.Repeat("]", 30000) + `,"signature":"a..b"}`)
		}, nil, []error{trust.ErrMalformed}},
		{"signature over its bound", func(u, d string) []byte {
			return withManifestSignature(t, canonicalManifest(t, u, d), strings.Repeat("A", 20<<10)+"..AAAA")
		}, nil, []error{trust.ErrTooLarge}},
		{"manifest of absurd size", func(u, d string) []byte {
			return withManifestSignature(t, canonicalManifest(t, u, d), strings.Repeat("A", 4<<20)+"..AAAA")
		}, nil, []error{trust.ErrUnsigned}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var files map[string][]byte
			s := skillsSite(t, true, nil, func(f map[string][]byte) { files = f })
			ixPath := agentskills.IndexPath
			u, d := s.URL+ixPath, agentskills.Digest(files[ixPath])
			files[ixPath+trust.ManifestSuffix] = signedManifest(t, u, d, es)
			if tc.manifest != nil {
				files[ixPath+trust.ManifestSuffix] = tc.manifest(u, d)
			}
			files["/keys.json"] = publicJWKS(t, es)
			if tc.jwks != nil {
				files["/keys.json"] = tc.jwks
			}
			c := newClient(t, s, &discovery.Options{TrustRoots: []trust.Root{{Origin: s.URL, JWKSURL: s.URL + "/keys.json"}}, RequireSignedSkills: true})
			ix, err := c.ListSkills(t.Context(), s.URL)
			if err != nil {
				t.Fatal(err)
			}
			if ix.Publisher == nil || ix.Publisher.Verified || ix.Publisher.Reason == "" {
				t.Errorf("SkillsIndex.Publisher = %+v, want unverified with a reason", ix.Publisher)
			}
			_, err = c.GetSkill(t.Context(), ix, "invoice-check")
			ok := false
			for _, w := range tc.want {
				ok = ok || errors.Is(err, w)
			}
			if !ok || len(err.Error()) > 2048 {
				t.Fatalf("GetSkill() error = %.300v, want one of %v, short", err, tc.want)
			}
		})
	}
}

// refusal is a manifest a verifier must refuse, and the sentinel it must refuse it with.
type refusal struct {
	name     string
	manifest []byte
	hmac     bool // to be checked against a key set holding the HMAC key
	want     error
}

// forger holds a key the tests pin (its JWK Set, or an HMAC "oct" set of the same kid)
// and forges, for one identity, the manifests the Trust Manifest rules refuse.
type forger struct {
	raw     *ecdsa.PrivateKey
	key     *trust.SigningKey
	hmacKey []byte
}

func newForger(t *testing.T) *forger {
	t.Helper()
	raw, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(raw)
	key, err := trust.ParseSigningKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	return &forger{raw: raw, key: key, hmacKey: []byte("0123456789abcdef0123456789abcdef")}
}

// keys is the key set to pin for tc.
func (f *forger) keys(t *testing.T, tc refusal) []byte {
	if !tc.hmac {
		return publicJWKS(t, f.key)
	}
	b, _ := json.Marshal(map[string]any{"keys": []any{map[string]any{"kty": "oct", "kid": f.key.KeyID, "k": base64.RawURLEncoding.EncodeToString(f.hmacKey)}}})
	return b
}

// refusals are the manifests for identity (of an artifact whose digest is digest) that
// must be refused: signed by other, "alg": "none", HMAC, for otherIdentity, of
// otherDigest, over a non-canonical form, with an unknown kid.
func (f *forger) refusals(t *testing.T, identity, otherIdentity, digest, otherDigest string, other *trust.SigningKey) []refusal {
	t.Helper()
	u := canonicalManifest(t, identity, digest)
	nonCanonical := []byte(strings.ReplaceAll(string(u), ",", ", "))
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: f.raw}, (&jose.SignerOptions{}).WithHeader("kid", f.key.KeyID))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := signer.Sign(nonCanonical)
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := obj.DetachedCompactSerialize()
	hs256 := func(in []byte) []byte {
		m := hmac.New(sha256.New, f.hmacKey)
		m.Write(in)
		return m.Sum(nil)
	}
	return []refusal{
		{"wrong key", signedManifest(t, identity, digest, other), false, trust.ErrUnknownKey},
		{"alg none", withManifestSignature(t, u, forgedSignature(map[string]any{"alg": "none", "kid": f.key.KeyID}, u, nil)), false, trust.ErrAlgorithm},
		{"HMAC HS256", withManifestSignature(t, u, forgedSignature(map[string]any{"alg": "HS256", "kid": f.key.KeyID}, u, hs256)), true, trust.ErrAlgorithm},
		{"identity of another artifact", signedManifest(t, otherIdentity, digest, f.key), false, trust.ErrIdentity},
		{"sourceDigest of other bytes", signedManifest(t, identity, otherDigest, f.key), false, trust.ErrDigestMismatch},
		{"signature over a non-canonical form", withManifestSignature(t, nonCanonical, sig), false, trust.ErrBadSignature},
		{"unknown kid", withManifestSignature(t, u, forgedSignature(map[string]any{"alg": "ES256", "kid": "nope"}, u, func([]byte) []byte { return make([]byte, 64) })), false, trust.ErrUnknownKey},
	}
}
