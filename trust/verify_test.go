package trust

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
)

func TestVerifyAccepts(t *testing.T) {
	t.Parallel()
	es, ed := newES256(t), newEd25519(t)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := ParseSigningKey(pemKey(t, rsaKey))
	if err != nil {
		t.Fatal(err)
	}
	edJWK, _ := json.Marshal(jose.JSONWebKey{Key: ed.signer.Public(), KeyID: "ed-1", Algorithm: "EdDSA"})
	ts, fetch := newKeyServer(t, map[string][]byte{"/keys/jwks.json": jwks(t, es)})
	jwksURL := ts.URL + "/keys/jwks.json"
	// A did:web identity served by its own host; the method id is relative ("#kid").
	didDoc, _ := json.Marshal(map[string]any{
		"id": "did:web:old",
		"verificationMethod": []any{map[string]any{
			"id": "#" + ed.KeyID, "type": "JsonWebKey2020", "controller": "did:web:old",
			"publicKeyJwk": json.RawMessage(edJWK),
		}},
	})
	didTS, didFetch := newDIDServer(t, didDoc, "did:web:old")

	tests := []struct {
		name     string
		identity string
		key      *SigningKey
		opts     *Options
		origin   string
		wantPub  string
	}{
		{"ES256 pinned by identity", testIdentity, es, &Options{Roots: []Root{{Publisher: "Example", Identity: testIdentity, JWKS: jwks(t, es)}}}, "", "Example"},
		{"Ed25519 pinned by identity", testIdentity, ed, &Options{Roots: []Root{{Identity: testIdentity, JWKS: jwks(t, ed)}}}, "", testIdentity},
		{"PS256 pinned by origin", testIdentity, ps, &Options{Roots: []Root{{Publisher: "Example", Origin: "https://Example.com:443", JWKS: jwks(t, ps)}}}, "https://example.com", "Example"},
		{"ES256 from a JWKS URL", testIdentity, es, &Options{Roots: []Root{{Publisher: "Example", Identity: testIdentity, JWKSURL: jwksURL}}, Fetch: fetch}, "", "Example"},
		{"Ed25519 from did:web", didTS.did, ed, &Options{Roots: []Root{{Identity: didTS.did}}, Fetch: didFetch}, "", didTS.did},
		{"Ed25519 from did:web anchored by origin", didTS.did, ed, &Options{Roots: []Root{{Publisher: "Example", Origin: didTS.url}}, Fetch: didFetch}, didTS.url, "Example"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			signed := sign(t, testManifest(t, tc.identity, Digest(artifact)), tc.key)
			res, err := Verify(t.Context(), signed, Expect{Identifier: tc.identity, Origin: tc.origin, Artifact: artifact}, tc.opts)
			if err != nil {
				t.Fatalf("Verify() error = %v", err)
			}
			want := Result{Verified: true, Identity: tc.identity, Publisher: tc.wantPub, KeyID: tc.key.KeyID, Algorithm: tc.key.Algorithm}
			if *res != want {
				t.Errorf("Verify() = %+v, want %+v", *res, want)
			}
			// The digest form of Expect gives the same answer.
			if _, err := Verify(t.Context(), signed, Expect{Identifier: tc.identity, Origin: tc.origin, ArtifactDigest: Digest(artifact)}, tc.opts); err != nil {
				t.Errorf("Verify(ArtifactDigest) error = %v", err)
			}
		})
	}
}

// didServer is a TLS server publishing a did:web document for its own host.
type didServer struct{ did, url string }

// newDIDServer serves doc (written for oldDID) rewritten for the server's own DID.
func newDIDServer(t *testing.T, doc []byte, oldDID string) (didServer, KeyFetcher) {
	t.Helper()
	docs := map[string][]byte{}
	ts, fetch := newKeyServer(t, docs)
	d := "did:web:" + strings.ReplaceAll(strings.TrimPrefix(ts.URL, "https://"), ":", "%3A")
	docs["/.well-known/did.json"] = []byte(strings.ReplaceAll(string(doc), oldDID, d))
	return didServer{did: d, url: ts.URL}, fetch
}

// rawJWS builds a compact detached JWS with any header, signed by signFn.
func rawJWS(header map[string]any, payload []byte, signFn func(input []byte) []byte) string {
	h, _ := json.Marshal(header)
	hb := base64.RawURLEncoding.EncodeToString(h)
	input := []byte(hb + "." + base64.RawURLEncoding.EncodeToString(payload))
	return hb + ".." + base64.RawURLEncoding.EncodeToString(signFn(input))
}

