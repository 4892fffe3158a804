package skills

// The project's skills-lock.json: install and update record every skill they leave in
// place (skilllock.Skill: folder, source URL, per-file digests, publisher verification),
// verify re-hashes the installed folders against it, and install --frozen refuses a
// site that now serves anything else.

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
	"github.com/wellknown-dev/discovery/internal/skillrules"
	"github.com/wellknown-dev/discovery/skilllock"
)

// ExitLockMismatch is the exit status of "skills verify" when the installed skills
// differ from the lock, and of "skills install --frozen" when the site serves
// something other than the lock records. Documented in docs/wellknown.md.
const ExitLockMismatch = 4

// lockPath is the lock file the flags name: --lock, else skills-lock.json in base.
func lockPath(base, flag string) string {
	if flag != "" {
		return flag
	}
	return filepath.Join(base, skilllock.FileName)
}

// readLockOrEmpty reads the lock at p; a lock that does not exist yet is empty.
func readLockOrEmpty(p string) (*skilllock.Lock, error) {
	l, err := skilllock.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return &skilllock.Lock{}, nil
	}
	return l, err
}

// lockSource is u as a lock records it: without userinfo, query or fragment.
func lockSource(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	p.User, p.RawQuery, p.Fragment, p.RawFragment = nil, "", "", ""
	return p.String()
}

// relFolder is the skills folder dir relative to base, slash-separated, or "" when it
// is not below base.
func relFolder(base, dir string) string {
	rel, err := filepath.Rel(base, dir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// lockSkill is the lock's record of the skill installed in dir/name, built from its
// install record: the digests are those of the verified files as written.
func lockSkill(base, dir string, rec *InstallRecord) skilllock.Skill {
	s := skilllock.Skill{Name: rec.Name, Folder: relFolder(base, dir), Source: lockSource(rec.URL), IndexDigest: rec.IndexDigest,
		Files: make(map[string]string, len(rec.Files)), Publisher: rec.Publisher.trustResult()}
	for _, f := range rec.Files {
		s.Files[f.Path] = f.Digest
	}
	return s
}

// recordInLock puts every skill that results leave installed (installed, replaced,
// updated, unchanged) into the lock at p, and writes it only when its bytes change, so
// a run that changes nothing writes nothing.
func recordInLock(p, base string, results []Result) error {
	l, err := readLockOrEmpty(p)
	if err != nil {
		return err
	}
	before, err := skilllock.Marshal(l)
	if err != nil {
		return err
	}
	for _, r := range results {
		switch r.Status {
		case StatusInstalled, StatusReplaced, StatusUpdated, StatusUnchanged:
		default:
			continue
		}
		if r.Dir == "" {
			continue
		}
		rec, err := ReadRecord(r.Dir)
		if err != nil {
			return err
		}
		l.Put(lockSkill(base, filepath.Dir(r.Dir), rec))
	}
	after, err := skilllock.Marshal(l)
	if err != nil {
		return err
	}
	if bytes.Equal(before, after) {
		return nil
	}
	return skilllock.WriteFile(p, l)
}

// linkOnTheWay returns the first symbolic link among the folders from base (not
// included) down to dir (included), or "" when there is none (folders that do not
// exist yet are created as real ones). A lock names its skills folders, and the
// repository holding it can commit a link on the way ("vendor -> ../elsewhere"):
// install and verify go through none, so that nothing outside the project is written
// or taken for its skills.
func linkOnTheWay(base, dir string) string {
	rel, err := filepath.Rel(base, dir)
	if err != nil || rel == "." {
		return ""
	}
	p := base
	for _, e := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, e)
		info, err := os.Lstat(p)
		if err != nil {
			return ""
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return p
		}
	}
	return ""
}

