package trust

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// allowedAlgs are the JWS algorithms a signature may use. Only asymmetric algorithms
// are allowed: "none" proves nothing and an HMAC key would have to be shared with every
// verifier, which lets any of them forge.
var allowedAlgs = []string{"ES256", "ES384", "EdDSA", "PS256", "PS384", "RS256"}

// Algorithms returns the JWS algorithms [Verify] accepts: ES256, ES384, EdDSA, PS256,
// PS384 and RS256. The slice is a copy.
func Algorithms() []string { return append([]string(nil), allowedAlgs...) }

var joseAlgorithms = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.EdDSA, jose.PS256, jose.PS384, jose.RS256}

func allowedAlgorithm(alg string) bool {
	for _, a := range allowedAlgs {
		if a == alg {
			return true
		}
	}
	return false
}

// Root is a trust anchor the host configures out of band (a configuration file, a flag):
// which publisher may sign for which identity or origin, and with which keys. A manifest
// signed by a key no Root vouches for is not verified, however valid the signature.
//
// A Root covers a manifest when Identity equals the manifest's identity, or when Origin
// equals the origin the artifact was discovered on ([Expect.Origin]). Its keys are, in
// order of preference: JWKS (pinned bytes), else the set fetched from JWKSURL, else the
// keys the identity itself resolves to (a did:web DID document, or an https identity
// that is a JWKS URL), and the last only when the identity's host is the Root's own:
// the host of Identity, or the host of Origin.
//
// A Root decodes from JSON, so a host can keep its roots in a configuration file:
//
//	[{"publisher": "Example Corp", "origin": "https://example.com", "jwks": {"keys": [...]}},
//	 {"identity": "did:web:tools.example.org"}]
type Root struct {
	// Publisher is the display name reported in [Result.Publisher]; "" reports the
	// manifest's identity instead.
	Publisher string `json:"publisher,omitempty"`
	// Identity is the exact manifest identity (an entry identifier such as
	// "urn:air:example.com:mcp:weather", a DID, an https URL) this Root covers; "" covers
	// none by identity.
	Identity string `json:"identity,omitempty"`
	// Origin, such as "https://example.com", makes this Root cover every artifact
	// discovered on that origin; "" covers none by origin.
	Origin string `json:"origin,omitempty"`
	// JWKS is a pinned JWK Set (or one JWK) holding the publisher's public keys; nil
	// uses JWKSURL or identity resolution.
	JWKS json.RawMessage `json:"jwks,omitempty"`
	// JWKSURL is an https URL of the publisher's JWK Set, fetched with
	// [Options.Fetch]; "" uses identity resolution.
	JWKSURL string `json:"jwksUrl,omitempty"`
}

// Options configures [Verify]. A nil *Options verifies nothing: with no Roots, every
// signed manifest fails with [ErrUntrusted].
type Options struct {
	// Roots are the trust anchors; nil means none.
	Roots []Root
	// Fetch retrieves JWK Sets and DID documents; nil means only pinned keys
	// (Root.JWKS) can verify.
	Fetch KeyFetcher
}

// Expect describes the artifact a manifest must vouch for.
type Expect struct {
	// Identifier is the artifact's identifier: a catalog entry's "identifier", or the
	// skill URL or MCP resource URI under the web and MCP conventions (see the package
	// documentation). The manifest's identity must equal it. Required.
	Identifier string
	// Origin is the origin ("https://example.com") the artifact was discovered on, for
	// Roots that cover an origin; "" matches no Root.Origin.
	Origin string
	// Artifact holds the bytes actually installed. One provenance sourceDigest of the
	// manifest must be their digest (in that digest's own algorithm). If nil,
	// ArtifactDigest is used instead.
	Artifact []byte
	// ArtifactDigest is the digest of the bytes actually installed, "sha256:<hex>" as
	// returned by [Digest], used when Artifact is nil. One of the two is required.
	ArtifactDigest string
	// UncoveredFiles counts the files installed with the artifact that its signature
	// does not cover: the other files of a skill published as a list of files, whose
	// SKILL.md alone is the artifact. A publisher vouches for what is installed only
	// when it vouches for every byte of it, so Verify fails with [ErrUnsigned] when it
	// is not 0. Negative is an error.
	UncoveredFiles int
	// FileDigests are the digests ([Digest]) of the other files installed with the
	// artifact, such as the files of an MCP skill beside its SKILL.md: each must also be
	// a provenance sourceDigest of the manifest, so that the signature covers every
	// file, not only the first. nil: none.
	FileDigests []string
}

