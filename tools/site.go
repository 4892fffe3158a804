package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/mcpjson"
)

// Bounds of the structured outputs and renderings of site documents.
const (
	maxListed   = 100 // sections, servers, tools per server, warnings
	maxField    = 256 // one name, URL or heading, in bytes
	maxDescText = 300 // one description in a rendering, in bytes
)

// siteSummary is the Structured result of discover_site.
type siteSummary struct {
	Origin     string       `json:"origin"`
	Title      string       `json:"title,omitempty"`
	BaseURL    string       `json:"base_url,omitempty"`
	Sections   []string     `json:"sections,omitempty"`
	MCPServers []siteServer `json:"mcp_servers,omitempty"`
	Families   []siteFamily `json:"families,omitempty"`     // structured: every family the site publishes
	Cards      []cardServer `json:"card_servers,omitempty"` // structured: the MCP Server Cards' remotes (advisory)
	Warnings   []string     `json:"warnings,omitempty"`
}

type siteServer struct {
	Name      string   `json:"name"`
	URL       string   `json:"url,omitempty"`
	Transport string   `json:"transport,omitempty"`
	Tools     []string `json:"tools,omitempty"`
}

// serverList is the Structured result of list_mcp_servers.
type serverList struct {
	Origin   string       `json:"origin"`
	Servers  []serverInfo `json:"servers"`
	Cards    []cardServer `json:"card_servers,omitempty"` // remotes of the AI Catalog's MCP Server Cards (advisory)
	Warnings []string     `json:"warnings,omitempty"`
}

type serverInfo struct {
	Name      string `json:"name"`
	URL       string `json:"url,omitempty"`
	Transport string `json:"transport"`
	Local     bool   `json:"local"`
	Command   string `json:"command,omitempty"`
	Relation  string `json:"relation"`
}

func (t *Toolset) discoverSite(ctx context.Context, in *compiled, input json.RawMessage) (Result, error) {
	a, err := in.validate(DiscoverSite, input)
	if err != nil {
		return Result{}, err
	}
	if t.client == nil {
		return Result{}, fmt.Errorf("%w: no discovery client", ErrNotConfigured)
	}
	discover := t.client.Discover
	if a.boolean("structured") {
		discover = t.client.DiscoverAll
	}
	d, err := discover(ctx, a.str("origin"))
	if err != nil {
		return Result{}, fmt.Errorf("tools: %s: %w", DiscoverSite, err)
	}
	origin := d.Origin.String()
	sum := siteSummary{Origin: origin, Warnings: warnings(d.Warnings)}

	var b strings.Builder
	r := t.renderSite(d, origin)
	sum.Title, sum.BaseURL, sum.Sections = r.title, r.baseURL, r.sections
	b.WriteString(r.text)
	if d.MCP != nil {
		sum.MCPServers = siteServers(d.MCP)
	}
	sum.Families, sum.Cards = familiesOf(d), cardServers(d)
	if len(sum.Warnings) > 0 {
		room := t.budget - b.Len()
		body := "- " + strings.Join(sum.Warnings, "\n- ")
		// origin is canonical (ASCII, no userinfo, path or query): nothing to clean.
		notes := fenced("notes", `origin="`+origin+`"`,
			"Warnings about the documents "+origin+" published; they may quote them.", body, room,
			"the structured result lists them")
		if cut := fmt.Sprintf("[cut: %d warnings not shown: over the output budget; the structured result lists them]\n", len(sum.Warnings)); notes == "" && len(cut) <= room {
			notes = cut
		}
		b.WriteString(notes)
	}
	return Result{Text: b.String(), Structured: sum}, nil
}

func (t *Toolset) listMCPServers(ctx context.Context, in *compiled, input json.RawMessage) (Result, error) {
	a, err := in.validate(ListMCPServers, input)
	if err != nil {
		return Result{}, err
	}
	if t.client == nil {
		return Result{}, fmt.Errorf("%w: no discovery client", ErrNotConfigured)
	}
	d, err := t.client.DiscoverAll(ctx, a.str("origin"))
	if err != nil {
		return Result{}, fmt.Errorf("tools: %s: %w", ListMCPServers, err)
	}
	origin := d.Origin.String()
	out := serverList{Origin: origin, Servers: []serverInfo{}, Cards: cardServers(d), Warnings: warnings(d.Warnings)}
	if d.MCP == nil && len(out.Cards) > 0 {
		return Result{Text: d.ForModel(&discovery.ModelOptions{Budget: t.budget}), Structured: out}, nil
	}
	if d.MCP == nil {
		return Result{Text: t.noMCP(origin, d), Structured: out}, nil
	}
	for i, s := range d.MCP.Servers {
		if i == maxListed {
			break
		}
		out.Servers = append(out.Servers, serverInfo{
			Name:      clean(s.Name, maxField),
			URL:       clean(s.URL, maxField),
			Transport: transportName(s.Transport),
			Local:     s.LocalOnly,
			Command:   clean(s.Command, maxField),
			Relation:  s.Relation(origin).String(),
		})
	}
	return Result{Text: renderMCP(origin, d.MCP, t.budget, "the structured result lists the servers"), Structured: out}, nil
}

