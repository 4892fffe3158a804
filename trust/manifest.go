package trust

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"strings"

	"github.com/gowebpki/jcs"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Limits on what this package parses. They are far above any real manifest and keep a
// hostile document from costing more than a few milliseconds.
const (
	// MaxManifestBytes is the largest manifest accepted, in bytes.
	MaxManifestBytes = 64 << 10
	// MaxSignatureBytes is the largest compact JWS accepted, in bytes (an RSA-8192
	// signature needs under 1.5 KiB).
	MaxSignatureBytes = 8 << 10
	// maxDepth is the deepest nesting of arrays and objects accepted in a manifest.
	maxDepth = 32
	// maxHeaderBytes bounds the decoded JWS protected header.
	maxHeaderBytes = 2 << 10
)

// manifest is what Verify reads from a Trust Manifest. Everything in it is untrusted
// until the signature has verified.
type manifest struct {
	identity  string
	signature string
	digests   []string // provenance sourceDigest values, in order
	others    []string // every other digest (attestations), checked for strength only
	payload   []byte   // the JCS canonical form of the manifest without "signature"
}

// parseManifest checks the manifest's shape and bounds and computes the signed payload.
func parseManifest(data []byte) (*manifest, error) {
	if len(data) > MaxManifestBytes {
		return nil, fmt.Errorf("%w: manifest of %d bytes (limit %d)", ErrTooLarge, len(data), MaxManifestBytes)
	}
	if err := checkDepth(data, maxDepth); err != nil {
		return nil, err
	}
	// JCS rejects duplicate member names at every level: a manifest that two parsers
	// could read differently is refused, so what is signed is what is checked.
	if _, err := jcs.Transform(data); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return nil, fmt.Errorf("%w: manifest is not a JSON object", ErrMalformed)
	}
	m := &manifest{}
	if err := str(top, "identity", &m.identity); err != nil || m.identity == "" {
		return nil, fmt.Errorf("%w: manifest has no identity string", ErrMalformed)
	}
	if raw, ok := top["signature"]; ok {
		if err := json.Unmarshal(raw, &m.signature); err != nil {
			return nil, fmt.Errorf("%w: signature is not a string", ErrMalformed)
		}
	}
	var err error
	if m.digests, err = memberDigests(top, "provenance", "sourceDigest"); err != nil {
		return nil, err
	}
	if m.others, err = memberDigests(top, "attestations", "digest"); err != nil {
		return nil, err
	}
	m.payload, err = signingInput(top)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// signingInput is the specification's signed payload: the JCS (RFC 8785) canonical form
// of the manifest object without its "signature" member.
func signingInput(top map[string]json.RawMessage) ([]byte, error) {
	rest := make(map[string]json.RawMessage, len(top))
	for k, v := range top {
		if k != "signature" {
			rest[k] = v
		}
	}
	b, err := json.Marshal(rest)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	c, err := jcs.Transform(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return c, nil
}

func str(m map[string]json.RawMessage, key string, out *string) error {
	raw, ok := m[key]
	if !ok {
		return nil
	}
	return json.Unmarshal(raw, out)
}

// memberDigests returns the digest member of each object of the array top[key]. Member
// names are matched exactly (encoding/json's case-insensitive struct matching is avoided).
func memberDigests(top map[string]json.RawMessage, key, member string) ([]string, error) {
	raw, ok := top[key]
	if !ok {
		return nil, nil
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("%w: %s is not an array of objects", ErrMalformed, key)
	}
	var out []string
	for i, obj := range list {
		var d string
		if err := str(obj, member, &d); err != nil {
			return nil, fmt.Errorf("%w: %s[%d].%s is not a string", ErrMalformed, key, i, member)
		}
		if _, ok := obj[member]; !ok {
			continue
		}
		if _, _, err := splitDigest(d); err != nil {
			return nil, fmt.Errorf("%s[%d].%s: %w", key, i, member, err)
		}
		out = append(out, d)
	}
	return out, nil
}

// checkDepth refuses JSON nested deeper than max without parsing it, so a hostile
// document cannot drive a recursive parser deep.
func checkDepth(data []byte, max int) error {
	depth, inString, escaped := 0, false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > max {
				return fmt.Errorf("%w: nested deeper than %d levels", ErrMalformed, max)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

// digestAlgorithms are the digest algorithms accepted, by name as written in
// "algorithm:hex" digests. The specification requires refusing anything shorter than
// SHA-256; unknown names are refused too, since they cannot be checked.
var digestAlgorithms = map[string]func() hash.Hash{
	"sha256": sha256.New,
	"sha384": sha512.New384,
	"sha512": sha512.New,
}

// splitDigest checks a digest written "algorithm:lowercase-hex" and returns its parts.
func splitDigest(d string) (alg string, sum []byte, err error) {
	alg, hexPart, ok := strings.Cut(d, ":")
	newHash, known := digestAlgorithms[alg]
	if !ok || !known {
		return "", nil, fmt.Errorf("%w: %s", ErrWeakDigest, clip(d))
	}
	sum, err = hex.DecodeString(hexPart)
	if err != nil || len(sum) != newHash().Size() || hexPart != strings.ToLower(hexPart) {
		return "", nil, fmt.Errorf("%w: %s", ErrWeakDigest, clip(d))
	}
	return alg, sum, nil
}

// Digest returns the SHA-256 digest of data in the specification's digest format,
// "sha256:" followed by lowercase hex: what a publisher writes as sourceDigest and what
// [Expect.ArtifactDigest] holds.
func Digest(data []byte) string {
	s := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(s[:])
}

// digestMatches reports whether a manifest digest d is the digest of data, computed with
// d's own algorithm.
func digestMatches(d string, data []byte) bool {
	alg, want, err := splitDigest(d)
	if err != nil {
		return false
	}
	h := digestAlgorithms[alg]()
	h.Write(data)
	return bytes.Equal(h.Sum(nil), want)
}

// clip quotes untrusted text for an error message: escaped, secrets scrubbed, cut short.
func clip(s string) string { return secrets.Quote(s, 80) }
