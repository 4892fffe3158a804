package trust

import (
	"errors"
	"fmt"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Sentinel errors. [Verify] returns a [*VerifyError] that wraps exactly one of them; test
// with errors.Is.
var (
	// ErrUnsigned is returned when a manifest has no "signature" member, or when files
	// are installed with the artifact that its signature does not cover
	// ([Expect.UncoveredFiles]).
	ErrUnsigned = errors.New("trust: manifest is not signed")
	// ErrMalformed is returned when a manifest or its signature is not well formed: not a
	// JSON object, too large, too deeply nested, duplicate member names, no identity, or a
	// signature that is not a compact detached JWS.
	ErrMalformed = errors.New("trust: malformed manifest or signature")
	// ErrAlgorithm is returned when the signature uses an algorithm outside the
	// allow-list (ES256, ES384, EdDSA, PS256, PS384, RS256): "none" and HMAC included.
	ErrAlgorithm = errors.New("trust: signature algorithm not allowed")
	// ErrIdentity is returned when the manifest's identity is not the identifier of the
	// artifact it accompanies.
	ErrIdentity = errors.New("trust: manifest identity does not match the artifact")
	// ErrWeakDigest is returned when a digest in the manifest uses an algorithm weaker
	// than SHA-256, or one this package does not know, or is malformed.
	ErrWeakDigest = errors.New("trust: digest weaker than SHA-256 or malformed")
	// ErrDigestMismatch is returned when no provenance sourceDigest of a correctly signed
	// manifest equals the digest of the artifact bytes actually installed.
	ErrDigestMismatch = errors.New("trust: artifact digest does not match the signed sourceDigest")
	// ErrUntrusted is returned when no trust root configured by the host covers the
	// manifest's identity or the origin it came from.
	ErrUntrusted = errors.New("trust: no trust root covers this publisher")
	// ErrUnknownKey is returned when no key of the covering trust roots matches the
	// signature's key ID (or none could be resolved).
	ErrUnknownKey = errors.New("trust: signing key not found among trusted keys")
	// ErrBadSignature is returned when the signature does not verify with any trusted
	// key that matches it.
	ErrBadSignature = errors.New("trust: signature does not verify")
	// ErrTooLarge is returned when a manifest, signature, key set or DID document exceeds
	// its size or count limit.
	ErrTooLarge = errors.New("trust: input too large")
)

// VerifyError reports why a manifest did not verify. It wraps one of the sentinel errors
// and, when there is one, the underlying cause (a KeyFetcher error, for example).
type VerifyError struct {
	Identity string // the manifest's identity as published (untrusted); "" when unreadable
	KeyID    string // the JWS "kid" header (untrusted); "" when absent or unread
	Err      error  // a sentinel such as ErrBadSignature
	Detail   string // a short explanation; may quote untrusted input, already escaped
	Cause    error  // the underlying error, or nil
}

// Error returns the sentinel's text with the identity, the detail and the cause.
func (e *VerifyError) Error() string {
	msg := e.Err.Error()
	if e.Identity != "" {
		msg = fmt.Sprintf("%s (identity %s)", msg, secrets.Quote(e.Identity, 0))
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Unwrap returns the sentinel and the cause, so errors.Is matches both.
func (e *VerifyError) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Err, e.Cause}
	}
	return []error{e.Err}
}
