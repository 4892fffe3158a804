package discover

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
	"github.com/wellknown-dev/discovery/mcpjson"
	"github.com/wellknown-dev/discovery/skillsmd"
)

// Flags are the output flags shared by discover and demo.
type Flags struct {
	structured bool
	json       bool
	model      bool
}

func (f *Flags) Add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.structured, "structured", false, "read every family: mcp.json, the AI Catalog and its MCP Server Cards, the skills index and /skill.md")
	cmd.Flags().BoolVar(&f.json, "json", false, "print one JSON object (fields in docs/wellknown.md)")
	cmd.Flags().BoolVar(&f.model, "model", false, "print what an agent should hand its model: fenced, labelled untrusted, redacted")
}

// check reports flags that cannot go together: a usage error.
func (f *Flags) Check() error {
	if f.json && f.model {
		return cmdutil.UsageError{Err: errors.New("--json and --model cannot go together: choose one output")}
	}
	return nil
}

func (a *app) discoverCommand() *cobra.Command {
	var f Flags
	cmd := &cobra.Command{
		Use:   "discover ORIGIN",
		Short: "Show what an origin publishes at /.well-known/ (skills.md, mcp.json, skills index)",
		Long: `Discover fetches ORIGIN's /.well-known/skills.md and, when it is absent (or with
--structured, always), /.well-known/mcp.json, and its Agent Skills index, and prints
what they say. With --structured it reads every family the site publishes: also its
AI Catalog (/.well-known/ai-catalog.json, nested catalogs walked within bounds) with
its MCP Server Cards (advisory), and /skill.md; an ORIGIN with a path
(https://host/docs) is looked under first for the skills index and /skill.md. Everything printed was published by the site: untrusted data, shown
with control sequences stripped and credentials redacted.

ORIGIN is a host name (example.com), an https URL, or an http URL on loopback
(http://localhost:8080). Exit status 3 when the origin publishes neither skills.md,
mcp.json nor a skills index.`,
		Example: `  wellknown discover example.com
  wellknown discover --structured --json https://docs.example.com
  wellknown discover --model example.com`,
		Args: cmdutil.ArgsN(1, "ORIGIN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.Check(); err != nil {
				return err
			}
			c, err := a.Client(nil)
			if err != nil {
				return err
			}
			defer c.CloseIdleConnections()
			return Run(cmd.Context(), a.App, c, args[0], f)
		},
	}
	f.Add(cmd)
	return cmd
}

// discover runs a discovery of origin with c and prints it as f asks.
func Run(ctx context.Context, c0 *cmdutil.App, c *discovery.Client, origin string, f Flags) error {
	a := &app{c0}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	p := a.Progress("discovering " + origin)
	call := c.Discover
	if f.structured {
		call = c.DiscoverAll // every family, the skills index included
	}
	var (
		wg      sync.WaitGroup
		ix      *discovery.SkillsIndex
		ixErr   error
		d       *discovery.Discovery
		discErr error
	)
	wg.Add(2)
	go func() { defer wg.Done(); d, discErr = call(ctx, origin) }()
	go func() {
		defer wg.Done()
		if !f.structured {
			ix, ixErr = c.ListSkills(ctx, origin)
		}
	}()
	wg.Wait()
	p.Stop()
	if d != nil && d.All != nil && f.structured {
		ix = d.All.Skills
	}

	switch {
	case errors.Is(discErr, discovery.ErrNotPublished) && ix != nil:
		// Only a skills index: report it with no documents.
		o, err := discovery.ParseOrigin(origin)
		if err != nil {
			return err
		}
		d = &discovery.Discovery{Origin: o}
	case errors.Is(discErr, discovery.ErrNotPublished) && (ixErr == nil || errors.Is(ixErr, discovery.ErrNotPublished)):
		return &cmdutil.ExitError{Code: cmdutil.ExitNotFound, Err: fmt.Errorf("%s publishes no skills.md, mcp.json or skills index at /.well-known/ (%w); check the origin's spelling, or ask its owner to publish one", origin, discErr)}
	case errors.Is(discErr, discovery.ErrNotPublished):
		// No documents, and the index failed for another reason than absence: that
		// failure is the news, not "publishes nothing".
		return fmt.Errorf("discover %s: no skills.md or mcp.json, and the skills index could not be read: %w", origin, ixErr)
	case discErr != nil:
		return fmt.Errorf("discover %s: %w", origin, discErr)
	}
	var ixWarn string
	if ixErr != nil && !errors.Is(ixErr, discovery.ErrNotPublished) {
		ixWarn = "skills index: " + ixErr.Error()
	}
	switch {
	case f.model:
		var mo discovery.ModelOptions
		mo.Skills = ix
		fmt.Fprint(a.Out, d.ForModel(&mo))
		return nil
	case f.json:
		r := discoveryReport(d, ix, ixWarn)
		if f.structured {
			addFamilies(&r, d)
		}
		return a.PrintJSON(r)
	}
	a.printDiscovery(a.Out, d, ix, ixWarn)
	printFamilies(a.Out, d, func(s string) string { return a.Style(cmdutil.ColorBold, s) })
	return nil
}

