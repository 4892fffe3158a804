package families

import (
	"context"

	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/trust"
)

// Verifier checks the Trust Manifest of catalog entry e against the digest of the
// artifact fetched for it (AI Catalog, "Trust Manifest" and "Verification
// Procedures"): the manifest's identity must equal the entry's identifier, and a
// provenance sourceDigest must be the digest of the bytes actually fetched. It always
// returns a result; an entry without a manifest is unverified (trust.ErrUnsigned).
type Verifier func(ctx context.Context, e aicatalog.Entry, artifactDigest string) *trust.Result

// TrustVerifier returns the Verifier of the roots in opts for a catalog discovered on
// origin; nil when opts has no roots, so that nothing is checked or fetched.
func TrustVerifier(origin string, opts *trust.Options) Verifier {
	if opts == nil || len(opts.Roots) == 0 {
		return nil
	}
	return func(ctx context.Context, e aicatalog.Entry, digest string) *trust.Result {
		if e.TrustManifest == nil {
			// aicatalog drops a manifest whose identity is not the entry's identifier (a
			// diagnostic says so): such an entry is as unsigned as one without.
			err := &trust.VerifyError{Err: trust.ErrUnsigned, Detail: "the catalog entry carries no trust manifest for its identifier"}
			return &trust.Result{Reason: err.Error()}
		}
		res, _ := trust.Verify(ctx, e.TrustManifest.Raw, trust.Expect{Identifier: e.Identifier, Origin: origin, ArtifactDigest: digest}, opts)
		return res
	}
}

// IndexPublisher is the publisher of the Agent Skills index at indexURL (whose bytes
// as served have digest) when catalog w lists it in an entry with a Trust Manifest,
// checked with verify; else cur (the check of the manifest beside the index, if
// any), which a verified catalog result replaces.
func IndexPublisher(ctx context.Context, w *aicatalog.Walked, indexURL, digest string, cur *trust.Result, verify Verifier) *trust.Result {
	if w == nil || verify == nil || digest == "" || (cur != nil && cur.Verified) {
		return cur
	}
	for _, f := range w.Entries {
		if f.Entry.Type == aicatalog.TypeAgentSkills && f.Entry.URL == indexURL && f.Entry.TrustManifest != nil {
			if res := verify(ctx, f.Entry, digest); res.Verified || cur == nil {
				return res
			}
			return cur
		}
	}
	return cur
}
