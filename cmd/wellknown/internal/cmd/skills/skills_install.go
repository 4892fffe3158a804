package skills

// wellknown skills install: fetch, verify, unpack into an agent's skills folder and
// record where each skill came from.
//
// Layout. A skill named NAME for agent AGENT goes to BASE/.AGENT/skills/NAME, where
// BASE is --dir (default: the current directory, project scope) or the user's home
// (--global): the folders agentskills.ScanLocal reads. Beside the files, NAME/.wellknown.json
// records the origin, index URL, type, artifact URL, digest, size, every file's size
// and digest, and the install time. The record lives inside the skill folder, not in
// one lock file per skills folder, so that it is swapped in by the same rename as the
// content it describes: a reader never sees new files with an old record, and two
// installs into one skills folder never contend for a shared file.
//
// Writing. Nothing is written before the artifact is verified (GetSkill checks the
// digest before it parses or unpacks anything). The files are then unpacked by
// agentskills.ExtractArchive into a fresh staging folder beside the skills folder
// (BASE/.AGENT/.wellknown-staging-*, outside every path an agent scans), read back and
// checked against their digests, and the record is added. Only then is the staging
// folder renamed to NAME. An existing NAME is never touched without --force; with it,
// NAME is first renamed into a temporary folder beside, the new one renamed in, and
// the old one removed. On any failure before the last rename, the staging folder is
// removed and NAME is left as it was.

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
	"github.com/wellknown-dev/discovery/internal/skillrules"
	"github.com/wellknown-dev/discovery/skilllock"
	"github.com/wellknown-dev/discovery/trust"
)

// recordFormat is the version of the record's shape.
const recordFormat = 1

// maxRecordBytes bounds the record read back from disk.
const maxRecordBytes = 1 << 20

// InstallRecord is the content of .wellknown.json.
type InstallRecord struct {
	Format       int        `json:"format"`        // recordFormat
	Name         string     `json:"name"`          // the skill's name: its folder's name
	Origin       string     `json:"origin"`        // the origin the index was read from, as "https://host[:port]"
	IndexURL     string     `json:"index_url"`     // the index that listed the skill
	IndexVersion string     `json:"index_version"` // "0.2.0", "0.1.0" or "0.2.0-interim"
	Type         string     `json:"type"`          // "skill-md" or "archive"
	URL          string     `json:"url"`           // the artifact (SKILL.md or archive); for v0.1.0, the SKILL.md
	Digest       string     `json:"digest"`        // the index's digest of the artifact, verified; "" for v0.1.0 (none published)
	Verified     bool       `json:"verified"`      // the content was checked against published digests
	Size         int64      `json:"size"`          // total bytes of the files installed
	Files        []FileJSON `json:"files"`         // every file installed, with size and sha256 digest
	InstalledAt  time.Time  `json:"installed_at"`  // UTC
	Tool         string     `json:"tool"`          // "wellknown/<version>"
	// Publisher is the publisher signature check (--trust-roots); absent when none was
	// configured.
	Publisher *PublisherJSON `json:"publisher,omitempty"`
}

// Result is the outcome for one skill of install or update.
type Result struct {
	Name           string     `json:"name"`
	Status         string     `json:"status"` // see the status constants
	Dir            string     `json:"dir,omitempty"`
	Origin         string     `json:"origin,omitempty"`
	Digest         string     `json:"digest,omitempty"`
	PreviousDigest string     `json:"previous_digest,omitempty"`
	Verified       bool       `json:"verified"`
	Files          []FileJSON `json:"files,omitempty"`
	Message        string     `json:"message,omitempty"`
	// Publisher is the publisher signature check of what was fetched (--trust-roots);
	// absent when none was configured.
	Publisher *PublisherJSON `json:"publisher,omitempty"`
	// Changes and Diff (update): each file changed, added or removed, SKILL.md first,
	// and a unified diff of the text files, cleaned.
	Changes []string `json:"changes,omitempty"`
	Diff    string   `json:"diff,omitempty"`
}