// DiscoveryJSON is the --json output of discover and demo; its field names are stable
// and listed in docs/wellknown.md.
type DiscoveryJSON struct {
	Origin      string           `json:"origin"`
	Skills      *skillsJSON      `json:"skills"`       // null: no skills.md
	MCP         *mcpJSON         `json:"mcp"`          // null: no mcp.json (or not fetched)
	SkillsIndex *skillsIndexJSON `json:"skills_index"` // null: no skills index
	Fetches     []fetchJSON      `json:"fetches"`
	Warnings    []string         `json:"warnings"`
	// With --structured (DiscoverAll); absent otherwise.
	Families []familyJSON `json:"families,omitempty"` // every family published, and where it was found
	Cards    []cardJSON   `json:"cards,omitempty"`    // MCP Server Cards of the AI Catalog (advisory)
	Catalog  []string     `json:"catalog,omitempty"`  // URLs of the AI Catalogs read, the well-known one first
}

type skillsJSON struct {
	Title        string        `json:"title"`
	Summary      string        `json:"summary"`
	Purpose      string        `json:"purpose"`
	URL          string        `json:"url"`      // where the guide was served from, after redirects (Discovery.GuideURL)
	BaseURL      string        `json:"base_url"` // as written; relative to url
	API          []string      `json:"api"`
	Auth         []string      `json:"auth"`
	SafeActions  []string      `json:"safe_actions"`
	RiskyActions []string      `json:"risky_actions"`
	Limits       []string      `json:"limits"`
	MCP          []string      `json:"mcp"` // MCP endpoints the guide names: data, never connected
	Links        []linkJSON    `json:"links"`
	Sections     []sectionJSON `json:"sections"`
}

type sectionJSON struct {
	Heading string   `json:"heading"`
	Level   int      `json:"level"`
	Text    string   `json:"text"` // paragraphs, tables and code, line breaks kept
	Items   []string `json:"items"`
}

type linkJSON struct {
	Label string `json:"label"`
	URL   string `json:"url"`
}

type mcpJSON struct {
	Shape       string       `json:"shape"`
	SpecVersion string       `json:"spec_version"`
	Status      string       `json:"status"`
	Servers     []ServerJSON `json:"servers"`
	Tools       []ToolJSON   `json:"tools"`
}

type ServerJSON struct {
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	URL         string    `json:"url"`               // "" for a local command
	Command     string    `json:"command,omitempty"` // a local command or package: never run
	Transport   string    `json:"transport"`
	Local       bool      `json:"local"`
	Relation    string    `json:"relation"` // same-origin, subdomain, other-origin, local
	Tools       []string  `json:"tools"`
	Auth        *AuthJSON `json:"auth"`
}

type AuthJSON struct {
	Type          string   `json:"type"`
	TokenEndpoint string   `json:"token_endpoint,omitempty"`
	Scopes        []string `json:"scopes,omitempty"`
	Header        string   `json:"header,omitempty"`
}

type ToolJSON struct {
	Name    string    `json:"name"`
	URL     string    `json:"url"`
	Methods []string  `json:"methods"`
	Auth    *AuthJSON `json:"auth"`
}

type skillsIndexJSON struct {
	URL     string           `json:"url"`
	Version string           `json:"version"`
	Skills  []indexEntryJSON `json:"skills"`
}

type indexEntryJSON struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Type        string `json:"type"`
	URL         string `json:"url"`
	Digest      string `json:"digest"`
}

