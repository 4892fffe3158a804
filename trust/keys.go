package trust

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	jose "github.com/go-jose/go-jose/v4"
)

// Limits on key material read from pinned roots, JWKS URLs and DID documents.
const (
	// MaxKeySetBytes is the largest JWK Set or DID document accepted, in bytes.
	MaxKeySetBytes = 256 << 10
	// MaxKeys is the most keys read from one JWK Set or DID document.
	MaxKeys    = 64
	minRSABits = 2048
	maxRSABits = 8192
)

// KeyFetcher retrieves the document at url: a JWK Set (from [Root.JWKSURL] or an https
// identity), a DID document (for a did:web identity), or for [VerifyPublished] the
// Trust Manifest published beside an artifact. The url is always https. The
// caller applies its own policy: HTTPS and origin rules, consent, redirects, timeouts and
// a size cap (this package refuses more than [MaxKeySetBytes] anyway). It may be called
// from several goroutines at once, must return promptly or as soon as ctx is done, and
// may cache. Returning an error fails verification with [ErrUnknownKey] wrapping it.
type KeyFetcher func(ctx context.Context, url string) ([]byte, error)

// key is one usable public key with its identifiers.
type key struct {
	kid    string // "kid", or the DID verification method id
	alg    string // the JWK "alg", "" when absent
	public any    // *ecdsa.PublicKey, ed25519.PublicKey or *rsa.PublicKey
}

