package skillsmd_test

import (
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/skillsmd"
)

// adversarial are 1 MiB documents of the shapes whose parse time grows faster than
// their size in goldmark (deep blockquotes, link openers on one line) and of the
// other shapes hostile text likes. The client caps bodies at 1 MiB by default.
func adversarial() map[string]string {
	const n = 1 << 20
	rep := func(s string) string { return strings.Repeat(s, n/len(s)) }
	return map[string]string{
		"nested quotes": rep("> "), "quotes then text": rep("> ") + "x\n", "quote lines": rep("> > > > a\n"),
		"link openers": rep("[a]("), "image openers": rep("![a]("), "openers with space": rep("[a]( "), "angle destinations": rep("[a](<"),
		"links per line at the limit": rep(strings.Repeat("[a](b) ", 64) + "\n"),
		"open brackets":               rep("["), "emphasis": rep("*a"), "underscores": rep("_a_b"), "backticks": rep("`"),
		"bare urls": rep("https://a.b/ "), "token assignments": rep("token="), "bearer": rep("bearer "),
		"headings": rep("# h\n"), "table": "|a|b|\n|-|-|\n" + rep("|x|y|\n"), "long line": rep("word "),
		"base labels": rep("- Base URL: /x\n"), "html": rep("<script>"), "unsafe links": rep("[t](javascript:x) "),
		"reference definitions": rep("[a]: /u\n"), "autolinks": rep("<https://a.b> "), "safety items": "## Safety\n" + rep("- ask\n"),
		"nested list markers": rep("- "), "indented nesting": rep("  - a\n"),
	}
}

// TestAdversarialInputs: every shape parses (no hang: each was minutes before the
// structure limits), warnings stay inside the document, and the limits are reported.
func TestAdversarialInputs(t *testing.T) {
	t.Parallel()
	for name, in := range adversarial() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// A hang is caught by go test's -timeout; speed is measured in
			// BenchmarkParseAdversarial, never asserted here (CI runs under -race on a
			// loaded machine).
			d, err := skillsmd.Parse([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Count(in, "\n") + 1
			limited := false
			for _, w := range d.Warnings {
				if w.Line < 0 || w.Line > lines {
					t.Errorf("warning outside the document: %v", w)
				}
				limited = limited || w.Code == skillsmd.WarnTooComplex
			}
			first, _, _ := strings.Cut(in, "\n")
			want := strings.Count(first, "](") > 64 || strings.HasPrefix(in, strings.Repeat("> ", 33)) ||
				strings.HasPrefix(in, strings.Repeat("[a]: /u\n", 256))
			if limited != want {
				t.Errorf("too-complex warning = %v, want %v", limited, want)
			}
		})
	}
}

// TestLimitsKeepOffsets: text beyond the limits is neutralised byte for byte, so
// what stands before and after keeps its lines.
func TestLimitsKeepOffsets(t *testing.T) {
	t.Parallel()
	in := "# T\n\n" + strings.Repeat("> ", 40) + "deep\n\n## After\n\n" + strings.Repeat("[a](b) ", 70) + "\n\n## Last\n"
	d, err := skillsmd.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range d.Sections {
		if s.Level > 0 {
			got = append(got, s.Heading+"@"+itoa(s.Line))
		}
	}
	if strings.Join(got, " ") != "After@5 Last@9" || len(d.Links) != 64 {
		t.Errorf("sections %v, %d links", got, len(d.Links))
	}
	if len(d.Warnings) != 1 || d.Warnings[0].Code != skillsmd.WarnTooComplex || d.Warnings[0].Line != 3 {
		t.Errorf("warnings %v", d.Warnings)
	}
}

// BenchmarkParseAdversarial parses each 1 MiB adversarial shape once per iteration.
func BenchmarkParseAdversarial(b *testing.B) {
	cases := adversarial()
	for b.Loop() {
		for _, in := range cases {
			if _, err := skillsmd.Parse([]byte(in)); err != nil {
				b.Fatal(err)
			}
		}
	}
}