type fetchJSON struct {
	URL      string `json:"url"`
	FinalURL string `json:"final_url,omitempty"` // where the answer came from after redirects (Fetch.FinalURL)
	Status   int    `json:"status"`
	Source   string `json:"source"`
	Error    string `json:"error,omitempty"` // why this document could not be used (Fetch.Err); omitted when it could
}

// fetchReport is one Fetch for JSON, its error redacted.
func fetchReport(f discovery.Fetch) fetchJSON {
	j := fetchJSON{URL: discovery.Redact(f.URL), FinalURL: discovery.Redact(f.FinalURL), Status: f.StatusCode, Source: f.Source.String()}
	if f.Err != nil {
		j.Error = cmdutil.Clean(f.Err.Error(), 1024)
	}
	return j
}

// fetchLine is one Fetch for a person.
func fetchLine(f discovery.Fetch) string {
	s := fmt.Sprintf("fetched %s: %d (%s, %s)", discovery.Redact(f.URL), f.StatusCode, f.Source, cmdutil.Plural(f.Attempts, "attempt"))
	if f.Err != nil {
		s += ": cannot be used: " + cmdutil.Clean(f.Err.Error(), 1024)
	}
	return s
}

// CleanList cleans every string of a published list; never nil.
func CleanList(in []string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		out = append(out, cmdutil.Clean(s, 1024))
	}
	return out
}

func discoveryReport(d *discovery.Discovery, ix *discovery.SkillsIndex, ixWarn string) DiscoveryJSON {
	r := DiscoveryJSON{Origin: d.Origin.String(), Fetches: []fetchJSON{}, Warnings: []string{}}
	if s := d.Guide; s != nil {
		js := &skillsJSON{URL: cmdutil.Clean(d.GuideURL, 512), Title: cmdutil.Clean(s.Title, 256), Summary: cmdutil.Clean(s.Summary, 1024), Purpose: cmdutil.Clean(s.Purpose, 1024),
			BaseURL: cmdutil.Clean(s.BaseURL, 512), API: CleanList(s.API), Auth: CleanList(s.Auth), SafeActions: CleanList(s.SafeActions),
			RiskyActions: CleanList(s.RiskyActions), Limits: CleanList(s.Limits), MCP: CleanList(s.MCP),
			Links: []linkJSON{}, Sections: []sectionJSON{}}
		for _, l := range s.MoreInfo {
			js.Links = append(js.Links, linkJSON{Label: cmdutil.Clean(l.Label, 256), URL: cmdutil.Clean(l.URL, 512)})
		}
		for _, sec := range s.Sections {
			js.Sections = append(js.Sections, sectionJSON{Heading: cmdutil.Clean(sec.Heading, 256), Level: sec.Level,
				Text: cmdutil.CleanText(cut(sec.Text, 8192)), Items: CleanList(sec.Items)})
		}
		r.Skills = js
	}
	if m := d.MCP; m != nil {
		jm := &mcpJSON{Shape: string(m.Shape), SpecVersion: cmdutil.Clean(m.SpecVersion, 64), Status: cmdutil.Clean(m.Status, 64), Servers: []ServerJSON{}, Tools: []ToolJSON{}}
		for _, s := range m.Servers {
			jm.Servers = append(jm.Servers, ServerReport(d.Origin.String(), s))
		}
		for _, t := range m.Tools {
			jm.Tools = append(jm.Tools, ToolJSON{Name: cmdutil.Clean(t.Name, 256), URL: cmdutil.Clean(t.URL, 512), Methods: CleanList(t.Methods), Auth: AuthReport(t.Auth)})
		}
		r.MCP = jm
	}
	if ix != nil && ix.Index != nil {
		r.SkillsIndex = indexReport(ix)
		for _, w := range ix.Warnings {
			r.Warnings = append(r.Warnings, cmdutil.Clean(w.String(), 1024))
		}
	}
	for _, f := range d.Fetches {
		r.Fetches = append(r.Fetches, fetchReport(f))
	}
	if ix != nil {
		for _, f := range ix.Fetches {
			r.Fetches = append(r.Fetches, fetchReport(f))
		}
	}
	for _, w := range d.Warnings {
		r.Warnings = append(r.Warnings, cmdutil.Clean(w.String(), 1024))
	}
	if ixWarn != "" {
		r.Warnings = append(r.Warnings, cmdutil.Clean(ixWarn, 1024))
	}
	return r
}

