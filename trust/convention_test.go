package trust

import (
	"context"
	"errors"
	"testing"
)

// TestVerifyPublished: the manifest beside a web artifact is fetched through the
// caller's fetcher, and its absence is "unsigned", never verified.
func TestVerifyPublished(t *testing.T) {
	t.Parallel()
	k := newES256(t)
	docs := map[string][]byte{}
	ts, fetch := newKeyServer(t, docs)
	artifactURL := ts.URL + "/.well-known/agent-skills/pdf/SKILL.md"
	docs["/.well-known/agent-skills/pdf/SKILL.md"+ManifestSuffix] = sign(t, testManifest(t, artifactURL, Digest(artifact)), k)
	docs["/other/SKILL.md"+ManifestSuffix] = sign(t, testManifest(t, artifactURL, Digest(artifact)), k)
	opts := &Options{Roots: []Root{{Publisher: "Example", Origin: ts.URL, JWKS: jwks(t, k)}}, Fetch: fetch}
	ctx := context.Background()

	res, err := VerifyPublished(ctx, artifactURL, Expect{Origin: ts.URL, Artifact: artifact}, opts)
	if err != nil || !res.Verified || res.Publisher != "Example" || res.Identity != artifactURL {
		t.Fatalf("VerifyPublished() = %+v, %v", res, err)
	}
	tests := []struct {
		name string
		url  string
		exp  Expect
		opts *Options
		want error
	}{
		{"no manifest", ts.URL + "/absent/SKILL.md", Expect{Origin: ts.URL, Artifact: artifact}, opts, ErrUnsigned},
		{"no fetcher", artifactURL, Expect{Origin: ts.URL, Artifact: artifact}, &Options{Roots: opts.Roots}, ErrUnsigned},
		{"other bytes", artifactURL, Expect{Origin: ts.URL, Artifact: []byte("tampered")}, opts, ErrDigestMismatch},
		{"another artifact's manifest", ts.URL + "/other/SKILL.md", Expect{Origin: ts.URL, Artifact: artifact}, opts, ErrIdentity},
		{"no root", artifactURL, Expect{Origin: ts.URL, Artifact: artifact}, &Options{Fetch: fetch}, ErrUntrusted},
	}
	for _, tc := range tests {
		res, err := VerifyPublished(ctx, tc.url, tc.exp, tc.opts)
		if !errors.Is(err, tc.want) || res == nil || res.Verified || res.Reason == "" {
			t.Errorf("%s: VerifyPublished() = %+v, %v; want %v", tc.name, res, err, tc.want)
		}
	}
	if _, err := VerifyPublished(ctx, "http://example.com/SKILL.md", Expect{Artifact: artifact}, opts); err == nil {
		t.Error("VerifyPublished of an http URL: no error")
	}
}
