package skills

// wellknown skills update and wellknown skills local: both read the .wellknown.json
// records that install writes (see skills_install.go).

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
	"github.com/wellknown-dev/discovery/internal/skillrules"
)

// installedSkill is a skill folder with its install record.
type installedSkill struct {
	dir string // the skills folder
	rec *InstallRecord
}

// installedSkills returns the skills installed by wellknown in the given skills
// folders, keeping only names when names is not empty. A named skill that is not
// there, or not installed by wellknown, gets a refused result.
func installedSkills(folders, names []string) ([]installedSkill, []Result) {
	var out []installedSkill
	var bad []Result
	found := map[string]bool{}
	for _, folder := range folders {
		info, err := os.Lstat(folder)
		if err != nil || !info.IsDir() { // a symlinked skills folder is not read, as in ScanLocal
			continue
		}
		entries, err := os.ReadDir(folder)
		if err != nil {
			bad = append(bad, Result{Name: cmdutil.Clean(folder, 256), Status: StatusFailed, Message: cmdutil.Clean(err.Error(), 1024)})
			continue
		}
		for _, e := range entries {
			if !e.IsDir() || len(names) > 0 && !slices.Contains(names, e.Name()) {
				continue
			}
			dir := filepath.Join(folder, e.Name())
			rec, err := ReadRecord(dir)
			if err != nil {
				if len(names) > 0 {
					found[e.Name()] = true
					bad = append(bad, Result{Name: cmdutil.Clean(e.Name(), 80), Dir: dir, Status: StatusRefused,
						Message: "not installed by wellknown (no valid " + skillrules.RecordFile + "); reinstall it with skills install --force"})
				}
				continue
			}
			found[e.Name()] = true
			out = append(out, installedSkill{dir: folder, rec: rec})
		}
	}
	for _, n := range names {
		if !found[n] {
			bad = append(bad, Result{Name: n, Status: StatusFailed, Message: "no skill of that name is installed in " + cmdutil.Clean(strings.Join(folders, ", "), 1024)})
		}
	}
	return out, bad
}

