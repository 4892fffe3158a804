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
	"github.com/wellknown-dev/discovery/mcpjson"
	"github.com/wellknown-dev/discovery/servercard"
	"github.com/wellknown-dev/discovery/trust"
)

// Family names, in [Family.Name].
const (
	FamilyGuide       = "skills.md"       // the guide at GuidePath
	FamilyMCP         = "mcp.json"        // the document at MCPPath
	FamilyCatalog     = "ai-catalog"      // an AI Catalog, the well-known one or one nested in it
	FamilyCard        = "mcp-server-card" // an MCP Server Card listed in the catalog
	FamilyAgentSkills = "agent-skills"    // an Agent Skills index
	FamilyRootSkill   = "skill.md"        // an Agent-Skills-format SKILL.md at /skill.md (not skills.md)
)

// Family is one kind of document a site publishes for agents, and where it was found.
type Family struct {
	Name string // a Family constant, or a catalog entry's media type
	URL  string // where it is published; for an inline catalog entry, the catalog holding it
	Via  string // "well-known", "ai-catalog" (listed in a catalog) or "scope" (under the path the caller gave)
}

// Card is an MCP Server Card of the site's AI Catalog: advisory, untrusted data.
type Card struct {
	Identifier string           // the catalog entry's identifier, e.g. "urn:air:example.com:mcp:weather"
	URL        string           // where the card was fetched from; for an inline card, the catalog holding it
	Inline     bool             // read from the catalog entry's "data"
	Card       *servercard.Card // nil when Err is set
	Err        error            // why the card could not be read (not published, consent refused, not a card)
	Publisher  *trust.Result    // with Options.TrustRoots, the entry's trustManifest checked against the card's bytes
}

// Servers returns the card's connectable remotes for [Client.ConnectEndpoint].
func (c Card) Servers() []mcpjson.Server { return families.Servers(c.Card) }

var (
	catalogSpec = docSpec[families.Doc]{path: aicatalog.WellKnownPath, Kind: families.CatalogKind(mcpSpec.TypeOK)}
	cardSpec    = docSpec[servercard.Card]{Kind: families.CardKind(mcpSpec.TypeOK)}
)

// readCatalog reads o's AI Catalog, nested catalogs and (withCards) cards into d,
// verifying the cards' Trust Manifests with v (nil: none); true if published.
func (c *Client) readCatalog(ctx context.Context, o Origin, d *Discovery, v families.Verifier, withCards bool) (bool, error) {
	root := fetchDoc(ctx, c, o, catalogSpec)
	d.addFetch(root.fetch, root.warnings, root.err)
	if root.doc == nil {
		return false, ctx.Err()
	}
	catalogs := func(ctx context.Context, u string) (*families.Doc, error) {
		return fetchOther(ctx, c, o, d, u, catalogSpec)
	}
	cards := func(ctx context.Context, u string) (*servercard.Card, error) {
		return fetchOther(ctx, c, o, d, u, cardSpec)
	}
	if !withCards {
		cards = nil
	}
	res, err := families.Read(ctx, families.WalkTimeouts*c.docTimeout, root.doc.Catalog, catalogs, cards, v)
	p := d.All
	if err != nil {
		return true, err
	}
	p.Catalog = res.Walked
	for _, f := range res.Families() {
		p.Families = append(p.Families, Family(f))
	}
	for _, k := range res.Cards {
		p.Cards = append(p.Cards, Card(k))
	}
	if msg := res.LeftOut(); msg != "" && withCards {
		d.Warnings = append(d.Warnings, Warning{Code: WarnCatalog, URL: root.fetch.URL, Message: msg})
	}
	for _, x := range append(root.doc.Catalog.Diagnostics, res.Walked.Diagnostics...) {
		d.Warnings = append(d.Warnings, Warning{Code: WarnCatalog, URL: cmp.Or(x.Source, root.fetch.URL), Message: x.Code + ": " + x.Where + ": " + x.Message})
	}
	return true, nil
}

// fetchOther fetches a document a catalog names, recording the fetch in d: one on
// another origin needs consent (ConsentRedirect), as a redirect there would.
func fetchOther[T any](ctx context.Context, c *Client, o Origin, d *Discovery, raw string, spec docSpec[T]) (*T, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %s does not parse", ErrInvalidOrigin, redactString(raw))
	}
	if err := c.consentOther(ctx, o, u, "lists a document"); err != nil {
		d.Warnings = append(d.Warnings, Warning{Code: WarnFetch, URL: redact(u), Message: err.Error()})
		return nil, err
	}
	out := fetchShared(ctx, c, o, u.String(), spec)
	d.addFetch(out.fetch, out.warnings, out.err)
	switch {
	case out.err != nil:
		return nil, out.err
	case out.doc == nil:
		return nil, fmt.Errorf("%w: %s (HTTP %d)", ErrNotPublished, out.fetch.URL, out.fetch.StatusCode)
	}
	return out.doc, nil
}

