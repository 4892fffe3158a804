package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmd/discover"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
	"github.com/wellknown-dev/discovery/mcpclient"
	"github.com/wellknown-dev/discovery/mcpjson"
)

func (a *app) mcpCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "List the MCP servers an origin publishes, and the skills they serve",
		Example: `  wellknown mcp servers example.com
  wellknown mcp skills example.com
  wellknown mcp skills https://mcp.example.com/mcp --get invoice-check`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cmdutil.UsageError{Err: fmt.Errorf("unknown mcp subcommand %q: want servers or skills; see \"wellknown mcp --help\"", cmdutil.Clean(args[0], 80))}
			}
			return nil
		},
		RunE: func(*cobra.Command, []string) error {
			return cmdutil.UsageError{Err: errors.New("mcp: name a subcommand: servers or skills; see \"wellknown mcp --help\"")}
		},
	}
	cmd.AddCommand(a.mcpServersCommand(), a.mcpSkillsCommand())
	return cmd
}

// ServersJSON is the --json output of "mcp servers".
type ServersJSON struct {
	Origin   string                `json:"origin"`
	MCPURL   string                `json:"mcp_url"`
	Shape    string                `json:"shape"`
	Servers  []discover.ServerJSON `json:"servers"`
	Tools    []discover.ToolJSON   `json:"tools"`
	Warnings []string              `json:"warnings"`
}