func skillsUpdateCommand(a *app) *cobra.Command {
	var sc scopeFlags
	var force, asJSON, allowPrivate, acceptPublisher bool
	var budget time.Duration
	var tf trustFlags
	cmd := &cobra.Command{
		Use:   "update [NAME...]",
		Short: "Re-read the origins of installed skills and reinstall those whose digest changed",
		Long: `Update reads the .wellknown.json record of every skill installed by wellknown (or of
the NAMEs) in the selected skills folders, lists each origin's index once, and compares
digests: an unchanged skill is not downloaded; a changed one is fetched and verified,
and update shows which files changed and a unified diff of the text files (SKILL.md
first), then asks before swapping it in atomically (as install --force): y/N on a
terminal; without one, only --yes replaces, and otherwise nothing is replaced, the skill
is reported as pending and the exit status is 5. When the skill was installed with a
verified publisher signature and the new version's publisher or key differs, or is not
checked because --trust-roots was not given, this is called out and needs its own yes: a
second question on a terminal, or --accept-new-publisher with --yes; a skill the index
no longer lists is reported as removed-upstream and left in place. A skill whose files
were changed since it was installed is not replaced without --force. v0.1.0 indexes publish no digests:
their skills are fetched and compared file by file. When the project (--dir, or your
home with --global) has a skills-lock.json, the skills updated are recorded in it.

The origins come from the records, which a cloned repository could plant, so a private
or loopback origin is contacted only with --allow-private, or when you installed from it
yourself on this machine ("skills install" remembers the origins typed to it in
~/.config/wellknown/installed-origins, or under $XDG_CONFIG_HOME).

The whole run has --budget (default 2m): a skill not updated when it runs out is
reported by name as failed and left as it was.`,
		Example: `  wellknown skills update
  wellknown skills update invoice-check --agent claude
  wellknown skills update --global --json`,
		RunE: func(cmd *cobra.Command, names []string) error {
			if err := cmdutil.CheckBudget(budget); err != nil {
				return err
			}
			for _, n := range names {
				if err := skillrules.CheckSkillName(n); err != nil {
					return cmdutil.UsageError{Err: err}
				}
			}
			base, err := sc.base(a)
			if err != nil {
				return err
			}
			agents, err := sc.agents(nil)
			if err != nil {
				return err
			}
			var folders []string
			for _, ag := range agents {
				if err := sc.linkedAgentFolder(base, ag); err != nil {
					if len(agents) == 1 {
						return err
					}
					a.Notef("%v; skipped", err)
					continue
				}
				folders = append(folders, skillsFolder(base, ag))
			}
			installed, results := installedSkills(folders, names)
			if len(installed) == 0 && len(results) == 0 {
				a.Notef("no skills installed by wellknown in %s", cmdutil.Clean(strings.Join(folders, ", "), 1024))
				return nil
			}
			// The origins come from .wellknown.json files, which anyone who wrote to
			// this folder (a cloned repository) could have planted: a private or
			// loopback origin needs --allow-private.
			opts, err := tf.options()
			if err != nil {
				return err
			}
			c, err := a.ClientFor(opts, allowPrivate)
			if err != nil {
				return err
			}
			// An origin the person installed from themselves (see origins.go) is
			// contacted as install contacted it, private or not.
			typed, err := a.ClientFor(opts, true)
			if err != nil {
				return err
			}
			known := a.installedOrigins()
			clientFor := func(origin string) *discovery.Client {
				if known[origin] {
					return typed
				}
				return c
			}
			ctx, cancel := cmdutil.WithBudget(cmd.Context(), budget)
			defer cancel()
			uc := updateConsent{yes: a.Yes, acceptPublisher: acceptPublisher, asJSON: asJSON}
			results = append(updateSkills(ctx, a, clientFor, installed, force, uc), results...)
			for i := range results {
				results[i] = settle(results[i])
			}
			// A project that keeps a lock gets it updated with what was replaced.
			lp := lockPath(base, "")
			var lockErr error
			if _, err := os.Lstat(lp); err == nil {
				lockErr = recordInLock(lp, base, results)
			}
			if err := a.printResults(results, asJSON, "updated"); err != nil {
				return err
			}
			if lockErr != nil {
				return fmt.Errorf("skills updated, but %s was not written: %w", cmdutil.Clean(lp, 1024), lockErr)
			}
			if n := countStatus(results, StatusPending); n > 0 {
				return &cmdutil.ExitError{Code: ExitUpdatesPending, Err: fmt.Errorf("%s pending: nothing replaced without consent", cmdutil.Plural(n, "update"))}
			}
			return nil
		},
	}
	sc.add(cmd, "only this agent's skills folder; default: every agent's")
	cmd.Flags().BoolVarP(&force, "force", "f", false, "replace skills even when their files were changed since install")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().BoolVar(&acceptPublisher, "accept-new-publisher", false, "with --yes: also replace skills whose publisher or signing key changed")
	tf.add(cmd)
	cmd.Flags().BoolVar(&allowPrivate, "allow-private", false, "let recorded origins that are private or loopback (localhost, 10.x...) be contacted (origins you installed from yourself need not it)")
	cmdutil.AddBudgetFlag(cmd, &budget)
	return cmd
}