// Statuses of a Result. refused and failed make the exit status 1.
const (
	StatusInstalled       = "installed"        // new folder written
	StatusReplaced        = "replaced"         // install --force over an existing folder
	StatusUpdated         = "updated"          // update: the digest changed; reinstalled
	StatusUnchanged       = "unchanged"        // same digest as installed; nothing written
	StatusRemovedUpstream = "removed-upstream" // update: the index no longer lists it; left in place
	StatusRefused         = "refused"          // a check said no: exists, invalid name, digest, unsafe archive, consent
	StatusFailed          = "failed"           // a network or file system error
)

// scopeFlags are the flags that choose skills folders: --dir, --global, --agent.
type scopeFlags struct {
	dir    string
	global bool
	agent  string
}

func (s *scopeFlags) add(cmd *cobra.Command, agentHelp string) {
	cmd.Flags().StringVar(&s.dir, "dir", "", "the project folder whose .<agent>/skills folder is used (default: the current directory)")
	cmd.Flags().BoolVarP(&s.global, "global", "g", false, "use the skills folders in your home folder instead of a project's")
	cmd.Flags().StringVarP(&s.agent, "agent", "a", "", agentHelp+" ("+strings.Join(agentskills.DefaultClients, ", ")+")")
}

// agentAliases maps names other tools use to the folder names of DefaultClients.
var agentAliases = map[string]string{"claude-code": "claude", "github-copilot": "github", "gemini-cli": "gemini"}

// base returns the folder holding the .<agent> folders.
func (s *scopeFlags) base(a *app) (string, error) {
	switch {
	case s.global && s.dir != "":
		return "", cmdutil.UsageError{Err: errors.New("--dir and --global exclude each other")}
	case s.global:
		if h := a.Getenv("HOME"); h != "" {
			return h, nil
		}
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("--global: %w", err)
		}
		return h, nil
	case s.dir != "":
		return s.dir, nil
	}
	return ".", nil
}

// agents returns the agent folder names the flags select: --agent, else def (nil: all
// of DefaultClients).
func (s *scopeFlags) agents(def []string) ([]string, error) {
	if s.agent == "" {
		if def == nil {
			return agentskills.DefaultClients, nil
		}
		return def, nil
	}
	name := strings.ToLower(s.agent)
	if alias, ok := agentAliases[name]; ok {
		name = alias
	}
	if !slices.Contains(agentskills.DefaultClients, name) {
		return nil, cmdutil.UsageError{Err: fmt.Errorf("--agent %q: want one of %s", s.agent, strings.Join(agentskills.DefaultClients, ", "))}
	}
	return []string{name}, nil
}

// skillsFolder is BASE/.<agent>/skills.
func skillsFolder(base, agent string) string { return filepath.Join(base, "."+agent, "skills") }

// linkedAgentFolder refuses a project's .<agent> folder that is a symbolic link: a
// cloned repository can commit `.claude -> ~/.claude` (or anywhere), and writing
// through it would install outside the project, into every project's skills. The
// skills folder itself is checked by writeSkill. Home folders (--global) are the
// person's own and may be linked (dotfile managers do it).
func (s *scopeFlags) linkedAgentFolder(base, agent string) error {
	if s.global {
		return nil
	}
	p := filepath.Join(base, "."+agent)
	info, err := os.Lstat(p)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return nil // absent (created as a real folder) or a real folder
	}
	target, _ := filepath.EvalSymlinks(p)
	return fmt.Errorf("%s is a symbolic link (to %s): refusing to write skills through it into another folder; "+
		"remove the link, or install there with --dir", cmdutil.Clean(p, 512), cmdutil.Clean(target, 512))
}

// defaultAgent is the folder install writes to without --agent: .agents/skills, the
// cross-client location that agentskills.ScanLocal reads first.
const defaultAgent = "agents"