func canonicalPayload(t *testing.T, manifest []byte) []byte {
	t.Helper()
	m, err := parseManifest(manifest)
	if err != nil {
		t.Fatal(err)
	}
	return m.payload
}

func TestVerifyRefuses(t *testing.T) {
	t.Parallel()
	es, other := newES256(t), newES256(t)
	pinned := &Options{Roots: []Root{{Identity: testIdentity, JWKS: jwks(t, es)}}}
	unsigned := testManifest(t, testIdentity, Digest(artifact))
	good := sign(t, unsigned, es)

	hmacKey := []byte("0123456789abcdef0123456789abcdef")
	hs256 := withSignature(t, unsigned, rawJWS(map[string]any{"alg": "HS256", "kid": es.KeyID}, canonicalPayload(t, unsigned), func(in []byte) []byte {
		m := hmac.New(sha256.New, hmacKey)
		m.Write(in)
		return m.Sum(nil)
	}))
	octJWKS, _ := json.Marshal(map[string]any{"keys": []any{map[string]any{"kty": "oct", "kid": es.KeyID, "k": base64.RawURLEncoding.EncodeToString(hmacKey)}}})
	none := withSignature(t, unsigned, rawJWS(map[string]any{"alg": "none", "kid": es.KeyID}, canonicalPayload(t, unsigned), func([]byte) []byte { return nil }))

	// A correct ES256 signature of the manifest as written (indented), not of its JCS form.
	nonCanonical := withSignature(t, unsigned, signDetachedES256(t, es, unsigned))

	unknownKid := withSignature(t, unsigned, rawJWS(map[string]any{"alg": "ES256", "kid": "nope"}, canonicalPayload(t, unsigned), func(in []byte) []byte { return make([]byte, 64) }))
	attached := withSignature(t, unsigned, "eyJhbGciOiJFUzI1NiJ9.eyJ4IjoxfQ.AAAA")
	crit := withSignature(t, unsigned, rawJWS(map[string]any{"alg": "ES256", "kid": es.KeyID, "crit": []string{"b64"}, "b64": false}, canonicalPayload(t, unsigned), func([]byte) []byte { return make([]byte, 64) }))
	// A signature over the raw canonical bytes (RFC 7797 unencoded payload) with "b64"
	// outside "crit": go-jose alone would accept it.
	b64 := withSignature(t, unsigned, func() string {
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: es.signer}, (&jose.SignerOptions{}).WithHeader("kid", es.KeyID).WithHeader("b64", false))
		if err != nil {
			t.Fatal(err)
		}
		obj, err := s.Sign(canonicalPayload(t, unsigned))
		if err != nil {
			t.Fatal(err)
		}
		sig, err := obj.DetachedCompactSerialize()
		if err != nil {
			t.Fatal(err)
		}
		return sig
	}())
	sha1Manifest := []byte(strings.Replace(string(unsigned), Digest(artifact), "sha1:"+strings.Repeat("a", 40), 1))
	md5Attestation := []byte(strings.Replace(string(unsigned), Digest([]byte("report")), "md5:"+strings.Repeat("b", 32), 1))

	tests := []struct {
		name     string
		manifest []byte
		exp      Expect
		opts     *Options
		want     error
	}{
		{"unsigned", unsigned, Expect{}, pinned, ErrUnsigned},
		{"wrong key", sign(t, unsigned, other), Expect{}, &Options{Roots: []Root{{Identity: testIdentity, JWKS: []byte(strings.Replace(string(jwks(t, es)), es.KeyID, other.KeyID, 1))}}}, ErrBadSignature},
		{"wrong key, other kid", sign(t, unsigned, other), Expect{}, pinned, ErrUnknownKey},
		{"alg none", none, Expect{}, pinned, ErrAlgorithm},
		{"HMAC HS256", hs256, Expect{}, &Options{Roots: []Root{{Identity: testIdentity, JWKS: octJWKS}}}, ErrAlgorithm},
		{"identity is not the entry's identifier", good, Expect{Identifier: "urn:air:example.com:skill:other"}, pinned, ErrIdentity},
		{"sourceDigest of other bytes", good, Expect{Artifact: []byte("tampered")}, pinned, ErrDigestMismatch},
		{"ArtifactDigest of other bytes", good, Expect{ArtifactDigest: Digest([]byte("tampered"))}, pinned, ErrDigestMismatch},
		{"signature over a non-canonical form", nonCanonical, Expect{}, pinned, ErrBadSignature},
		{"unknown kid", unknownKid, Expect{}, pinned, ErrUnknownKey},
		{"provenance digest weaker than SHA-256", sha1Manifest, Expect{}, pinned, ErrWeakDigest},
		{"attestation digest weaker than SHA-256", md5Attestation, Expect{}, pinned, ErrWeakDigest},
		{"no trust roots", good, Expect{}, nil, ErrUntrusted},
		{"root for another identity", good, Expect{}, &Options{Roots: []Root{{Identity: "urn:other", JWKS: jwks(t, es)}}}, ErrUntrusted},
		{"root for another origin", good, Expect{Origin: "https://evil.example"}, &Options{Roots: []Root{{Origin: "https://example.com", JWKS: jwks(t, es)}}}, ErrUntrusted},
		{"urn identity without pinned keys", good, Expect{}, &Options{Roots: []Root{{Identity: testIdentity}}}, ErrUnknownKey},
		{"attached payload", attached, Expect{}, pinned, ErrMalformed},
		{"crit header", crit, Expect{}, pinned, ErrMalformed},
		{"unencoded payload (b64 false)", b64, Expect{}, pinned, ErrMalformed},
		{"not JSON", []byte("{"), Expect{}, pinned, ErrMalformed},
		{"no identity", []byte(`{"signature":"a..b"}`), Expect{}, pinned, ErrMalformed},
		{"duplicate member", []byte(`{"identity":"` + testIdentity + `","identity":"x","signature":"a..b"}`), Expect{}, pinned, ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			exp := tc.exp
			if exp.Identifier == "" {
				exp.Identifier = testIdentity
			}
			if exp.Artifact == nil && exp.ArtifactDigest == "" {
				exp.Artifact = artifact
			}
			res, err := Verify(t.Context(), tc.manifest, exp, tc.opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify() error = %v, want %v", err, tc.want)
			}
			var ve *VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("Verify() error %T is not a *VerifyError", err)
			}
			if res == nil || res.Verified || res.Reason == "" || res.Publisher != "" {
				t.Errorf("Verify() result = %+v, want unverified with a reason", res)
			}
		})
	}
}

