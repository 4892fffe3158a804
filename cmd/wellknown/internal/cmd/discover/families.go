package discover

import (
	"fmt"
	"io"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
)

// familyJSON is one family the site publishes, in --json (with --structured).
type familyJSON struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	Via  string `json:"via"` // well-known, ai-catalog or scope
}

// cardJSON is one MCP Server Card of the site's AI Catalog, in --json: advisory.
type cardJSON struct {
	Identifier string       `json:"identifier"`
	URL        string       `json:"url"`
	Inline     bool         `json:"inline"`
	Name       string       `json:"name"`    // "" when the card could not be read
	Version    string       `json:"version"` // as published
	Remotes    []remoteJSON `json:"remotes"`
	Error      string       `json:"error,omitempty"`
}

type remoteJSON struct {
	URL       string `json:"url"`
	Transport string `json:"transport"`
	Templated bool   `json:"templated"`
}

// addFamilies fills the --json fields DiscoverAll feeds.
func addFamilies(r *DiscoveryJSON, d *discovery.Discovery) {
	r.Families, r.Cards, r.Catalog = []familyJSON{}, []cardJSON{}, []string{}
	all := d.All
	if all == nil {
		return
	}
	for _, f := range all.Families {
		r.Families = append(r.Families, familyJSON{Name: cmdutil.Clean(f.Name, 256), URL: cmdutil.Clean(f.URL, 512), Via: f.Via})
	}
	if all.Catalog != nil {
		for _, v := range all.Catalog.Catalogs {
			r.Catalog = append(r.Catalog, cmdutil.Clean(v.URL, 512))
		}
	}
	for _, k := range all.Cards {
		c := cardJSON{Identifier: cmdutil.Clean(k.Identifier, 256), URL: cmdutil.Clean(k.URL, 512), Inline: k.Inline, Remotes: []remoteJSON{}}
		if k.Err != nil {
			c.Error = cmdutil.Clean(k.Err.Error(), 1024)
		}
		if k.Card != nil {
			c.Name, c.Version = cmdutil.Clean(k.Card.Name, 256), cmdutil.Clean(k.Card.Version, 64)
			for _, rm := range k.Card.Remotes {
				c.Remotes = append(c.Remotes, remoteJSON{URL: cmdutil.Clean(rm.URL, 512), Transport: string(rm.Type), Templated: rm.Templated()})
			}
		}
		r.Cards = append(r.Cards, c)
	}
}

// printFamilies prints what DiscoverAll found beyond skills.md and mcp.json.
func printFamilies(out io.Writer, d *discovery.Discovery, h func(string) string) {
	all := d.All
	if all == nil || len(all.Families) == 0 {
		return
	}
	fmt.Fprintf(out, "\n%s\n", h("families"))
	for _, f := range all.Families {
		fmt.Fprintf(out, "  %-16s %s (%s)\n", cmdutil.Clean(f.Name, 256), cmdutil.Clean(f.URL, 512), f.Via)
	}
	for _, k := range all.Cards {
		if k.Card == nil {
			fmt.Fprintf(out, "  card %s: not read: %s\n", cmdutil.Clean(k.Identifier, 256), cmdutil.Clean(k.Err.Error(), 512))
			continue
		}
		for _, rm := range k.Card.Remotes {
			fmt.Fprintf(out, "  card server %s: %s (%s; from a Server Card, advisory)\n", cmdutil.Clean(k.Card.Name, 256), cmdutil.Clean(rm.URL, 512), rm.Type)
		}
	}
}
