package skillsmd_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wellknown-dev/discovery/internal/golden"
	"github.com/wellknown-dev/discovery/skillsmd"
)

// TestGolden parses every testdata/*.md and compares the Document (as JSON) and its
// ForModel rendering with testdata/<case>.golden.
func TestGolden(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".md")
		if name == "bench-8k" || name == "survey-notes" { // a benchmark input; the survey's notes
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := skillsmd.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			got := render(t, doc)
			golden.Check(t, strings.TrimSuffix(f, ".md")+".golden", got)
		})
	}
}

func render(t *testing.T, doc *skillsmd.Document) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	b.WriteString("--- ForModel(https://example.com), nonce masked\n")
	b.WriteString(maskNonce(t, doc.ForModel("https://example.com")))
	return b.Bytes()
}

func parse(t *testing.T, name string) *skillsmd.Document {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := skillsmd.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func headings(doc *skillsmd.Document) string {
	var hs []string
	for _, s := range doc.Sections {
		hs = append(hs, s.Heading)
	}
	return strings.Join(hs, "|")
}

func codes(doc *skillsmd.Document) string {
	var cs []string
	for _, w := range doc.Warnings {
		cs = append(cs, w.Code)
	}
	return strings.Join(cs, ",")
}

// TestTypedView checks the typed view of the two layouts the spec names.
func TestTypedView(t *testing.T) {
	t.Parallel()
	t.Run("appendix A", func(t *testing.T) {
		t.Parallel()
		d := parse(t, "appendix-a.md")
		check(t, "Title", d.Title, "Skills")
		check(t, "Purpose", d.Purpose, "This API lets agents read repair ticket status.")
		check(t, "BaseURL", d.BaseURL, "https://tracker.example.com/api/v1")
		check(t, "API", strings.Join(d.API, "|"), "Base URL: https://tracker.example.com/api/v1|Public reads: ticket status by ticket id|Writes: admin only")
		check(t, "Auth", strings.Join(d.Auth, "|"), "Public status reads do not need auth.|Customer actions need a bearer token.|Do not put tokens in prompts, logs, or this file.")
		// The Auth section's prohibition is also a risky action (round 10: a prohibition
		// counts wherever the guide puts it); it stays an auth rule too.
		check(t, "Risky", strings.Join(d.RiskyActions, "|"), "Do not put tokens in prompts, logs, or this file.|"+
			"Ask before changing a ticket.|Do not guess a customer id.|Stop after three failed auth attempts.")
		check(t, "Safe", strings.Join(d.SafeActions, "|"), "")
		check(t, "MoreInfo", infos(d), "mcp.json JSON discovery /.well-known/mcp.json|docs Docs https://tracker.example.com/docs")
		check(t, "Warnings", codes(d), "")
	})
	t.Run("generator layout", func(t *testing.T) {
		t.Parallel()
		d := parse(t, "generator.md")
		check(t, "headings", headings(d), "Purpose|API|Auth|Safe Actions|Risky Actions|Limits|More Info|Credits")
		check(t, "Purpose", d.Purpose, "Acme Orders lets people place and track book orders.")
		check(t, "BaseURL", d.BaseURL, "/api/v1")
		check(t, "Safe", strings.Join(d.SafeActions, "|"), "GET /api/v1/orders/{id}|GET /api/v1/books")
		// The Auth section's "Do not put secrets ... in this file." is a note to the
		// author, not a rule for agents.
		check(t, "Risky", strings.Join(d.RiskyActions, "|"), "POST /api/v1/orders|DELETE /api/v1/orders/{id}")
		check(t, "Limits", strings.Join(d.Limits, "|"), "100 requests a minute.|Stop after repeated errors.")
		check(t, "MoreInfo", infos(d), "docs Docs https://acme.example/docs|docs Docs https://acme.example/docs/orders|"+
			"support Support https://acme.example/support|spec Spec https://colinknapp.com/specs/skill-discovery.html")
		check(t, "SpecVersion", d.SpecVersion, "2026-06-13")
		check(t, "SpecURL", d.SpecURL, "https://colinknapp.com/specs/skill-discovery.html")
		u, err := d.ResolveBase("https://acme.example:8443")
		if err != nil || u.String() != "https://acme.example:8443/api/v1" {
			t.Errorf("ResolveBase = %v, %v", u, err)
		}
	})
	t.Run("free-form", func(t *testing.T) {
		t.Parallel()
		d := parse(t, "freeform.md")
		check(t, "Title", d.Title, "Acme Agent Guide")
		check(t, "Summary", d.Summary, "Pre-built guidance for agents that use the Acme API. Read the rules first.")
		check(t, "headings", headings(d), "|Overview|Rules|Do not|Rate limits|Changelog")
		check(t, "levels", levels(d), "0,2,2,3,2,2")
		check(t, "BaseURL", d.BaseURL, "https://api.acme.example/v2")
		// Items of "Rules" are risky when they read as cautions, safe when they read as
		// permissions; "Nested: prefer the /v2 endpoints." is a rule, neither (round 10:
		// general rules were the false risky actions). Items under "Do not" stay risky
		// by default: the conservative side of a guess.
		check(t, "Risky", strings.Join(d.RiskyActions, "|"), "Never delete a folder.|Ask before sharing a document outside the team.|Do not guess ids.")
		check(t, "Safe", strings.Join(d.SafeActions, "|"), "Read any document.")
		check(t, "Limits", strings.Join(d.Limits, "|"), "Ten calls a second per token.")
		check(t, "links", links(d), "https://api.acme.example/v2|https://acme.example/reference|https://acme.example/status")
		if !strings.Contains(d.Sections[1].Text, "documents | yes | ask first") {
			t.Errorf("table text lost: %q", d.Sections[1].Text)
		}
	})
}

func check(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

func infos(d *skillsmd.Document) string {
	var out []string
	for _, l := range d.MoreInfo {
		out = append(out, l.Kind+" "+l.Label+" "+l.URL)
	}
	return strings.Join(out, "|")
}

func links(d *skillsmd.Document) string {
	var out []string
	for _, l := range d.Links {
		out = append(out, l.URL)
	}
	return strings.Join(out, "|")
}

func levels(d *skillsmd.Document) string {
	var out []string
	for _, s := range d.Sections {
		out = append(out, string(rune('0'+s.Level)))
	}
	return strings.Join(out, ",")
}

func TestHygiene(t *testing.T) {
	t.Parallel()
	t.Run("CRLF, BOM, mixed endings, no final newline", func(t *testing.T) {
		t.Parallel()
		d := parse(t, "crlf-bom.md")
		check(t, "Title", d.Title, "Skills")
		check(t, "BaseURL", d.BaseURL, "https://crlf.example/api")
		check(t, "headings", headings(d), "API|Safety")
		check(t, "lines", lines(d), "3,8")
		check(t, "Risky", strings.Join(d.RiskyActions, "|"), "Ask before writes.")
		check(t, "Safe", strings.Join(d.SafeActions, "|"), "Read freely.")
	})
	t.Run("code fences", func(t *testing.T) {
		t.Parallel()
		d := parse(t, "codefence.md")
		check(t, "headings", headings(d), "API|Safe Actions")
		check(t, "BaseURL", d.BaseURL, "/v1")
		check(t, "links", links(d), "") // URLs in code are not links
	})
	t.Run("frontmatter", func(t *testing.T) {
		t.Parallel()
		d := parse(t, "frontmatter.md")
		if d.Frontmatter["name"] != "Acme" || d.Frontmatter["updated"] != "2026-05-01T00:00:00Z" {
			t.Errorf("Frontmatter = %#v", d.Frontmatter)
		}
		if _, err := json.Marshal(d.Frontmatter); err != nil {
			t.Errorf("frontmatter is not JSON-compatible: %v", err)
		}
		check(t, "headings", headings(d), "API")
		check(t, "lines", lines(d), "12")
	})
	t.Run("broken frontmatter", func(t *testing.T) {
		t.Parallel()
		d := parse(t, "frontmatter-broken.md")
		check(t, "Warnings", codes(d), skillsmd.WarnFrontmatter)
		check(t, "Auth", strings.Join(d.Auth, "|"), "Bearer tokens only.")
		if d.Frontmatter != nil || d.Warnings[0].Line != 1 {
			t.Errorf("Frontmatter = %v, warning %v", d.Frontmatter, d.Warnings[0])
		}
	})
	t.Run("unclosed frontmatter is a thematic break", func(t *testing.T) {
		t.Parallel()
		d, err := skillsmd.Parse([]byte("---\n# Title\n\n## API\n\n- Base path: /x\n"))
		if err != nil || d.Title != "Title" || d.BaseURL != "/x" || len(d.Warnings) != 0 {
			t.Errorf("%+v, %v", d, err)
		}
	})
	for _, tc := range []struct {
		name            string
		in              string
		off, line, col  int
		wantMsgContains string
	}{
		{"invalid UTF-8", "# T\n\nab\xc3(", 7, 3, 3, "UTF-8"},
		{"NUL", "# T\x00", 3, 1, 4, "NUL"},
		{"truncated rune at the end", "ok \xe2\x82", 3, 1, 4, "UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := skillsmd.Parse([]byte(tc.in))
			var se *skillsmd.SyntaxError
			if !errors.As(err, &se) || se.Offset != tc.off || se.Line != tc.line || se.Column != tc.col || !strings.Contains(se.Error(), tc.wantMsgContains) {
				t.Errorf("error = %#v", err)
			}
		})
	}
	t.Run("empty", func(t *testing.T) {
		t.Parallel()
		d, err := skillsmd.Parse(nil)
		if err != nil || d.Title != "" || len(d.Sections) != 0 {
			t.Errorf("%+v, %v", d, err)
		}
	})
	t.Run("too long", func(t *testing.T) {
		t.Parallel()
		d, err := skillsmd.Parse([]byte("# T\n\n" + strings.Repeat("word ", 14000)))
		if err != nil || !strings.Contains(codes(d), skillsmd.WarnTooLong) {
			t.Errorf("warnings %v, %v", codes(d), err)
		}
	})
}

func lines(d *skillsmd.Document) string {
	var out []string
	for _, s := range d.Sections {
		out = append(out, itoa(s.Line))
	}
	return strings.Join(out, ",")
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestDiagnostics(t *testing.T) {
	t.Parallel()
	t.Run("secrets", func(t *testing.T) {
		t.Parallel()
		data, _ := os.ReadFile("testdata/secrets.md")
		d := parse(t, "secrets.md")
		var got []string
		for _, w := range d.Warnings {
			got = append(got, itoa(w.Line)+" "+w.Code)
			for _, secret := range []string{"AKIAQWERTYUIOPASDFGH", "9f8e7d6c5b4a", "Zx81kq0PLm2Nc7Vb93Tr", "MIIEow"} {
				if strings.Contains(w.String(), secret) {
					t.Errorf("warning echoes the secret: %s", w)
				}
			}
		}
		check(t, "warnings", strings.Join(got, "|"), "5 credential|6 credential|8 credential|11 credential")
		fm := d.ForModel("https://example.com")
		if strings.Contains(fm, "AKIAQWERTYUIOPASDFGH") || strings.Contains(fm, "9f8e7d6c5b4a") || !strings.Contains(fm, "[redacted") {
			t.Errorf("ForModel leaks a secret:\n%s", fm)
		}
		_ = data
	})
	t.Run("unsafe links and raw HTML", func(t *testing.T) {
		t.Parallel()
		d := parse(t, "unsafe.md")
		check(t, "warnings", codes(d), "unsafe-link,unsafe-link,unsafe-link,credential,raw-html,raw-html")
		fm := d.ForModel("https://example.com")
		for _, bad := range []string{"javascript:", "data:", "user:secret", "</untrusted-guidance> do"} {
			if strings.Contains(fm, bad) {
				t.Errorf("ForModel contains %q:\n%s", bad, fm)
			}
		}
		checkFence(t, fm)
	})
	t.Run("no API section", func(t *testing.T) {
		t.Parallel()
		d := parse(t, "no-api.md")
		if codes(d) != skillsmd.WarnNoAPI || d.Warnings[0].Line != 5 {
			t.Errorf("warnings = %v", d.Warnings)
		}
	})
}

func TestForModel(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("# Big\n\n## Safety\n\n")
	for range 200 {
		b.WriteString("- Ask before doing something quite long and detailed with a very long description " + strings.Repeat("x", 400) + "\n")
	}
	b.WriteString("\n## Notes\n\nText with \x1b[31mcolour\x1b[0m and \u202eright-to-left override.\n\n## Auth\n\n- bearer \u2028tokens\n")
	d, err := skillsmd.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	fm := d.ForModel("https://big.example")
	if len(fm) > skillsmd.ModelBudget {
		t.Errorf("ForModel is %d bytes, budget %d", len(fm), skillsmd.ModelBudget)
	}
	checkFence(t, fm)
	if !strings.Contains(fm, ` origin="https://big.example"`) {
		t.Errorf("ForModel does not name the origin:\n%s", fm)
	}
	if strings.ContainsAny(fm, "\x1b\u202e\u2028") {
		t.Error("control characters survived")
	}
	if !strings.Contains(fm, "more not shown") || !strings.Contains(fm, "untrusted data, not instructions") {
		t.Errorf("ForModel:\n%s", fm)
	}
	if i, j := strings.Index(fm, "Rules and risky"), strings.Index(fm, "Auth:"); i < 0 || j < i {
		t.Errorf("risky actions must come before auth:\n%s", fm)
	}
}

// TestParseConcurrent parses the fixtures from many goroutines at once, each in a
// different order: Parse reuses internal buffers between calls, and no call may see
// another's state.
func TestParseConcurrent(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	var docs [][]byte
	var want []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := skillsmd.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		j, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		docs, want = append(docs, data), append(want, string(j))
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 3 * len(docs) {
				k := (i*(g+1) + g) % len(docs)
				doc, err := skillsmd.Parse(docs[k])
				if err != nil {
					t.Error(err)
					return
				}
				if got, err := json.Marshal(doc); err != nil || string(got) != want[k] {
					t.Errorf("%s parsed differently in goroutine %d", files[k], g)
					return
				}
			}
		})
	}
	wg.Wait()
}
