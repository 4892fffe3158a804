package skilllock

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gowebpki/jcs"

	"github.com/wellknown-dev/discovery/trust"
)

// FileName is the conventional name of a project's lock file.
const FileName = "skills-lock.json"

// Version is the lock format this package reads and writes.
const Version = 1

// Limits on what Parse reads. A lock is written by a tool, but it lives in a repository
// where anyone who can open a pull request can change it.
const (
	// MaxLockBytes is the largest lock file accepted, in bytes.
	MaxLockBytes = 16 << 20
	// maxNameBytes bounds a skill name and a file path element.
	maxNameBytes = 255
)

// Sentinel errors.
var (
	// ErrMalformed is returned by [Parse] and [ReadFile] for a lock that is not valid:
	// bad JSON, unknown members, duplicate skills, unsafe names or paths, malformed
	// digests; and by [HashDir] for a folder holding something other than regular files
	// and directories.
	ErrMalformed = errors.New("skilllock: malformed lock")
	// ErrVersion is returned by [Parse] for a lock whose version this package does not
	// know.
	ErrVersion = errors.New("skilllock: unsupported lock version")
)

// Lock is the record of a project's installed skills: what `wellknown skills install`
// writes and `wellknown skills verify` checks. It is plain data; the zero Lock is an
// empty lock of the current version once written. Marshal orders it, so callers need
// not keep Skills sorted.
type Lock struct {
	// Version is the format version; 0 is written as [Version].
	Version int `json:"version"`
	// Skills are the installed skills, one per name.
	Skills []Skill `json:"skills"`
}

// Skill is the record of one installed skill.
type Skill struct {
	// Name is the skill's folder name under the skills root: one path element, no
	// separators, not "." or "..".
	Name string `json:"name"`
	// Folder is the skills folder the skill was installed into, slash-separated and
	// relative to the folder holding the lock (".agents/skills", ".claude/skills"); ""
	// when the installer does not record it. It is checked like a file path: it cannot
	// be absolute or hold "..". The repository holding a lock can also commit a
	// symbolic link on the way to it: a caller joining it to a folder must not go
	// through links below that folder ("wellknown skills" refuses to).
	Folder string `json:"folder,omitempty"`
	// Source is the URL the skill was installed from, redacted (no userinfo, query or
	// fragment).
	Source string `json:"source"`
	// IndexDigest is the digest ("sha256:<hex>") of the index document that listed the
	// skill when it was installed; "" when unknown. Informational: an index changes
	// whenever any of its skills does, so [Compare] does not use it.
	IndexDigest string `json:"indexDigest,omitempty"`
	// Files maps each file's slash-separated path under the skill's folder to its
	// SHA-256 digest, "sha256:<hex>".
	Files map[string]string `json:"files"`
	// Publisher is the signature verification result at install time; nil when none
	// was attempted. Informational: VerifyDir does not re-verify signatures.
	Publisher *trust.Result `json:"publisher,omitempty"`
}

// Lookup returns the skill named name.
func (l *Lock) Lookup(name string) (Skill, bool) {
	if l == nil {
		return Skill{}, false
	}
	for _, s := range l.Skills {
		if s.Name == name {
			return s, true
		}
	}
	return Skill{}, false
}

// Put adds s, replacing any skill of the same name.
func (l *Lock) Put(s Skill) {
	for i := range l.Skills {
		if l.Skills[i].Name == s.Name {
			l.Skills[i] = s
			return
		}
	}
	l.Skills = append(l.Skills, s)
}