// signDetachedES256 signs exactly payload (not its canonical form) as a detached JWS.
func signDetachedES256(t *testing.T, k *SigningKey, payload []byte) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k.signer}, (&jose.SignerOptions{}).WithHeader("kid", k.KeyID))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := obj.DetachedCompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return sig
}

func TestVerifyBoundsHostileInput(t *testing.T) {
	t.Parallel()
	es := newES256(t)
	good := sign(t, testManifest(t, testIdentity, Digest(artifact)), es)

	// Key sets: one huge, one with thousands of small keys, one with a 16384-bit RSA key.
	var many []string
	for i := range 3000 { // small enough to stay under the byte cap: the count limit answers
		many = append(many, fmt.Sprintf(`{"kty":"EC","kid":"k%d"}`, i))
	}
	manyKeys := []byte(`{"keys":[` + strings.Join(many, ",") + `]}`)
	huge := []byte(`{"keys":[],"pad":"` + strings.Repeat("x", MaxKeySetBytes) + `"}`)
	bigRSA := []byte(`{"keys":[{"kty":"RSA","kid":"` + es.KeyID + `","e":"AQAB","n":"` + strings.Repeat("A", 16384/6) + `"}]}`)
	ts, fetch := newKeyServer(t, map[string][]byte{"/many": manyKeys, "/huge": huge, "/rsa": bigRSA})
	deep := []byte(`{"identity":"` + testIdentity + `","metadata":` + strings.Repeat("[", 30000) + strings.Repeat("]", 30000) + `,"signature":"a..b"}`)
	bigSig := withSignature(t, testManifest(t, testIdentity, Digest(artifact)), strings.Repeat("A", 1<<20)+"..AAAA")
	bigManifest := []byte(`{"identity":"` + testIdentity + `","metadata":{"pad":"` + strings.Repeat("x", 1<<20) + `"},"signature":"a..b"}`)
	fetchErr := errors.New("consent denied")

	tests := []struct {
		name     string
		manifest []byte
		opts     *Options
		want     error
	}{
		{"key set over the size cap (pinned)", good, &Options{Roots: []Root{{Identity: testIdentity, JWKS: huge}}}, ErrTooLarge},
		{"key set over the size cap (fetched)", good, &Options{Roots: []Root{{Identity: testIdentity, JWKSURL: ts.URL + "/huge"}}, Fetch: fetch}, ErrTooLarge},
		{"thousands of keys", good, &Options{Roots: []Root{{Identity: testIdentity, JWKSURL: ts.URL + "/many"}}, Fetch: fetch}, ErrTooLarge},
		{"RSA key too large", good, &Options{Roots: []Root{{Identity: testIdentity, JWKSURL: ts.URL + "/rsa"}}, Fetch: fetch}, ErrUnknownKey},
		{"deeply nested manifest", deep, nil, ErrMalformed},
		{"absurd signature", bigSig, nil, ErrTooLarge},
		{"manifest over the size cap", bigManifest, nil, ErrTooLarge},
		{"fetcher error", good, &Options{Roots: []Root{{Identity: testIdentity, JWKSURL: ts.URL + "/x"}}, Fetch: func(context.Context, string) ([]byte, error) { return nil, fetchErr }}, fetchErr},
		{"no fetcher", good, &Options{Roots: []Root{{Identity: testIdentity, JWKSURL: ts.URL + "/many"}}}, ErrUnknownKey},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := Verify(t.Context(), tc.manifest, Expect{Identifier: testIdentity, Artifact: artifact}, tc.opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify() error = %v, want %v", err, tc.want)
			}
			if res.Verified {
				t.Fatal("Verify() verified hostile input")
			}
		})
	}
}

