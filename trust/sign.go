package trust

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/gowebpki/jcs"
)

// ErrKey is returned by [ParseSigningKey] for a key file that is not a supported
// private key, and by [Sign] for a nil or unusable key.
var ErrKey = errors.New("trust: unsupported or malformed signing key")

// SigningKey is a publisher's private key, ready to sign manifests. Create it with
// [ParseSigningKey]; the zero SigningKey is not usable. It is safe for concurrent use.
type SigningKey struct {
	// KeyID is the JWS "kid" written into signatures: the JWK's "kid", or else its
	// RFC 7638 thumbprint (base64url SHA-256). Verifiers match it against their keys.
	KeyID string
	// Algorithm is the JWS algorithm used: ES256 (P-256), ES384 (P-384), EdDSA
	// (Ed25519), or PS256 (RSA of 2048 bits or more; a JWK may ask for RS256 or PS384
	// with its "alg").
	Algorithm string
	signer    crypto.Signer
}

// ParseSigningKey reads a private key file: PEM "PRIVATE KEY" (PKCS #8) or a private
// JWK (JSON with "d"). Keys outside the verifier's allow-list (RSA under 2048 bits, other
// curves, symmetric keys) are refused with [ErrKey].
func ParseSigningKey(data []byte) (*SigningKey, error) {
	data = bytes.TrimSpace(data)
	var priv any
	var kid, alg string
	switch {
	case bytes.HasPrefix(data, []byte("{")):
		var jwk jose.JSONWebKey
		if err := jwk.UnmarshalJSON(data); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrKey, err)
		}
		if jwk.IsPublic() {
			return nil, fmt.Errorf("%w: JWK has no private part", ErrKey)
		}
		priv, kid, alg = jwk.Key, jwk.KeyID, jwk.Algorithm
	default:
		block, _ := pem.Decode(data)
		if block == nil || block.Type != "PRIVATE KEY" {
			return nil, fmt.Errorf("%w: want PEM \"PRIVATE KEY\" (PKCS #8) or a JWK", ErrKey)
		}
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrKey, err)
		}
		priv = k
	}
	var signer crypto.Signer
	var def string
	switch k := priv.(type) {
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			def = "ES256"
		case elliptic.P384():
			def = "ES384"
		default:
			return nil, fmt.Errorf("%w: curve %s", ErrKey, k.Curve.Params().Name)
		}
		signer = k
	case ed25519.PrivateKey:
		def, signer = "EdDSA", k
	case *ed25519.PrivateKey:
		def, signer = "EdDSA", *k
	case *rsa.PrivateKey:
		if n := k.N.BitLen(); n < minRSABits || n > maxRSABits {
			return nil, fmt.Errorf("%w: RSA key of %d bits", ErrKey, n)
		}
		def, signer = "PS256", k
		if alg == "RS256" || alg == "PS384" {
			def = alg
		}
	default:
		return nil, fmt.Errorf("%w: key type %T", ErrKey, priv)
	}
	if alg != "" && alg != def {
		return nil, fmt.Errorf("%w: JWK alg %s does not fit the key", ErrKey, clip(alg))
	}
	sk := &SigningKey{KeyID: kid, Algorithm: def, signer: signer}
	if sk.KeyID == "" {
		pub := jose.JSONWebKey{Key: signer.Public()}
		tp, err := pub.Thumbprint(crypto.SHA256)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrKey, err)
		}
		sk.KeyID = base64.RawURLEncoding.EncodeToString(tp)
	}
	return sk, nil
}

// PublicJWKS returns the JWK Set a publisher serves (or hands to hosts to pin) so that
// its signatures verify: the public key with its "kid", "alg" and "use".
func (k *SigningKey) PublicJWKS() ([]byte, error) {
	if k == nil || k.signer == nil {
		return nil, ErrKey
	}
	pub := jose.JSONWebKey{Key: k.signer.Public(), KeyID: k.KeyID, Algorithm: k.Algorithm, Use: "sig"}
	return json.Marshal(map[string][]jose.JSONWebKey{"keys": {pub}})
}

// Sign signs a Trust Manifest as the specification says: it removes any "signature"
// member, canonicalizes the rest with JCS (RFC 8785), signs those bytes as a detached
// JWS (RFC 7515, compact, with "alg" and "kid"), and returns the manifest in JCS
// canonical form with the new "signature" member. The manifest must be a JSON object
// with an "identity" and obey the same limits [Verify] enforces, including SHA-256 or
// stronger digests.
func Sign(manifestJSON []byte, k *SigningKey) ([]byte, error) {
	if k == nil || k.signer == nil {
		return nil, ErrKey
	}
	m, err := parseManifest(manifestJSON)
	if err != nil {
		return nil, err
	}
	opts := (&jose.SignerOptions{}).WithHeader("kid", k.KeyID)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(k.Algorithm), Key: k.signer}, opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKey, err)
	}
	jws, err := signer.Sign(m.payload)
	if err != nil {
		return nil, fmt.Errorf("trust: sign: %w", err)
	}
	sig, err := jws.DetachedCompactSerialize()
	if err != nil {
		return nil, fmt.Errorf("trust: sign: %w", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(m.payload, &top); err != nil {
		return nil, fmt.Errorf("trust: sign: %w", err)
	}
	top["signature"], _ = json.Marshal(sig)
	out, err := json.Marshal(top)
	if err != nil {
		return nil, fmt.Errorf("trust: sign: %w", err)
	}
	return jcs.Transform(out)
}