// noMCP says why a discovery has no mcp.json, for the model: a site that does not
// publish one (404, 410, an HTML page) is not a site whose mcp.json could not be read
// (malformed, an HTTP error, a failed connection), which may well list servers. The
// cause is the discovery's record of the mcp.json fetch (Fetch.Err); it may quote
// what the site published, so it is fenced.
func (t *Toolset) noMCP(origin string, d *discovery.Discovery) string {
	o := clean(origin, maxField)
	for _, f := range d.Fetches {
		if f.Err == nil || !strings.HasSuffix(f.URL, discovery.MCPPath) {
			continue
		}
		head := o + " has a " + discovery.MCPPath + " that could not be read, so its MCP servers cannot be listed now; " +
			"do not assume it lists none. Why:\n"
		details := fenced("error", fmt.Sprintf("origin=%q source=%q", o, discovery.MCPPath),
			"Why "+discovery.MCPPath+" could not be read; it may quote what the site published.",
			clean(f.Err.Error(), maxErrorText)+"\n", t.budget-len(head), "")
		return head + details
	}
	return o + " publishes no " + discovery.MCPPath + ": it lists no MCP servers.\n"
}

func transportName(tr mcpjson.Transport) string {
	if tr == mcpjson.TransportUnknown {
		return "unknown"
	}
	return string(tr)
}

func siteServers(doc *mcpjson.Document) []siteServer {
	var out []siteServer
	for i, s := range doc.Servers {
		if i == maxListed {
			break
		}
		srv := siteServer{Name: clean(s.Name, maxField), URL: clean(s.URL, maxField), Transport: transportName(s.Transport)}
		for j, tool := range s.Tools {
			if j == maxListed {
				break
			}
			srv.Tools = append(srv.Tools, clean(tool, maxField))
		}
		out = append(out, srv)
	}
	return out
}

func warnings(ws []discovery.Warning) []string {
	var out []string
	for i, w := range ws {
		if i == maxListed {
			break
		}
		out = append(out, clean(w.String(), 2*maxField)) // already redacted
	}
	return out
}

// renderMCP renders the servers and HTTP services of an mcp.json for a model, fenced
// as data published by origin, within room bytes.
func renderMCP(origin string, doc *mcpjson.Document, room int, more string) string {
	var b strings.Builder
	if len(doc.Servers) == 0 {
		b.WriteString("No MCP servers are listed.\n")
	}
	for _, s := range doc.Servers {
		fmt.Fprintf(&b, "- MCP server %s", quote(s.Name, maxField))
		if s.LocalOnly {
			b.WriteString(": a local command, not a remote server")
			if s.Command != "" {
				fmt.Fprintf(&b, " (%s)", clean(s.Command, maxField))
			}
			b.WriteString("; nothing to connect to")
		} else {
			fmt.Fprintf(&b, ": %s, transport %s, %s", clean(s.URL, maxField), transportName(s.Transport), s.Relation(origin))
		}
		b.WriteString("\n")
		if s.Description != "" {
			fmt.Fprintf(&b, "  Description: %s\n", clean(s.Description, maxDescText))
		}
		if a := s.Auth.Describe(); a != "" {
			fmt.Fprintf(&b, "  Auth: %s\n", clean(a, maxField))
		}
		if len(s.Tools) > 0 {
			names := make([]string, 0, len(s.Tools))
			for _, tool := range s.Tools {
				names = append(names, clean(tool, maxField))
			}
			fmt.Fprintf(&b, "  Tools: %s\n", strings.Join(names, ", "))
		}
	}
	for _, tool := range doc.Tools {
		fmt.Fprintf(&b, "- HTTP service %s: %s", quote(tool.Name, maxField), clean(tool.URL, maxField))
		if len(tool.Methods) > 0 {
			fmt.Fprintf(&b, " (%s)", clean(strings.Join(tool.Methods, ", "), maxField))
		}
		b.WriteString("\n")
		if tool.Description != "" {
			fmt.Fprintf(&b, "  Description: %s\n", clean(tool.Description, maxDescText))
		}
	}
	if doc.Notes != "" {
		fmt.Fprintf(&b, "Notes: %s\n", clean(doc.Notes, maxDescText))
	}
	o := clean(origin, maxField)
	return fenced("mcp", fmt.Sprintf("origin=%q source=%q", o, discovery.MCPPath),
		"MCP servers and tools that "+o+" lists in "+discovery.MCPPath+". Connecting to one on another origin needs the user's consent.",
		b.String(), room, more)
}
