package trust

import (
	"context"
	"errors"
	"fmt"
	"net/url"
)

// ManifestSuffix is appended to an artifact's URL to name its Trust Manifest under the
// web convention: the manifest of https://example.com/.well-known/skills/pdf/SKILL.md is
// https://example.com/.well-known/skills/pdf/SKILL.md.trust.json. See the package
// documentation.
const ManifestSuffix = ".trust.json"

// MCPMetaKey is the "_meta" member under which an MCP server carries a skill's Trust
// Manifest in the skill's listing entry (skills/list, skills/get). See the package
// documentation.
const MCPMetaKey = "dev.wellknown/trustManifest"

// ManifestURL returns the URL of the Trust Manifest published beside the artifact at
// artifactURL (an absolute https URL): the same URL, without query or fragment, with
// [ManifestSuffix] appended to its path.
func ManifestURL(artifactURL string) (string, error) {
	u, err := url.Parse(artifactURL)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		return "", errors.New("trust: artifact URL is not an absolute https URL")
	}
	if u.Path == "" || u.Path[len(u.Path)-1] == '/' {
		return "", errors.New("trust: artifact URL names a directory, not a document")
	}
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	u.Path += ManifestSuffix
	u.RawPath = ""
	return u.String(), nil
}

// VerifyPublished verifies an artifact published on the web by the web convention:
// it fetches the manifest at [ManifestURL](artifactURL) with opts.Fetch (so the
// caller's HTTPS, origin, consent and size policy apply to it as to keys) and checks it
// with [Verify]. exp.Identifier "" means artifactURL, the identity the convention
// gives a web artifact. A manifest that cannot be fetched (none is published, or the
// fetch failed) gives an unverified Result whose Reason says so and a [*VerifyError]
// wrapping [ErrUnsigned] and the fetch error; without opts.Fetch nothing is fetched and
// the result is the same.
func VerifyPublished(ctx context.Context, artifactURL string, exp Expect, opts *Options) (*Result, error) {
	mu, err := ManifestURL(artifactURL)
	if err != nil {
		return failConfig(&Result{}, err)
	}
	if exp.Identifier == "" {
		exp.Identifier = artifactURL
	}
	var cause error = errors.New("no KeyFetcher to fetch it with")
	if opts != nil && opts.Fetch != nil {
		var data []byte
		if data, cause = opts.Fetch(ctx, mu); cause == nil {
			return Verify(ctx, data, exp, opts)
		}
	}
	e := &VerifyError{Err: ErrUnsigned, Detail: fmt.Sprintf("no trust manifest at %s", clip(mu)), Cause: notPublished{cause}}
	return &Result{Reason: e.Error()}, e
}
