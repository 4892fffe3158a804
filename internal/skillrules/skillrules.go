// Package skillrules holds what "wellknown skills install" refuses in a skill, which
// package lint reports as errors: invalid names, file names that print as something
// else, the reserved install record, and over-large files.
package skillrules

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/internal/termtext"
)

// CheckSkillName refuses a name that is not a valid Agent Skills name in the strict,
// ASCII form the well-known index RFC requires (a-z, 0-9, single hyphens, at most 64
// characters). Names become folder names on disk, so this is also what keeps a name
// from being a path: no separators, no "..", nothing a file system would reinterpret.
func CheckSkillName(name string) error {
	if probs := agentskills.NameProblems(name, true); len(probs) > 0 {
		return fmt.Errorf("%s is not a valid skill name: %s", QuoteName(name), termtext.Clean(probs[0], 200))
	}
	// NameProblems already forbids every character but a-z, 0-9 and '-'; this states the
	// property the file system code relies on.
	if !filepath.IsLocal(name) || strings.ContainsAny(name, `/\.`) {
		return fmt.Errorf("%s is not a valid skill name", QuoteName(name))
	}
	return nil
}

// QuoteName quotes a name that may be published text, cleaned and bounded.
func QuoteName(name string) string { return fmt.Sprintf("%q", termtext.Clean(name, 80)) }

// RecordFile is the install record inside each installed skill folder.
const RecordFile = ".wellknown.json"

// PrintableName reports whether a file name is valid UTF-8 without control, format or
// bidi characters.
func PrintableName(name string) bool {
	if !utf8.ValidString(name) {
		return false
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return true
}

// ReadFileLimit reads the file name, refusing one larger than limit bytes.
func ReadFileLimit(name string, limit int64, prefix string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s%s is larger than %d bytes", prefix, name, limit)
	}
	return data, nil
}