// parseKeySet reads a JWK Set ({"keys":[...]}) or a single JWK, keeping only public
// signature keys of an allowed type and size. Unusable keys are skipped, not errors:
// a set may also carry encryption keys.
func parseKeySet(data []byte) ([]key, error) {
	if len(data) > MaxKeySetBytes {
		return nil, fmt.Errorf("%w: key set of %d bytes (limit %d)", ErrTooLarge, len(data), MaxKeySetBytes)
	}
	if err := checkDepth(data, maxDepth); err != nil {
		return nil, err
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("%w: key set is not a JWK Set: %v", ErrMalformed, err)
	}
	if set.Keys == nil {
		set.Keys = []json.RawMessage{data} // a single JWK
	}
	if len(set.Keys) > MaxKeys {
		return nil, fmt.Errorf("%w: %d keys in one set (limit %d)", ErrTooLarge, len(set.Keys), MaxKeys)
	}
	var keys []key
	for _, raw := range set.Keys {
		if k, ok := parseJWK(raw); ok {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// parseJWK returns the public half of one JWK if it is a signature key this package
// accepts: EC P-256 or P-384, Ed25519, or RSA of 2048 to 8192 bits.
func parseJWK(raw []byte) (key, bool) {
	// Check the RSA modulus length before go-jose decodes it into a big.Int.
	var shape struct {
		Kty string `json:"kty"`
		N   string `json:"n"`
		Use string `json:"use"`
	}
	if json.Unmarshal(raw, &shape) != nil || (shape.Use != "" && shape.Use != "sig") {
		return key{}, false
	}
	if shape.Kty == "RSA" && len(shape.N) > (maxRSABits/8*4+2)/3+1 {
		return key{}, false
	}
	var jwk jose.JSONWebKey
	if jwk.UnmarshalJSON(raw) != nil {
		return key{}, false
	}
	pub := jwk.Public()
	k := key{kid: jwk.KeyID, alg: jwk.Algorithm}
	switch p := pub.Key.(type) {
	case *ecdsa.PublicKey:
		if p.Curve != elliptic.P256() && p.Curve != elliptic.P384() {
			return key{}, false
		}
		k.public = p
	case ed25519.PublicKey:
		k.public = p
	case *rsa.PublicKey:
		if n := p.N.BitLen(); n < minRSABits || n > maxRSABits {
			return key{}, false
		}
		k.public = p
	default: // symmetric ("oct") keys and anything else: never usable
		return key{}, false
	}
	return k, true
}

// didWebURL maps a did:web identifier to its DID document URL, per the did:web method:
// did:web:example.com is https://example.com/.well-known/did.json and
// did:web:example.com:user:alice is https://example.com/user/alice/did.json. A port is
// written percent-encoded ("example.com%3A8443").
func didWebURL(did string) (string, error) {
	rest, ok := strings.CutPrefix(did, "did:web:")
	if !ok || rest == "" {
		return "", fmt.Errorf("%w: not a did:web identifier", ErrMalformed)
	}
	rest, _, _ = strings.Cut(rest, "#")
	parts := strings.Split(rest, ":")
	host, err := url.PathUnescape(parts[0])
	if err != nil || host == "" || strings.ContainsAny(host, "/?#@\\") {
		return "", fmt.Errorf("%w: bad did:web host", ErrMalformed)
	}
	path := "/.well-known"
	if len(parts) > 1 {
		segs := make([]string, 0, len(parts)-1)
		for _, p := range parts[1:] {
			s, err := url.PathUnescape(p)
			if err != nil || s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/?#\\") {
				return "", fmt.Errorf("%w: bad did:web path", ErrMalformed)
			}
			segs = append(segs, url.PathEscape(s))
		}
		path = "/" + strings.Join(segs, "/")
	}
	u := &url.URL{Scheme: "https", Host: host, Path: path + "/did.json"}
	if u.Hostname() == "" {
		return "", fmt.Errorf("%w: bad did:web host", ErrMalformed)
	}
	return u.String(), nil
}

// parseDIDDocument reads the publicKeyJwk of each verificationMethod of a DID
// document, bounded like a JWK Set. The method's "id" becomes the key ID.
func parseDIDDocument(data []byte, did string) ([]key, error) {
	if len(data) > MaxKeySetBytes {
		return nil, fmt.Errorf("%w: DID document of %d bytes (limit %d)", ErrTooLarge, len(data), MaxKeySetBytes)
	}
	if err := checkDepth(data, maxDepth); err != nil {
		return nil, err
	}
	var doc struct {
		ID      string `json:"id"`
		Methods []struct {
			ID  string          `json:"id"`
			JWK json.RawMessage `json:"publicKeyJwk"`
		} `json:"verificationMethod"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: DID document: %v", ErrMalformed, err)
	}
	// A DID document is only authoritative for its own DID.
	if doc.ID != did {
		return nil, fmt.Errorf("%w: DID document id %s is not %s", ErrMalformed, clip(doc.ID), clip(did))
	}
	if len(doc.Methods) > MaxKeys {
		return nil, fmt.Errorf("%w: %d verification methods (limit %d)", ErrTooLarge, len(doc.Methods), MaxKeys)
	}
	var keys []key
	for _, m := range doc.Methods {
		if m.JWK == nil {
			continue
		}
		k, ok := parseJWK(m.JWK)
		if !ok {
			continue
		}
		k.kid = m.ID
		if strings.HasPrefix(m.ID, "#") {
			k.kid = did + m.ID
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// kidMatches reports whether a JWS "kid" names k. A DID verification method matches by
// its full id ("did:web:example.com#key-1") or by its fragment ("key-1" or "#key-1").
func (k key) kidMatches(kid string) bool {
	if kid == k.kid {
		return true
	}
	_, frag, ok := strings.Cut(k.kid, "#")
	return ok && strings.HasPrefix(k.kid, "did:") && (kid == frag || kid == "#"+frag)
}

// resolveURL returns the document URL that an identity's scheme names for its keys:
// the DID document of a did:web identity, or the identity itself when it is an https
// URL (the specification's JWKS URL form). Other schemes have no resolution here.
func resolveURL(identity string) (u string, did bool, err error) {
	switch {
	case strings.HasPrefix(identity, "did:web:"):
		u, err := didWebURL(identity)
		return u, true, err
	case strings.HasPrefix(identity, "https://"):
		p, err := url.Parse(identity)
		if err != nil || p.Host == "" || p.User != nil {
			return "", false, fmt.Errorf("%w: identity is not a valid https URL", ErrMalformed)
		}
		p.Fragment, p.RawFragment = "", ""
		return p.String(), false, nil
	default:
		return "", false, fmt.Errorf("%w: identity scheme has no key resolution; pin keys in a Root", ErrUnknownKey)
	}
}