// updateSkills updates installed skills, listing each origin's index once.
func updateSkills(ctx context.Context, a *app, clientFor func(origin string) *discovery.Client, installed []installedSkill, force bool, uc updateConsent) []Result {
	var results []Result
	indexes := map[string]*discovery.SkillsIndex{}
	failures := map[string]error{}
	for _, s := range installed {
		rec := s.rec
		c := clientFor(rec.Origin)
		r := Result{Name: rec.Name, Dir: filepath.Join(s.dir, rec.Name), Origin: cmdutil.Clean(rec.Origin, 256),
			PreviousDigest: rec.Digest, Verified: rec.Verified}
		if cmdutil.BudgetSpent(ctx) {
			r.Status, r.Message = StatusFailed, cmdutil.NotInTime(ctx, "updated")+"; left as it was"
			results = append(results, r)
			continue
		}
		ix, ok := indexes[rec.Origin]
		if !ok && failures[rec.Origin] == nil {
			p := a.Progress("reading the skills index of " + rec.Origin)
			var err error
			ix, err = c.ListSkills(ctx, rec.Origin)
			p.Stop()
			if err != nil {
				failures[rec.Origin] = err
			} else {
				indexes[rec.Origin] = ix
				a.printWarnings(warningStrings(ix.Warnings))
			}
		}
		if err := failures[rec.Origin]; err != nil && cmdutil.BudgetSpent(ctx) {
			r.Status, r.Message = StatusFailed, cmdutil.NotInTime(ctx, "updated")+"; left as it was"
			results = append(results, r)
			continue
		}
		if err := failures[rec.Origin]; err != nil {
			r.Status, r.Message = StatusFailed, cmdutil.Clean(cmdutil.PrivateHint(err, "a recorded origin that is private or loopback needs --allow-private"), 1024)
			if errors.Is(err, discovery.ErrNotPublished) {
				r.Status, r.Message = StatusRemovedUpstream, "the origin no longer publishes a skills index; left in place"
			}
			results = append(results, r)
			continue
		}
		in := &installer{a: a, c: c, ix: ix, dir: s.dir, force: true}
		e := in.find(rec.Name)
		if e == nil {
			r.Status, r.Message = StatusRemovedUpstream, "the index no longer lists it; left in place"
			results = append(results, r)
			continue
		}
		r.Digest, r.Verified = e.Digest, e.HasDigests()
		if e.Digest != "" && e.Digest == rec.Digest {
			r.Status = StatusUnchanged
			results = append(results, r)
			continue
		}
		p := a.Progress("fetching and verifying " + rec.Name)
		sk, err := c.GetSkill(ctx, ix, rec.Name)
		p.Stop()
		if err != nil && cmdutil.BudgetSpent(ctx) {
			r.Status, r.Message = StatusFailed, cmdutil.NotInTime(ctx, "updated")+"; left as it was"
			results = append(results, r)
			continue
		}
		if err != nil {
			results = append(results, fetchFailure(r, err))
			continue
		}
		if e.Digest == "" && sameFiles(skillFiles(sk.Files), rec.Files) {
			r.Status = StatusUnchanged // v0.1.0: same files, same bytes
			results = append(results, r)
			continue
		}
		if change := localChanges(r.Dir, rec); change != "" && !force {
			r.Status, r.Message = StatusRefused, "changed since install ("+cmdutil.Clean(change, 512)+"); --force replaces it"
			results = append(results, r)
			continue
		}
		rv := reviewUpdate(r.Dir, rec, sk)
		r.Changes, r.Diff = rv.changes, rv.diff
		if ok, why := a.consentToUpdate(ctx, uc, rec.Name, rv); !ok {
			r.Status, r.Message = StatusPending, cmdutil.Clean(why, 1024)
			results = append(results, r)
			continue
		}
		r = in.place(sk, r, true)
		if r.Status == StatusReplaced {
			r.Status = StatusUpdated
		}
		results = append(results, r)
	}
	return results
}

// sameFiles reports whether files are exactly the recorded ones: same paths, in the
// same order, same sizes and digests.
func sameFiles(files []agentskills.File, rec []FileJSON) bool {
	if len(files) != len(rec) {
		return false
	}
	for i, f := range files {
		if f.Path != rec[i].Path || int64(len(f.Data)) != rec[i].Size || agentskills.Digest(f.Data) != rec[i].Digest {
			return false
		}
	}
	return true
}

// LocalSkillJSON is one skill of "skills local --json".
type LocalSkillJSON struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Scope       string      `json:"scope"` // "project" or "user"
	Agent       string      `json:"agent"` // the .<agent> folder it is in
	Dir         string      `json:"dir"`
	Installed   *recordJSON `json:"installed"` // null: not installed by wellknown
	Modified    string      `json:"modified"`  // what changed since install; "" if nothing (or not installed by wellknown)
}

// recordJSON is the part of the install record that local shows.
type recordJSON struct {
	Origin      string    `json:"origin"`
	IndexURL    string    `json:"index_url"`
	Digest      string    `json:"digest"`
	Verified    bool      `json:"verified"`
	Size        int64     `json:"size"`
	InstalledAt time.Time `json:"installed_at"`
}

// DiagnosticJSON is one of ScanLocal's diagnostics.
type DiagnosticJSON struct {
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Where    string `json:"where"`
	Message  string `json:"message"`
}

