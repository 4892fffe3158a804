// Package skillbundle distributes an origin's Agent Skills offline or through a
// mirror, without changing what is accepted: a bundle or a mirror changes where the
// bytes come from, never how they are verified.
//
// # Bundles
//
// [Write] fetches an origin's skills index and skills under the normal policy of a
// discovery Client (each skill verified as for an install; from a lock, exactly the
// locked versions) and writes one archive holding the index as served, every artifact
// as served and the Trust Manifest beside each artifact when the origin publishes one.
// [Read] checks an archive and holds its files in memory; [Bundle.WrapTransport], set
// as discovery.Options.WrapTransport, makes a Client read the origin from the bundle
// with no network at all:
//
//	b, err := skillbundle.ReadFile("skills.tar", nil)
//	c, err := discovery.NewClient(&discovery.Options{WrapTransport: b.WrapTransport, TrustRoots: roots, RequireSignedSkills: true})
//	ix, err := c.ListSkills(ctx, b.Source())
//	sk, err := c.GetSkill(ctx, ix, "pdf") // verified exactly as from the origin
//
// The Client sees the origin's URLs, so every check is the origin's: each artifact
// against the bundled index's digest, each Trust Manifest against the host's trust
// roots for the origin (keys must be pinned in the roots: a JWKS URL or a DID cannot
// be fetched offline), RequireSignedSkills honoured, and the lock records the origin's
// URLs, so a later verify or update against the origin works.
//
// # Format
//
// An uncompressed tar archive (archive/tar, PAX). Tar rather than zip: it is written
// and read in one pass, its declared sizes are the bytes that follow (no compression
// ratio to bound: the artifacts inside are compressed already), the same files give
// the same bytes, and `tar -x` of a bundle gives a folder that a static web server can
// serve as a mirror. The first entry is bundle.json ([Manifest]): the version, the
// origin, the index URL, and for each file its URL, Content-Type, size and SHA-256.
// Each file is stored at its URL's path without the leading slash
// (".well-known/agent-skills/index.json").
//
// bundle.json is a table of contents, not a trust anchor. The index's digests and the
// publishers' signatures decide what is accepted, as online; a bundle proves no more
// than the origin's index and signatures prove, and a bundle of an unsigned origin
// proves only that its files match the index it carries, which whoever made the
// bundle could have changed. Require signatures (RequireSignedSkills with pinned
// trust roots) for a bundle from anyone but yourself.
//
// # Hostile bundles
//
// [Read] refuses, before returning anything: entries that are not regular files
// (symbolic and hard links, devices), names that are absolute or hold "..",
// backslashes, colons or control characters, a name met twice, a declared size over
// what is left of [Limits] (checked before the entry is read), more entries than
// Limits allow, a bundle.json with unknown members or a file not on the bundle's
// origin, and files whose bytes differ from bundle.json. Entries that bundle.json
// does not list are skipped and named in [Bundle.Warnings]: never served, never
// installed. Nothing is ever unpacked to disk by this package.
//
// # Mirrors
//
// A [Mirror] serves the artifacts of an origin under the same layout. The index, the
// Trust Manifests and the keys still come from the origin, so a mirror can only serve
// the bytes the origin's index names: other bytes fail the digest check, and the
// mirror is never asked for an index or a signature it could swap or drop. A mirror
// thus needs the origin to be reachable for those small documents; for no network at
// all, use a bundle.
//
// All functions are safe for concurrent use.
package skillbundle
