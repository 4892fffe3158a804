package skilllock

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Kind says how a file differs from its record.
type Kind string

// The kinds of [Problem].
const (
	// Changed: the file's contents differ from the record, or it is not a regular file
	// (a symbolic link, a device); for a whole skill, its source URL changed.
	Changed Kind = "changed"
	// Missing: the record lists the file (or skill) but it is absent.
	Missing Kind = "missing"
	// Extra: the file (or skill) is present but the record does not list it.
	Extra Kind = "extra"
)

// Problem is one difference between a lock and what is installed or served.
type Problem struct {
	Skill  string // the skill's name
	File   string // slash-separated path under the skill's folder; "" for the skill as a whole
	Kind   Kind
	Detail string // a short explanation, or ""
}

// String formats p as "skill/file: kind (detail)", for one line of CLI output. A name
// holding control characters (possible only in records [Compare] was given unchecked)
// is printed Go-quoted, so it cannot forge lines or terminal escapes.
func (p Problem) String() string {
	s := p.Skill
	if p.File != "" {
		s += "/" + p.File
	}
	if hasControl(s) {
		s = strconv.Quote(s)
	}
	s += ": " + string(p.Kind)
	if p.Detail != "" {
		s += " (" + p.Detail + ")"
	}
	return s
}

// VerifyDir re-hashes the skills installed under root (one folder per skill, named as
// the skill) and returns every difference from l, sorted by skill and file: files whose
// contents changed or that are not regular files, files missing, and files present in a
// locked skill's folder that the lock does not list. Folders of skills the lock does not
// list are not examined. Symbolic links are never followed, and nothing outside root is
// read. An empty result means the installation matches the lock; the error reports only
// a failure to read (root missing, permissions).
func VerifyDir(root string, l *Lock) ([]Problem, error) {
	if l == nil {
		return nil, errors.New("skilllock: VerifyDir: nil lock")
	}
	if err := validate(l); err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("skilllock: %w", err)
	}
	defer r.Close()
	var out []Problem
	for _, s := range l.Skills {
		got, err := hashTree(r, s.Name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			got = map[string]string{}
		case errors.Is(err, errNotDir):
			got = map[string]string{}
			out = append(out, Problem{Skill: s.Name, Kind: Changed, Detail: "skill folder is not a plain directory"})
		case err != nil:
			return nil, fmt.Errorf("skilllock: skill %q: %w", s.Name, err)
		}
		for _, p := range diffFiles(s.Name, s.Files, got) {
			if d, ok := got[p.File]; ok && d == "" {
				p.Detail = "not a regular file"
			}
			out = append(out, p)
		}
	}
	sortProblems(out)
	return out, nil
}

// HashDir returns the file digests of the skill folder dir, as [Skill.Files] records
// them: what an installer calls after writing a skill. It refuses (with [ErrMalformed]) a
// folder holding symbolic links or other non-regular files, or paths a lock cannot
// record.
func HashDir(dir string) (map[string]string, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("skilllock: %w", err)
	}
	defer r.Close()
	files, err := hashTree(r, ".")
	if err != nil {
		return nil, fmt.Errorf("skilllock: %w", err)
	}
	for p, d := range files {
		if d == "" {
			return nil, fmt.Errorf("%w: %q is not a regular file", ErrMalformed, p)
		}
		if err := checkPath(p); err != nil {
			return nil, fmt.Errorf("%w: %q: %v", ErrMalformed, p, err)
		}
	}
	return files, nil
}

// HashFiles returns the digests of fetched files, keyed by their slash-separated path
// under the skill's folder, as [Skill.Files] records them: what a frozen install
// builds from what the site serves before calling [Compare]. Paths a lock cannot record
// (absolute, with "..", backslashes or control characters) are refused with
// [ErrMalformed].
func HashFiles(files map[string][]byte) (map[string]string, error) {
	out := make(map[string]string, len(files))
	for p, b := range files {
		if err := checkPath(p); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrMalformed, strconv.Quote(p), err)
		}
		out[p] = Digest(b)
	}
	return out, nil
}

// Compare compares a lock with what a site serves now, for an install that must
// reproduce the lock exactly (--frozen). served holds records built from the fetched
// skills (Files from [Digest] of each fetched file). For every locked skill it reports
// the skill missing from served, a changed Source, and each changed, missing or extra
// file; skills in served that the lock lacks are reported as Extra. IndexDigest is
// compared when both record one: an index served with other bytes than the lock
// records is a change, even when the skill's own files are the same. Publisher is not
// compared.
func Compare(locked, served *Lock) []Problem {
	var out []Problem
	for _, s := range lockSkills(locked) {
		now, ok := served.Lookup(s.Name)
		if !ok {
			out = append(out, Problem{Skill: s.Name, Kind: Missing, Detail: "no longer served"})
			continue
		}
		if now.Source != s.Source {
			out = append(out, Problem{Skill: s.Name, Kind: Changed, Detail: "source URL changed"})
		}
		if s.IndexDigest != "" && now.IndexDigest != "" && now.IndexDigest != s.IndexDigest {
			out = append(out, Problem{Skill: s.Name, Kind: Changed, Detail: "the index is served with other bytes (" + now.IndexDigest + ")"})
		}
		out = append(out, diffFiles(s.Name, s.Files, now.Files)...)
	}
	for _, s := range lockSkills(served) {
		if _, ok := locked.Lookup(s.Name); !ok {
			out = append(out, Problem{Skill: s.Name, Kind: Extra, Detail: "not in the lock"})
		}
	}
	sortProblems(out)
	return out
}

func lockSkills(l *Lock) []Skill {
	if l == nil {
		return nil
	}
	return l.Skills
}

// diffFiles compares recorded file digests with actual ones.
func diffFiles(skill string, want, got map[string]string) []Problem {
	var out []Problem
	for p, d := range want {
		g, ok := got[p]
		switch {
		case !ok:
			out = append(out, Problem{Skill: skill, File: p, Kind: Missing})
		case g != d:
			out = append(out, Problem{Skill: skill, File: p, Kind: Changed})
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			out = append(out, Problem{Skill: skill, File: p, Kind: Extra})
		}
	}
	return out
}

// errNotDir reports a skill folder that is a symbolic link or a file.
var errNotDir = errors.New("not a plain directory")

// hashTree hashes every regular file under dir (relative to r). Entries that are
// neither regular files nor directories (symbolic links, devices) are mapped to "",
// which no recorded digest equals; links are never followed. When dir itself is not a
// plain directory the error is errNotDir.
func hashTree(r *os.Root, dir string) (map[string]string, error) {
	info, err := r.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, errNotDir
	}
	files := map[string]string{}
	err = fs.WalkDir(r.FS(), dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := path
		if dir != "." {
			rel = strings.TrimPrefix(strings.TrimPrefix(path, dir), "/")
		}
		switch {
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			files[rel] = ""
			return nil
		}
		sum, err := hashFile(r, path)
		if err != nil {
			return err
		}
		files[rel] = sum
		return nil
	})
	return files, err
}

func hashFile(r *os.Root, path string) (string, error) {
	f, err := r.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	// Re-check after opening: the entry may have been swapped for a link meanwhile, and
	// os.Root would follow a link that stays inside root.
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s: not a regular file", path)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

func sortProblems(ps []Problem) {
	slices.SortFunc(ps, func(a, b Problem) int {
		if c := strings.Compare(a.Skill, b.Skill); c != 0 {
			return c
		}
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return strings.Compare(string(a.Kind), string(b.Kind))
	})
}