// consentOther clears target's userinfo (never sent) and asks ConsentRedirect when
// target is on another origin than o: what o lists is fetched there only with consent.
func (c *Client) consentOther(ctx context.Context, o Origin, target *url.URL, lists string) error {
	target.User = nil
	to, err := originOf(target)
	if err == nil && to == o {
		return nil
	}
	return ask(ctx, c, c.consent, &ConsentRequest{
		Action: ConsentRedirect, Origin: o, URL: redact(target), Method: http.MethodGet,
		Reason: fmt.Sprintf("%s %s on another origin, %s", o, lists, redact(target)),
	}, ErrCrossOrigin)
}

// addFetch records a fetch of a family beyond skills.md and mcp.json.
func (d *Discovery) addFetch(f Fetch, ws []Warning, err error) {
	f.Err = err
	d.Fetches = append(d.Fetches, f)
	d.Warnings = append(d.Warnings, ws...)
	if err != nil && !errors.Is(err, ErrNotPublished) {
		d.Warnings = append(d.Warnings, Warning{Code: WarnFetch, URL: f.URL, Message: err.Error()})
	}
}

// DiscoverAll is [Client.Structured] followed by every other family the site
// publishes for agents, which Discover and Structured never fetch: the AI Catalog
// (aicatalog.WellKnownPath) with its nested catalogs (aicatalog.Walk's bounds) and MCP
// Server Cards, inline or fetched (read leniently, at most 32, 8 fetched; all fetched
// within 2 DocumentTimeouts); the Agent Skills index ([Client.ListSkills]) and /skill.md
// ([Client.RootSkill]), both under origin's path first. Every fetch is under the
// Client's policy and in Fetches; one on another origin needs [ConsentRedirect]. It
// fails with [ErrNotPublished] when no family is published (one failing is a Warning).
func (c *Client) DiscoverAll(ctx context.Context, origin string) (*Discovery, error) {
	return c.discover(ctx, origin, true, true)
}

// discoverRest adds the other families to d, Structured's outcome (err: ErrNotPublished).
func (c *Client) discoverRest(ctx context.Context, o Origin, origin string, d *Discovery, err error) (*Discovery, error) {
	if d == nil {
		return nil, err
	}
	p := &Published{}
	d.All = p
	if d.Guide != nil {
		p.Families = append(p.Families, Family{Name: FamilyGuide, URL: o.String() + GuidePath, Via: families.ViaWellKnown})
	}
	if d.MCP != nil {
		p.Families = append(p.Families, Family{Name: FamilyMCP, URL: d.MCPURL, Via: families.ViaWellKnown})
	}
	v := families.TrustVerifier(o.String(), c.keyFetcher(fetch.NewBudget(c.skillTimeout), o)) // nil without roots
	found, cerr := c.readCatalog(ctx, o, d, v, true)
	if cerr != nil {
		return nil, cerr
	}
	// The index lookup of ListSkills, on the catalog read above (one the catalog lists has its Family already).
	ix, listed, ierr := c.skillsIndex(ctx, o, origin, cmp.Or(p.Catalog, &aicatalog.Walked{}))
	if ix != nil {
		d.Fetches = append(d.Fetches, ix.Fetches...)
		d.Warnings = append(d.Warnings, ix.Warnings...)
	}
	if ix != nil && !listed {
		p.Families = append(p.Families, Family{Name: FamilyAgentSkills, URL: ix.URL, Via: families.Via(o.String(), ix.URL, agentskills.IndexPath, agentskills.LegacyIndexPath)})
	}
	if p.Skills = ix; ix != nil {
		ix.Publisher = families.IndexPublisher(ctx, p.Catalog, ix.Index.URL, ix.Index.Digest, ix.Publisher, v)
	}
	sk, fs, serr := c.rootSkill(ctx, o, origin)
	d.Fetches = append(d.Fetches, fs...)
	if sk != nil {
		p.RootSkill = sk
		p.Families = append(p.Families, Family{Name: FamilyRootSkill, URL: sk.Entry.URL, Via: families.Via(o.String(), sk.Entry.URL, RootSkillPath)})
	}
	for _, e := range []error{ierr, serr} {
		if e != nil && !errors.Is(e, ErrNotPublished) {
			d.Warnings = append(d.Warnings, Warning{Code: WarnFetch, URL: o.String(), Message: e.Error()})
		}
	}
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	if err != nil && !found && ix == nil && sk == nil {
		return nil, fmt.Errorf("%w: %s (%s, %s, %s, an Agent Skills index or %s)", ErrNotPublished, o, GuidePath, MCPPath, aicatalog.WellKnownPath, RootSkillPath)
	}
	return d, nil
}
