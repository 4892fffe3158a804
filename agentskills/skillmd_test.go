package agentskills_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/internal/testparts"
)

func codes(ds []agentskills.Diagnostic) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code)
	}
	return strings.Join(out, ",")
}

// errCodes returns the diagnostic codes of a *SkillError, or "".
func errCodes(err error) string {
	var se *agentskills.SkillError
	if errors.As(err, &se) {
		return codes(se.Diagnostics)
	}
	return ""
}

// TestParseSkillMD covers our own fixtures and synthetic edge cases in both modes.
func TestParseSkillMD(t *testing.T) {
	t.Parallel()
	valid := "---\nname: invoice-check\ndescription: Check invoices.\n---\n\n# Body\n"
	tests := []struct {
		name      string
		in        string
		dir       string
		lenient   string // "" loads with no warning; "err:<codes>" fails; else warning codes
		strict    string
		checkName string
	}{
		{"valid", valid, "invoice-check", "", "", "invoice-check"},
		{"BOM", "\xef\xbb\xbf" + valid, "invoice-check", "bom", "err:bom", "invoice-check"},
		{"CRLF", strings.ReplaceAll(valid, "\n", "\r\n"), "invoice-check", "", "", "invoice-check"},
		{"mixed endings", "---\r\nname: invoice-check\ndescription: Check invoices.\r\n---\n", "invoice-check", "", "", ""},
		{"closing --- last, no final newline", "---\nname: invoice-check\ndescription: Check invoices.\n---", "invoice-check", "", "", ""},
		{"--- inside a quoted value", "---\nname: invoice-check\ndescription: \"a\n  ---\n  b\"\n---\nbody\n", "invoice-check", "", "", ""},
		{"blank lines before ---", "\n\n" + valid, "invoice-check", "leading-blank", "err:leading-blank", ""},
		{"no frontmatter", "# Just markdown\n", "x", "err:no-frontmatter", "err:no-frontmatter", ""},
		{"unclosed frontmatter", "---\nname: x\ndescription: y\n", "x", "err:no-frontmatter", "err:no-frontmatter", ""},
		{"unquoted colon retried", "---\nname: ef\ndescription: Use when: the user asks\n---\n", "ef", "yaml-quoted", "err:yaml", "ef"},
		{"leading backtick retried", "---\nname: p\ndescription: `/p` does things\n---\n", "p", "yaml-quoted", "err:yaml", "p"},
		{"bad indentation", "---\nname: x\nmetadata:\n  a:\n    b: 1\n  - c\n---\n", "x", "err:yaml", "err:yaml", ""},
		{"duplicate keys", "---\nname: x\nname: y\ndescription: d\n---\n", "x", "err:yaml-duplicate", "err:yaml-duplicate", ""},
		{"alias bomb", "---\nname: x\ndescription: d\na: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n---\n", "x", "err:yaml-alias", "err:yaml-alias", ""},
		{"name is a number", "---\nname: 8004\ndescription: d\n---\n", "8004", "name-type", "err:name-type", "8004"},
		{"name not the folder", valid, "other", "name-mismatch", "err:name-mismatch", "invoice-check"},
		{"name too long", "---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\n", "", "name", "err:name", ""},
		{"name with underscore", "---\nname: a_b\ndescription: d\n---\n", "a_b", "name", "err:name", ""},
		{"name with doubled hyphen", "---\nname: a--b\ndescription: d\n---\n", "a--b", "name", "err:name", ""},
		{"name with leading hyphen", "---\nname: -ab\ndescription: d\n---\n", "-ab", "name", "err:name", ""},
		{"unicode lowercase name", "---\nname: données\ndescription: d\n---\n", "données", "", "", "données"},
		{"name in NFD matches an NFC folder", "---\nname: donne\u0301es\ndescription: d\n---\n", "données", "", "", ""},
		{"no name takes the folder", "---\ndescription: d\n---\n", "folder", "no-name", "err:no-name", "folder"},
		{"empty description", "---\nname: x\ndescription: \"\"\n---\n", "x", "err:no-description", "err:no-description", ""},
		{"empty block description", "---\nname: x\ndescription: |\nlicense: MIT\n---\n", "x", "err:no-description", "err:no-description", ""},
		{"description over 1024", "---\nname: x\ndescription: " + strings.Repeat("é", 1025) + "\n---\n", "x", "description-length", "err:description-length", ""},
		{"description of 1024 multi-byte characters", "---\nname: x\ndescription: " + strings.Repeat("é", 1024) + "\n---\n", "x", "", "", ""},
		{"compatibility over 500", "---\nname: x\ndescription: d\ncompatibility: " + strings.Repeat("c", 501) + "\n---\n", "x", "compatibility", "err:compatibility", ""},
		{"metadata not strings", "---\nname: x\ndescription: d\nmetadata:\n  version: 1.0\n---\n", "x", "metadata", "err:metadata", ""},
		{"allowed-tools list", "---\nname: x\ndescription: d\nallowed-tools: [Read, Bash]\n---\n", "x", "allowed-tools", "err:allowed-tools", ""},
		{"allowed-tools comma list", "---\nname: x\ndescription: d\nallowed-tools: Read, Write\n---\n", "x", "allowed-tools", "err:allowed-tools", ""},
		{"unknown fields kept", "---\nname: x\ndescription: d\ntags: [a, b]\nuser-invocable: true\n---\n", "x", "", "unknown-field", ""},
		{"NUL", "---\nname: x\x00\ndescription: d\n---\n", "x", "err:encoding", "err:encoding", ""},
		{"invalid UTF-8", "---\nname: x\ndescription: \xff\n---\n", "x", "err:encoding", "err:encoding", ""},
		{"frontmatter is a list", "---\n- a\n- b\n---\n", "x", "err:yaml", "err:yaml", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, mode := range []agentskills.Mode{agentskills.Lenient, agentskills.Strict} {
				want := tc.lenient
				if mode == agentskills.Strict {
					want = tc.strict
				}
				s, err := agentskills.ParseSkillMD([]byte(tc.in), agentskills.ParseOptions{Mode: mode, Dir: tc.dir})
				if c, ok := strings.CutPrefix(want, "err:"); ok {
					if !errors.Is(err, agentskills.ErrInvalidSkill) || !strings.Contains(errCodes(err), c) {
						t.Errorf("mode %d: error %v (codes %q), want codes with %q", mode, err, errCodes(err), c)
					}
					continue
				}
				if err != nil {
					t.Errorf("mode %d: error %v (codes %q)", mode, err, errCodes(err))
					continue
				}
				if got := codes(s.Diagnostics); got != want {
					t.Errorf("mode %d: warnings %q, want %q", mode, got, want)
				}
				if tc.checkName != "" && s.Name() != tc.checkName {
					t.Errorf("Name() = %q, want %q", s.Name(), tc.checkName)
				}
				if _, err := json.Marshal(s.Frontmatter); err != nil {
					t.Errorf("frontmatter is not JSON-compatible: %v", err)
				}
				if string(s.Raw) != tc.in {
					t.Error("Raw is not the input")
				}
			}
		})
	}
}

