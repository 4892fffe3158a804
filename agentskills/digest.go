package agentskills

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// DigestPrefix starts every digest: "sha256:" then 64 lowercase hex digits.
const DigestPrefix = "sha256:"

// Digest returns the digest of data: "sha256:" and 64 lowercase hex digits, over the
// raw bytes.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return DigestPrefix + hex.EncodeToString(sum[:])
}

// ValidDigest reports whether d is "sha256:" and exactly 64 lowercase hex digits.
func ValidDigest(d string) bool {
	h, ok := strings.CutPrefix(d, DigestPrefix)
	if !ok || len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Verify checks data against a published size and digest. It is the one verifier every
// part of the SDK uses. The size, when known (>= 0), is checked first, so a wrong
// length fails before any hashing; the digest must be well formed and equal to the
// digest of the raw bytes. The error wraps ErrDigestMismatch and never contains data.
func Verify(data []byte, size int64, digest string) error {
	if size >= 0 && int64(len(data)) != size {
		return fmt.Errorf("%w: %d bytes, want %d", ErrDigestMismatch, len(data), size)
	}
	if !ValidDigest(digest) {
		return fmt.Errorf("%w: published digest is not sha256: and 64 lowercase hex digits", ErrDigestMismatch)
	}
	sum := sha256.Sum256(data)
	var want [sha256.Size]byte
	if _, err := hex.Decode(want[:], []byte(digest[len(DigestPrefix):])); err != nil || want != sum {
		return fmt.Errorf("%w: content hashes to %s, want %s", ErrDigestMismatch, DigestPrefix+hex.EncodeToString(sum[:]), digest)
	}
	return nil
}
