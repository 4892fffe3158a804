// Package trust signs and verifies Trust Manifests, the publisher signatures of the AI
// Catalog specification ("Trust Manifest" and "Verification Procedures"): a JSON object
// beside an artifact whose identity names the artifact, whose provenance records the
// artifact's digest (sourceDigest), and whose "signature" is a detached compact JWS
// (RFC 7515) over the JCS canonical form (RFC 8785) of the manifest without "signature".
//
// A host verifies what it installs:
//
//	res, err := trust.Verify(ctx, entry.TrustManifest.Raw, trust.Expect{
//		Identifier: entry.Identifier,  // the manifest must name this artifact
//		Origin:     "https://example.com",
//		Artifact:   installedBytes,    // what is actually installed
//	}, &trust.Options{Roots: roots, Fetch: fetchUnderPolicy})
//
// A publisher signs with [ParseSigningKey] and [Sign], and publishes
// [SigningKey.PublicJWKS] (or a did:web document) for hosts to pin or fetch.
//
// # Trust model
//
// Nothing in a manifest counts until its signature verifies with a key the host trusts.
// [Verify] checks, in order, and each check proves one thing:
//
//   - Bounds and shape: the manifest is a JSON object of at most [MaxManifestBytes],
//     nested at most 32 deep, with no duplicate member names (so every parser reads the
//     same document), and the signature is a compact detached JWS of at most
//     [MaxSignatureBytes]. This proves nothing about the publisher; it keeps hostile
//     input cheap to refuse.
//   - Identity binding: the manifest's identity equals the artifact's identifier
//     ([Expect.Identifier]). This stops a valid manifest of one artifact from being
//     reused for another.
//   - Digest strength: every digest is SHA-256, SHA-384 or SHA-512; anything weaker or
//     unknown is refused, since a weak digest could be matched by other bytes.
//   - Trust root: a [Root] the host configured out of band covers the identity, or the
//     origin the artifact came from. Without one nothing verifies: a key fetched from
//     the same site that served the artifact proves only that the site is consistent,
//     not who the publisher is. A Root with pinned keys is the strongest anchor; a Root
//     without keys delegates to whatever key the named identity or origin publishes.
//   - Algorithm: only ES256, ES384, EdDSA, PS256, PS384 and RS256 ([Algorithms]). "none"
//     and HMAC are refused; keys must be P-256, P-384, Ed25519 or RSA of 2048 to 8192
//     bits, and a key's own "alg", if any, must match.
//   - Signature: the JWS verifies over the canonical manifest with a key of that root,
//     chosen by the JWS "kid". This proves that the holder of the root's key approved
//     exactly these manifest contents (whitespace and member order aside).
//   - Artifact digest: a signed provenance sourceDigest equals the digest of the bytes
//     actually installed. This ties the signature to the content, so a site cannot
//     swap the artifact under a valid manifest.
//
// What a verified result does not prove: that the artifact is safe or does what it
// says (a publisher can sign anything); that the key is still uncompromised (there is no
// revocation or expiry; rotate roots out of band); that attestations (SOC 2 reports,
// publisher-identity JWTs) are genuine, since their documents are not fetched here, only
// their digests' strength is checked; or anything about the catalog's other entries.
// Keys resolved from a did:web identity or a JWKS URL are only as trustworthy as HTTPS
// and the host's [KeyFetcher] policy, which is why such resolution is allowed only
// when the Root names the identity itself or the identity's own origin.
//
// # Key resolution
//
// A Root's keys come from its pinned JWKS, else from its JWKSURL, else from the identity:
// a did:web identity resolves to https://host/.well-known/did.json (or
// https://host/path/did.json for did:web:host:path) whose verificationMethod entries
// carry publicKeyJwk; an https identity is itself a JWKS URL. Documents are fetched by
// the caller's [KeyFetcher], so the host's HTTPS, origin, consent and size policy apply;
// this package then refuses more than [MaxKeySetBytes] or [MaxKeys] keys. Other
// identity schemes (urn:, spiffe:) need a pinned key or a JWKSURL.
//
// # Manifests for web indexes and MCP skills
//
// The same manifest, signed the same way, also covers skills that are not in an AI
// Catalog:
//
//   - A skill published on the web (listed by /.well-known/skills.md or an Agent
//     Skills index): the manifest is served at the skill document's URL with
//     [ManifestSuffix] appended ([ManifestURL]); its identity is the skill document's
//     absolute URL, and its sourceDigest the digest of that document's bytes.
//   - A skill served by an MCP server (Skills Extension): the manifest object is
//     carried in the skill's listing entry's "_meta" under [MCPMetaKey]; its identity
//     is the skill's SKILL.md URI, and its provenance lists the digest of every file
//     of the skill ([Expect.FileDigests]), so the signature covers all of them.
//   - A well-known index: the manifest is served at the index URL with
//     [ManifestSuffix] appended, its identity is the index URL and its sourceDigest
//     the digest of the index bytes as served. It vouches for every skill whose bytes
//     match the digests the signed index lists ([VerifyListed]).
//
// In every case the manifest is the catalog's format unchanged, so one verifier serves
// all of them.
//
// # Errors and concurrency
//
// [Verify] returns a [*VerifyError] wrapping one sentinel ([ErrUnsigned],
// [ErrBadSignature], [ErrAlgorithm], [ErrIdentity], [ErrDigestMismatch], [ErrWeakDigest],
// [ErrUntrusted], [ErrUnknownKey], [ErrMalformed], [ErrTooLarge]); test with errors.Is.
// Every function is safe for concurrent use; a [SigningKey] is immutable.
package trust
