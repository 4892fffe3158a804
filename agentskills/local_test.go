package agentskills_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
)

func write(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func md(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nbody\n"
}

func TestScanLocal(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	project, home, extra := filepath.Join(base, "project"), filepath.Join(base, "home"), filepath.Join(base, "extra")
	write(t, filepath.Join(project, ".agents/skills/deploy/SKILL.md"), md("deploy", "Project deploy."))
	write(t, filepath.Join(project, ".claude/skills/review/SKILL.md"), md("review", "Project review."))
	write(t, filepath.Join(project, ".claude/skills/review/references/SKILL.md"), md("nested", "Inside a skill: not a skill of its own."))
	write(t, filepath.Join(project, ".claude/skills/group/inner/SKILL.md"), md("inner", "One level down."))
	write(t, filepath.Join(project, ".claude/skills/a/b/c/too-deep/SKILL.md"), md("too-deep", "Below MaxDepth."))
	write(t, filepath.Join(project, ".cursor/skills/broken/SKILL.md"), "# no frontmatter\n")
	write(t, filepath.Join(project, ".cursor/skills/lower/skill.md"), md("lower", "Lower-case file name."))
	write(t, filepath.Join(project, ".codex/skills/node_modules/pkg/SKILL.md"), md("pkg", "Never scanned."))
	write(t, filepath.Join(project, ".codex/skills/.git/hooks/SKILL.md"), md("hooks", "Never scanned."))
	write(t, filepath.Join(home, ".agents/skills/deploy/SKILL.md"), md("deploy", "User deploy, shadowed."))
	write(t, filepath.Join(home, ".claude/skills/notes/SKILL.md"), md("notes", "User notes."))
	write(t, filepath.Join(extra, "first/SKILL.md"), md("first", "From a given root."))
	if err := os.Symlink(filepath.Join(home, ".claude/skills/notes"), filepath.Join(project, ".claude/skills/linked")); err != nil {
		t.Fatal(err)
	}
	got, err := agentskills.ScanLocal(agentskills.LocalOptions{Roots: []string{extra}, ProjectDir: project, HomeDir: home})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got.Skills {
		names = append(names, s.Name+"@"+s.Scope)
	}
	if want := "first@root deploy@project inner@project review@project lower@project deploy@user notes@user"; strings.Join(names, " ") != strings.ReplaceAll(want, "deploy@user ", "") {
		t.Errorf("skills = %v", names)
	}
	var diags []string
	for _, d := range got.Diagnostics {
		rel, _ := filepath.Rel(base, d.Where)
		diags = append(diags, d.Code+" "+rel)
	}
	joined := strings.Join(diags, "\n")
	for _, want := range []string{
		"symlink project/.claude/skills/linked",
		"no-frontmatter project/.cursor/skills/broken/SKILL.md",
		"skipped project/.cursor/skills/broken/SKILL.md",
		"file-name project/.cursor/skills/lower/skill.md",
		"shadowed home/.agents/skills/deploy/SKILL.md",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("no diagnostic %q in:\n%s", want, joined)
		}
	}
	if strings.Contains(joined, "node_modules") || strings.Contains(joined, ".git") || strings.Contains(strings.Join(names, " "), "too-deep") {
		t.Errorf("scanned a folder it must skip:\n%s\n%v", joined, names)
	}
	limited, _ := agentskills.ScanLocal(agentskills.LocalOptions{ProjectDir: project, MaxSkills: 2})
	if len(limited.Skills) != 2 || !strings.Contains(codes(limited.Diagnostics), "limit") {
		t.Errorf("MaxSkills: %d skills, %v", len(limited.Skills), codes(limited.Diagnostics))
	}
}

// FuzzParseSkillMD: no panic; a loaded skill has a name, a description, a JSON-compatible
// frontmatter, and Raw is the input.
func FuzzParseSkillMD(f *testing.F) {
	for _, s := range []string{md("a", "b"), "---\nname: x\ndescription: `a: b`\n---\n", "\xef\xbb\xbf---\r\nname: 1\r\ndescription: d\r\n---", "---\na: &a [*a]\n---\n"} {
		f.Add([]byte(s), "a", false)
	}
	files, _ := filepath.Glob("../../shared/corpus/skillmd/*")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil && len(data) < 16<<10 {
			f.Add(data, "x", true)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, dir string, strict bool) {
		mode := agentskills.Lenient
		if strict {
			mode = agentskills.Strict
		}
		s, err := agentskills.ParseSkillMD(data, agentskills.ParseOptions{Mode: mode, Dir: dir})
		if err != nil {
			return
		}
		if s.Name() == "" || strings.TrimSpace(s.Description()) == "" || string(s.Raw) != string(data) {
			t.Fatalf("loaded a skill without name or description: %q %q", s.Name(), s.Description())
		}
		if _, err := json.Marshal(s.Frontmatter); err != nil {
			t.Fatalf("frontmatter is not JSON-compatible: %v", err)
		}
	})
}
