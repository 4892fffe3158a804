// Package families reads what a site publishes for agents beside skills.md and
// mcp.json: its AI Catalog's nested catalogs, walked within the bounds of
// aicatalog.Walk, its MCP Server Cards, inline or by URL, read leniently, the Agent
// Skills index its agent-skills entry lists (IndexOf), and the files of one skill of
// an index, checked against their digests (SkillFiles). It does no I/O of its own: the
// caller's fetch functions apply its policy (origin, consent, size, time, caching),
// and they are called one at a time, from the calling goroutine.
package families

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/internal/fetch"
	"github.com/wellknown-dev/discovery/mcpjson"
	"github.com/wellknown-dev/discovery/servercard"
	"github.com/wellknown-dev/discovery/trust"
)

// Bounds on the cards of one discovery: a catalog of thousands of card entries costs
// at most MaxCards parses and MaxCardFetches requests.
const (
	MaxCards       = 32
	MaxCardFetches = 8
)

// WalkTimeouts is the time the fetches of one Read's nested catalogs and cards have
// in all, in document timeouts (the caller's bound on one document).
const WalkTimeouts = 2

// CardFunc fetches and reads the card at url (absolute). It must respect ctx.
type CardFunc func(ctx context.Context, url string) (*servercard.Card, error)

// Card is one card entry of the catalog, read or not.
type Card struct {
	Identifier string           // the catalog entry's identifier
	URL        string           // where the card was fetched from; for an inline card, the catalog that holds it
	Inline     bool             // read from the entry's "data"
	Card       *servercard.Card // nil when Err is set
	Err        error
	Publisher  *trust.Result // the entry's Trust Manifest checked against the card's bytes; nil without a Verifier
}

// Result is what Read found.
type Result struct {
	Walked *aicatalog.Walked
	Cards  []Card
	// CardsLeftOut counts the card entries past the bounds, not read.
	CardsLeftOut int
	// CardsOutOfTime counts the card entries not fetched because the time of the
	// walk was spent.
	CardsOutOfTime int
}

// ErrWalkTime is the error of a nested catalog or card not fetched, or not fetched in
// full, because the time Read was given for the whole walk was spent.
var ErrWalkTime = errors.New("the catalog walk used up its time")

// walkClock bounds the fetches of one Read in time, together: every fetch after the
// first one is a request a site chose to list, and a site that trickles each would
// otherwise hold the walk for MaxFetches + MaxCardFetches document timeouts.
type walkClock struct {
	parent, ctx context.Context
}

// fetchCtx returns the context a fetch runs in, or ErrWalkTime when the walk's time
// is spent (while the caller's context is not done).
func (w walkClock) fetchCtx() (context.Context, error) {
	if w.ctx.Err() != nil && w.parent.Err() == nil {
		return nil, ErrWalkTime
	}
	return w.ctx, nil
}

// explain turns the error of a fetch cut by the walk's deadline into ErrWalkTime; the
// caller's own context being done stays as it is.
func (w walkClock) explain(err error) error {
	if err != nil && w.parent.Err() == nil && w.ctx.Err() != nil {
		return fmt.Errorf("%w (%v)", ErrWalkTime, err)
	}
	return err
}

// Read walks root's nested catalogs through catalog (nil: inline ones only) and reads
// its card entries: inline ones with servercard.Parse, the others through card; with
// verify, the Trust Manifest of each card read (Card.Publisher). The fetches of nested
// catalogs and cards have budget in all (0: no bound of Read's own); what the budget
// leaves unfetched is reported with ErrWalkTime. It returns an error only when ctx is
// done.
func Read(ctx context.Context, budget time.Duration, root *aicatalog.Catalog, catalog func(ctx context.Context, url string) (*Doc, error), card CardFunc, verify Verifier) (*Result, error) {
	clock := walkClock{parent: ctx, ctx: ctx}
	if budget > 0 {
		var cancel context.CancelFunc
		clock.ctx, cancel = context.WithTimeout(ctx, budget)
		defer cancel()
	}
	var fetch aicatalog.FetchFunc
	if catalog != nil {
		fetch = func(_ context.Context, u string) ([]byte, error) {
			fctx, err := clock.fetchCtx()
			if err != nil {
				return nil, err
			}
			doc, err := catalog(fctx, u)
			if err != nil {
				return nil, clock.explain(err)
			}
			return doc.Raw, nil
		}
	}
	w, err := aicatalog.Walk(ctx, root, fetch, nil)
	if err != nil {
		return nil, err
	}
	res := &Result{Walked: w}
	fetches := 0
	for _, f := range w.Entries {
		if f.Entry.Type != aicatalog.TypeMCPServerCard {
			continue
		}
		if len(res.Cards) >= MaxCards || (f.Entry.Data == nil && (card == nil || fetches >= MaxCardFetches)) {
			res.CardsLeftOut++
			continue
		}
		c := Card{Identifier: f.Entry.Identifier, URL: f.Entry.URL}
		if f.Entry.Data != nil {
			c.URL, c.Inline = f.Source, true
			c.Card, c.Err = servercard.Parse(f.Entry.Data, servercard.Options{URL: f.Source})
		} else {
			fctx, err := clock.fetchCtx()
			if err != nil {
				res.CardsOutOfTime++
				continue
			}
			fetches++
			c.Card, c.Err = card(fctx, f.Entry.URL)
			if ctx.Err() != nil && errors.Is(c.Err, ctx.Err()) {
				return nil, c.Err
			}
			c.Err = clock.explain(c.Err)
		}
		if c.Err != nil {
			c.Card = nil
		} else if verify != nil {
			digest := c.Card.Digest
			if c.Inline {
				digest = agentskills.Digest(f.Entry.Data)
			}
			c.Publisher = verify(ctx, f.Entry, digest)
		}
		res.Cards = append(res.Cards, c)
	}
	return res, nil
}