func (a *app) mcpServersCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "servers ORIGIN",
		Short: "List the MCP servers (and HTTP tools) ORIGIN's mcp.json lists",
		Long: `Servers fetches ORIGIN's /.well-known/mcp.json, in whatever shape it is published,
and lists its MCP servers: name, URL (or the local command, which is never run),
transport, where it lives relative to the origin, tools and auth. Nothing is
connected to. Exit status 3 when the origin publishes no mcp.json.`,
		Example: `  wellknown mcp servers example.com
  wellknown mcp servers --json https://docs.example.com`,
		Args: cmdutil.ArgsN(1, "ORIGIN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client(nil)
			if err != nil {
				return err
			}
			defer c.CloseIdleConnections()
			ctx, cancel := context.WithTimeout(cmd.Context(), 2*time.Minute)
			defer cancel()
			p := a.Progress("fetching mcp.json of " + args[0])
			d, err := c.Structured(ctx, args[0])
			p.Stop()
			switch {
			case errors.Is(err, discovery.ErrNotPublished):
				return &cmdutil.ExitError{Code: cmdutil.ExitNotFound, Err: fmt.Errorf("%s publishes no mcp.json (nor skills.md) at /.well-known/: %w", args[0], err)}
			case err != nil:
				return fmt.Errorf("mcp servers %s: %w", args[0], err)
			case d.MCP == nil && mcpFetchErr(d) != nil:
				// Published but unusable (a syntax error, a bad schema, too large...): a
				// failure to report, not "nothing published".
				return fmt.Errorf("mcp servers %s: the mcp.json at %s cannot be used: %w", args[0], mcpFetchURL(d), mcpFetchErr(d))
			case d.MCP == nil:
				return &cmdutil.ExitError{Code: cmdutil.ExitNotFound, Err: fmt.Errorf("%s publishes no mcp.json at %s (it publishes skills.md: try \"wellknown discover %s\")", d.Origin, discovery.MCPPath, args[0])}
			}
			return a.printServers(d, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object (fields in docs/wellknown.md)")
	return cmd
}

// mcpFetchErr is why the mcp.json of d could not be used while skills.md was
// (Fetch.Err), or nil.
func mcpFetchErr(d *discovery.Discovery) error {
	for _, f := range d.Fetches {
		if strings.HasSuffix(f.URL, discovery.MCPPath) && f.Err != nil {
			return f.Err
		}
	}
	return nil
}

// mcpFetchURL is the redacted URL of d's mcp.json fetch.
func mcpFetchURL(d *discovery.Discovery) string {
	for _, f := range d.Fetches {
		if strings.HasSuffix(f.URL, discovery.MCPPath) {
			return discovery.Redact(f.URL)
		}
	}
	return d.Origin.String() + discovery.MCPPath
}

func (a *app) printServers(d *discovery.Discovery, asJSON bool) error {
	m := d.MCP
	j := ServersJSON{Origin: d.Origin.String(), Shape: string(m.Shape), Servers: []discover.ServerJSON{}, Tools: []discover.ToolJSON{}, Warnings: []string{}}
	for _, f := range d.Fetches {
		if strings.HasSuffix(f.URL, discovery.MCPPath) {
			j.MCPURL = discovery.Redact(f.URL)
		}
	}
	for _, s := range m.Servers {
		j.Servers = append(j.Servers, discover.ServerReport(d.Origin.String(), s))
	}
	for _, t := range m.Tools {
		j.Tools = append(j.Tools, discover.ToolJSON{Name: cmdutil.Clean(t.Name, 256), URL: cmdutil.Clean(t.URL, 512), Methods: discover.CleanList(t.Methods), Auth: discover.AuthReport(t.Auth)})
	}
	for _, w := range d.Warnings {
		if strings.HasSuffix(w.URL, discovery.MCPPath) {
			j.Warnings = append(j.Warnings, cmdutil.Clean(w.String(), 1024))
		}
	}
	if asJSON {
		return a.PrintJSON(j)
	}
	out := a.Out
	fmt.Fprintf(out, "%s %s (shape %s); names and descriptions are the site's words, not instructions\n", a.Style(cmdutil.ColorBold, "mcp.json"), j.MCPURL, j.Shape)
	if len(j.Servers) == 0 {
		fmt.Fprintln(out, "  no MCP server listed")
	}
	for _, s := range j.Servers {
		fmt.Fprintf(out, "  %s\n", a.Style(cmdutil.ColorCyan, s.Name))
		if s.Local {
			fmt.Fprintf(out, "    command:   %s (local; never run by wellknown)\n", s.Command)
		} else {
			fmt.Fprintf(out, "    url:       %s (%s)\n", s.URL, s.Relation)
		}
		fmt.Fprintf(out, "    transport: %s\n", s.Transport)
		if len(s.Tools) > 0 {
			fmt.Fprintf(out, "    tools:     %s\n", strings.Join(s.Tools, ", "))
		}
		fmt.Fprintf(out, "    auth:      %s\n", discover.AuthText(s.Auth))
		if s.Description != "" {
			fmt.Fprintf(out, "    about:     %s\n", s.Description)
		}
	}
	for _, t := range j.Tools {
		fmt.Fprintf(out, "  tool %s: %s %s (auth: %s)\n", a.Style(cmdutil.ColorCyan, t.Name), t.URL, strings.Join(t.Methods, ","), discover.AuthText(t.Auth))
	}
	for _, w := range j.Warnings {
		fmt.Fprintf(out, "%s %s\n", a.Style(cmdutil.ColorYellow, "warning:"), w)
	}
	return nil
}

// SkillsJSON is the --json output of "mcp skills" (listing).
type SkillsJSON struct {
	Servers []mcpServerSkillsJSON `json:"servers"`
}

type mcpServerSkillsJSON struct {
	Name     string         `json:"name"`
	URL      string         `json:"url"`
	Protocol string         `json:"protocol"`
	Skills   []mcpSkillJSON `json:"skills"`
	Warnings []string       `json:"warnings"`
	Error    string         `json:"error,omitempty"`
}

type mcpSkillJSON struct {
	Name        string        `json:"name"`
	URI         string        `json:"uri"`
	Description string        `json:"description"`
	Dynamic     bool          `json:"dynamic"`
	Files       []mcpFileJSON `json:"files"`
	Verified    bool          `json:"verified"`
	Source      string        `json:"source"`
}

type mcpFileJSON struct {
	URI    string `json:"uri"`
	Size   int64  `json:"size"`
	Digest string `json:"digest"`
}

// mcpReadJSON is the --json output of "mcp skills --get".
type mcpReadJSON struct {
	Server   string `json:"server"`
	URI      string `json:"uri"`
	Verified bool   `json:"verified"`
	SkillMD  string `json:"skill_md"`
	Path     string `json:"path,omitempty"`
	Content  string `json:"content,omitempty"`
}

type mcpSkillsFlags struct {
	asJSON, endpoint, sse bool
	get, read             string
	budget                time.Duration
}

func (a *app) mcpSkillsCommand() *cobra.Command {
	var f mcpSkillsFlags
	cmd := &cobra.Command{
		Use:   "skills URL|ORIGIN",
		Short: "List and read the skills MCP servers serve (Skills Extension)",
		Long: `Skills connects to MCP servers and lists the Agent Skills they serve through the
MCP Skills Extension (SEP-2640), verifying every file it reads against the listing
(size, digest, frontmatter).

URL is an MCP endpoint (https://mcp.example.com/mcp); an ORIGIN (example.com, or a
URL with no path) is discovered first, and every server its mcp.json lists is asked
(a server on another origin asks consent). --get NAME reads and prints the skill's
SKILL.md, verified; --read PATH then reads one more file of it. The whole run has
--budget (default 2m): a server not heard from when it runs out is reported by name
with an error. Exit status 3 when no server serves any skill.`,
		Example: `  wellknown mcp skills example.com
  wellknown mcp skills https://mcp.example.com/mcp --json
  wellknown mcp skills https://mcp.example.com/mcp --get invoice-check --read references/RULES.md`,
		Args: cmdutil.ArgsN(1, "URL or ORIGIN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.read != "" && f.get == "" {
				return cmdutil.UsageError{Err: errors.New("mcp skills: --read needs --get NAME")}
			}
			if err := cmdutil.CheckBudget(f.budget); err != nil {
				return err
			}
			c, err := a.Client(nil)
			if err != nil {
				return err
			}
			defer c.CloseIdleConnections()
			return a.mcpSkills(cmd.Context(), c, args[0], f)
		},
	}
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print one JSON object (fields in docs/wellknown.md)")
	cmd.Flags().StringVar(&f.get, "get", "", "read, verify and print the SKILL.md of the skill `NAME` (or its skill:// URI)")
	cmd.Flags().StringVar(&f.read, "read", "", "with --get: also read and print the file `PATH` of the skill")
	cmd.Flags().BoolVar(&f.endpoint, "endpoint", false, "the URL is an MCP endpoint even without a path")
	cmd.Flags().BoolVar(&f.sse, "sse", false, "the endpoint speaks the older SSE transport")
	cmdutil.AddBudgetFlag(cmd, &f.budget)
	return cmd
}

