package trust

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// artifact is the installed skill the test manifests vouch for.
var artifact = []byte("---\nname: pdf\n---\nUse pdftotext.\n")

const testIdentity = "urn:air:example.com:skill:pdf"

// testManifest returns an unsigned manifest for identity whose sourceDigest is digest.
func testManifest(t testing.TB, identity, digest string) []byte {
	t.Helper()
	m := map[string]any{
		"identity": identity,
		"provenance": []any{map[string]any{
			"relation": "publishedFrom", "sourceId": "https://github.com/example/pdf", "sourceDigest": digest,
		}},
		"attestations": []any{map[string]any{
			"type": "SOC2-Type2", "uri": "https://example.com/soc2.pdf", "mediaType": "application/pdf",
			"digest": Digest([]byte("report")),
		}},
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pemKey encodes a private key as PEM PKCS #8.
func pemKey(t testing.TB, k any) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

func newES256(t testing.TB) *SigningKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := ParseSigningKey(pemKey(t, k))
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

func newEd25519(t testing.TB) *SigningKey {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := ParseSigningKey(pemKey(t, k))
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

func jwks(t testing.TB, k *SigningKey) []byte {
	t.Helper()
	b, err := k.PublicJWKS()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sign(t testing.TB, manifest []byte, k *SigningKey) []byte {
	t.Helper()
	b, err := Sign(manifest, k)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withSignature returns manifest with its "signature" member set to sig.
func withSignature(t testing.TB, manifest []byte, sig string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(manifest, &m); err != nil {
		t.Fatal(err)
	}
	m["signature"], _ = json.Marshal(sig)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newKeyServer serves docs by path over TLS and returns a KeyFetcher that applies a
// caller-style policy (its own client, a size cap, status check).
func newKeyServer(t testing.TB, docs map[string][]byte) (*httptest.Server, KeyFetcher) {
	t.Helper()
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}))
	t.Cleanup(ts.Close)
	client := ts.Client()
	fetch := func(ctx context.Context, u string) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, errors.New(resp.Status)
		}
		return io.ReadAll(io.LimitReader(resp.Body, MaxKeySetBytes+1))
	}
	return ts, fetch
}
