package main

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
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
)

func init() { register(skillsCommand) }

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
				return usageError{fmt.Errorf("unknown skills subcommand %q: want list, get, install, update or local", clean(args[0], 80))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageError{errors.New("skills: name a subcommand: list, get, install, update or local")}
		},
	}
	cmd.AddCommand(skillsListCommand(a), skillsGetCommand(a), skillsInstallCommand(a), skillsUpdateCommand(a), skillsLocalCommand(a))
	return cmd
}

// skillsListJSON is the output of "skills list --json".
type skillsListJSON struct {
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
		Args: argsN(1, "ORIGIN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.client(nil)
			if err != nil {
				return err
			}
			p := a.progress("reading the skills index of " + args[0])
			ix, err := c.ListSkills(cmd.Context(), args[0])
			p.Stop()
			if err != nil {
				return listError(err)
			}
			l := skillsListJSON{Origin: ix.Origin.String(), IndexURL: clean(ix.Index.URL, 1024),
				Version: clean(ix.Index.Version, 64), Skills: []skillEntryJSON{}, Warnings: warningStrings(ix.Warnings)}
			for _, e := range ix.Index.Skills {
				l.Skills = append(l.Skills, entryJSON(e))
			}
			if asJSON {
				return a.printJSON(l)
			}
			fmt.Fprintf(a.out, "%s (index v%s, %s)\n", l.IndexURL, l.Version, plural(len(l.Skills), "skill"))
			fmt.Fprintln(a.out, a.style(colorDim, "descriptions are the site's words, not instructions"))
			for _, s := range l.Skills {
				mark := ""
				if !s.Verified {
					mark = " " + a.style(colorYellow, "(unverified: no digest)")
				}
				if !s.ValidName {
					mark += " " + a.style(colorYellow, "(invalid name: cannot be installed)")
				}
				fmt.Fprintf(a.out, "  %s  %s%s\n      %s\n", a.style(colorBold, s.Name), s.Type, mark, s.Description)
			}
			a.printWarnings(l.Warnings)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// skillsGetJSON is the output of "skills get --json".
type skillsGetJSON struct {
	Origin      string         `json:"origin"`
	IndexURL    string         `json:"index_url"`
	Name        string         `json:"name"`
	Type        string         `json:"type"`
	URL         string         `json:"url"`
	Digest      string         `json:"digest"`
	Verified    bool           `json:"verified"`
	Frontmatter map[string]any `json:"frontmatter"`
	Files       []fileJSON     `json:"files"`
	SkillMD     string         `json:"skill_md"`
	Warnings    []string       `json:"warnings"`
}

// fileJSON is one file of a skill: its path, byte size and sha256 digest.
type fileJSON struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	Digest string `json:"digest"`
}

func skillsGetCommand(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "get ORIGIN NAME",
		Short: "Fetch one skill, verify its digest and show its SKILL.md and files (writes nothing)",
		Example: `  wellknown skills get docs.example.org invoice-check
  wellknown skills get docs.example.org ledger --json`,
		Args: argsN(2, "ORIGIN and NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkSkillName(args[1]); err != nil {
				return usageError{err}
			}
			c, err := a.client(nil)
			if err != nil {
				return err
			}
			p := a.progress("reading the skills index of " + args[0])
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
			g := skillsGetJSON{Origin: ix.Origin.String(), IndexURL: clean(ix.Index.URL, 1024),
				Name: clean(sk.Entry.Name, 200), Type: clean(sk.Entry.Type, 64), URL: clean(sk.Entry.URL, 1024),
				Digest: clean(sk.Entry.Digest, 128), Verified: sk.Verified, Files: filesJSON(sk.Files),
				SkillMD: cleanText(string(sk.Files[0].Data)), Warnings: warningStrings(sk.Warnings)}
			g.Frontmatter, _ = cleanAny(map[string]any(sk.SkillMD.Frontmatter)).(map[string]any)
			if asJSON {
				return a.printJSON(g)
			}
			state := a.style(colorGreen, "verified "+g.Digest)
			if !g.Verified {
				state = a.style(colorYellow, "unverified: the index publishes no digest (v0.1.0)")
			}
			fmt.Fprintf(a.out, "%s  %s, %s\n", a.style(colorBold, g.Name), g.Type, state)
			fmt.Fprintf(a.out, "from %s\n", g.URL)
			for _, f := range g.Files {
				fmt.Fprintf(a.out, "  %-32s %8d  %s\n", f.Path, f.Size, f.Digest)
			}
			fmt.Fprintln(a.out, a.style(colorDim, "--- SKILL.md (the site's words, not instructions) ---"))
			fmt.Fprint(a.out, g.SkillMD)
			if !strings.HasSuffix(g.SkillMD, "\n") {
				fmt.Fprintln(a.out)
			}
			fmt.Fprintln(a.out, a.style(colorDim, "--- end of SKILL.md ---"))
			a.printWarnings(g.Warnings)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// listError maps a ListSkills error to the exit status: 3 when the origin publishes no
// index, 1 otherwise.
func listError(err error) error {
	if errors.Is(err, discovery.ErrNotPublished) {
		return &exitError{code: exitNotFound, err: err}
	}
	return err
}

// checkSkillName refuses a name that is not a valid Agent Skills name in the strict,
// ASCII form the well-known index RFC requires (a-z, 0-9, single hyphens, at most 64
// characters). Names become folder names on disk, so this is also what keeps a name
// from being a path: no separators, no "..", nothing a file system would reinterpret.
func checkSkillName(name string) error {
	if probs := agentskills.NameProblems(name, true); len(probs) > 0 {
		return fmt.Errorf("%s is not a valid skill name: %s", quoteName(name), clean(probs[0], 200))
	}
	// NameProblems already forbids every character but a-z, 0-9 and '-'; this states the
	// property the file system code relies on.
	if !filepath.IsLocal(name) || strings.ContainsAny(name, `/\.`) {
		return fmt.Errorf("%s is not a valid skill name", quoteName(name))
	}
	return nil
}

// quoteName quotes a name that may be published text, cleaned and bounded.
func quoteName(name string) string { return fmt.Sprintf("%q", clean(name, 80)) }

// entryJSON is an index entry, cleaned.
func entryJSON(e agentskills.IndexEntry) skillEntryJSON {
	return skillEntryJSON{Name: clean(e.Name, 200), Type: clean(e.Type, 64), Description: clean(e.Description, 2048),
		URL: clean(e.URL, 1024), Digest: clean(e.Digest, 128), Verified: e.HasDigests(), ValidName: checkSkillName(e.Name) == nil}
}

// filesJSON lists files with their sizes and digests; paths cleaned.
func filesJSON(files []agentskills.File) []fileJSON {
	out := make([]fileJSON, 0, len(files))
	for _, f := range files {
		out = append(out, fileJSON{Path: clean(f.Path, 1024), Size: int64(len(f.Data)), Digest: agentskills.Digest(f.Data)})
	}
	return out
}

// warningStrings cleans warnings for printing.
func warningStrings(ws []discovery.Warning) []string {
	out := []string{}
	for _, w := range ws {
		out = append(out, clean(w.String(), 1024))
	}
	return out
}

// printWarnings writes warnings to stderr.
func (a *app) printWarnings(ws []string) {
	for _, w := range ws {
		a.notef("warning: %s", w)
	}
}

// cleanAny cleans every string of a JSON-compatible value, keys included.
func cleanAny(v any) any {
	switch v := v.(type) {
	case string:
		return cleanText(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[clean(k, 256)] = cleanAny(e)
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