func TestVerifyDIDWebNeedsItsOwnHost(t *testing.T) {
	t.Parallel()
	ed := newEd25519(t)
	edJWK, _ := json.Marshal(jose.JSONWebKey{Key: ed.signer.Public(), KeyID: ed.KeyID})
	doc, _ := json.Marshal(map[string]any{"id": "did:web:old", "verificationMethod": []any{map[string]any{"id": "did:web:old#" + ed.KeyID, "publicKeyJwk": json.RawMessage(edJWK)}}})
	srv, fetch := newDIDServer(t, doc, "did:web:old")
	signed := sign(t, testManifest(t, srv.did, Digest(artifact)), ed)
	// An origin root for another host must not vouch for keys that the DID's own host serves.
	_, err := Verify(t.Context(), signed, Expect{Identifier: srv.did, Origin: "https://example.com", Artifact: artifact},
		&Options{Roots: []Root{{Origin: "https://example.com"}}, Fetch: fetch})
	if !errors.Is(err, ErrUntrusted) {
		t.Fatalf("Verify() error = %v, want ErrUntrusted", err)
	}
	// A DID document that names another DID is not authoritative for this one.
	wrong, wrongFetch := newDIDServer(t, doc, "did:web:nowhere")
	signedWrong := sign(t, testManifest(t, wrong.did, Digest(artifact)), ed)
	_, err = Verify(t.Context(), signedWrong, Expect{Identifier: wrong.did, Artifact: artifact}, &Options{Roots: []Root{{Identity: wrong.did}}, Fetch: wrongFetch})
	if !errors.Is(err, ErrUnknownKey) || !errors.Is(err, ErrMalformed) {
		t.Fatalf("Verify(DID document of another DID) error = %v, want ErrUnknownKey caused by ErrMalformed", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = Verify(ctx, signed, Expect{Identifier: srv.did, Artifact: artifact}, &Options{Roots: []Root{{Identity: srv.did}}, Fetch: fetch})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Verify(cancelled) error = %v, want context.Canceled", err)
	}
}

func TestVerifyRejectsBadConfiguration(t *testing.T) {
	t.Parallel()
	good := sign(t, testManifest(t, testIdentity, Digest(artifact)), newES256(t))
	tests := []struct {
		name string
		exp  Expect
		opts *Options
	}{
		{"no identifier", Expect{Artifact: artifact}, nil},
		{"no artifact", Expect{Identifier: testIdentity}, nil},
		{"root with no anchor", Expect{Identifier: testIdentity, Artifact: artifact}, &Options{Roots: []Root{{JWKS: []byte("{}")}}}},
		{"root with a bad origin", Expect{Identifier: testIdentity, Artifact: artifact}, &Options{Roots: []Root{{Origin: "example.com"}}}},
		{"root with an http JWKS URL", Expect{Identifier: testIdentity, Artifact: artifact}, &Options{Roots: []Root{{Identity: testIdentity, JWKSURL: "http://example.com/jwks"}}}},
		{"negative uncovered files", Expect{Identifier: testIdentity, Artifact: artifact, UncoveredFiles: -1}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := Verify(t.Context(), good, tc.exp, tc.opts)
			if err == nil || res == nil || res.Verified {
				t.Fatalf("Verify() = %+v, %v; want a configuration error", res, err)
			}
		})
	}
}

func TestDIDWebURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ did, want string }{
		{"did:web:example.com", "https://example.com/.well-known/did.json"},
		{"did:web:example.com%3A8443", "https://example.com:8443/.well-known/did.json"},
		{"did:web:example.com:user:alice", "https://example.com/user/alice/did.json"},
		{"did:web:example.com#key-1", "https://example.com/.well-known/did.json"},
		{"did:web:", ""},
		{"did:web:example.com:..:x", ""},
		{"did:web:evil.com%2Fx", ""},
		{"did:web:user@example.com", ""},
	}
	for _, tc := range tests {
		got, err := didWebURL(tc.did)
		if tc.want == "" {
			if err == nil {
				t.Errorf("didWebURL(%q) = %q, want an error", tc.did, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("didWebURL(%q) = %q, %v; want %q", tc.did, got, err, tc.want)
		}
	}
}

func TestParseJWKKeepsOnlyAllowedKeys(t *testing.T) {
	t.Parallel()
	p521, _ := ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	for name, k := range map[string]any{"P-521": &p521.PublicKey, "RSA-1024": &small.PublicKey} {
		b, _ := json.Marshal(jose.JSONWebKey{Key: k, KeyID: "x"})
		if _, ok := parseJWK(b); ok {
			t.Errorf("parseJWK(%s) accepted", name)
		}
	}
	enc, _ := json.Marshal(jose.JSONWebKey{Key: &newES256(t).signer.(*ecdsa.PrivateKey).PublicKey, Use: "enc"})
	if _, ok := parseJWK(enc); ok {
		t.Error("parseJWK accepted an encryption key")
	}
}

func TestRootsDecodeFromConfiguration(t *testing.T) {
	t.Parallel()
	es := newES256(t)
	config := `[{"publisher": "Example Corp", "origin": "https://example.com", "jwks": ` + string(jwks(t, es)) + `}]`
	var roots []Root
	if err := json.Unmarshal([]byte(config), &roots); err != nil {
		t.Fatal(err)
	}
	signed := sign(t, testManifest(t, testIdentity, Digest(artifact)), es)
	res, err := Verify(t.Context(), signed, Expect{Identifier: testIdentity, Origin: "https://example.com", Artifact: artifact}, &Options{Roots: roots})
	if err != nil || res.Publisher != "Example Corp" {
		t.Fatalf("Verify() = %+v, %v", res, err)
	}
}

func TestParseKeySetCountLimit(t *testing.T) {
	t.Parallel()
	var keys []string
	for range MaxKeys + 1 {
		keys = append(keys, `{"kty":"EC"}`)
	}
	_, err := parseKeySet([]byte(`{"keys":[` + strings.Join(keys, ",") + `]}`))
	if !errors.Is(err, ErrTooLarge) { // a few hundred bytes: only the count can be too large
		t.Fatalf("parseKeySet(%d keys) error = %v, want the key count limit", MaxKeys+1, err)
	}
	if _, err := parseKeySet([]byte(`{"keys":[` + strings.Join(keys[:MaxKeys], ",") + `]}`)); err != nil {
		t.Fatalf("parseKeySet(%d keys) error = %v", MaxKeys, err)
	}
}

// TestVerifyRefusesFilesTheSignatureDoesNotCover: a correct signature of the artifact
// does not vouch for other files installed with it (a skill published as a list of
// files, whose SKILL.md alone is signed): unverified, ErrUnsigned, saying so.
func TestVerifyRefusesFilesTheSignatureDoesNotCover(t *testing.T) {
	t.Parallel()
	k := newES256(t)
	signed := sign(t, testManifest(t, testIdentity, Digest(artifact)), k)
	opts := &Options{Roots: []Root{{Publisher: "Example", Identity: testIdentity, JWKS: jwks(t, k)}}}
	if _, err := Verify(t.Context(), signed, Expect{Identifier: testIdentity, Artifact: artifact}, opts); err != nil {
		t.Fatalf("the artifact alone: %v", err)
	}
	res, err := Verify(t.Context(), signed, Expect{Identifier: testIdentity, Artifact: artifact, UncoveredFiles: 2}, opts)
	if !errors.Is(err, ErrUnsigned) || res.Verified || res.Publisher != "" || !strings.Contains(res.Reason, "2 other files") {
		t.Fatalf("Verify() = %+v, %v; want unverified, ErrUnsigned, naming the 2 files", res, err)
	}
}