// Result is the outcome of [Verify]: plain data, safe to store (it has JSON tags) and to
// show. Strings other than Publisher come from the manifest or its signature and are
// untrusted unless Verified.
type Result struct {
	Verified  bool   `json:"verified"`
	Identity  string `json:"identity,omitempty"`  // the manifest's identity
	Publisher string `json:"publisher,omitempty"` // the matching Root's Publisher, or Identity; set only when Verified
	KeyID     string `json:"keyId,omitempty"`     // the JWS "kid", or the verifying key's ID
	Algorithm string `json:"algorithm,omitempty"` // the JWS "alg"
	Reason    string `json:"reason,omitempty"`    // why not verified; "" when Verified
}

// Verify checks a Trust Manifest (the JSON object as published, such as
// aicatalog.TrustManifest.Raw) against what the caller expects, in this order: the
// manifest is well formed and bounded; it is signed; its identity equals
// exp.Identifier; no file is installed beside the artifact (exp.UncoveredFiles); its digests are SHA-256 or stronger; a configured Root covers it; the
// detached JWS uses an allowed algorithm and verifies, over the JCS canonical form of the
// manifest without "signature", with a key of that Root; and a provenance sourceDigest is
// the digest of the installed bytes.
//
// It always returns a non-nil Result. The error is nil exactly when Result.Verified; it
// is otherwise a [*VerifyError] wrapping one sentinel (errors.Is(err, ErrBadSignature)),
// and Result.Reason holds its text. A malformed Expect or Options is an error that
// wraps no sentinel. Verify is safe for concurrent use.
func Verify(ctx context.Context, manifestJSON []byte, exp Expect, opts *Options) (*Result, error) {
	res := &Result{}
	fail := func(e *VerifyError) (*Result, error) {
		res.Verified, res.Publisher = false, ""
		e.Identity, e.KeyID = res.Identity, res.KeyID
		res.Reason = e.Error()
		return res, e
	}
	if exp.Identifier == "" {
		return failConfig(res, errors.New("trust: Expect.Identifier is empty"))
	}
	if exp.Artifact == nil && exp.ArtifactDigest == "" {
		return failConfig(res, errors.New("trust: Expect has neither Artifact nor ArtifactDigest"))
	}
	if exp.UncoveredFiles < 0 {
		return failConfig(res, fmt.Errorf("trust: Expect.UncoveredFiles is negative (%d)", exp.UncoveredFiles))
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := checkRoots(o.Roots); err != nil {
		return failConfig(res, err)
	}

	m, err := parseManifest(manifestJSON)
	if err != nil {
		return fail(sentinelError(err))
	}
	res.Identity = m.identity
	if m.signature == "" {
		return fail(&VerifyError{Err: ErrUnsigned})
	}
	if m.identity != exp.Identifier {
		return fail(&VerifyError{Err: ErrIdentity, Detail: fmt.Sprintf("artifact is %s", clip(exp.Identifier))})
	}
	if exp.UncoveredFiles > 0 {
		return fail(&VerifyError{Err: ErrUnsigned, Detail: fmt.Sprintf("the signature covers the artifact alone, and %d other files installed with it are signed by nothing", exp.UncoveredFiles)})
	}
	hdr, err := parseHeader(m.signature)
	if err != nil {
		return fail(sentinelError(err))
	}
	res.KeyID, res.Algorithm = hdr.kid, hdr.alg

	roots := covering(o.Roots, m.identity, exp.Origin)
	if len(roots) == 0 {
		return fail(&VerifyError{Err: ErrUntrusted})
	}
	jws, err := jose.ParseDetached(m.signature, m.payload, joseAlgorithms)
	if err != nil {
		return fail(&VerifyError{Err: ErrMalformed, Detail: "signature is not a compact detached JWS", Cause: err})
	}

	var candidates int
	var lastErr error
	for _, r := range roots {
		keys, err := rootKeys(ctx, r, m.identity, o.Fetch)
		if err != nil {
			if ctx.Err() != nil {
				return fail(&VerifyError{Err: ErrUnknownKey, Cause: ctx.Err()})
			}
			lastErr = err
			continue
		}
		for _, k := range keys {
			if hdr.kid != "" && !k.kidMatches(hdr.kid) {
				continue
			}
			if k.alg != "" && k.alg != hdr.alg {
				continue // RFC 7517: a key with "alg" is for that algorithm only
			}
			candidates++
			if jws.DetachedVerify(m.payload, k.public) != nil {
				continue
			}
			// The signature holds; only now are the manifest's claims the publisher's.
			if err := checkArtifact(m, exp); err != nil {
				return fail(sentinelError(err))
			}
			res.Verified, res.Reason = true, ""
			res.Publisher = r.Publisher
			if res.Publisher == "" {
				res.Publisher = m.identity
			}
			if res.KeyID == "" {
				res.KeyID = k.kid
			}
			return res, nil
		}
	}
	if candidates == 0 {
		e := &VerifyError{Err: ErrUnknownKey}
		if lastErr != nil {
			e.Cause = lastErr
		}
		return fail(e)
	}
	return fail(&VerifyError{Err: ErrBadSignature})
}

func failConfig(res *Result, err error) (*Result, error) {
	res.Reason = err.Error()
	return res, err
}

// sentinelError turns an internal error that wraps a sentinel into a VerifyError.
func sentinelError(err error) *VerifyError {
	for _, s := range []error{ErrTooLarge, ErrWeakDigest, ErrDigestMismatch, ErrAlgorithm, ErrUnknownKey, ErrMalformed} {
		if errors.Is(err, s) {
			return &VerifyError{Err: s, Detail: strings.TrimPrefix(strings.TrimPrefix(err.Error(), s.Error()), ": ")}
		}
	}
	return &VerifyError{Err: ErrMalformed, Cause: err}
}

// checkArtifact enforces the digest rules on a manifest whose signature has verified:
// every digest is SHA-256 or stronger (checked when parsing), and a provenance
// sourceDigest is the digest of the installed bytes.
func checkArtifact(m *manifest, exp Expect) error {
	if len(m.digests) == 0 {
		return fmt.Errorf("%w: manifest has no provenance sourceDigest", ErrDigestMismatch)
	}
	if exp.Artifact == nil {
		if _, _, err := splitDigest(exp.ArtifactDigest); err != nil {
			return fmt.Errorf("%w: Expect.ArtifactDigest: %v", ErrDigestMismatch, err)
		}
	}
	for i, fd := range exp.FileDigests {
		if !slices.Contains(m.digests, fd) {
			return fmt.Errorf("%w: no provenance sourceDigest is the digest of file %d (%s)", ErrDigestMismatch, i+1, clip(fd))
		}
	}
	for _, d := range m.digests {
		if exp.Artifact != nil && digestMatches(d, exp.Artifact) {
			return nil
		}
		if exp.Artifact == nil && d == exp.ArtifactDigest {
			return nil
		}
	}
	return ErrDigestMismatch
}

// header is the part of the JWS protected header Verify reads.
type header struct {
	alg, kid string
}

// parseHeader checks the compact JWS shape and reads its protected header before any
// library sees it: bounded sizes, a detached (empty) payload, an allowed algorithm, and
// no "crit" extensions.
func parseHeader(sig string) (header, error) {
	if len(sig) > MaxSignatureBytes {
		return header{}, fmt.Errorf("%w: signature of %d bytes (limit %d)", ErrTooLarge, len(sig), MaxSignatureBytes)
	}
	parts := strings.Split(sig, ".")
	if len(parts) != 3 {
		return header{}, fmt.Errorf("%w: signature is not a compact JWS", ErrMalformed)
	}
	if parts[1] != "" {
		return header{}, fmt.Errorf("%w: JWS payload is not detached", ErrMalformed)
	}
	if base64.RawURLEncoding.DecodedLen(len(parts[0])) > maxHeaderBytes {
		return header{}, fmt.Errorf("%w: JWS header too large", ErrTooLarge)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return header{}, fmt.Errorf("%w: JWS header is not base64url", ErrMalformed)
	}
	var h map[string]json.RawMessage
	if err := json.Unmarshal(raw, &h); err != nil || h == nil {
		return header{}, fmt.Errorf("%w: JWS header is not a JSON object", ErrMalformed)
	}
	var out header
	if err := str(h, "alg", &out.alg); err != nil {
		return header{}, fmt.Errorf("%w: JWS alg is not a string", ErrMalformed)
	}
	if err := str(h, "kid", &out.kid); err != nil {
		return header{}, fmt.Errorf("%w: JWS kid is not a string", ErrMalformed)
	}
	if !allowedAlgorithm(out.alg) {
		return header{}, fmt.Errorf("%w: %s", ErrAlgorithm, clip(out.alg))
	}
	// "crit" demands processing this package does not do, and "b64" (RFC 7797) changes
	// what the signature covers (go-jose honours it even outside "crit"): the
	// specification signs the base64url-encoded canonical manifest, nothing else.
	for _, name := range []string{"crit", "b64"} {
		if _, ok := h[name]; ok {
			return header{}, fmt.Errorf("%w: JWS header has %q", ErrMalformed, name)
		}
	}
	return out, nil
}

// checkRoots validates the host's configuration.
func checkRoots(roots []Root) error {
	for i, r := range roots {
		if r.Identity == "" && r.Origin == "" {
			return fmt.Errorf("trust: Options.Roots[%d] has neither Identity nor Origin", i)
		}
		if r.Origin != "" {
			if _, err := normalOrigin(r.Origin); err != nil {
				return fmt.Errorf("trust: Options.Roots[%d].Origin: %w", i, err)
			}
		}
		if r.JWKSURL != "" && !strings.HasPrefix(r.JWKSURL, "https://") {
			return fmt.Errorf("trust: Options.Roots[%d].JWKSURL is not https", i)
		}
	}
	return nil
}

// covering returns the roots that cover identity or origin.
func covering(roots []Root, identity, origin string) []Root {
	o, _ := normalOrigin(origin)
	var out []Root
	for _, r := range roots {
		ro, _ := normalOrigin(r.Origin)
		if (r.Identity != "" && r.Identity == identity) || (o != "" && ro == o) {
			out = append(out, r)
		}
	}
	return out
}

// normalOrigin returns "scheme://host[:port]" lower-cased, without a default port.
func normalOrigin(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return "", errors.New("not an origin such as https://example.com")
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		port = ""
	}
	if port != "" {
		host += ":" + port
	}
	if strings.Contains(host, ":") && port == "" {
		host = "[" + host + "]"
	}
	return u.Scheme + "://" + host, nil
}

