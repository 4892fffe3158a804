package families

import (
	"context"
	"fmt"
	"net/url"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/internal/fetch"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// IndexFunc fetches and reads the Agent Skills index at url (absolute), under the
// caller's policy (origin, consent, guard, size, time, caching). It must respect ctx.
type IndexFunc func(ctx context.Context, url string) (*agentskills.Index, error)

// CatalogIndex is the Agent Skills index an AI Catalog lists.
type CatalogIndex struct {
	Index *agentskills.Index
	// URL is where the index was served from: the entry's url, or, for an index
	// inline in the entry's "data", the catalog holding it (its relative URLs resolve
	// against that catalog, as the entry's own would).
	URL      string
	Warnings []fetch.Warning // the inline index's diagnostics, and the agent-skills entries not read
}

// IndexOf reads the Agent Skills index the walked catalog w lists: the first entry of
// type agent-skills the walk reached (depth first, in document order), read leniently
// from its "data" or fetched from its url through get. Every other agent-skills
// entry is not read: each gets a warning. It returns nil and no error when w is nil or
// lists no agent-skills entry; an inline "data" that is not an index is an error
// naming the entry's JSON pointer in its catalog.
func IndexOf(ctx context.Context, w *aicatalog.Walked, get IndexFunc) (*CatalogIndex, error) {
	if w == nil {
		return nil, nil
	}
	var first *aicatalog.Found
	var ignored []fetch.Warning
	for i, f := range w.Entries {
		if f.Entry.Type != aicatalog.TypeAgentSkills {
			continue
		}
		if first == nil {
			first = &w.Entries[i]
			continue
		}
		ignored = append(ignored, fetch.Warning{Code: NameCatalog, URL: secrets.RedactURL(f.Source), Message: fmt.Sprintf(
			"%s: another agent-skills entry (%s), not read: the first one, %s at %s#%s, is used",
			f.Entry.Pointer, secrets.Quote(f.Entry.Identifier, 0), secrets.Quote(first.Entry.Identifier, 0), secrets.RedactURL(first.Source), first.Entry.Pointer)})
	}
	if first == nil {
		return nil, nil
	}
	out := &CatalogIndex{URL: first.Entry.URL}
	var err error
	where := secrets.RedactURL(first.Source) + "#" + first.Entry.Pointer
	if first.Entry.Data == nil {
		if out.Index, err = get(ctx, first.Entry.URL); err != nil && ctx.Err() == nil {
			err = fmt.Errorf("discovery: the agent-skills entry at %s lists its index at %s%s: %w", where, secrets.RedactURL(first.Entry.URL), otherOrigin(w.Catalogs[0].URL, first.Entry.URL), err)
		}
	} else {
		out.URL = first.Source
		out.Index, err = agentskills.ParseIndex(first.Entry.Data, first.Source, agentskills.Lenient)
		if err != nil {
			err = fmt.Errorf("discovery: the agent-skills entry at %s/data is not an Agent Skills index: %w", where, err)
		}
	}
	if err != nil {
		return nil, err
	}
	if first.Entry.Data != nil {
		for _, d := range out.Index.Diagnostics {
			out.Warnings = append(out.Warnings, fetch.Warning{Code: "skills-index", URL: secrets.RedactURL(first.Source), Message: first.Entry.Pointer + "/data: " + d.String()})
		}
	}
	out.Warnings = append(out.Warnings, ignored...)
	return out, nil
}

// otherOrigin is a hint for an index at u listed in the catalog of source, on another
// origin: it is read only with consent. "" when on the same origin.
func otherOrigin(source, u string) string {
	a, errA := url.Parse(source)
	b, errB := url.Parse(u)
	if errA == nil && errB == nil && a.Scheme == b.Scheme && a.Host == b.Host {
		return ""
	}
	return " (another origin: it is read only with consent to fetch from there, ConsentRedirect)"
}
