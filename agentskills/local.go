package agentskills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// DefaultClients are the agent hosts whose skill folders ScanLocal looks in:
// ".agents/skills" (the cross-client location) and ".<client>/skills".
var DefaultClients = []string{"agents", "claude", "codex", "cursor", "gemini", "github", "opencode", "windsurf"}

// LocalOptions configures ScanLocal. The zero value scans nothing: name the folders.
type LocalOptions struct {
	Roots      []string // folders that hold skill folders directly; scanned first
	ProjectDir string   // a project: its .<client>/skills folders; "" skips
	HomeDir    string   // the user's home: its .<client>/skills folders; "" skips
	Clients    []string // client names; nil: DefaultClients
	MaxDepth   int      // folder levels searched below each skills folder; 0: 3
	MaxSkills  int      // skills loaded in all; 0: 512
	Mode       Mode     // how SKILL.md files are checked (Lenient by default)
}

// Scopes of a local skill, in order of precedence.
const (
	ScopeRoot    = "root"
	ScopeProject = "project"
	ScopeUser    = "user"
)

// LocalSkill is a skill found on disk.
type LocalSkill struct {
	Name  string   // the frontmatter name
	Dir   string   // the skill's folder
	Scope string   // ScopeRoot, ScopeProject or ScopeUser
	Skill *SkillMD // the parsed SKILL.md
}

// LocalSkills is what ScanLocal found.
type LocalSkills struct {
	Skills      []LocalSkill
	Diagnostics []Diagnostic // every skipped, shadowed or questionable skill, by path
}

// maxLocalSkillMD bounds the SKILL.md files ScanLocal reads.
const maxLocalSkillMD = 1 << 20

// ScanLocal finds skills the way agent hosts do: a folder holding a SKILL.md under
// each skills folder (Roots, then the project's .<client>/skills, then the user's),
// searched MaxDepth levels deep without entering a skill's own folder, .git or
// node_modules, and without following symbolic links. On a name collision the first
// found wins (roots, then project, then user) and the others are reported as
// shadowed. Every skipped skill has a diagnostic; the error is only for unusable
// options.
func ScanLocal(opts LocalOptions) (*LocalSkills, error) {
	if opts.MaxDepth < 0 || opts.MaxSkills < 0 {
		return nil, errors.New("agentskills: negative MaxDepth or MaxSkills")
	}
	if opts.MaxDepth == 0 {
		opts.MaxDepth = 3
	}
	if opts.MaxSkills == 0 {
		opts.MaxSkills = 512
	}
	clients := opts.Clients
	if clients == nil {
		clients = DefaultClients
	}
	type root struct{ dir, scope string }
	var roots []root
	for _, r := range opts.Roots {
		roots = append(roots, root{r, ScopeRoot})
	}
	for _, base := range []struct{ dir, scope string }{{opts.ProjectDir, ScopeProject}, {opts.HomeDir, ScopeUser}} {
		if base.dir == "" {
			continue
		}
		for _, c := range clients {
			roots = append(roots, root{filepath.Join(base.dir, "."+c, "skills"), base.scope})
		}
	}
	s := &scanner{opts: opts, out: &LocalSkills{}, byName: map[string]string{}}
	for _, r := range roots {
		info, err := os.Lstat(r.dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // most clients have no folder: not worth a diagnostic
		case err != nil:
			s.diag(Warning, "unreadable", r.dir, err.Error())
			continue
		case info.Mode()&fs.ModeSymlink != 0:
			s.diag(Warning, "symlink", r.dir, "skills folder is a symbolic link; not followed")
			continue
		case !info.IsDir():
			continue
		}
		s.walk(r.dir, r.scope, 0)
	}
	return s.out, nil
}

type scanner struct {
	opts   LocalOptions
	out    *LocalSkills
	byName map[string]string // name → folder of the skill that won
	full   bool
}

func (s *scanner) diag(sev Severity, code, where, msg string) {
	s.out.Diagnostics = append(s.out.Diagnostics, Diagnostic{Severity: sev, Code: code, Where: where, Message: msg})
}

// walk searches dir's subfolders for skills, depth levels below the skills folder.
func (s *scanner) walk(dir, scope string, depth int) {
	if depth >= s.opts.MaxDepth || s.full {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		s.diag(Warning, "unreadable", dir, err.Error())
		return
	}
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		switch {
		case name == ".git" || name == "node_modules":
			continue
		case e.Type()&fs.ModeSymlink != 0:
			s.diag(Warning, "symlink", p, "symbolic link; not followed")
			continue
		case !e.IsDir():
			continue
		}
		if file, ok := skillFileIn(p); ok {
			s.load(p, file, scope)
			continue // a skill's own subfolders are its files, not more skills
		}
		s.walk(p, scope, depth+1)
	}
}

// skillFileIn returns the SKILL.md of dir (or skill.md, read with a warning).
func skillFileIn(dir string) (string, bool) {
	for _, n := range []string{SkillFile, "skill.md"} {
		info, err := os.Lstat(filepath.Join(dir, n))
		if err == nil && info.Mode().IsRegular() {
			return n, true
		}
	}
	return "", false
}

func (s *scanner) load(dir, file, scope string) {
	if len(s.out.Skills) >= s.opts.MaxSkills {
		s.full = true
		s.diag(Warning, "limit", dir, fmt.Sprintf("more than %d skills; the rest are not loaded", s.opts.MaxSkills))
		return
	}
	p := filepath.Join(dir, file)
	if file != SkillFile {
		s.diag(Warning, "file-name", p, "the file should be named SKILL.md")
	}
	data, err := readCapped(p, maxLocalSkillMD)
	if err != nil {
		s.diag(Error, "unreadable", p, err.Error()+"; skipped")
		return
	}
	sk, err := ParseSkillMD(data, ParseOptions{Mode: s.opts.Mode, Dir: filepath.Base(dir)})
	if err != nil {
		var se *SkillError
		if errors.As(err, &se) {
			for _, d := range se.Diagnostics {
				d.Where = p
				s.out.Diagnostics = append(s.out.Diagnostics, d)
			}
		}
		s.diag(Error, "skipped", p, "skill not loaded")
		return
	}
	for _, d := range sk.Diagnostics {
		d.Where = p
		s.out.Diagnostics = append(s.out.Diagnostics, d)
	}
	name := sk.Name()
	if winner, taken := s.byName[name]; taken {
		s.diag(Warning, "shadowed", p, fmt.Sprintf("skill %s is shadowed by %s", quoteDoc(name), winner))
		return
	}
	s.byName[name] = dir
	s.out.Skills = append(s.out.Skills, LocalSkill{Name: name, Dir: dir, Scope: scope, Skill: sk})
}

// readCapped reads at most limit bytes of a regular file.
func readCapped(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return data, nil
}