func indexReport(ix *discovery.SkillsIndex) *skillsIndexJSON {
	j := &skillsIndexJSON{URL: discovery.Redact(ix.Index.URL), Version: cmdutil.Clean(ix.Index.Version, 64), Skills: []indexEntryJSON{}}
	for _, s := range ix.Index.Skills {
		j.Skills = append(j.Skills, indexEntryJSON{Name: cmdutil.Clean(s.Name, 128), Description: cmdutil.Clean(s.Description, 1024),
			Type: cmdutil.Clean(s.Type, 64), URL: cmdutil.Clean(s.URL, 512), Digest: cmdutil.Clean(s.Digest, 128)})
	}
	return j
}

func AuthReport(au *mcpjson.Auth) *AuthJSON {
	if au == nil {
		return nil
	}
	return &AuthJSON{Type: cmdutil.Clean(au.Type, 64), TokenEndpoint: cmdutil.Clean(au.TokenEndpoint, 512), Scopes: CleanList(au.Scopes), Header: cmdutil.Clean(au.Header, 128)}
}

func ServerReport(origin string, s mcpjson.Server) ServerJSON {
	j := ServerJSON{Name: cmdutil.Clean(s.Name, 256), Description: cmdutil.Clean(s.Description, 1024), URL: cmdutil.Clean(s.URL, 512),
		Transport: string(s.Transport), Local: s.LocalOnly, Relation: s.Relation(origin).String(),
		Tools: CleanList(s.Tools), Auth: AuthReport(s.Auth)}
	if s.LocalOnly {
		j.Command = cmdutil.Clean(s.Command, 512)
	}
	if j.Transport == "" {
		j.Transport = "unknown"
	}
	return j
}