func skillsInstallCommand(a *app) *cobra.Command {
	var sc scopeFlags
	var force, asJSON, frozen bool
	var lockFlag, fromBundle, mirror string
	var tf trustFlags
	var budget time.Duration
	cmd := &cobra.Command{
		Use:   "install ORIGIN [NAME...] | install --from-bundle FILE [NAME...]",
		Short: "Install skills (all, or the NAMEs) from an origin's index into an agent's skills folder",
		Long: `Install fetches each skill, verifies it against the index's digest, unpacks it with the
hardened extractor into BASE/.<agent>/skills/NAME (BASE: --dir, default the current
directory, or your home with --global; agent: --agent, default "agents", the
cross-client .agents/skills), and records its origin, index URL, digest, size and files
in NAME/.wellknown.json for "skills update" and "skills local".

An existing skill folder is never overwritten without --force; with it, the new folder
is unpacked beside the old one and swapped in by renames, so a failure leaves the old
one as it was. A skill whose artifact is on another origin needs consent (--yes, or y
on the terminal).

Every skill left installed is recorded in the project's skills-lock.json (--lock;
default skills-lock.json in --dir, or in your home with --global): its skills folder,
source URL and the digest of every file, sorted and indented so that a change is a
small diff. "skills verify" checks the installed files against it. With --frozen,
install reads the lock instead of writing it: it installs exactly the lock's skills
(or the NAMEs, which must be in it), fetches them all first, and writes nothing and
exits with status 4 if the site now serves anything other than the lock's files. A
locked skill already installed with the lock's files is left as it is. Without --agent,
--frozen installs into the skills folder the lock records.

The whole run has --budget (default 2m): a skill not fetched and verified when it runs
out is reported by name as failed, and nothing is written for it.

Offline and private distribution. --from-bundle FILE installs from an archive written
by "skills bundle" with no network at all, and verifies exactly as from the origin the
bundle names: each artifact against the bundled index's digest, signatures against
--trust-roots (keys pinned in the roots file: a jwksUrl cannot be fetched offline),
--require-signed and --frozen honoured, and the lock records the origin's URLs, so a
later verify or update against the origin works. --mirror URL reads the artifacts from
a mirror with the origin's layout below URL (an unpacked bundle served statically
will do) while the index and the trust manifests still come from the origin: a mirror
changes where the bytes come from, never what is accepted, and bytes that differ from
the origin's index are refused, naming the file.`,
		Example: `  wellknown skills install docs.example.org                 # every skill, into ./.agents/skills
  wellknown skills install docs.example.org invoice-check --agent claude
  wellknown skills install docs.example.org --global --agent codex --force
  wellknown skills install docs.example.org --frozen        # exactly what skills-lock.json records
  wellknown skills install --from-bundle skills.tar --trust-roots roots.yaml --require-signed
  wellknown skills install docs.example.org --mirror https://mirror.corp.example/docs`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 && fromBundle == "" {
				return cmdutil.UsageError{Err: errors.New("skills install: missing ORIGIN (then optional skill NAMEs), or --from-bundle FILE; see \"wellknown skills install --help\"")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cmdutil.CheckBudget(budget); err != nil {
				return err
			}
			src, err := newInstallSource(a, fromBundle, mirror, args)
			if err != nil {
				return err
			}
			var names []string
			for _, n := range src.names {
				if err := skillrules.CheckSkillName(n); err != nil {
					return cmdutil.UsageError{Err: err}
				}
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
			base, err := sc.base(a)
			if err != nil {
				return err
			}
			agents, err := sc.agents([]string{defaultAgent})
			if err != nil {
				return err
			}
			if err := sc.linkedAgentFolder(base, agents[0]); err != nil {
				return err
			}
			lp := lockPath(base, lockFlag)
			var locked *skilllock.Lock
			if frozen {
				if locked, names, err = frozenNames(lp, names); err != nil {
					return err
				}
			}
			opts, err := tf.options()
			if err != nil {
				return err
			}
			c, err := a.Client(src.options(opts))
			if err != nil {
				return err
			}
			ctx, cancel := cmdutil.WithBudget(cmd.Context(), budget)
			defer cancel()
			p := a.Progress("reading the skills index of " + src.origin)
			ix, err := c.ListSkills(ctx, src.origin)
			p.Stop()
			if err != nil && cmdutil.BudgetSpent(ctx) {
				return fmt.Errorf("skills install: the skills index of %s: %s", cmdutil.Clean(src.origin, 256), cmdutil.NotInTime(ctx, "read"))
			}
			if err != nil {
				return listError(err)
			}
			src.use(ix)
			a.printWarnings(warningStrings(ix.Warnings))
			dir := skillsFolder(base, agents[0])
			if f := lockedFolder(locked, names); f != "" && sc.agent == "" {
				dir = filepath.Join(base, filepath.FromSlash(f)) // --frozen: where the lock says
			}
			in := &installer{a: a, c: c, ix: ix, dir: dir, force: force, frozen: locked, base: base}
			results := in.install(ctx, names)
			src.annotate(results)
			for _, r := range results {
				if r.Status != StatusRefused && r.Status != StatusFailed {
					a.rememberOrigin(ix.Origin.String()) // typed by the person: update accepts it again
					break
				}
			}
			var lockErr error
			if !frozen {
				lockErr = recordInLock(lp, base, results)
			}
			err = a.printResults(results, asJSON, "installed")
			switch {
			case lockErr != nil:
				return fmt.Errorf("skills installed, but %s was not written: %w", cmdutil.Clean(lp, 1024), lockErr)
			case in.mismatch:
				return &cmdutil.ExitError{Code: ExitLockMismatch, Err: fmt.Errorf("--frozen: the site does not serve what %s records; nothing written", cmdutil.Clean(lp, 1024))}
			}
			return err
		},
	}
	sc.add(cmd, "the agent whose skills folder to write; default agents (.agents/skills)")
	cmd.Flags().BoolVarP(&force, "force", "f", false, "replace a skill folder that already exists (atomically)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().StringVar(&lockFlag, "lock", "", "the lock file to write, or with --frozen to read (default: skills-lock.json in the project folder)")
	cmd.Flags().BoolVar(&frozen, "frozen", false, "install exactly the lock's skills and files; write nothing and exit 4 if the site serves anything else")
	cmd.Flags().StringVar(&fromBundle, "from-bundle", "", "install from a bundle written by \"skills bundle\", with no network; the arguments are then only NAMEs")
	cmd.Flags().StringVar(&mirror, "mirror", "", "fetch the artifacts from this mirror of ORIGIN (same layout below the URL); the index and signatures still come from ORIGIN")
	tf.add(cmd)
	cmdutil.AddBudgetFlag(cmd, &budget)
	return cmd
}

// installer installs skills from one index into one skills folder.
type installer struct {
	a     *app
	c     *discovery.Client
	ix    *discovery.SkillsIndex
	dir   string // the skills folder
	force bool
	// frozen is the lock an install --frozen must reproduce; nil otherwise. mismatch
	// is set when the site serves something else.
	frozen   *skilllock.Lock
	base     string // the project (or home) folder holding the lock
	mismatch bool
}

// fetchParallel is how many skills are fetched at once.
const fetchParallel = 4

// install installs the named skills (every skill of the index when names is empty).
func (in *installer) install(ctx context.Context, names []string) []Result {
	var entries []*agentskills.IndexEntry
	results := make([]Result, 0, max(len(names), len(in.ix.Index.Skills)))
	if len(names) == 0 {
		for i := range in.ix.Index.Skills {
			entries = append(entries, &in.ix.Index.Skills[i])
		}
	} else {
		for _, n := range names {
			entries = append(entries, in.find(n))
		}
	}
	// Decide before any download which skills to fetch: a refusal costs no request.
	todo := make([]bool, len(entries))
	seen := map[string]bool{}
	for i, e := range entries {
		r := in.precheck(e, names, i)
		if e != nil && r.Status == "" && seen[e.Name] {
			// Listed twice by the index: one folder, one install (GetSkill uses the
			// index's first entry of that name).
			r.Status, r.Message = StatusRefused, "the index lists this name more than once; only its first entry is installed"
		}
		if e != nil {
			seen[e.Name] = true
		}
		results = append(results, r)
		todo[i] = r.Status == ""
	}
	skills := make([]*discovery.Skill, len(entries))
	errs := make([]error, len(entries))
	var wg sync.WaitGroup
	sem := make(chan struct{}, fetchParallel)
	for i, e := range entries {
		if !todo[i] {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done(): // the budget ran out, or the run was interrupted, while it waited
				errs[i] = context.Cause(ctx)
				return
			}
			defer func() { <-sem }()
			skills[i], errs[i] = in.c.GetSkill(ctx, in.ix, e.Name)
		}()
	}
	p := in.a.Progress("fetching and verifying " + cmdutil.Plural(count(todo), "skill"))
	wg.Wait()
	p.Stop()
	if in.frozen != nil && !in.frozenGate(entries, todo, skills, errs, results) {
		for i := range results {
			results[i] = settle(results[i])
		}
		return results
	}
	for i := range entries {
		if !todo[i] {
			continue
		}
		if errs[i] == nil && in.frozen != nil && in.exists(results[i].Name) && !in.force {
			results[i] = in.keepFrozen(results[i])
			continue
		}
		if errs[i] != nil && cmdutil.BudgetSpent(ctx) {
			results[i].Status, results[i].Message = StatusFailed, cmdutil.NotInTime(ctx, "installed")+"; nothing written"
			continue
		}
		if errs[i] != nil {
			results[i] = fetchFailure(results[i], errs[i])
			continue
		}
		results[i] = in.place(skills[i], results[i], in.exists(results[i].Name))
	}
	for i := range results {
		results[i] = settle(results[i])
	}
	return results
}

// settle makes a final result state only what is true: verified only for an artifact
// that was verified and is now installed (installed, replaced, updated, unchanged), and
// a dir only when a folder is there.
func settle(r Result) Result {
	switch r.Status {
	case StatusInstalled, StatusReplaced, StatusUpdated, StatusUnchanged:
	default:
		r.Verified = false
		r.Files = nil
	}
	if r.Dir != "" {
		if _, err := os.Lstat(r.Dir); err != nil {
			r.Dir = ""
		}
	}
	return r
}

func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// find returns the index entry named name, or nil.
func (in *installer) find(name string) *agentskills.IndexEntry {
	for i := range in.ix.Index.Skills {
		if in.ix.Index.Skills[i].Name == name {
			return &in.ix.Index.Skills[i]
		}
	}
	return nil
}

// exists reports whether something is at the skill's folder path.
func (in *installer) exists(name string) bool {
	_, err := os.Lstat(filepath.Join(in.dir, name))
	return err == nil
}

// precheck returns a final result for an entry that must not be fetched (not listed,
// invalid name, already installed), or a result with an empty Status to go on.
func (in *installer) precheck(e *agentskills.IndexEntry, names []string, i int) Result {
	if e == nil {
		return Result{Name: cmdutil.Clean(names[i], 80), Status: StatusFailed,
			Message: fmt.Sprintf("the index %s lists no skill %s", cmdutil.Clean(in.ix.Index.URL, 256), skillrules.QuoteName(names[i]))}
	}
	r := Result{Name: cmdutil.Clean(e.Name, 80), Origin: in.ix.Origin.String(), Digest: e.Digest}
	if err := skillrules.CheckSkillName(e.Name); err != nil {
		r.Status, r.Message = StatusRefused, err.Error()+"; not installed"
		return r
	}
	target := filepath.Join(in.dir, e.Name)
	r.Dir = target // settle drops it when nothing is there in the end
	if _, err := os.Lstat(target); err != nil || in.force {
		return r
	}
	if in.frozen != nil {
		return r // fetched and compared with the lock first; see frozenGate
	}
	if rec, err := ReadRecord(target); err == nil && rec.Origin == r.Origin && e.Digest != "" && rec.Digest == e.Digest {
		r.Status, r.Message, r.Verified = StatusUnchanged, "already installed with the same digest", rec.Verified
		r.Publisher = rec.Publisher
		return r
	}
	r.Status, r.Message = StatusRefused, fmt.Sprintf("%s already exists; --force replaces it (update updates skills installed by wellknown)", target)
	return r
}

// fetchFailure turns a GetSkill error into a result: refused when a check said no
// (digest, archive hardening, consent), failed otherwise.
func fetchFailure(r Result, err error) Result {
	r.Status, r.Message = StatusFailed, err.Error()
	var ve *trust.VerifyError
	if errors.Is(err, agentskills.ErrDigestMismatch) || errors.Is(err, agentskills.ErrUnsafeArchive) || errors.As(err, &ve) ||
		errors.Is(err, agentskills.ErrArchiveTooLarge) || errors.Is(err, discovery.ErrConsentDenied) ||
		errors.Is(err, agentskills.ErrInvalidSkill) {
		r.Status = StatusRefused
	}
	r.Message = cmdutil.Clean(discovery.Redact(r.Message), 1024) + "; nothing written"
	return r
}

// place writes a fetched, verified skill to its folder and fills in r. replace says
// whether a folder is there to be swapped out.
func (in *installer) place(sk *discovery.Skill, r Result, replace bool) Result {
	rec := &InstallRecord{Format: recordFormat, Name: sk.Entry.Name, Origin: in.ix.Origin.String(),
		IndexURL: in.ix.Index.URL, IndexVersion: in.ix.Index.Version, Type: sk.Entry.Type, URL: sk.Entry.URL,
		Digest: sk.Entry.Digest, Verified: sk.Verified, InstalledAt: time.Now().UTC().Truncate(time.Second),
		Tool: "wellknown/" + discovery.Version, Publisher: publisherJSON(sk.Publisher)}
	r.Publisher = rec.Publisher
	// A SKILL.md names the skill agents see: one named otherwise than its index entry
	// would take over that other skill's name (the folder is the entry's, the name the
	// SKILL.md's), so it is refused, as lint reports it as an error.
	if n := sk.SkillMD.Name(); n != sk.Entry.Name {
		r.Status, r.Message = StatusRefused, fmt.Sprintf("its SKILL.md names the skill %s, not %s as the index does: the site must make them the same; nothing written", skillrules.QuoteName(n), skillrules.QuoteName(sk.Entry.Name))
		return r
	}
	files := skillFiles(sk.Files)
	for _, f := range files {
		// The archive reader refuses names that could escape; a name that would print
		// as something else (control, format or bidi characters) is refused here, since
		// people and agents list these folders.
		if !skillrules.PrintableName(f.Path) {
			r.Status, r.Message = StatusRefused, fmt.Sprintf("file name %q has control or format characters; nothing written", cmdutil.Clean(f.Path, 256))
			return r
		}
		rec.Files = append(rec.Files, FileJSON{Path: f.Path, Size: int64(len(f.Data)), Digest: agentskills.Digest(f.Data)})
		rec.Size += int64(len(f.Data))
	}
	if err := writeSkill(in.dir, sk.Entry.Name, files, rec, replace); err != nil {
		r.Status, r.Message = StatusFailed, cmdutil.Clean(err.Error(), 1024)+"; the skill folder was left as it was"
		if errors.Is(err, agentskills.ErrUnsafeArchive) || errors.Is(err, agentskills.ErrArchiveTooLarge) || errors.Is(err, errReserved) {
			r.Status = StatusRefused
		}
		return r
	}
	r.Status, r.Files, r.Verified = StatusInstalled, filesJSON(files), sk.Verified
	if replace {
		r.Status = StatusReplaced
	}
	var notes []string
	if !sk.Verified {
		notes = append(notes, "unverified: "+unverifiedWhy(sk))
	}
	r.Message = strings.Join(notes, "; ")
	return r
}

// skillFiles returns the files with SKILL.md named exactly so (a v0.1.0 index may list
// it as skill.md), for the archive reader, which wants SKILL.md at the root.
func skillFiles(files []agentskills.File) []agentskills.File {
	out := slices.Clone(files)
	if len(out) > 0 && out[0].Path != agentskills.SkillFile && strings.EqualFold(out[0].Path, agentskills.SkillFile) {
		out[0].Path = agentskills.SkillFile
	}
	return out
}

// errReserved: a skill ships a file named like the install record.
var errReserved = errors.New("the skill contains a file named " + skillrules.RecordFile + ", which wellknown reserves for its install record")

// writeSkill stages files and the record in a fresh folder beside dir and renames it
// to dir/name; with replace, the existing dir/name is renamed away first and removed
// after. On an error before the final rename nothing at dir/name has changed and the
// staging folder is gone.
//
// The files are written by agentskills.ExtractArchive into an os.Root on the staging
// folder, so that every path is checked again by the library's hardened reader (no
// "..", no absolute path, no link, no collision after case folding) and no write can
// leave the folder: GetSkill hands back verified files, not the artifact bytes, so
// they are packed into an uncompressed zip in memory for the extractor.
func writeSkill(dir, name string, files []agentskills.File, rec *InstallRecord, replace bool) (err error) {
	info, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		undo, merr := mkdirAll(dir)
		if merr != nil {
			return merr
		}
		defer func() {
			if err != nil {
				undo()
			}
		}()
	case err != nil:
		return err
	case info.Mode()&fs.ModeSymlink != 0:
		// agentskills.ScanLocal does not follow a symlinked skills folder either: what is
		// installed must be what "skills local" and the agents' scanners see.
		target, terr := filepath.EvalSymlinks(dir)
		if terr != nil {
			target = "a path that does not resolve (" + terr.Error() + ")"
		}
		return fmt.Errorf("%s is a symbolic link to %s: wellknown does not install through links, and agents' scanners do not follow them; make %s a real folder (move %s there in place of the link) and install again", dir, target, dir, target)
	case !info.IsDir():
		return fmt.Errorf("%s is not a folder", dir)
	}
	parent := filepath.Dir(dir)
	stage, err := os.MkdirTemp(parent, ".wellknown-staging-"+name+"-")
	if err != nil {
		return err
	}
	placed := false
	defer func() {
		if !placed {
			if rerr := os.RemoveAll(stage); rerr != nil && err == nil {
				err = rerr
			}
		}
	}()
	if err := os.Chmod(stage, 0o755); err != nil { // MkdirTemp makes it 0700
		return err
	}
	if err := fillStage(stage, files, rec); err != nil {
		return err
	}
	target := filepath.Join(dir, name)
	if !replace {
		// rename(2) fails if target appeared meanwhile as a non-empty folder or a file.
		if err := os.Rename(stage, target); err != nil {
			return err
		}
		placed = true
		return nil
	}
	old, err := os.MkdirTemp(parent, ".wellknown-old-"+name+"-")
	if err != nil {
		return err
	}
	oldTarget := filepath.Join(old, name)
	if err := os.Rename(target, oldTarget); err != nil {
		os.Remove(old)
		return err
	}
	if err := os.Rename(stage, target); err != nil {
		if rerr := os.Rename(oldTarget, target); rerr != nil {
			return fmt.Errorf("%w; and the old folder could not be put back from %s: %v", err, oldTarget, rerr)
		}
		os.Remove(old)
		return err
	}
	placed = true
	if err := os.RemoveAll(old); err != nil {
		return fmt.Errorf("installed, but the old folder %s could not be removed: %w", old, err)
	}
	return nil
}

// mkdirAll is os.MkdirAll(dir, 0o755), returning a function that removes the folders
// it created, if they are still empty: a refused install leaves no trace.
func mkdirAll(dir string) (undo func(), err error) {
	var created []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		created = append(created, d)
	}
	undo = func() {
		for _, d := range created { // deepest first
			os.Remove(d)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		undo()
		return nil, err
	}
	return undo, nil
}

// fillStage writes files and the record into the staging folder and reads them back.
func fillStage(stage string, files []agentskills.File, rec *InstallRecord) error {
	root, err := os.OpenRoot(stage)
	if err != nil {
		return err
	}
	defer root.Close()
	packed, err := storedZip(files)
	if err != nil {
		return err
	}
	if _, err := agentskills.ExtractArchive(packed, agentskills.FormatZip, root, agentskills.Limits{}); err != nil {
		return err
	}
	// Read every file back: what is on disk must be what was verified.
	for _, f := range files {
		data, err := root.ReadFile(f.Path)
		if err != nil {
			return err
		}
		if err := agentskills.Verify(data, int64(len(f.Data)), agentskills.Digest(f.Data)); err != nil {
			return fmt.Errorf("%s changed on disk while installing: %w", cmdutil.Clean(f.Path, 256), err)
		}
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	fh, err := root.OpenFile(skillrules.RecordFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return errReserved
	}
	if err != nil {
		return err
	}
	_, werr := fh.Write(append(data, '\n'))
	if cerr := fh.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// storedZip packs files, uncompressed, for agentskills.ExtractArchive.
func storedZip(files []agentskills.File) ([]byte, error) {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Path, Method: zip.Store})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ReadRecord reads dir/.wellknown.json. The record must be a regular file, parse, and
// name the folder it is in.
func ReadRecord(dir string) (*InstallRecord, error) {
	p := filepath.Join(dir, skillrules.RecordFile)
	info, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	data, err := skillrules.ReadFileLimit(p, maxRecordBytes, "")
	if err != nil {
		return nil, err
	}
	var rec InstallRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if rec.Format != recordFormat || rec.Name != filepath.Base(dir) || rec.Origin == "" {
		return nil, fmt.Errorf("%s is not a wellknown install record for %s", p, filepath.Base(dir))
	}
	return &rec, nil
}

// localChanges reports how the files in dir differ from the record ("" when they
// match): every file added, removed or changed, and anything but a regular file, at
// most maxChanges of them and then how many more.
func localChanges(dir string, rec *InstallRecord) string {
	want := map[string]FileJSON{}
	for _, f := range rec.Files {
		want[f.Path] = f
	}
	var changes []string
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case rel == "." || rel == skillrules.RecordFile:
			return nil
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			changes = append(changes, rel+" is not a regular file")
			delete(want, rel)
			return nil
		}
		f, ok := want[rel]
		if !ok {
			changes = append(changes, rel+" was added")
			return nil
		}
		delete(want, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += info.Size()
		if info.Size() != f.Size || total > 4*agentskills.DefaultMaxBytes {
			changes = append(changes, rel+" was changed")
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if agentskills.Digest(data) != f.Digest {
			changes = append(changes, rel+" was changed")
		}
		return nil
	})
	if err != nil {
		return "unreadable: " + err.Error()
	}
	removed := make([]string, 0, len(want))
	for p := range want {
		removed = append(removed, p+" was removed")
	}
	slices.Sort(removed)
	changes = append(changes, removed...)
	if len(changes) > maxChanges {
		changes = append(changes[:maxChanges], fmt.Sprintf("and %d more", len(changes)-maxChanges))
	}
	return strings.Join(changes, "; ")
}

// maxChanges bounds the changes localChanges lists.
const maxChanges = 20

// printResults prints install or update results; the error makes the exit status 1
// when any skill was refused or failed.
func (a *app) printResults(results []Result, asJSON bool, verb string) error {
	bad := 0
	for _, r := range results {
		if r.Status == StatusRefused || r.Status == StatusFailed {
			bad++
		}
	}
	if asJSON {
		if err := a.PrintJSON(struct {
			Results []Result `json:"results"`
		}{results}); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			a.printResult(r)
		}
	}
	if bad > 0 {
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Err: fmt.Errorf("%d of %s not %s", bad, cmdutil.Plural(len(results), "skill"), verb)}
	}
	return nil
}