// LeftOut says which card entries were not read, for a warning; "" when none was
// left out.
func (r *Result) LeftOut() string {
	var parts []string
	if r.CardsLeftOut > 0 {
		parts = append(parts, fmt.Sprintf("%d MCP Server Card entries not read: a discovery reads at most %d cards and fetches at most %d", r.CardsLeftOut, MaxCards, MaxCardFetches))
	}
	if r.CardsOutOfTime > 0 {
		parts = append(parts, fmt.Sprintf("%d MCP Server Card entries not fetched: %v", r.CardsOutOfTime, ErrWalkTime))
	}
	return strings.Join(parts, "; ")
}

// Family is one family found, as discovery.Family (the same fields).
type Family struct {
	Name string
	URL  string
	Via  string
}

// Names of families and of how they were found, as discovery's Family constants.
const (
	NameCatalog     = "ai-catalog"
	NameCard        = "mcp-server-card"
	NameAgentSkills = "agent-skills"
	ViaWellKnown    = "well-known"
	ViaCatalog      = "ai-catalog"
	ViaScope        = "scope"
)

// Families lists what r found: the catalogs read, each entry that is not a card (by
// its media type; agent-skills indexes as NameAgentSkills), and each card read.
func (r *Result) Families() []Family {
	var out []Family
	for _, v := range r.Walked.Catalogs {
		via := ViaWellKnown
		if v.Depth > 1 {
			via = ViaCatalog
		}
		out = append(out, Family{Name: NameCatalog, URL: v.URL, Via: via})
	}
	for _, f := range r.Walked.Entries {
		name := f.Entry.Type
		switch name {
		case aicatalog.TypeMCPServerCard:
			continue
		case aicatalog.TypeAgentSkills:
			name = NameAgentSkills
		}
		u := f.Entry.URL
		if u == "" {
			u = f.Source
		}
		out = append(out, Family{Name: name, URL: u, Via: ViaCatalog})
	}
	for _, k := range r.Cards {
		if k.Card != nil {
			out = append(out, Family{Name: NameCard, URL: k.URL, Via: ViaCatalog})
		}
	}
	return out
}

// Servers returns the connectable remotes of card as mcpjson servers (templated ones
// are left out).
func Servers(card *servercard.Card) []mcpjson.Server {
	if card == nil {
		return nil
	}
	var out []mcpjson.Server
	for _, r := range card.Remotes {
		if r.Connectable() {
			out = append(out, mcpjson.Server{Name: card.Name, Description: card.Description, URL: r.URL, Transport: mcpjson.Transport(r.Type)})
		}
	}
	return out
}

// Doc is a catalog as the fetch pipeline keeps it: parsed (the root of a walk) and as
// sent (a nested catalog, which the walk parses itself).
type Doc struct {
	Catalog *aicatalog.Catalog
	Raw     []byte
}

// CatalogKind is how the pipeline fetches an AI Catalog; typeOK judges media types.
func CatalogKind(typeOK func(string) bool) fetch.Kind {
	return fetch.Kind{
		Name: "ai-catalog", Accept: aicatalog.MediaType + ", application/json;q=0.9", TypeOK: typeOK,
		Parse: func(data []byte, docURL string) (any, []fetch.Warning, error) {
			c, err := aicatalog.Parse(data, aicatalog.Options{URL: docURL})
			if err != nil {
				return nil, nil, err
			}
			return &Doc{Catalog: c, Raw: append([]byte(nil), data...)}, nil, nil
		},
	}
}

// CardKind is how the pipeline fetches an MCP Server Card, read leniently.
func CardKind(typeOK func(string) bool) fetch.Kind {
	return fetch.Kind{
		Name: "server-card", Accept: aicatalog.TypeMCPServerCard + ", application/json;q=0.9", TypeOK: typeOK,
		Parse: func(data []byte, docURL string) (any, []fetch.Warning, error) {
			c, err := servercard.Parse(data, servercard.Options{URL: docURL})
			if c != nil {
				c.Digest = agentskills.Digest(data)
			}
			return c, nil, err
		},
	}
}

// Scoped returns paths under the path of origin (an origin string as the caller gave
// it, trimmed) when it has one, then paths as given: "https://host/docs" looks under
// /docs first. A path with dot segments (".." or one into .well-known itself) or
// empty segments is no scope.
func Scoped(origin string, paths ...string) []string {
	if !strings.Contains(origin, "://") {
		origin = "https://" + origin
	}
	u, err := url.Parse(origin)
	scope := ""
	if err == nil {
		scope = strings.TrimRight(u.EscapedPath(), "/")
	}
	if scope == "" || strings.Contains(scope, "/.") || strings.Contains(scope, "//") {
		return paths
	}
	var out []string
	for _, p := range paths {
		out = append(out, scope+p)
	}
	return append(out, paths...)
}

// Via says how a document at u was found for origin: ViaWellKnown when at one of
// paths at the origin's root, else ViaScope.
func Via(origin, u string, paths ...string) string {
	for _, p := range paths {
		if u == origin+p {
			return ViaWellKnown
		}
	}
	return ViaScope
}

// SkillKind is how the pipeline fetches a /skill.md, read as an Agent Skill.
func SkillKind(accept string, typeOK func(string) bool) fetch.Kind {
	return fetch.Kind{Name: "skill.md", Accept: accept, TypeOK: typeOK,
		Parse: func(data []byte, _ string) (any, []fetch.Warning, error) {
			md, err := agentskills.ParseSkillMD(data, agentskills.ParseOptions{})
			return md, nil, err
		}}
}