// printDiscovery prints a discovery for a person. Every string a site published is
// cleaned: no control sequence, credential, userinfo or query string reaches the
// terminal.
func (a *app) printDiscovery(out io.Writer, d *discovery.Discovery, ix *discovery.SkillsIndex, ixWarn string) {
	h := func(s string) string { return a.Style(cmdutil.ColorBold, s) }
	fmt.Fprintf(out, "%s %s\n", h("origin:"), d.Origin)
	for _, f := range d.Fetches {
		fmt.Fprintln(out, fetchLine(f))
	}
	if ix != nil {
		for _, f := range ix.Fetches {
			fmt.Fprintln(out, fetchLine(f))
		}
	}
	if s := d.Guide; s != nil {
		fmt.Fprintf(out, "\n%s (published by %s; untrusted guidance)\n", h("skills.md"), d.Origin)
		title := cmdutil.Clean(s.Title, 256)
		if title == "" {
			title = "(none: the guide has no H1)"
		}
		fmt.Fprintf(out, "  title:    %s\n", title)
		if s.Summary != "" {
			fmt.Fprintf(out, "  summary:  %s\n", cmdutil.Clean(s.Summary, 1024))
		}
		if s.BaseURL != "" {
			base := s.BaseURL
			if u, err := s.ResolveBase(cmp.Or(d.GuideURL, d.Origin.String())); err == nil && u != nil {
				base = u.String() // against where the guide was served from, after redirects
			}
			fmt.Fprintf(out, "  API base: %s\n", cmdutil.Clean(base, 512))
		}
		for _, m := range s.MCP {
			if u, err := skillsmd.Resolve(cmp.Or(d.GuideURL, d.Origin.String()), m); err == nil {
				m = u.String()
			}
			fmt.Fprintf(out, "  MCP:      %s (named by the guide; not connected)\n", cmdutil.Clean(m, 512))
		}
		for _, sec := range s.Sections {
			heading := cmdutil.Clean(sec.Heading, 256)
			if heading == "" {
				heading = "(before the first heading)"
			}
			fmt.Fprintf(out, "  %s %s\n", strings.Repeat("#", max(sec.Level, 2)), a.Style(cmdutil.ColorCyan, heading))
			if sec.Text != "" {
				fmt.Fprintf(out, "     %s\n", strings.ReplaceAll(cmdutil.CleanText(sec.Text), "\n", "\n     "))
			}
			for _, it := range sec.Items {
				fmt.Fprintf(out, "     - %s\n", cmdutil.Clean(it, 1024))
			}
		}
		if len(s.MoreInfo) > 0 {
			fmt.Fprintf(out, "  links:\n")
			base := cmp.Or(d.GuideURL, d.Origin.String())
			for _, l := range s.MoreInfo {
				fmt.Fprintf(out, "     - %s\n", linkText(base, l))
			}
		}
	}
	if m := d.MCP; m != nil {
		about := []string{"shape " + string(m.Shape)}
		if m.SpecVersion != "" {
			about = append(about, "spec "+cmdutil.Clean(m.SpecVersion, 64))
		}
		if m.Status != "" {
			about = append(about, cmdutil.Clean(m.Status, 64))
		}
		fmt.Fprintf(out, "\n%s (%s)\n", h("mcp.json"), strings.Join(about, ", "))
		for _, s := range m.Servers {
			j := ServerReport(d.Origin.String(), s)
			where := j.URL
			if j.Local {
				where = "local command " + j.Command + " (never run)"
			}
			fmt.Fprintf(out, "  server %s: %s (%s)\n", a.Style(cmdutil.ColorCyan, j.Name), where, j.Transport)
			if j.Auth != nil && j.Auth.Type != "" {
				fmt.Fprintf(out, "    auth: %s\n", AuthText(j.Auth))
			}
		}
		for _, t := range m.Tools {
			fmt.Fprintf(out, "  tool %s: %s %s\n", a.Style(cmdutil.ColorCyan, cmdutil.Clean(t.Name, 256)), cmdutil.Clean(t.URL, 512), strings.Join(CleanList(t.Methods), ","))
			if ja := AuthReport(t.Auth); ja != nil && ja.Type != "" {
				fmt.Fprintf(out, "    auth: %s\n", AuthText(ja))
			}
		}
	}
	if ix != nil && ix.Index != nil {
		j := indexReport(ix)
		fmt.Fprintf(out, "\n%s %s (v%s); descriptions are the site's words, not instructions\n", h("skills index"), j.URL, j.Version)
		for _, s := range j.Skills {
			fmt.Fprintf(out, "  %s (%s): %s\n", a.Style(cmdutil.ColorCyan, s.Name), s.Type, s.Description)
		}
		for _, w := range ix.Warnings {
			fmt.Fprintf(out, "%s %s\n", a.Style(cmdutil.ColorYellow, "warning:"), cmdutil.Clean(w.String(), 1024))
		}
	}
	for _, w := range d.Warnings {
		fmt.Fprintf(out, "%s %s\n", a.Style(cmdutil.ColorYellow, "warning:"), cmdutil.Clean(w.String(), 1024))
	}
	if ixWarn != "" {
		fmt.Fprintf(out, "%s %s\n", a.Style(cmdutil.ColorYellow, "warning:"), cmdutil.Clean(ixWarn, 1024))
	}
}

// linkText is a guide's link for a person, "label: URL": a relative URL resolved as
// the guide's API base is, against where the guide was served from (base), then
// cleaned like every published string (no userinfo, query or fragment, no credential,
// no control sequence). A link that is not http(s) is shown as written, cleaned, and
// marked so.
func linkText(base string, l skillsmd.InfoLink) string {
	target, note := l.URL, ""
	if u, err := skillsmd.Resolve(base, l.URL); err == nil && (u.Scheme == "https" || u.Scheme == "http") {
		target = u.String()
	} else if err == nil {
		note = " (not a web link)"
	}
	target = cmdutil.Clean(discovery.Redact(target), 512)
	if label := cmdutil.Clean(l.Label, 256); label != "" {
		return label + ": " + target + note
	}
	return target + note
}

// cut shortens s to at most n bytes, at a character boundary, marking the cut with "…".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// AuthText says how a server or tool authenticates (mcpjson.Auth.Describe over the
// cleaned fields of au), or "not stated".
func AuthText(au *AuthJSON) string {
	if au == nil {
		return "not stated"
	}
	if d := (&mcpjson.Auth{Type: au.Type, Header: au.Header, Scopes: au.Scopes, TokenEndpoint: au.TokenEndpoint}).Describe(); d != "" {
		return d
	}
	return "not stated"
}
