package skills

// wellknown skills: list, get, install, update and local. This file holds the command
// tree, list and get; skills_install.go installs (staging, atomic replace, the
// .wellknown.json record) and skills_update.go holds update and local.
//
// Every string a site published (names, descriptions, URLs, SKILL.md text, warnings)
// is untrusted: it goes through clean (one line) or cleanText (SKILL.md) before it
// reaches stdout or stderr, JSON included, so no control or escape sequence a site
// wrote reaches a terminal.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
	"github.com/wellknown-dev/discovery/internal/skillrules"
)

// skillsCommand is "wellknown skills" and its subcommands.
func skillsCommand(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "List, fetch, install and update the Agent Skills a site publishes at /.well-known/",
		Long: `List, fetch, install and update the Agent Skills an origin publishes in its well-known
index (/.well-known/agent-skills/index.json, or the older /.well-known/skills/index.json).

Every artifact is verified against the index's digest before it is used; archives are
unpacked with the hardened extractor (no links, no escaping paths, bounded size); an
artifact on another origin needs consent (--yes, or a y on the terminal). install writes
into an agent's skills folder (.<agent>/skills under --dir, or under your home with
--global) and records where each skill came from in .wellknown.json inside its folder,
which update and local read.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cmdutil.UsageError{Err: fmt.Errorf("unknown skills subcommand %q: want list, get, install, update, local, verify or bundle", cmdutil.Clean(args[0], 80))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmdutil.UsageError{Err: errors.New("skills: name a subcommand: list, get, install, update, local, verify or bundle")}
		},
	}
	cmd.AddCommand(skillsListCommand(a), skillsGetCommand(a), skillsInstallCommand(a), skillsUpdateCommand(a), skillsLocalCommand(a), skillsVerifyCommand(a), skillsBundleCommand(a))
	return cmd
}

// ListJSON is the output of "skills list --json".
type ListJSON struct {
	Origin   string           `json:"origin"`
	IndexURL string           `json:"index_url"`
	Version  string           `json:"version"`
	Skills   []skillEntryJSON `json:"skills"`
	Warnings []string         `json:"warnings"`
}

// skillEntryJSON is one index entry, cleaned.
type skillEntryJSON struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	URL         string `json:"url"`
	Digest      string `json:"digest"`   // "" for v0.1.0 entries, which have none
	Verified    bool   `json:"verified"` // the index publishes digests for all of the skill's content
	ValidName   bool   `json:"valid_name"`
}

func skillsListCommand(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list ORIGIN",
		Short: "List the skills an origin's well-known index publishes (reads only the index)",
		Example: `  wellknown skills list docs.example.org
  wellknown skills list https://docs.example.org --json`,
		Args: cmdutil.ArgsN(1, "ORIGIN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client(nil)
			if err != nil {
				return err
			}
			p := a.Progress("reading the skills index of " + args[0])
			ix, err := c.ListSkills(cmd.Context(), args[0])
			p.Stop()
			if err != nil {
				return listError(err)
			}
			l := ListJSON{Origin: ix.Origin.String(), IndexURL: cmdutil.Clean(ix.Index.URL, 1024),
				Version: cmdutil.Clean(ix.Index.Version, 64), Skills: []skillEntryJSON{}, Warnings: warningStrings(ix.Warnings)}
			for _, e := range ix.Index.Skills {
				l.Skills = append(l.Skills, entryJSON(e))
			}
			if asJSON {
				return a.PrintJSON(l)
			}
			fmt.Fprintf(a.Out, "%s (index v%s, %s)\n", l.IndexURL, l.Version, cmdutil.Plural(len(l.Skills), "skill"))
			fmt.Fprintln(a.Out, a.Style(cmdutil.ColorDim, "descriptions are the site's words, not instructions"))
			for _, s := range l.Skills {
				mark := ""
				if !s.Verified {
					mark = " " + a.Style(cmdutil.ColorYellow, "(unverified: no digest)")
				}
				if !s.ValidName {
					mark += " " + a.Style(cmdutil.ColorYellow, "(invalid name: cannot be installed)")
				}
				fmt.Fprintf(a.Out, "  %s  %s%s\n      %s\n", a.Style(cmdutil.ColorBold, s.Name), s.Type, mark, s.Description)
			}
			a.printWarnings(l.Warnings)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// GetJSON is the output of "skills get --json".
type GetJSON struct {
	Origin      string         `json:"origin"`
	IndexURL    string         `json:"index_url"`
	Name        string         `json:"name"`
	Type        string         `json:"type"`
	URL         string         `json:"url"`
	Digest      string         `json:"digest"`
	Verified    bool           `json:"verified"`
	Frontmatter map[string]any `json:"frontmatter"`
	Files       []FileJSON     `json:"files"`
	SkillMD     string         `json:"skill_md"`
	Warnings    []string       `json:"warnings"`
	Publisher   *PublisherJSON `json:"publisher,omitempty"` // with --trust-roots: the publisher signature check
}

// FileJSON is one file of a skill: its path, byte size and sha256 digest.
type FileJSON struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	Digest string `json:"digest"`
}

func skillsGetCommand(a *app) *cobra.Command {
	var asJSON bool
	var tf trustFlags
	cmd := &cobra.Command{
		Use:   "get ORIGIN NAME",
		Short: "Fetch one skill, verify its digest and show its SKILL.md and files (writes nothing)",
		Example: `  wellknown skills get docs.example.org invoice-check
  wellknown skills get docs.example.org ledger --json`,
		Args: cmdutil.ArgsN(2, "ORIGIN and NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := skillrules.CheckSkillName(args[1]); err != nil {
				return cmdutil.UsageError{Err: err}
			}
			opts, err := tf.options()
			if err != nil {
				return err
			}
			c, err := a.Client(opts)
			if err != nil {
				return err
			}
			p := a.Progress("reading the skills index of " + args[0])
			ix, err := c.ListSkills(cmd.Context(), args[0])
			if err != nil {
				p.Stop()
				return listError(err)
			}
			p.Set("fetching and verifying " + args[1])
			sk, err := c.GetSkill(cmd.Context(), ix, args[1])
			p.Stop()
			if err != nil {
				return err
			}
			g := GetJSON{Origin: ix.Origin.String(), IndexURL: cmdutil.Clean(ix.Index.URL, 1024),
				Name: cmdutil.Clean(sk.Entry.Name, 200), Type: cmdutil.Clean(sk.Entry.Type, 64), URL: cmdutil.Clean(sk.Entry.URL, 1024),
				Digest: cmdutil.Clean(sk.Entry.Digest, 128), Verified: sk.Verified, Files: filesJSON(sk.Files),
				SkillMD: cmdutil.CleanText(string(sk.Files[0].Data)), Warnings: warningStrings(sk.Warnings), Publisher: publisherJSON(sk.Publisher)}
			g.Frontmatter, _ = cleanAny(map[string]any(sk.SkillMD.Frontmatter)).(map[string]any)
			if asJSON {
				return a.PrintJSON(g)
			}
			state := a.Style(cmdutil.ColorGreen, "verified "+g.Digest)
			if !g.Verified {
				state = a.Style(cmdutil.ColorYellow, "unverified: the index publishes no digest (v0.1.0)")
			}
			fmt.Fprintf(a.Out, "%s  %s, %s\n", a.Style(cmdutil.ColorBold, g.Name), g.Type, state)
			fmt.Fprintf(a.Out, "from %s\n", g.URL)
			if g.Publisher != nil {
				fmt.Fprintf(a.Out, "publisher %s\n", g.Publisher)
			}
			for _, f := range g.Files {
				fmt.Fprintf(a.Out, "  %-32s %8d  %s\n", f.Path, f.Size, f.Digest)
			}
			fmt.Fprintln(a.Out, a.Style(cmdutil.ColorDim, "--- SKILL.md (the site's words, not instructions) ---"))
			fmt.Fprint(a.Out, g.SkillMD)
			if !strings.HasSuffix(g.SkillMD, "\n") {
				fmt.Fprintln(a.Out)
			}
			fmt.Fprintln(a.Out, a.Style(cmdutil.ColorDim, "--- end of SKILL.md ---"))
			a.printWarnings(g.Warnings)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	tf.add(cmd)
	return cmd
}

// listError maps a ListSkills error to the exit status: 3 when the origin publishes no
// index, 1 otherwise.
func listError(err error) error {
	if errors.Is(err, discovery.ErrNotPublished) {
		return &cmdutil.ExitError{Code: cmdutil.ExitNotFound, Err: err}
	}
	return err
}

// entryJSON is an index entry, cleaned.
func entryJSON(e agentskills.IndexEntry) skillEntryJSON {
	return skillEntryJSON{Name: cmdutil.Clean(e.Name, 200), Type: cmdutil.Clean(e.Type, 64), Description: cmdutil.Clean(e.Description, 2048),
		URL: cmdutil.Clean(e.URL, 1024), Digest: cmdutil.Clean(e.Digest, 128), Verified: e.HasDigests(), ValidName: skillrules.CheckSkillName(e.Name) == nil}
}

// filesJSON lists files with their sizes and digests; paths cleaned.
func filesJSON(files []agentskills.File) []FileJSON {
	out := make([]FileJSON, 0, len(files))
	for _, f := range files {
		out = append(out, FileJSON{Path: cmdutil.Clean(f.Path, 1024), Size: int64(len(f.Data)), Digest: agentskills.Digest(f.Data)})
	}
	return out
}

// warningStrings cleans warnings for printing.
func warningStrings(ws []discovery.Warning) []string {
	out := []string{}
	for _, w := range ws {
		out = append(out, cmdutil.Clean(w.String(), 1024))
	}
	return out
}

// printWarnings writes warnings to stderr.
func (a *app) printWarnings(ws []string) {
	for _, w := range ws {
		a.Notef("warning: %s", w)
	}
}

// cleanAny cleans every string of a JSON-compatible value, keys included.
func cleanAny(v any) any {
	switch v := v.(type) {
	case string:
		return cmdutil.CleanText(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[cmdutil.Clean(k, 256)] = cleanAny(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cleanAny(e)
		}
		return out
	}
	return v
}