func (a *app) mcpSkills(ctx context.Context, c *discovery.Client, target string, f mcpSkillsFlags) error {
	ctx, cancel := cmdutil.WithBudget(ctx, f.budget)
	defer cancel()
	p := a.Progress("asking MCP servers of " + target)
	var servers []mcpclient.ServerSkills
	if f.endpoint || mcpHasPath(target) {
		s, err := mcpclient.ConnectURL(ctx, c, target, f.sse, nil)
		if err != nil {
			p.Stop()
			if cmdutil.BudgetSpent(ctx) {
				return fmt.Errorf("connect to %s: %s", discovery.Redact(target), cmdutil.NotInTime(ctx, "connected"))
			}
			return fmt.Errorf("connect to %s: %w (is it an MCP endpoint? give an origin to use its mcp.json)", discovery.Redact(target), err)
		}
		defer s.Close()
		l, err := s.ListSkills(ctx)
		name, _ := s.ServerInfo()
		servers = append(servers, mcpclient.ServerSkills{Server: mcpjson.Server{Name: name, URL: s.Endpoint}, Session: s, Listing: l, Err: err})
	} else {
		found, err := mcpclient.DiscoverSkills(ctx, c, target, nil)
		switch {
		case errors.Is(err, discovery.ErrNotPublished), errors.Is(err, mcpclient.ErrNoServers):
			p.Stop()
			return &cmdutil.ExitError{Code: cmdutil.ExitNotFound, Err: fmt.Errorf("%s lists no MCP server: %w", target, err)}
		case err != nil && cmdutil.BudgetSpent(ctx):
			p.Stop()
			return fmt.Errorf("mcp skills %s: %s", target, cmdutil.NotInTime(ctx, "discovered"))
		case err != nil:
			p.Stop()
			return fmt.Errorf("mcp skills %s: %w", target, err)
		}
		defer found.Close()
		servers = found.Servers
	}
	p.Stop()
	if f.get != "" {
		return a.mcpGetSkill(ctx, servers, f)
	}
	total, failed := 0, false
	j := SkillsJSON{Servers: []mcpServerSkillsJSON{}}
	for _, srv := range servers {
		sj := mcpServerSkillsJSON{Name: cmdutil.Clean(srv.Server.Name, 256), URL: cmdutil.Clean(srv.Server.URL, 512), Skills: []mcpSkillJSON{}, Warnings: []string{}}
		if srv.Session != nil {
			sj.URL, sj.Protocol = discovery.Redact(srv.Session.Endpoint), srv.Session.Protocol
		}
		if srv.Err != nil {
			sj.Error = cmdutil.Clean(srv.Err.Error(), 1024)
			if cmdutil.BudgetSpent(ctx) && srv.Listing == nil {
				sj.Error = cmdutil.NotInTime(ctx, "listed")
			}
			failed = failed || !errors.Is(srv.Err, mcpclient.ErrNoSkills)
		}
		if srv.Listing != nil {
			for _, sk := range srv.Listing.Skills {
				k := mcpSkillJSON{Name: cmdutil.Clean(sk.Name, 128), URI: cmdutil.Clean(sk.URI, 512), Description: cmdutil.Clean(sk.Description, 1024),
					Dynamic: sk.Dynamic(), Files: []mcpFileJSON{}, Verified: sk.Verified, Source: string(sk.Source)}
				for _, fl := range sk.Files() {
					k.Files = append(k.Files, mcpFileJSON{URI: cmdutil.Clean(fl.URI, 512), Size: fl.Size, Digest: cmdutil.Clean(fl.Digest, 128)})
				}
				sj.Skills = append(sj.Skills, k)
			}
			total += len(sj.Skills)
			for _, w := range srv.Listing.Warnings {
				sj.Warnings = append(sj.Warnings, cmdutil.Clean(w, 1024))
			}
		}
		j.Servers = append(j.Servers, sj)
	}
	if f.asJSON {
		if err := a.PrintJSON(j); err != nil {
			return err
		}
	} else {
		for _, s := range j.Servers {
			proto := ""
			if s.Protocol != "" {
				proto = " (protocol " + s.Protocol + ")"
			}
			fmt.Fprintf(a.Out, "%s %s at %s%s; descriptions are the server's words, not instructions\n",
				a.Style(cmdutil.ColorBold, "server"), s.Name, s.URL, proto)
			if s.Error != "" {
				fmt.Fprintf(a.Out, "  %s %s\n", a.Style(cmdutil.ColorRed, "error:"), s.Error)
			}
			for _, sk := range s.Skills {
				files := "dynamic"
				if !sk.Dynamic {
					files = cmdutil.Plural(len(sk.Files), "file")
				}
				fmt.Fprintf(a.Out, "  %s %s (%s, verified: %v, %s)\n      %s\n", a.Style(cmdutil.ColorCyan, sk.Name), sk.URI, files, sk.Verified, sk.Source, sk.Description)
			}
			for _, w := range s.Warnings {
				fmt.Fprintf(a.Out, "  %s %s\n", a.Style(cmdutil.ColorYellow, "warning:"), w)
			}
		}
	}
	switch {
	case failed:
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Err: errors.New("mcp skills: some servers failed (see their error above)")}
	case total == 0:
		return &cmdutil.ExitError{Code: cmdutil.ExitNotFound, Err: errors.New("mcp skills: no server serves any skill")}
	}
	return nil
}

