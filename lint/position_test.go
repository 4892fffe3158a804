package lint_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wellknown-dev/discovery/lint"
)

// TestSkillProblemsAtTheirField checks that a SKILL.md problem about a frontmatter
// field is reported at that field's line, whatever its code: an empty "description:"
// is not at 1:1.
func TestSkillProblemsAtTheirField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc, code string
		line            int
	}{
		{"empty description", "---\nname: demo\ndescription:\n---\n# Demo\n", "no-description", 3},
		{"blank description", "---\nname: demo\ndescription: \"  \"\n---\n# Demo\n", "no-description", 3},
		{"long description", "---\nname: demo\n\ndescription: " + longText(1100) + "\n---\n# Demo\n", "description-length", 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "demo")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(tc.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			l := lint.New(nil)
			if err := l.Lint(t.Context(), dir); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, p := range l.Report().Problems {
				if p.Code == tc.code {
					found = true
					if p.Line != tc.line {
						t.Errorf("%s at line %d, want %d", tc.code, p.Line, tc.line)
					}
				}
			}
			if !found {
				t.Errorf("no %s problem in %+v", tc.code, l.Report().Problems)
			}
		})
	}
}

func longText(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a'
	}
	return string(b)
}