// verifyInstalled re-hashes the skills l records, each in its recorded folder under
// base (def when it records none), and returns every difference. The install record
// (.wellknown.json) in each folder is wellknown's own and not part of the skill. A
// folder reached through a symbolic link below base is not read, and each of its
// skills is reported changed, unless linksOK (a person's home folder, whose links are
// their own).
func verifyInstalled(base, def string, l *skilllock.Lock, linksOK bool) ([]skilllock.Problem, error) {
	byFolder := map[string]*skilllock.Lock{}
	for _, s := range l.Skills {
		f := s.Folder
		if f == "" {
			f = def
		}
		if byFolder[f] == nil {
			byFolder[f] = &skilllock.Lock{Version: l.Version}
		}
		byFolder[f].Skills = append(byFolder[f].Skills, s)
	}
	var out []skilllock.Problem
	for f, sub := range byFolder {
		root := filepath.Join(base, filepath.FromSlash(f))
		if link := linkOnTheWay(base, root); link != "" && !linksOK {
			for _, s := range sub.Skills {
				out = append(out, skilllock.Problem{Skill: s.Name, Kind: skilllock.Changed,
					Detail: "skills folder " + f + " is reached through a symbolic link; not read"})
			}
			continue
		}
		if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
			for _, s := range sub.Skills {
				out = append(out, skilllock.Problem{Skill: s.Name, Kind: skilllock.Missing, Detail: "skills folder " + f + " is missing"})
			}
			continue
		}
		ps, err := skilllock.VerifyDir(root, sub)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if p.File == skillrules.RecordFile && p.Kind == skilllock.Extra {
				continue
			}
			out = append(out, p)
		}
		out = append(out, recordedIndexes(root, sub)...)
	}
	return out, nil
}

// VerifyJSON is the output of "skills verify --json".
type VerifyJSON struct {
	Lock     string   `json:"lock"`
	Skills   int      `json:"skills"`
	Problems []string `json:"problems"` // "skill/file: changed|missing|extra (detail)"
}