// mcpGetSkill reads, verifies and prints the SKILL.md of f.get, and f.read.
func (a *app) mcpGetSkill(ctx context.Context, servers []mcpclient.ServerSkills, f mcpSkillsFlags) error {
	for _, srv := range servers {
		if srv.Listing == nil {
			continue
		}
		for i := range srv.Listing.Skills {
			sk := &srv.Listing.Skills[i]
			if sk.Name != f.get && sk.URI != f.get {
				continue
			}
			s := srv.Session
			md, err := s.ReadFile(ctx, sk, "SKILL.md")
			if err != nil {
				return fmt.Errorf("skill %s refused: %w", cmdutil.Clean(sk.URI, 512), err)
			}
			r := mcpReadJSON{Server: discovery.Redact(s.Endpoint), URI: cmdutil.Clean(sk.URI, 512), Verified: sk.Verified, SkillMD: cmdutil.CleanText(string(md))}
			if f.read != "" {
				data, err := s.ReadFile(ctx, sk, f.read)
				if err != nil {
					return fmt.Errorf("skill %s, file %s refused: %w", cmdutil.Clean(sk.URI, 512), cmdutil.Clean(f.read, 512), err)
				}
				r.Path, r.Content = cmdutil.Clean(f.read, 512), cmdutil.CleanText(string(data))
			}
			if f.asJSON {
				return a.PrintJSON(r)
			}
			label := "verified"
			if !sk.Verified {
				label = "UNVERIFIED (" + string(sk.Source) + ")"
			}
			fmt.Fprintf(a.Out, "# %s (%s, from %s; the server's words, not instructions)\n\n%s\n", r.URI, label, r.Server, r.SkillMD)
			if f.read != "" {
				fmt.Fprintf(a.Out, "# %s\n\n%s\n", r.Path, r.Content)
			}
			return nil
		}
	}
	return fmt.Errorf("mcp skills: no server lists a skill named %q; run without --get to list them", cmdutil.Clean(f.get, 128))
}

func mcpHasPath(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Scheme != "" && u.Path != "" && u.Path != "/"
}
