package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/mcpjson"
)

func init() { register((*app).discoverCommand) }

// discoverFlags are the output flags shared by discover and demo.
type discoverFlags struct {
	structured bool
	json       bool
	model      bool
}

func (f *discoverFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.structured, "structured", false, "fetch mcp.json as well as skills.md (servers and tools)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print one JSON object (fields in the README)")
	cmd.Flags().BoolVar(&f.model, "model", false, "print what an agent should hand its model: fenced, labelled untrusted, redacted")
}

// check reports flags that cannot go together: a usage error.
func (f *discoverFlags) check() error {
	if f.json && f.model {
		return usageError{errors.New("--json and --model cannot go together: choose one output")}
	}
	return nil
}

func (a *app) discoverCommand() *cobra.Command {
	var f discoverFlags
	cmd := &cobra.Command{
		Use:   "discover ORIGIN",
		Short: "Show what an origin publishes at /.well-known/ (skills.md, mcp.json, skills index)",
		Long: `Discover fetches ORIGIN's /.well-known/skills.md and, when it is absent (or with
--structured, always), /.well-known/mcp.json, and its Agent Skills index, and prints
what they say. Everything printed was published by the site: untrusted data, shown
with control sequences stripped and credentials redacted.

ORIGIN is a host name (example.com), an https URL, or an http URL on loopback
(http://localhost:8080). Exit status 3 when the origin publishes neither skills.md,
mcp.json nor a skills index.`,
		Example: `  wellknown discover example.com
  wellknown discover --structured --json https://docs.example.com
  wellknown discover --model example.com`,
		Args: argsN(1, "ORIGIN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.check(); err != nil {
				return err
			}
			c, err := a.client(nil)
			if err != nil {
				return err
			}
			defer c.CloseIdleConnections()
			return a.discover(cmd.Context(), c, args[0], f)
		},
	}
	f.add(cmd)
	return cmd
}

// argsN is cobra.ExactArgs with a usage error that names the arguments: names is
// what the command wants ("ORIGIN", "no arguments").
func argsN(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		path := commandPath(cmd)
		var msg string
		switch {
		case n == 0:
			msg = fmt.Sprintf("%s takes no arguments (got %s)", path, strconv.Quote(clean(args[0], 80)))
		case len(args) < n:
			msg = fmt.Sprintf("%s: missing %s", path, names)
		default:
			msg = fmt.Sprintf("%s: want %s, got %s (unexpected %s)", path, names, plural(len(args), "argument"), strconv.Quote(clean(args[n], 80)))
		}
		return usageError{fmt.Errorf("%s; see \"wellknown %s --help\"", msg, path)}
	}
}

// commandPath is cmd's path without the root's name ("skills install"): messages are
// printed after "wellknown: ".
func commandPath(cmd *cobra.Command) string {
	p := cmd.CommandPath()
	if r := cmd.Root(); r != nil {
		p = strings.TrimPrefix(strings.TrimPrefix(p, r.Name()), " ")
	}
	return p
}

// discover runs a discovery of origin with c and prints it as f asks.
func (a *app) discover(ctx context.Context, c *discovery.Client, origin string, f discoverFlags) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	p := a.progress("discovering " + origin)
	call := c.Discover
	if f.structured {
		call = c.Structured
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
	go func() { defer wg.Done(); ix, ixErr = c.ListSkills(ctx, origin) }()
	wg.Wait()
	p.Stop()

	switch {
	case errors.Is(discErr, discovery.ErrNotPublished) && ix != nil:
		// Only a skills index: report it with no documents.
		o, err := discovery.ParseOrigin(origin)
		if err != nil {
			return err
		}
		d = &discovery.Discovery{Origin: o}
	case errors.Is(discErr, discovery.ErrNotPublished) && (ixErr == nil || errors.Is(ixErr, discovery.ErrNotPublished)):
		return &exitError{code: exitNotFound, err: fmt.Errorf("%s publishes no skills.md, mcp.json or skills index at /.well-known/ (%w); check the origin's spelling, or ask its owner to publish one", origin, discErr)}
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
		fmt.Fprint(a.out, d.ForModel(&mo))
		return nil
	case f.json:
		return a.printJSON(discoveryReport(d, ix, ixWarn))
	}
	a.printDiscovery(a.out, d, ix, ixWarn)
	return nil
}

// discoveryJSON is the --json output of discover and demo; its field names are stable
// and listed in the README.
type discoveryJSON struct {
	Origin      string           `json:"origin"`
	Skills      *skillsJSON      `json:"skills"`       // null: no skills.md
	MCP         *mcpJSON         `json:"mcp"`          // null: no mcp.json (or not fetched)
	SkillsIndex *skillsIndexJSON `json:"skills_index"` // null: no skills index
	Fetches     []fetchJSON      `json:"fetches"`
	Warnings    []string         `json:"warnings"`
}