// Marshal encodes a lock in its stable form: skills sorted by name, object members
// sorted (JCS, RFC 8785, ordering), two-space indentation and a final newline, so the
// same lock always gives the same bytes and a change gives a small diff. It validates
// the lock as [Parse] does.
func Marshal(l *Lock) ([]byte, error) {
	if l == nil {
		l = &Lock{}
	}
	c := Lock{Version: l.Version, Skills: slices.Clone(l.Skills)}
	if c.Version == 0 {
		c.Version = Version
	}
	if c.Skills == nil {
		c.Skills = []Skill{}
	}
	slices.SortFunc(c.Skills, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	for i := range c.Skills {
		if c.Skills[i].Files == nil {
			c.Skills[i].Files = map[string]string{}
		}
	}
	if err := validate(&c); err != nil {
		return nil, err
	}
	b, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("skilllock: %w", err)
	}
	canon, err := jcs.Transform(b)
	if err != nil {
		return nil, fmt.Errorf("skilllock: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, canon, "", "  "); err != nil {
		return nil, fmt.Errorf("skilllock: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// Parse decodes and validates a lock. Unknown members are refused (a lock written by a
// newer format must not be half understood), as are versions other than [Version],
// duplicate skill names, names and paths that could leave the skills root, and digests
// that are not SHA-256.
func Parse(data []byte) (*Lock, error) {
	if len(data) > MaxLockBytes {
		return nil, fmt.Errorf("%w: %d bytes (limit %d)", ErrMalformed, len(data), MaxLockBytes)
	}
	var probe struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if probe.Version == nil {
		return nil, fmt.Errorf("%w: no version", ErrMalformed)
	}
	if *probe.Version != Version {
		return nil, fmt.Errorf("%w: %d (this package reads %d)", ErrVersion, *probe.Version, Version)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var l Lock
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the lock object", ErrMalformed)
	}
	if err := validate(&l); err != nil {
		return nil, err
	}
	return &l, nil
}

// ReadFile reads and parses the lock at path.
func ReadFile(path string) (*Lock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxLockBytes+1)); err != nil {
		return nil, err
	}
	l, err := Parse(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// WriteFile writes l to path in its stable form, atomically: a reader sees the old file
// or the new one, never a mix.
func WriteFile(path string, l *Lock) error {
	b, err := Marshal(l)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Digest returns the SHA-256 digest of data as a lock records it, "sha256:<hex>".
func Digest(data []byte) string {
	s := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(s[:])
}

func validate(l *Lock) error {
	if l.Version != Version {
		return fmt.Errorf("%w: %d (this package writes %d)", ErrVersion, l.Version, Version)
	}
	seen := make(map[string]bool, len(l.Skills))
	for i, s := range l.Skills {
		if err := checkName(s.Name); err != nil {
			return fmt.Errorf("%w: skills[%d].name: %v", ErrMalformed, i, err)
		}
		if seen[s.Name] {
			return fmt.Errorf("%w: skill %q listed twice", ErrMalformed, s.Name)
		}
		seen[s.Name] = true
		if s.Folder != "" {
			if err := checkPath(s.Folder); err != nil {
				return fmt.Errorf("%w: skill %q: folder %q: %v", ErrMalformed, s.Name, s.Folder, err)
			}
		}
		if s.IndexDigest != "" && !validDigest(s.IndexDigest) {
			return fmt.Errorf("%w: skill %q: indexDigest is not sha256:<hex>", ErrMalformed, s.Name)
		}
		for p, d := range s.Files {
			if err := checkPath(p); err != nil {
				return fmt.Errorf("%w: skill %q: file %q: %v", ErrMalformed, s.Name, p, err)
			}
			if !validDigest(d) {
				return fmt.Errorf("%w: skill %q: file %q: digest is not sha256:<hex>", ErrMalformed, s.Name, p)
			}
		}
	}
	return nil
}

// checkName accepts a skill folder name: one path element that cannot leave the root.
func checkName(name string) error {
	if name == "" || len(name) > maxNameBytes || name == "." || name == ".." ||
		strings.ContainsAny(name, "/\\:") || hasControl(name) {
		return errors.New("not a plain folder name")
	}
	return nil
}

// hasControl reports whether s holds a control character: names and paths are printed
// one per line by a CLI, and must not forge lines or terminal escapes.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) })
}

// checkPath accepts a slash-separated relative path without "." or ".." elements,
// backslashes, colons or control characters, so it names the same file on every system and stays
// inside the skill's folder.
func checkPath(p string) error {
	if !fs.ValidPath(p) || p == "." || strings.ContainsAny(p, "\\:") || hasControl(p) {
		return errors.New("not a clean relative path")
	}
	for _, e := range strings.Split(p, "/") {
		if len(e) > maxNameBytes {
			return errors.New("path element too long")
		}
	}
	return nil
}

func validDigest(d string) bool {
	h, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(h) != 2*sha256.Size {
		return false
	}
	for _, c := range h {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
