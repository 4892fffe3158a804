package mcpclient

import (
	"context"
	"net/url"

	"github.com/wellknown-dev/discovery/trust"
)

// skillPublisher checks the Trust Manifest that the listing entry of sk carries in
// "_meta" under trust.MCPMetaKey: its identity must be the SKILL.md URI, and its
// provenance must hold the digest of every file read (digests[0] the SKILL.md's), so
// that the signature covers the whole skill, not its SKILL.md alone. nil when no trust
// roots are configured. A skill read through a draft reader has no entry, hence no
// manifest.
func (s *Session) skillPublisher(ctx context.Context, sk *Skill, digests []string) *trust.Result {
	if len(s.opts.TrustRoots) == 0 || len(digests) == 0 {
		return nil
	}
	var manifest []byte
	if sk.Entry != nil {
		manifest = sk.Entry.Meta[trust.MCPMetaKey]
	}
	if manifest == nil {
		e := &trust.VerifyError{Err: trust.ErrUnsigned, Detail: "the skill's listing entry carries no _meta " + quote(trust.MCPMetaKey)}
		return &trust.Result{Reason: e.Error()}
	}
	exp := trust.Expect{Identifier: sk.URI, Origin: endpointOrigin(s.Endpoint), ArtifactDigest: digests[0], FileDigests: digests[1:]}
	res, _ := trust.Verify(ctx, manifest, exp, &trust.Options{Roots: s.opts.TrustRoots, Fetch: s.opts.KeyFetcher})
	return res
}

// endpointOrigin is the origin of an HTTP endpoint, for trust roots that cover an
// origin; "" for a server without one (stdio).
func endpointOrigin(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