func skillsVerifyCommand(a *app) *cobra.Command {
	var sc scopeFlags
	var lockFlag string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Re-hash the installed skills against skills-lock.json and name every changed, missing or extra file (for CI)",
		Long: `Verify reads the project's skills-lock.json (--lock, default skills-lock.json in --dir,
or in your home with --global), re-hashes every file of every skill it records, in the
skills folder it records (or the --agent's when it records none), and prints one line
per difference: "skill/file: changed", "missing" or "extra". Symbolic links are never
followed; a link or device where a file should be is reported as changed. Each skill's
.wellknown.json install record is not part of the skill and is not compared.

Exit status: 0 when everything matches the lock, 4 when anything differs, 1 when the
lock cannot be read, 2 for bad flags.`,
		Example: `  wellknown skills verify
  wellknown skills verify --lock skills-lock.json --dir ./project --json`,
		Args: cmdutil.ArgsN(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			base, err := sc.base(a)
			if err != nil {
				return err
			}
			agents, err := sc.agents([]string{defaultAgent})
			if err != nil {
				return err
			}
			p := lockPath(base, lockFlag)
			l, err := skilllock.ReadFile(p)
			if err != nil {
				return err
			}
			problems, err := verifyInstalled(base, "."+agents[0]+"/skills", l, sc.global)
			if err != nil {
				return err
			}
			out := VerifyJSON{Lock: cmdutil.Clean(p, 1024), Skills: len(l.Skills), Problems: []string{}}
			for _, pr := range sortedProblems(problems) {
				out.Problems = append(out.Problems, cmdutil.Clean(pr.String(), 1024))
			}
			if asJSON {
				if err := a.PrintJSON(out); err != nil {
					return err
				}
			} else {
				for _, s := range out.Problems {
					fmt.Fprintln(a.Out, s)
				}
				if len(out.Problems) == 0 {
					fmt.Fprintf(a.Out, "%s match %s\n", cmdutil.Plural(out.Skills, "skill"), out.Lock)
				}
			}
			if len(out.Problems) > 0 {
				return &cmdutil.ExitError{Code: ExitLockMismatch, Err: fmt.Errorf("%s differ from %s",
					cmdutil.Plural(len(out.Problems), "file"), out.Lock)}
			}
			return nil
		},
	}
	sc.add(cmd, "the agent whose skills folder holds skills the lock records no folder for; default agents (.agents/skills)")
	cmd.Flags().StringVar(&lockFlag, "lock", "", "the lock file (default: skills-lock.json in the project folder)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// sortedProblems orders problems by skill, then file, as skilllock does within one
// folder.
func sortedProblems(ps []skilllock.Problem) []skilllock.Problem {
	out := slices.Clone(ps)
	slices.SortStableFunc(out, func(a, b skilllock.Problem) int {
		if c := strings.Compare(a.Skill, b.Skill); c != 0 {
			return c
		}
		return strings.Compare(a.File, b.File)
	})
	return out
}

// frozenCheck compares what the site serves for the fetched skills with the lock, for
// install --frozen: each difference, one per line, or nil when it serves exactly the
// lock's files and index. fetched maps a skill's name to its files as fetched;
// indexDigest is the digest of the index they were listed in, as served now.
func frozenCheck(locked *skilllock.Lock, fetched map[string]*discovery.Skill, indexDigest string) []skilllock.Problem {
	served := &skilllock.Lock{}
	for name, sk := range fetched {
		files := map[string][]byte{}
		for _, f := range skillFiles(sk.Files) {
			files[f.Path] = f.Data
		}
		digests, err := skilllock.HashFiles(files)
		if err != nil {
			return []skilllock.Problem{{Skill: name, Kind: skilllock.Changed, Detail: err.Error()}}
		}
		served.Put(skilllock.Skill{Name: name, Source: lockSource(sk.Entry.URL), IndexDigest: indexDigest, Files: digests})
	}
	sub := &skilllock.Lock{Version: locked.Version}
	for _, s := range locked.Skills {
		if _, ok := fetched[s.Name]; ok {
			sub.Skills = append(sub.Skills, s)
		}
	}
	return skilllock.Compare(sub, served)
}

// frozenGate decides, after every skill was fetched and before anything is written,
// whether an install --frozen may go on: only when every skill of the lock was fetched
// and the site serves exactly the lock's files for each. Otherwise every result that
// would have been written is refused, in.mismatch is set, and it returns false.
func (in *installer) frozenGate(entries []*agentskills.IndexEntry, todo []bool, skills []*discovery.Skill, errs []error, results []Result) bool {
	fetched := map[string]*discovery.Skill{}
	failed := false
	for i, e := range entries {
		switch {
		case e == nil || results[i].Status == StatusRefused || results[i].Status == StatusFailed:
			failed = true
		case todo[i] && errs[i] != nil:
			failed = true
		case todo[i]:
			fetched[e.Name] = skills[i]
		}
	}
	problems := frozenCheck(in.frozen, fetched, in.ix.Index.Digest)
	if len(problems) == 0 && !failed {
		return true
	}
	in.mismatch = len(problems) > 0 || failed
	why := map[string][]string{}
	for _, p := range problems {
		why[p.Skill] = append(why[p.Skill], p.String())
	}
	for i := range entries {
		if !todo[i] || errs[i] != nil {
			continue
		}
		msg := "another skill of the lock is not served as locked"
		if w := why[results[i].Name]; len(w) > 0 {
			msg = "the site now serves something other than " + skilllock.FileName + ": " + strings.Join(w, "; ")
		}
		results[i].Status, results[i].Message = StatusRefused, cmdutil.Clean(msg, 2048)+"; nothing written"
	}
	return false
}

// keepFrozen is the result of install --frozen for a skill whose folder exists (and
// --force was not given): unchanged when its files are the lock's, refused otherwise.
func (in *installer) keepFrozen(r Result) Result {
	s, _ := in.frozen.Lookup(r.Name)
	s.Folder = ""
	ps, err := verifyInstalled(in.dir, "", &skilllock.Lock{Version: skilllock.Version, Skills: []skilllock.Skill{s}}, true)
	if err == nil && len(ps) == 0 {
		r.Status, r.Message = StatusUnchanged, "already installed as locked"
		return r
	}
	r.Status, r.Message = StatusRefused, fmt.Sprintf("%s differs from the lock; --force replaces it", cmdutil.Clean(r.Dir, 1024))
	return r
}

// frozenNames reads the lock install --frozen reproduces and returns it with the
// names to install: the lock's skills, or names, each of which it must record.
func frozenNames(p string, names []string) (*skilllock.Lock, []string, error) {
	l, err := skilllock.ReadFile(p)
	if err != nil {
		return nil, nil, fmt.Errorf("--frozen needs a lock: %w", err)
	}
	if len(names) == 0 {
		for _, s := range l.Skills {
			names = append(names, s.Name)
		}
		slices.Sort(names)
		if len(names) == 0 {
			return nil, nil, fmt.Errorf("--frozen: %s records no skills", cmdutil.Clean(p, 1024))
		}
		return l, names, nil
	}
	for _, n := range names {
		if _, ok := l.Lookup(n); !ok {
			return nil, nil, cmdutil.UsageError{Err: fmt.Errorf("--frozen: %s does not record a skill %s", cmdutil.Clean(p, 1024), skillrules.QuoteName(n))}
		}
	}
	return l, names, nil
}

// lockedFolder is the skills folder the lock records for every one of names, or ""
// when there is no lock, it records none, or the skills are in different folders.
func lockedFolder(l *skilllock.Lock, names []string) string {
	folder := ""
	for i, n := range names {
		s, _ := l.Lookup(n)
		if s.Folder == "" || i > 0 && s.Folder != folder {
			return ""
		}
		folder = s.Folder
	}
	return folder
}