// rootKeys returns the keys of a root for a manifest identity.
func rootKeys(ctx context.Context, r Root, identity string, fetch KeyFetcher) ([]key, error) {
	if r.JWKS != nil {
		return parseKeySet(r.JWKS)
	}
	if r.JWKSURL != "" {
		data, err := fetchBounded(ctx, fetch, r.JWKSURL)
		if err != nil {
			return nil, err
		}
		return parseKeySet(data)
	}
	identity, _, _ = strings.Cut(identity, "#")
	u, did, err := resolveURL(identity)
	if err != nil {
		return nil, err
	}
	// Resolution trusts whoever controls the identity's host, so it is allowed only when
	// the Root names that host itself.
	if !sameHost(u, identity, r) {
		return nil, fmt.Errorf("%w: identity's host is not the trust root's", ErrUntrusted)
	}
	data, err := fetchBounded(ctx, fetch, u)
	if err != nil {
		return nil, err
	}
	if did {
		return parseDIDDocument(data, identity)
	}
	return parseKeySet(data)
}

// sameHost reports whether keys resolved from identity (at resolved) are anchored by r:
// r names that exact identity, or r's origin is the resolved URL's origin.
func sameHost(resolved, identity string, r Root) bool {
	if r.Identity != "" && r.Identity == identity {
		return true
	}
	ru, err := url.Parse(resolved)
	if err != nil {
		return false
	}
	ro, err := normalOrigin(r.Origin)
	if err != nil || ro == "" {
		return false
	}
	want, err := normalOrigin("https://" + ru.Host)
	return err == nil && ro == want
}

func fetchBounded(ctx context.Context, fetch KeyFetcher, u string) ([]byte, error) {
	if fetch == nil {
		return nil, errors.New("trust: no KeyFetcher configured to retrieve " + secrets.RedactURL(u))
	}
	data, err := fetch(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("trust: fetch %s: %w", secrets.RedactURL(u), err)
	}
	if len(data) > MaxKeySetBytes {
		return nil, fmt.Errorf("%w: %s returned %d bytes (limit %d)", ErrTooLarge, u, len(data), MaxKeySetBytes)
	}
	return bytes.Clone(data), nil
}