func skillsLocalCommand(a *app) *cobra.Command {
	var sc scopeFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "local",
		Short: "List the skills installed in a project's (or, with --global, your home's) agent skills folders",
		Long: `Local scans the .<agent>/skills folders of a project (--dir, default the current
directory) or of your home (--global) as agents do (agentskills.ScanLocal), and lists
every skill with its description, where wellknown installed it from, whether its files
changed since, and the scan's diagnostics (invalid SKILL.md, shadowed names, symlinks).`,
		Example: `  wellknown skills local
  wellknown skills local --agent claude --json
  wellknown skills local --global`,
		Args: cmdutil.ArgsN(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			base, err := sc.base(a)
			if err != nil {
				return err
			}
			agents, err := sc.agents(nil)
			if err != nil {
				return err
			}
			out := struct {
				Skills      []LocalSkillJSON `json:"skills"`
				Diagnostics []DiagnosticJSON `json:"diagnostics"`
			}{Skills: []LocalSkillJSON{}, Diagnostics: []DiagnosticJSON{}}
			// Each agent reads only its own folder (.claude/skills for Claude, the
			// cross-client .agents/skills for the others), so each is scanned on its own:
			// the same name in two agents' folders is two skills, one per agent, not one
			// shadowing the other.
			for _, ag := range agents {
				opts := agentskills.LocalOptions{ProjectDir: base, Clients: []string{ag}}
				if sc.global {
					opts = agentskills.LocalOptions{HomeDir: base, Clients: []string{ag}}
				}
				found, err := agentskills.ScanLocal(opts)
				if err != nil {
					return err
				}
				for _, s := range found.Skills {
					l := LocalSkillJSON{Name: cmdutil.Clean(s.Name, 200), Description: cmdutil.Clean(s.Skill.Description(), 2048), Scope: s.Scope,
						Agent: ag, Dir: cmdutil.Clean(s.Dir, 1024)}
					if rec, err := ReadRecord(s.Dir); err == nil {
						l.Installed = &recordJSON{Origin: cmdutil.Clean(rec.Origin, 256), IndexURL: cmdutil.Clean(rec.IndexURL, 1024),
							Digest: cmdutil.Clean(rec.Digest, 128), Verified: rec.Verified, Size: rec.Size, InstalledAt: rec.InstalledAt}
						l.Modified = cmdutil.Clean(localChanges(s.Dir, rec), 512)
					}
					out.Skills = append(out.Skills, l)
				}
				for _, d := range found.Diagnostics {
					out.Diagnostics = append(out.Diagnostics, DiagnosticJSON{Severity: d.Severity.String(), Code: cmdutil.Clean(d.Code, 64),
						Where: cmdutil.Clean(d.Where, 1024), Message: cmdutil.Clean(d.Message, 1024)})
				}
			}
			if asJSON {
				return a.PrintJSON(out)
			}
			if len(out.Skills) == 0 {
				fmt.Fprintln(a.Out, "no skills found")
			}
			agent := ""
			for _, s := range out.Skills {
				if s.Agent != agent {
					agent = s.Agent
					fmt.Fprintf(a.Out, "%s\n", a.Style(cmdutil.ColorCyan, agentHeading(agent)))
				}
				fmt.Fprintf(a.Out, "%s  %s  %s\n    %s\n", a.Style(cmdutil.ColorBold, s.Name), s.Scope, s.Dir, s.Description)
				switch {
				case s.Installed == nil:
					fmt.Fprintln(a.Out, a.Style(cmdutil.ColorDim, "    not installed by wellknown"))
				default:
					v := shortDigest(s.Installed.Digest)
					if !s.Installed.Verified {
						v = "unverified"
					}
					fmt.Fprintf(a.Out, "    from %s (%s), installed %s\n", s.Installed.Origin, v, s.Installed.InstalledAt.Format(time.RFC3339))
					if s.Modified != "" {
						fmt.Fprintf(a.Out, "    %s\n", a.Style(cmdutil.ColorYellow, "changed since install: "+s.Modified))
					}
				}
			}
			for _, d := range out.Diagnostics {
				fmt.Fprintf(a.Out, "%s: %s: %s: %s\n", d.Where, d.Severity, d.Code, d.Message)
			}
			return nil
		},
	}
	sc.add(cmd, "only this agent's skills folder; default: every agent's")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// agentHeading names who reads an agent folder, for the text of "skills local".
func agentHeading(agent string) string {
	if agent == defaultAgent {
		return "." + agent + "/skills (the cross-client folder, read by the agents that support it):"
	}
	return "." + agent + "/skills (read by " + agent + "):"
}

// countStatus counts the results of status st.
func countStatus(results []Result, st string) int {
	n := 0
	for _, r := range results {
		if r.Status == st {
			n++
		}
	}
	return n
}
