package discovery

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/internal/families"
	"github.com/wellknown-dev/discovery/internal/fetch"
	"github.com/wellknown-dev/discovery/trust"
)

// SkillsIndex is a site's Agent Skills index, as returned by [Client.ListSkills].
// Listing reads only the index: no SKILL.md or archive is fetched until
// [Client.GetSkill] asks for one. Every string in it was published by the site and is
// untrusted data.
type SkillsIndex struct {
	Origin   Origin
	Index    *agentskills.Index
	URL      string    // the index used: under the path the caller gave, at the origin's root, or listed in its AI Catalog (inline: the catalog)
	Fetches  []Fetch   // the index paths probed, in order, then the catalogs read and the index they list
	Warnings []Warning // the index's diagnostics, stale answers, what the catalogs left out
	// Publisher is the check of the Trust Manifest beside the index (Options.TrustRoots):
	// verified, it vouches for every skill checked against the index's digests. nil:
	// no check was configured.
	Publisher *trust.Result
}

// Skill is a skill fetched with [Client.GetSkill], verified against its digest when
// the index gives one.
type Skill struct {
	Entry    agentskills.IndexEntry
	SkillMD  *agentskills.SkillMD
	Files    []agentskills.File // every file, SKILL.md first
	Verified bool               // false for v0.1.0 indexes, which publish no digests: label the content unverified
	// Publisher is the publisher signature check (Options.TrustRoots): verified with
	// publisher and key, or unverified and why. nil: no check was configured.
	Publisher *trust.Result
	Warnings  []Warning
}

// ListSkills fetches origin's well-known skills index: /.well-known/agent-skills/
// index.json, then, when that is not published, /.well-known/skills/index.json. When
// origin has a path ("https://host/docs"), both are looked for under that path first
// ("/docs/.well-known/agent-skills/index.json", as docs platforms serve them for
// scoped installers), then at the origin's root. When none of them is published
// (404 or 410), and only then, it reads the origin's AI Catalog (one more request,
// aicatalog.WellKnownPath, and its nested catalogs within aicatalog.Walk's bounds)
// and uses the index its first agent-skills entry lists, inline or by URL (one on
// another origin needs [ConsentRedirect]); its relative URLs resolve against where it
// was served from, and GetSkill verifies digests and publishers as for any index.
// SkillsIndex.URL says which index was used. The same HTTPS, origin, consent, retry,
// cache and last-good rules apply as for [Client.Discover]. With Options.TrustRoots
// the Trust Manifest beside the index is checked too (SkillsIndex.Publisher). It
// returns [ErrNotPublished] when no index is published.
func (c *Client) ListSkills(ctx context.Context, origin string) (*SkillsIndex, error) {
	o, err := c.checkCall(ctx, origin)
	if err != nil {
		return nil, err
	}
	ix, _, err := c.skillsIndex(ctx, o, origin, nil)
	return ix, err
}

// skillsIndex is the index lookup of ListSkills and DiscoverAll: the well-known
// paths, then the index listed (true) in catalog, the AI Catalog read (nil: read it).
func (c *Client) skillsIndex(ctx context.Context, o Origin, origin string, catalog *aicatalog.Walked) (*SkillsIndex, bool, error) {
	out, fs, ws := firstPublished(ctx, c, o, origin, indexSpec, agentskills.IndexPath, agentskills.LegacyIndexPath)
	switch {
	case out.err != nil || ctx.Err() != nil:
		return nil, false, cmp.Or(out.err, ctx.Err())
	case out.doc != nil:
		return c.withPublisher(ctx, &SkillsIndex{Origin: o, Index: out.doc, URL: out.fetch.URL, Fetches: fs, Warnings: ws}), false, nil
	}
	rec := &Discovery{Fetches: fs, Warnings: ws, All: &Published{}}
	if catalog == nil {
		_, _ = c.readCatalog(ctx, o, rec, nil, false) // a failure is in rec; the catalog is then nil
		catalog = rec.All.Catalog
	}
	found, err := families.IndexOf(ctx, catalog, func(ctx context.Context, u string) (*agentskills.Index, error) {
		return fetchOther(ctx, c, o, rec, u, indexSpec(u))
	})
	if err = cmp.Or(ctx.Err(), err); err != nil || found == nil {
		return nil, false, cmp.Or(err, fmt.Errorf("%w: %s (%s, %s, nor an agent-skills entry in %s)", ErrNotPublished, o, agentskills.IndexPath, agentskills.LegacyIndexPath, aicatalog.WellKnownPath))
	}
	for _, w := range found.Warnings {
		rec.Warnings = append(rec.Warnings, Warning(w))
	}
	return c.withPublisher(ctx, &SkillsIndex{Origin: o, Index: found.Index, URL: found.URL, Fetches: rec.Fetches, Warnings: rec.Warnings}), true, nil
}

// checkCall checks the Client, ctx and origin of a call.
func (c *Client) checkCall(ctx context.Context, origin string) (Origin, error) {
	if err := c.usable(); err != nil {
		return Origin{}, err
	}
	if ctx == nil {
		return Origin{}, errNilContext
	}
	return c.origin(origin)
}

