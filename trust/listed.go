package trust

import (
	"context"
	"errors"
	"fmt"
)

// Listed describes a skill artifact listed in a well-known index, for [VerifyListed].
type Listed struct {
	// ArtifactURL is the artifact's absolute https URL: its own manifest is looked for
	// at [ManifestURL](ArtifactURL), with ArtifactURL as identity. "", or neither
	// Artifact nor ArtifactDigest (a skill listed as a list of files), looks only for
	// the index's manifest.
	ArtifactURL string
	// Origin is the origin the index was discovered on, for Roots that cover an origin.
	Origin string
	// Artifact and ArtifactDigest are the bytes actually installed, or their digest,
	// as in [Expect].
	Artifact       []byte
	ArtifactDigest string
	// UncoveredFiles counts the files installed beside Artifact that the artifact's own
	// manifest cannot cover, as in [Expect]: with it above 0, only the index's manifest
	// (which covers each file through its listed digest) can verify the skill.
	UncoveredFiles int
	// IndexURL is the URL of the index that lists the artifact, the identity of the
	// index's manifest; "" checks no index manifest.
	IndexURL string
	// IndexDigest is the digest ("sha256:<hex>") of the index bytes as served, which
	// the index's manifest must sign as its sourceDigest; "" checks no index manifest.
	IndexDigest string
	// Checked reports that every byte installed for the artifact was checked against a
	// digest the index lists (the artifact's own, or each file's). When false the
	// index's manifest vouches for nothing about the artifact.
	Checked bool
}

// VerifyListed verifies a skill artifact listed in a well-known index. It looks for the
// artifact's own manifest first ([VerifyPublished]). When none is published, it looks
// for the index's manifest, published beside the index at [ManifestURL](IndexURL) with
// the index URL as identity and the digest of the index bytes as served as
// sourceDigest: when that manifest verifies, the signer vouches for the index's
// contents, so an artifact whose bytes were checked against the digests that index
// lists (Listed.Checked) is verified, with the index's identity in [Result.Identity].
//
// An artifact manifest that is published but does not verify is final: the index's
// manifest never overrides it. Results and errors are as for [Verify]; an artifact
// vouched for by no manifest gives [ErrUnsigned].
func VerifyListed(ctx context.Context, l Listed, opts *Options) (*Result, error) {
	exp := Expect{Identifier: l.ArtifactURL, Origin: l.Origin, Artifact: l.Artifact, ArtifactDigest: l.ArtifactDigest, UncoveredFiles: l.UncoveredFiles}
	var res *Result
	var err error
	if l.ArtifactURL != "" && (l.Artifact != nil || l.ArtifactDigest != "") {
		res, err = VerifyPublished(ctx, l.ArtifactURL, exp, opts)
		var ve *VerifyError
		if err == nil || !errors.As(err, &ve) || ve.Err != ErrUnsigned || !unpublished(ve) && l.UncoveredFiles == 0 {
			return res, err
		}
	}
	if l.IndexURL == "" || l.IndexDigest == "" {
		if res != nil {
			return res, err
		}
		e := &VerifyError{Err: ErrUnsigned, Detail: "no manifest for the artifact or its index"}
		return &Result{Reason: e.Error()}, e
	}
	ires, ierr := VerifyPublished(ctx, l.IndexURL, Expect{Origin: l.Origin, ArtifactDigest: l.IndexDigest}, opts)
	var ive, ave *VerifyError
	if errors.As(ierr, &ive) && ive.Err == ErrUnsigned && unpublished(ive) && errors.As(err, &ave) {
		// Neither could be fetched: say why for both (absent, or refused as too large).
		e := &VerifyError{Err: ErrUnsigned, Detail: "no trust manifest for the artifact or its index",
			Cause: notPublished{fmt.Errorf("%w; %w", ave.Cause, ive.Cause)}}
		return &Result{Reason: e.Error()}, e
	}
	if ierr == nil && !l.Checked {
		e := &VerifyError{Err: ErrDigestMismatch, Identity: ires.Identity, KeyID: ires.KeyID,
			Detail: "the index is signed, but the artifact was not checked against a digest it lists"}
		return &Result{Identity: ires.Identity, KeyID: ires.KeyID, Algorithm: ires.Algorithm, Reason: e.Error()}, e
	}
	return ires, ierr
}

// notPublished wraps the error of a manifest that could not be fetched, to tell it from
// a fetched manifest without a signature (both are [ErrUnsigned]).
type notPublished struct{ err error }

func (e notPublished) Error() string { return e.err.Error() }
func (e notPublished) Unwrap() error { return e.err }

// unpublished reports whether e says that no manifest could be fetched.
func unpublished(e *VerifyError) bool {
	var np notPublished
	return errors.As(e.Cause, &np)
}
