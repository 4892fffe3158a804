package agentskills

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/wellknown-dev/discovery/internal/httpx"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// SkillFile is the name of a skill's main file; in a skill URI it is always explicit.
const SkillFile = "SKILL.md"

// URI addresses a file inside a skill (SEP-2640):
//
//	skill://<skill path>/<file path>
//
// The skill path has one or more segments and ends with the skill's name; its first
// segment sits in the URI authority and is never resolved over the network. The file
// path is "SKILL.md" or a relative path inside the skill. A URI has no query or
// fragment and no "." or ".." segment. The zero URI is not valid.
type URI struct {
	Scheme    string // "skill", or another scheme with the same structure
	SkillPath string // "acme/billing/refunds"
	File      string // "SKILL.md" or "references/RULES.md"
}

// NewURI builds the skill:// URI of file inside the skill at skillPath, checking both.
func NewURI(skillPath, file string) (URI, error) {
	u := URI{Scheme: "skill", SkillPath: strings.Trim(skillPath, "/"), File: file}
	if err := u.check(); err != nil {
		return URI{}, err
	}
	return u, nil
}

// ParseSkillURI parses the URI of a SKILL.md ("skill://acme/billing/refunds/SKILL.md"):
// its skill path is everything before the final "/SKILL.md".
func ParseSkillURI(s string) (URI, error) {
	scheme, path, err := splitURI(s)
	if err != nil {
		return URI{}, err
	}
	skillPath, ok := strings.CutSuffix(path, "/"+SkillFile)
	if !ok {
		return URI{}, fmt.Errorf("%w: %s does not name a %s (it is explicit in skill URIs)", ErrInvalidURI, quote(s), SkillFile)
	}
	u := URI{Scheme: scheme, SkillPath: skillPath, File: SkillFile}
	return u, u.check()
}

// ParseURIInSkill parses the URI of any file of the skill whose root is root
// ("skill://acme/billing/refunds"): s must lie inside that skill.
func ParseURIInSkill(s, root string) (URI, error) {
	rs, rp, err := splitURI(root)
	if err != nil {
		return URI{}, err
	}
	scheme, path, err := splitURI(s)
	if err != nil {
		return URI{}, err
	}
	file, ok := strings.CutPrefix(path, rp+"/")
	if !ok || scheme != rs {
		return URI{}, fmt.Errorf("%w: %s is not inside the skill %s", ErrInvalidURI, quote(s), quote(root))
	}
	u := URI{Scheme: scheme, SkillPath: rp, File: file}
	return u, u.check()
}

// splitURI returns the scheme and the path after "scheme://", refusing queries,
// fragments and userinfo.
func splitURI(s string) (scheme, path string, err error) {
	i := strings.Index(s, "://")
	if i <= 0 {
		return "", "", fmt.Errorf("%w: %s has no scheme://", ErrInvalidURI, quote(s))
	}
	scheme, path = strings.ToLower(s[:i]), s[i+3:]
	if !httpx.ValidScheme(scheme) {
		return "", "", fmt.Errorf("%w: bad scheme in %s", ErrInvalidURI, quote(s))
	}
	if strings.ContainsAny(path, "?#") {
		return "", "", fmt.Errorf("%w: %s has a query or fragment", ErrInvalidURI, quote(s))
	}
	if host, _, _ := strings.Cut(path, "/"); strings.Contains(host, "@") {
		return "", "", fmt.Errorf("%w: %s has userinfo", ErrInvalidURI, quote(s))
	}
	return scheme, path, nil
}

// check validates every segment of the skill path and the file path.
func (u URI) check() error {
	if u.SkillPath == "" {
		return fmt.Errorf("%w: empty skill path", ErrInvalidURI)
	}
	if err := checkSegments(u.SkillPath); err != nil {
		return err
	}
	if u.File == "" || strings.HasSuffix(u.File, "/") {
		return fmt.Errorf("%w: %q does not name a file", ErrInvalidURI, u.File)
	}
	return checkSegments(u.File)
}

// checkSegments refuses empty, "." and ".." segments (also percent-encoded), control
// characters and backslashes.
func checkSegments(p string) error {
	for _, seg := range strings.Split(p, "/") {
		dec, err := url.PathUnescape(seg)
		if err != nil {
			return fmt.Errorf("%w: bad percent-encoding in %q", ErrInvalidURI, seg)
		}
		switch {
		case seg == "":
			return fmt.Errorf("%w: empty segment in %q", ErrInvalidURI, p)
		case dec == "." || dec == "..":
			return fmt.Errorf("%w: %q segment in %q", ErrInvalidURI, dec, p)
		case strings.ContainsAny(dec, "/\\"):
			return fmt.Errorf("%w: a segment of %q hides a separator", ErrInvalidURI, p)
		}
		for _, r := range dec {
			if r < 0x20 || r == 0x7f {
				return fmt.Errorf("%w: control character in %q", ErrInvalidURI, p)
			}
		}
	}
	return nil
}

// Name returns the last segment of the skill path, which must equal the skill's name.
func (u URI) Name() string { return u.SkillPath[strings.LastIndexByte(u.SkillPath, '/')+1:] }

// Root returns the skill root, "skill://<skill path>" with no trailing slash.
func (u URI) Root() string { return u.Scheme + "://" + u.SkillPath }

// String returns the URI.
func (u URI) String() string {
	if u.SkillPath == "" {
		return ""
	}
	return u.Root() + "/" + u.File
}

// IsSkillFile reports whether u names the skill's SKILL.md.
func (u URI) IsSkillFile() bool { return u.File == SkillFile }

// Resolve resolves a relative reference written in the file u names (a SKILL.md
// resolves against its folder, as file references in the Agent Skills format do). The
// result must stay inside the skill: a reference with a scheme, an absolute path, a
// ".." segment, a query or a fragment is refused.
func (u URI) Resolve(ref string) (URI, error) {
	if ref == "" || strings.Contains(ref, "://") || strings.HasPrefix(ref, "/") || strings.ContainsAny(ref, "?#") {
		return URI{}, fmt.Errorf("%w: %s is not a relative reference inside the skill", ErrInvalidURI, quote(ref))
	}
	dir := ""
	if i := strings.LastIndexByte(u.File, '/'); i >= 0 {
		dir = u.File[:i+1]
	}
	ref = strings.TrimPrefix(ref, "./")
	r := URI{Scheme: u.Scheme, SkillPath: u.SkillPath, File: dir + ref}
	if err := r.check(); err != nil {
		return URI{}, err
	}
	return r, nil
}

// quote quotes untrusted text for an error message, cut to a sensible length.
func quote(s string) string { return secrets.Quote(s, 200) }
