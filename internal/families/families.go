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

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/internal/fetch"
	"github.com/wellknown-dev/discovery/mcpjson"
	"github.com/wellknown-dev/discovery/servercard"
)

// Bounds on the cards of one discovery: a catalog of thousands of card entries costs
// at most MaxCards parses and MaxCardFetches requests.
const (
	MaxCards       = 32
	MaxCardFetches = 8
)

// CardFunc fetches and reads the card at url (absolute). It must respect ctx.
type CardFunc func(ctx context.Context, url string) (*servercard.Card, error)

// Card is one card entry of the catalog, read or not.
type Card struct {
	Identifier string           // the catalog entry's identifier
	URL        string           // where the card was fetched from; for an inline card, the catalog that holds it
	Inline     bool             // read from the entry's "data"
	Card       *servercard.Card // nil when Err is set
	Err        error
}

// Result is what Read found.
type Result struct {
	Walked *aicatalog.Walked
	Cards  []Card
	// CardsLeftOut counts the card entries past the bounds, not read.
	CardsLeftOut int
}

// Read walks root's nested catalogs through catalog (nil: inline ones only) and reads
// its card entries: inline ones with servercard.Parse, the others through card. It
// returns an error only when ctx is done.
func Read(ctx context.Context, root *aicatalog.Catalog, catalog func(ctx context.Context, url string) (*Doc, error), card CardFunc) (*Result, error) {
	var fetch aicatalog.FetchFunc
	if catalog != nil {
		fetch = func(ctx context.Context, u string) ([]byte, error) {
			doc, err := catalog(ctx, u)
			if err != nil {
				return nil, err
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
			fetches++
			c.Card, c.Err = card(ctx, f.Entry.URL)
			if ctx.Err() != nil && errors.Is(c.Err, ctx.Err()) {
				return nil, c.Err
			}
		}
		if c.Err != nil {
			c.Card = nil
		}
		res.Cards = append(res.Cards, c)
	}
	return res, nil
}

// LeftOutMessage says how many card entries were not read, for a warning.
func LeftOutMessage(n int) string {
	return fmt.Sprintf("%d MCP Server Card entries not read: a discovery reads at most %d cards and fetches at most %d", n, MaxCards, MaxCardFetches)
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