// RootSkillPath is where docs sites publish an Agent-Skills-format SKILL.md for the
// whole site. It is not [GuidePath] (/.well-known/skills.md, the skills.md guide).
const RootSkillPath = "/skill.md"

var rootSkillSpec = docSpec[agentskills.SkillMD]{Kind: families.SkillKind(skillsSpec.Accept, skillsSpec.TypeOK)}

// RootSkill fetches the Agent-Skills-format SKILL.md a site publishes at
// [RootSkillPath] (under origin's path first, when it has one, as ListSkills does),
// under the same policy as [Client.Discover]. Nothing publishes a digest for it: the
// Skill is returned with Verified false and an "unverified" warning. It returns
// [ErrNotPublished] when none is published.
func (c *Client) RootSkill(ctx context.Context, origin string) (*Skill, error) {
	o, err := c.checkCall(ctx, origin)
	if err != nil {
		return nil, err
	}
	sk, _, err := c.rootSkill(ctx, o, origin)
	return sk, err
}

func (c *Client) rootSkill(ctx context.Context, o Origin, origin string) (*Skill, []Fetch, error) {
	out, fs, ws := firstPublished(ctx, c, o, origin, func(string) docSpec[agentskills.SkillMD] { return rootSkillSpec }, RootSkillPath)
	if md := out.doc; md != nil {
		return &Skill{Entry: agentskills.IndexEntry{Name: md.Name(), Description: md.Description(), Type: agentskills.TypeSkillMD, URL: out.fetch.URL},
			SkillMD: md, Files: []agentskills.File{{Path: agentskills.SkillFile, Data: md.Raw}},
			Warnings: append(ws, Warning{Code: "unverified", URL: out.fetch.URL, Message: "no digest is published for " + RootSkillPath + ": the content cannot be verified"})}, fs, nil
	}
	return nil, fs, cmp.Or(out.err, fmt.Errorf("%w: %s (%s)", ErrNotPublished, o, RootSkillPath))
}

// firstPublished fetches paths of o, under origin's path first, until one is
// published or fails; it returns that outcome (zero if none) and every fetch made.
func firstPublished[T any](ctx context.Context, c *Client, o Origin, origin string, spec func(string) docSpec[T], paths ...string) (out outcome[T], fs []Fetch, ws []Warning) {
	for _, p := range families.Scoped(cleanOrigin(origin), paths...) {
		u := o.String() + p
		out = fetchShared(ctx, c, o, u, spec(u))
		fs, ws = append(fs, out.fetch), append(ws, out.warnings...)
		if out.err != nil || out.doc != nil {
			return out, fs, ws
		}
	}
	return outcome[T]{}, fs, ws
}

// indexSpec parses an index fetched from u.
func indexSpec(u string) docSpec[agentskills.Index] {
	return docSpec[agentskills.Index]{Kind: families.IndexKind(u)}
}

// GetSkill fetches the skill named name from an index returned by ListSkills. The
// artifact (a SKILL.md, an archive, or a v0.1.0 file list) is fetched through the same
// stack, an artifact on another origin needs [ConsentArtifact], and its digest is
// verified before anything is parsed or unpacked; a mismatch is an error wrapping
// [agentskills.ErrDigestMismatch], and nothing of the content is returned. A SKILL.md
// the index gives no digest for (v0.1.0 indexes, or a v0.2.0 one read leniently that
// omits it or writes a placeholder) is returned with Verified false and an
// "unverified" warning: show it as unverified content. Archives are never read
// without a digest. Archives are
// unpacked in memory with the hardening of [agentskills.ReadArchive]. The whole call is
// bounded by Options.SkillTimeout as well as by the size limits.
func (c *Client) GetSkill(ctx context.Context, ix *SkillsIndex, name string) (*Skill, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	if ix == nil || ix.Index == nil {
		return nil, errors.New("discovery: GetSkill needs an index from ListSkills")
	}
	if ctx == nil {
		return nil, errNilContext
	}
	var entry *agentskills.IndexEntry
	for i := range ix.Index.Skills {
		if ix.Index.Skills[i].Name == name {
			entry = &ix.Index.Skills[i]
			break
		}
	}
	if entry == nil {
		return nil, fmt.Errorf("discovery: the index lists no skill %q", name)
	}
	sk := &Skill{Entry: *entry, Verified: families.Verifiable(entry)}
	// The whole call is bounded by SkillTimeout of network time: each request gets what
	// is left, and time spent waiting for the user's consent is not counted.
	budget := fetch.NewBudget(c.skillTimeout)
	files, err := c.skillFiles(ctx, budget, ix.Origin, entry)
	if err != nil {
		return nil, err
	}
	sk.Files = files
	if len(c.trustRoots) > 0 || c.requireSigned {
		if sk.Publisher, err = c.verifyPublisher(ctx, budget, ix, entry, files, sk.Verified); err != nil && c.requireSigned {
			return nil, fmt.Errorf("discovery: skill %q: %w", entry.Name, err)
		}
	}
	if !sk.Verified {
		why := "the index publishes no digests (v0.1.0)"
		if ix.Index.Version != agentskills.V010 {
			why = "the index gives no usable digest for this skill (read leniently)"
		}
		sk.Warnings = append(sk.Warnings, Warning{Code: "unverified", URL: entry.URL,
			Message: why + ": the content cannot be verified"})
	}
	md, err := agentskills.ParseSkillMD(sk.Files[0].Data, agentskills.ParseOptions{Dir: entry.Name})
	if err != nil {
		return nil, fmt.Errorf("discovery: skill %q: %w", entry.Name, err)
	}
	sk.SkillMD = md
	for _, d := range md.Diagnostics {
		sk.Warnings = append(sk.Warnings, Warning{Code: "skill", URL: entry.URL, Message: d.String()})
	}
	return sk, nil
}

