package trust_test

import (
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"log"

	"github.com/wellknown-dev/discovery/trust"
)

// A publisher signs the manifest of a skill; a host that pinned the publisher's key
// verifies it against the bytes it installed.
func Example() {
	// Publisher side: a key file (PEM PKCS #8 here) and an unsigned manifest.
	seed := make([]byte, ed25519.SeedSize)
	der, _ := x509.MarshalPKCS8PrivateKey(ed25519.NewKeyFromSeed(seed))
	key, err := trust.ParseSigningKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		log.Fatal(err)
	}
	skill := []byte("---\nname: pdf\n---\nUse pdftotext.\n")
	manifest := []byte(`{
	  "identity": "urn:air:example.com:skill:pdf",
	  "provenance": [{"relation": "publishedFrom", "sourceId": "https://example.com/skills/pdf",
	                  "sourceDigest": "` + trust.Digest(skill) + `"}]
	}`)
	signed, err := trust.Sign(manifest, key)
	if err != nil {
		log.Fatal(err)
	}
	publicKeys, _ := key.PublicJWKS()

	// Host side: the key was pinned out of band for this publisher.
	opts := &trust.Options{Roots: []trust.Root{{
		Publisher: "Example Corp",
		Origin:    "https://example.com",
		JWKS:      publicKeys,
	}}}
	exp := trust.Expect{Identifier: "urn:air:example.com:skill:pdf", Origin: "https://example.com", Artifact: skill}
	res, err := trust.Verify(context.Background(), signed, exp, opts)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Verified, res.Publisher, res.Algorithm)

	// The same manifest does not vouch for other bytes.
	exp.Artifact = []byte("tampered")
	res, err = trust.Verify(context.Background(), signed, exp, opts)
	fmt.Println(res.Verified, errors.Is(err, trust.ErrDigestMismatch))
	// Output:
	// true Example Corp EdDSA
	// false true
}