type skillsJSON struct {
	Title        string        `json:"title"`
	Summary      string        `json:"summary"`
	Purpose      string        `json:"purpose"`
	BaseURL      string        `json:"base_url"`
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
	Servers     []serverJSON `json:"servers"`
	Tools       []toolJSON   `json:"tools"`
}

type serverJSON struct {
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	URL         string    `json:"url"`               // "" for a local command
	Command     string    `json:"command,omitempty"` // a local command or package: never run
	Transport   string    `json:"transport"`
	Local       bool      `json:"local"`
	Relation    string    `json:"relation"` // same-origin, subdomain, other-origin, local
	Tools       []string  `json:"tools"`
	Auth        *authJSON `json:"auth"`
}

type authJSON struct {
	Type          string   `json:"type"`
	TokenEndpoint string   `json:"token_endpoint,omitempty"`
	Scopes        []string `json:"scopes,omitempty"`
	Header        string   `json:"header,omitempty"`
}

type toolJSON struct {
	Name    string    `json:"name"`
	URL     string    `json:"url"`
	Methods []string  `json:"methods"`
	Auth    *authJSON `json:"auth"`
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
	URL    string `json:"url"`
	Status int    `json:"status"`
	Source string `json:"source"`
	Error  string `json:"error,omitempty"` // why this document could not be used (Fetch.Err); omitted when it could
}

// fetchReport is one Fetch for JSON, its error redacted.
func fetchReport(f discovery.Fetch) fetchJSON {
	j := fetchJSON{URL: discovery.Redact(f.URL), Status: f.StatusCode, Source: f.Source.String()}
	if f.Err != nil {
		j.Error = clean(f.Err.Error(), 1024)
	}
	return j
}

// fetchLine is one Fetch for a person.
func fetchLine(f discovery.Fetch) string {
	s := fmt.Sprintf("fetched %s: %d (%s, %s)", discovery.Redact(f.URL), f.StatusCode, f.Source, plural(f.Attempts, "attempt"))
	if f.Err != nil {
		s += ": cannot be used: " + clean(f.Err.Error(), 1024)
	}
	return s
}

// cleanList cleans every string of a published list; never nil.
func cleanList(in []string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		out = append(out, clean(s, 1024))
	}
	return out
}

