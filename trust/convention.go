package trust

import (
	"errors"
	"net/url"
)

// ManifestSuffix is appended to an artifact's URL to name its Trust Manifest under the
// web convention: the manifest of https://example.com/.well-known/skills/pdf/SKILL.md is
// https://example.com/.well-known/skills/pdf/SKILL.md.trust.json. See the package
// documentation.
const ManifestSuffix = ".trust.json"

// MCPMetaKey is the "_meta" member under which an MCP server carries a skill resource's
// Trust Manifest in its resource listing. See the package documentation.
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