// skillFiles fetches the files of the skill entry lists (families.SkillFiles), each
// artifact through fetchArtifact.
func (c *Client) skillFiles(ctx context.Context, budget *fetch.Budget, o Origin, entry *agentskills.IndexEntry) ([]agentskills.File, error) {
	return families.SkillFiles(entry, func(u string, limit int64) ([]byte, string, error) {
		return c.fetchArtifact(ctx, budget, o, u, limit)
	})
}

// verifyPublisher checks the Trust Manifest beside e's artifact, else beside the index
// (trust.VerifyListed; checked: the bytes matched the index's digests), against the bytes
// fetched. Manifests and keys are fetched as artifacts are.
func (c *Client) verifyPublisher(ctx context.Context, budget *fetch.Budget, ix *SkillsIndex, e *agentskills.IndexEntry, files []agentskills.File, checked bool) (*trust.Result, error) {
	l := trust.Listed{ArtifactURL: e.URL, Origin: ix.Origin.String(), ArtifactDigest: e.Digest, IndexURL: ix.Index.URL, IndexDigest: ix.Index.Digest, Checked: checked}
	if e.Type != agentskills.TypeArchive {
		l.Artifact, l.UncoveredFiles = files[0].Data, len(files)-1 // a file list: only its SKILL.md is signed
	}
	return trust.VerifyListed(ctx, l, c.keyFetcher(budget, ix.Origin))
}

// keyFetcher is what trust verification fetches manifests and keys with: the artifact path.
func (c *Client) keyFetcher(budget *fetch.Budget, o Origin) *trust.Options {
	return &trust.Options{Roots: c.trustRoots, Fetch: func(ctx context.Context, u string) ([]byte, error) {
		data, _, err := c.fetchArtifact(ctx, budget, o, u, trust.MaxKeySetBytes)
		return data, err
	}}
}

// withPublisher checks, with Options.TrustRoots, the Trust Manifest beside ix's index
// (ix.Publisher): unverified is a result, not an error; GetSkill decides.
func (c *Client) withPublisher(ctx context.Context, ix *SkillsIndex) *SkillsIndex {
	if len(c.trustRoots) > 0 && ix.Index.Digest != "" {
		ix.Publisher, _ = trust.VerifyPublished(ctx, ix.Index.URL, trust.Expect{Origin: ix.Origin.String(), ArtifactDigest: ix.Index.Digest}, c.keyFetcher(fetch.NewBudget(c.skillTimeout), ix.Origin))
	}
	return ix
}

// fetchArtifact GETs a skill artifact through the Client's stack, capped at limit,
// asking ConsentArtifact first when it lives on another origin.
func (c *Client) fetchArtifact(ctx context.Context, budget *fetch.Budget, o Origin, rawURL string, limit int64) ([]byte, string, error) {
	if budget.Spent() {
		return nil, "", fmt.Errorf("discovery: GetSkill used up Options.SkillTimeout (%s): %w", c.skillTimeout, context.DeadlineExceeded)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, "", fmt.Errorf("%w: artifact URL does not parse", ErrInvalidOrigin)
	}
	target, err := originOf(u)
	if err != nil {
		return nil, "", err
	}
	u.User = nil // site-supplied userinfo is never sent
	if target != o {
		err := ask(ctx, c, c.consent, &ConsentRequest{
			Action: ConsentArtifact, Origin: o, URL: redact(u), Method: http.MethodGet,
			Reason: fmt.Sprintf("%s lists a skill artifact on another origin, %s", o, target),
		}, ErrConsentDenied)
		if err != nil {
			return nil, "", err
		}
	}
	return c.docs.Artifact(ctx, &fetch.Request{URL: u.String(), Origin: fetch.Origin(o), Private: privateOrigin(o),
		Timeout: c.docTimeout, Budget: budget, Limit: limit, Header: http.Header{"User-Agent": {c.userAgent},
			"Accept": {"text/markdown, text/plain;q=0.9, application/gzip;q=0.8, application/zip;q=0.8, */*;q=0.1"}}}, redact(u))
}