func TestAccessors(t *testing.T) {
	t.Parallel()
	in := "---\nname: x\ndescription: d\nlicense: MIT\ncompatibility: Python 3.12\nmetadata:\n  author: me\n  version: \"1.0\"\nallowed-tools: Bash(git:*) Read\nupdated: 2026-05-01\n---\nbody\n"
	s, err := agentskills.ParseSkillMD([]byte(in), agentskills.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.License() != "MIT" || s.Compatibility() != "Python 3.12" || s.Metadata()["version"] != "1.0" ||
		strings.Join(s.AllowedTools(), "|") != "Bash(git:*)|Read" || s.Body != "body\n" {
		t.Errorf("%+v", s)
	}
	if s.Frontmatter["updated"] != "2026-05-01" {
		t.Errorf("a date must keep its source text: %#v", s.Frontmatter["updated"])
	}
}

// TestCorpusSkillMD gives every SKILL.md of the shared corpus an explicit expectation.
func TestCorpusSkillMD(t *testing.T) {
	t.Parallel()
	dir := "../../shared/corpus/skillmd"
	if _, err := os.Stat(dir); err != nil {
		testparts.Skip(t, testparts.Shared, err.Error())
	}
	type want struct{ lenient, strict, name string }
	expect := map[string]want{
		"anthropics__skills__claude-api__official-desc-over-1024.md":                       {"description-length", "err:description-length", "claude-api"},
		"anthropics__skills__internal-comms__valid-baseline.md":                            {"", "", "internal-comms"},
		"anthropics__skills__template__name-dir-mismatch-minimal.md":                       {"name-mismatch", "err:name-mismatch", "template-skill"},
		"ina654321__awesome-skills__apple__empty-block-description.md":                     {"err:no-description", "err:no-description", ""},
		"ina654321__awesome-skills__asml__name-triple-hyphen.md":                           {"name,name-mismatch", "err:name-mismatch", ""},
		"ina654321__awesome-skills__medical-biller__yaml-dup-key-gt-scalar.md":             {"err:yaml", "err:yaml", ""},
		"ina654321__awesome-skills__spacex__yaml-multiline-plain-scalar.md":                {"err:yaml", "err:yaml", ""},
		"jieli-cqwl__org-claude-skills__product__yaml-backtick-claude-fields.md":           {"yaml-quoted,allowed-tools", "err:yaml", "product"},
		"kscz0000__antigravity-awesome-skills-CN__bash-pro__desc-1900-chars.md":            {"description-length", "err:description-length", "bash-pro"},
		"yejiming__web3-awesome-skills__8004__name-is-integer.md":                          {"name-type", "err:name-type", "8004"},
		"yejiming__web3-awesome-skills__curve-pools__yaml-bad-indent.md":                   {"err:yaml", "err:yaml", ""},
		"yejiming__web3-awesome-skills__raydium__lowercase-filename-folded-desc.md":        {"name,name-mismatch", "err:name-mismatch", "Raydium"},
		"yejiming__web3-awesome-skills__subgraph-registry__no-frontmatter.md":              {"err:no-frontmatter", "err:no-frontmatter", ""},
		"yejiming__web3-awesome-skills__x402-agent-api__mixed-CRLF-LF.md":                  {"name-mismatch", "err:name-mismatch", "x402-agent-api-skill"},
		"yejiming__web3-awesome-skills__zerion-api__no-name-no-description.md":             {"err:no-description", "err:no-name", ""},
		"zinzied__antigravity-awesome-skills__android_ui_verification__name-underscore.md": {"name", "err:name", "android_ui_verification"},
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		base := filepath.Base(f)
		t.Run(base, func(t *testing.T) {
			t.Parallel()
			w, ok := expect[base]
			if !ok {
				t.Fatalf("no expectation for %s", base)
			}
			folder := strings.Split(base, "__")[2] // owner__repo__<folder>__case.md
			checkFile(t, f, folder, w.lenient, w.strict, w.name)
		})
	}
}

func checkFile(t *testing.T, f, folder, lenient, strict, name string) {
	t.Helper()
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []agentskills.Mode{agentskills.Lenient, agentskills.Strict} {
		want := lenient
		if mode == agentskills.Strict {
			want = strict
		}
		s, err := agentskills.ParseSkillMD(data, agentskills.ParseOptions{Mode: mode, Dir: folder})
		if c, ok := strings.CutPrefix(want, "err:"); ok {
			if err == nil || !strings.Contains(errCodes(err), c) {
				t.Errorf("mode %d: error %v (codes %q), want codes with %q", mode, err, errCodes(err), c)
			}
			continue
		}
		if err != nil {
			t.Errorf("mode %d: %v", mode, err)
			continue
		}
		if got := codes(s.Diagnostics); got != want {
			t.Errorf("mode %d: warnings %q, want %q", mode, got, want)
		}
		if name != "" && s.Name() != name {
			t.Errorf("Name() = %q, want %q", s.Name(), name)
		}
	}
}
