package tools

import (
	"github.com/wellknown-dev/discovery"
)

// siteFamily is one family a site publishes, in discover_site's structured result.
type siteFamily struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	Via  string `json:"via"`
}

// cardServer is a remote of an MCP Server Card from the site's AI Catalog: advisory,
// as its operator describes it.
type cardServer struct {
	Name      string `json:"name"`
	URL       string `json:"url"`
	Transport string `json:"transport"`
	Card      string `json:"card"` // where the card came from
}

// familiesOf lists the families of d (filled by DiscoverAll), bounded.
func familiesOf(d *discovery.Discovery) []siteFamily {
	var out []siteFamily
	if d.All == nil {
		return nil
	}
	for i, f := range d.All.Families {
		if i == maxListed {
			break
		}
		out = append(out, siteFamily{Name: clean(f.Name, maxField), URL: clean(f.URL, maxField), Via: f.Via})
	}
	return out
}

// cardServers lists the remotes of d's Server Cards, bounded.
func cardServers(d *discovery.Discovery) []cardServer {
	var out []cardServer
	if d.All == nil {
		return nil
	}
	for _, k := range d.All.Cards {
		if k.Card == nil {
			continue
		}
		for _, r := range k.Card.Remotes {
			if len(out) == maxListed {
				return out
			}
			out = append(out, cardServer{Name: clean(k.Card.Name, maxField), URL: clean(r.URL, maxField),
				Transport: string(r.Type), Card: clean(k.URL, maxField)})
		}
	}
	return out
}