func (a *app) printResult(r Result) {
	color := cmdutil.ColorGreen
	switch r.Status {
	case StatusRefused, StatusFailed:
		color = cmdutil.ColorRed
	case StatusRemovedUpstream, StatusPending:
		color = cmdutil.ColorYellow
	case StatusUnchanged:
		color = cmdutil.ColorDim
	}
	line := fmt.Sprintf("%-16s %s", a.Style(color, r.Status), a.Style(cmdutil.ColorBold, r.Name))
	if r.Dir != "" && r.Status != StatusRefused && r.Status != StatusFailed {
		line += " → " + cmdutil.Clean(r.Dir, 1024)
	}
	if r.Digest != "" && (r.Status == StatusInstalled || r.Status == StatusReplaced || r.Status == StatusUpdated) {
		line += fmt.Sprintf(" (%s, %s)", shortDigest(r.Digest), cmdutil.Plural(len(r.Files), "file"))
	} else if len(r.Files) > 0 {
		line += fmt.Sprintf(" (%s)", cmdutil.Plural(len(r.Files), "file"))
	}
	if r.PreviousDigest != "" && r.Status == StatusUpdated {
		line += " was " + shortDigest(r.PreviousDigest)
	}
	fmt.Fprintln(a.Out, line)
	if r.Message != "" {
		fmt.Fprintf(a.Out, "    %s\n", cmdutil.Clean(r.Message, 2048))
	}
	if r.Publisher != nil {
		color := cmdutil.ColorGreen
		if !r.Publisher.Verified {
			color = cmdutil.ColorYellow
		}
		fmt.Fprintf(a.Out, "    %s\n", a.Style(color, r.Publisher.String()))
	}
}

// shortDigest is "sha256:" and the first 12 hex digits.
func shortDigest(d string) string {
	if len(d) > len(agentskills.DigestPrefix)+12 {
		return d[:len(agentskills.DigestPrefix)+12] + "…"
	}
	return d
}

// unverifiedWhy says why a fetched skill is unverified, as GetSkill's warning does
// (a v0.1.0 index publishes no digests; a v0.2.0 one read leniently gave none).
func unverifiedWhy(sk *discovery.Skill) string {
	for _, w := range sk.Warnings {
		if w.Code == "unverified" {
			return cmdutil.Clean(w.Message, 256)
		}
	}
	return "the index publishes no digest for it"
}
