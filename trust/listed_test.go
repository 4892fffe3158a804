package trust

import (
	"errors"
	"testing"
)

// TestVerifyListed: an artifact's own manifest first; without one, the index's manifest
// vouches for an artifact checked against the signed index, and for nothing else.
func TestVerifyListed(t *testing.T) {
	t.Parallel()
	es, other := newES256(t), newES256(t)
	index := []byte(`{"skills":[]}`)
	docs := map[string][]byte{}
	ts, fetch := newKeyServer(t, docs)
	artURL, ixURL := ts.URL+"/skills/pdf/SKILL.md", ts.URL+"/index.json"
	opts := &Options{Roots: []Root{{Publisher: "P", Origin: ts.URL, JWKS: jwks(t, es)}}, Fetch: fetch}
	base := Listed{ArtifactURL: artURL, Origin: ts.URL, Artifact: artifact, IndexURL: ixURL, IndexDigest: Digest(index), Checked: true}
	ownGood := sign(t, testManifest(t, artURL, Digest(artifact)), es)
	ownBad := sign(t, testManifest(t, artURL, Digest(artifact)), other)
	ixGood := sign(t, testManifest(t, ixURL, Digest(index)), es)

	tests := []struct {
		name         string
		own, ix      []byte
		mutate       func(*Listed)
		want         error
		wantIdentity string
	}{
		{"own manifest", ownGood, nil, nil, nil, artURL},
		{"index manifest", nil, ixGood, nil, nil, ixURL},
		{"index manifest, file list", nil, ixGood, func(l *Listed) { l.Artifact = nil }, nil, ixURL},
		{"own manifest fails: final", ownBad, ixGood, nil, ErrUnknownKey, ""},
		{"neither", nil, nil, nil, ErrUnsigned, ""},
		{"index manifest, artifact not checked", nil, ixGood, func(l *Listed) { l.Checked = false }, ErrDigestMismatch, ""},
		{"index manifest of other index bytes", nil, ixGood, func(l *Listed) { l.IndexDigest = Digest([]byte("{}")) }, ErrDigestMismatch, ""},
		{"no index URL", nil, ixGood, func(l *Listed) { l.IndexURL = "" }, ErrUnsigned, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Not parallel: the subtests share the server's documents.
			clear(docs)
			if tc.own != nil {
				docs["/skills/pdf/SKILL.md"+ManifestSuffix] = tc.own
			}
			if tc.ix != nil {
				docs["/index.json"+ManifestSuffix] = tc.ix
			}
			l := base
			if tc.mutate != nil {
				tc.mutate(&l)
			}
			res, err := VerifyListed(t.Context(), l, opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("VerifyListed() error = %v, want %v", err, tc.want)
			}
			if tc.want == nil && (!res.Verified || res.Identity != tc.wantIdentity || res.Publisher != "P") {
				t.Fatalf("VerifyListed() = %+v", res)
			}
			if tc.want != nil && (res.Verified || res.Reason == "") {
				t.Fatalf("VerifyListed() = %+v, want unverified with a reason", res)
			}
		})
	}
}