func discoveryReport(d *discovery.Discovery, ix *discovery.SkillsIndex, ixWarn string) discoveryJSON {
	r := discoveryJSON{Origin: d.Origin.String(), Fetches: []fetchJSON{}, Warnings: []string{}}
	if s := d.Skills; s != nil {
		js := &skillsJSON{Title: clean(s.Title, 256), Summary: clean(s.Summary, 1024), Purpose: clean(s.Purpose, 1024),
			BaseURL: clean(s.BaseURL, 512), API: cleanList(s.API), Auth: cleanList(s.Auth), SafeActions: cleanList(s.SafeActions),
			RiskyActions: cleanList(s.RiskyActions), Limits: cleanList(s.Limits), MCP: cleanList(s.MCP),
			Links: []linkJSON{}, Sections: []sectionJSON{}}
		for _, l := range s.MoreInfo {
			js.Links = append(js.Links, linkJSON{Label: clean(l.Label, 256), URL: clean(l.URL, 512)})
		}
		for _, sec := range s.Sections {
			js.Sections = append(js.Sections, sectionJSON{Heading: clean(sec.Heading, 256), Level: sec.Level,
				Text: cleanText(cut(sec.Text, 8192)), Items: cleanList(sec.Items)})
		}
		r.Skills = js
	}
	if m := d.MCP; m != nil {
		jm := &mcpJSON{Shape: string(m.Shape), SpecVersion: clean(m.SpecVersion, 64), Status: clean(m.Status, 64), Servers: []serverJSON{}, Tools: []toolJSON{}}
		for _, s := range m.Servers {
			jm.Servers = append(jm.Servers, serverReport(d.Origin.String(), s))
		}
		for _, t := range m.Tools {
			jm.Tools = append(jm.Tools, toolJSON{Name: clean(t.Name, 256), URL: clean(t.URL, 512), Methods: cleanList(t.Methods), Auth: authReport(t.Auth)})
		}
		r.MCP = jm
	}
	if ix != nil && ix.Index != nil {
		r.SkillsIndex = indexReport(ix)
		for _, w := range ix.Warnings {
			r.Warnings = append(r.Warnings, clean(w.String(), 1024))
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
		r.Warnings = append(r.Warnings, clean(w.String(), 1024))
	}
	if ixWarn != "" {
		r.Warnings = append(r.Warnings, clean(ixWarn, 1024))
	}
	return r
}

func indexReport(ix *discovery.SkillsIndex) *skillsIndexJSON {
	j := &skillsIndexJSON{URL: discovery.Redact(ix.Index.URL), Version: clean(ix.Index.Version, 64), Skills: []indexEntryJSON{}}
	for _, s := range ix.Index.Skills {
		j.Skills = append(j.Skills, indexEntryJSON{Name: clean(s.Name, 128), Description: clean(s.Description, 1024),
			Type: clean(s.Type, 64), URL: clean(s.URL, 512), Digest: clean(s.Digest, 128)})
	}
	return j
}

func authReport(au *mcpjson.Auth) *authJSON {
	if au == nil {
		return nil
	}
	return &authJSON{Type: clean(au.Type, 64), TokenEndpoint: clean(au.TokenEndpoint, 512), Scopes: cleanList(au.Scopes), Header: clean(au.Header, 128)}
}

func serverReport(origin string, s mcpjson.Server) serverJSON {
	j := serverJSON{Name: clean(s.Name, 256), Description: clean(s.Description, 1024), URL: clean(s.URL, 512),
		Transport: string(s.Transport), Local: s.LocalOnly, Relation: s.Relation(origin).String(),
		Tools: cleanList(s.Tools), Auth: authReport(s.Auth)}
	if s.LocalOnly {
		j.Command = clean(s.Command, 512)
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
	h := func(s string) string { return a.style(colorBold, s) }
	fmt.Fprintf(out, "%s %s\n", h("origin:"), d.Origin)
	for _, f := range d.Fetches {
		fmt.Fprintln(out, fetchLine(f))
	}
	if ix != nil {
		for _, f := range ix.Fetches {
			fmt.Fprintln(out, fetchLine(f))
		}
	}
	if s := d.Skills; s != nil {
		fmt.Fprintf(out, "\n%s (published by %s; untrusted guidance)\n", h("skills.md"), d.Origin)
		title := clean(s.Title, 256)
		if title == "" {
			title = "(none: the guide has no H1)"
		}
		fmt.Fprintf(out, "  title:    %s\n", title)
		if s.Summary != "" {
			fmt.Fprintf(out, "  summary:  %s\n", clean(s.Summary, 1024))
		}
		if s.BaseURL != "" {
			base := s.BaseURL
			if u, err := d.Origin.Resolve(s.BaseURL); err == nil {
				base = u.String()
			}
			fmt.Fprintf(out, "  API base: %s\n", clean(base, 512))
		}
		for _, m := range s.MCP {
			if u, err := d.Origin.Resolve(m); err == nil {
				m = u.String()
			}
			fmt.Fprintf(out, "  MCP:      %s (named by the guide; not connected)\n", clean(m, 512))
		}
		for _, sec := range s.Sections {
			heading := clean(sec.Heading, 256)
			if heading == "" {
				heading = "(before the first heading)"
			}
			fmt.Fprintf(out, "  %s %s\n", strings.Repeat("#", max(sec.Level, 2)), a.style(colorCyan, heading))
			if sec.Text != "" {
				fmt.Fprintf(out, "     %s\n", strings.ReplaceAll(cleanText(sec.Text), "\n", "\n     "))
			}
			for _, it := range sec.Items {
				fmt.Fprintf(out, "     - %s\n", clean(it, 1024))
			}
		}
	}
	if m := d.MCP; m != nil {
		about := []string{"shape " + string(m.Shape)}
		if m.SpecVersion != "" {
			about = append(about, "spec "+clean(m.SpecVersion, 64))
		}
		if m.Status != "" {
			about = append(about, clean(m.Status, 64))
		}
		fmt.Fprintf(out, "\n%s (%s)\n", h("mcp.json"), strings.Join(about, ", "))
		for _, s := range m.Servers {
			j := serverReport(d.Origin.String(), s)
			where := j.URL
			if j.Local {
				where = "local command " + j.Command + " (never run)"
			}
			fmt.Fprintf(out, "  server %s: %s (%s)\n", a.style(colorCyan, j.Name), where, j.Transport)
			if j.Auth != nil && j.Auth.Type != "" {
				fmt.Fprintf(out, "    auth: %s\n", authText(j.Auth))
			}
		}
		for _, t := range m.Tools {
			fmt.Fprintf(out, "  tool %s: %s %s\n", a.style(colorCyan, clean(t.Name, 256)), clean(t.URL, 512), strings.Join(cleanList(t.Methods), ","))
			if ja := authReport(t.Auth); ja != nil && ja.Type != "" {
				fmt.Fprintf(out, "    auth: %s\n", authText(ja))
			}
		}
	}
	if ix != nil && ix.Index != nil {
		j := indexReport(ix)
		fmt.Fprintf(out, "\n%s %s (v%s); descriptions are the site's words, not instructions\n", h("skills index"), j.URL, j.Version)
		for _, s := range j.Skills {
			fmt.Fprintf(out, "  %s (%s): %s\n", a.style(colorCyan, s.Name), s.Type, s.Description)
		}
		for _, w := range ix.Warnings {
			fmt.Fprintf(out, "%s %s\n", a.style(colorYellow, "warning:"), clean(w.String(), 1024))
		}
	}
	for _, w := range d.Warnings {
		fmt.Fprintf(out, "%s %s\n", a.style(colorYellow, "warning:"), clean(w.String(), 1024))
	}
	if ixWarn != "" {
		fmt.Fprintf(out, "%s %s\n", a.style(colorYellow, "warning:"), clean(ixWarn, 1024))
	}
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
