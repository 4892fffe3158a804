package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/internal/testparts"
)

// Set WELLKNOWN_UPDATE_GOLDEN=1 to rewrite testdata/lint/golden from the current output.
var updateGolden = os.Getenv("WELLKNOWN_UPDATE_GOLDEN") != ""

var lintCases = []struct {
	name   string
	args   []string
	code   int // without --strict
	strict int // with --strict
}{
	{"good-site", []string{"testdata/lint/good"}, 0, 0},
	{"good-skill-folder", []string{"testdata/lint/good/agent-skills/invoice-check"}, 0, 0},
	{"good-index", []string{"testdata/lint/good/agent-skills/index.json"}, 0, 0},
	{"bad-skills-md", []string{"testdata/lint/bad/skills-md/skills.md"}, 1, 1}, // a published credential is an error
	{"bad-mcp-json", []string{"testdata/lint/bad/mcp-json/mcp.json"}, 1, 1},
	{"bad-syntax", []string{"testdata/lint/bad/syntax/mcp.json"}, 1, 1},
	{"bad-skill-name", []string{"testdata/lint/bad/wrong-name"}, 1, 1}, // install refuses an invalid or mismatched name
	{"bad-no-description", []string{"testdata/lint/bad/no-description/SKILL.md"}, 1, 1},
	{"bad-index", []string{"testdata/lint/bad/index/index.json"}, 1, 1},
	{"warnings-only", []string{"testdata/lint/warn/skills.md"}, 0, 1},
	// --explain adds info lines, which never make lint fail: the exit statuses are
	// those of the problems alone (mcp.json of no known shape: a schema error).
	{"explain", []string{"--explain", "testdata/lint/explain"}, 1, 1},
	{"explain-skills-md", []string{"--explain", "testdata/lint/explain/skills.md"}, 0, 0},
	{"bad-ai-catalog", []string{"../../lint/testdata/catalog/bad.ai-catalog.json"}, 1, 1},
	{"good-server-card", []string{"../../lint/testdata/catalog/good.server-card.json"}, 0, 0},
}

// upstreamCards holds the Server Card extension's examples, read in place and never
// copied into this repository.
const upstreamCards = "../../../shared/specs/upstream/server-card/examples"

// TestLintUpstreamServerCards: "wellknown lint FILE" passes the extension's valid
// examples and fails each invalid one, as the extension says.
func TestLintUpstreamServerCards(t *testing.T) {
	t.Parallel()
	for kind, code := range map[string]int{"valid": 0, "invalid": exitFailure} {
		files, _ := filepath.Glob(filepath.Join(upstreamCards, kind, "*.json"))
		if len(files) == 0 {
			testparts.Skip(t, testparts.Shared, "no examples in "+filepath.Join(upstreamCards, kind))
		}
		for _, f := range files {
			r := runCLI(t, nil, "", "lint", "--format", "json", f)
			if r.code != code {
				t.Errorf("lint %s: exit %d, want %d\n%s", f, r.code, code, r)
			}
			if got := checkLintJSON(t, []byte(r.stdout)); len(got.Files) != 1 || got.Files[0].Kind != "server-card" {
				t.Errorf("lint %s: files %+v, want one server-card", f, got.Files)
			}
		}
	}
}

func TestLintGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range lintCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, format := range []string{"text", "json", "github", "sarif"} {
				r := runCLI(t, nil, "", append([]string{"lint", "--format", format}, tc.args...)...)
				// A file outside the working folder is named by its absolute URI in
				// SARIF: the golden holds it relative to the repository's root.
				if root, err := filepath.Abs("../.."); err == nil {
					r.stdout = strings.ReplaceAll(r.stdout, "file://"+filepath.ToSlash(root)+"/", "file://REPOSITORY/")
				}
				if r.code != tc.code {
					t.Errorf("--format %s: exit %d, want %d\n%s", format, r.code, tc.code, r)
				}
				golden := filepath.Join("testdata", "lint", "golden", tc.name+"."+format)
				if updateGolden {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, []byte(r.stdout), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want := readFixture(t, golden)
				if r.stdout != want {
					t.Errorf("--format %s: output differs from %s (WELLKNOWN_UPDATE_GOLDEN=1 rewrites it)\n--- got\n%s--- want\n%s", format, golden, r.stdout, want)
				}
				if format == "sarif" {
					checkSARIF(t, []byte(r.stdout))
				}
				if format == "json" {
					checkLintJSON(t, []byte(r.stdout))
				}
			}
			if r := runCLI(t, nil, "", append([]string{"lint", "--strict"}, tc.args...)...); r.code != tc.strict {
				t.Errorf("--strict: exit %d, want %d\n%s", r.code, tc.strict, r)
			}
		})
	}
}

func TestLintText(t *testing.T) {
	t.Parallel()
	// Problems are file:line:col: severity: message [code]; JSON ones carry the pointer.
	r := runCLI(t, nil, "", "lint", "testdata/lint/bad/mcp-json/mcp.json", "testdata/lint/bad/syntax/mcp.json")
	for _, want := range []string{
		"testdata/lint/bad/mcp-json/mcp.json:8:9: error: /mcp/servers/0/url: ",
		"testdata/lint/bad/syntax/mcp.json:5:5: error: ",
		"[schema]",
		"[syntax]",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("lint output lacks %q:\n%s", want, r)
		}
	}
	if !strings.Contains(r.stderr, "2 files checked") {
		t.Errorf("no summary on stderr:\n%s", r)
	}
	// Usage errors: exit 2.
	for _, args := range [][]string{{"lint"}, {"lint", "--format", "xml", "testdata/lint/good"}, {"lint", "testdata/no/such/file"}} {
		if r := runCLI(t, nil, "", args...); r.code != exitUsage {
			t.Errorf("%v: want exit 2:\n%s", args, r)
		}
	}
	// A file of no known kind is an error, not a guess.
	odd := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(odd, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, nil, "", "lint", odd); r.code != exitFailure || !strings.Contains(r.stdout, "[unknown-kind]") {
		t.Errorf("lint of an unknown kind:\n%s", r)
	}
}

// TestLintURL lints what a loopback TLS origin publishes, fetched through the client.
func TestLintURL(t *testing.T) {
	t.Parallel()
	good := "testdata/lint/good/"
	site := map[string]string{
		"/.well-known/skills.md":                           readFixture(t, good+"skills.md"),
		"/.well-known/mcp.json":                            readFixture(t, good+"mcp.json"),
		"/.well-known/agent-skills/index.json":             readFixture(t, good+"agent-skills/index.json"),
		"/.well-known/agent-skills/invoice-check/SKILL.md": readFixture(t, good+"agent-skills/invoice-check/SKILL.md"),
		"/.well-known/agent-skills/ledger.tar.gz":          readFixture(t, good+"agent-skills/ledger.tar.gz"),
	}
	ts, ca := tlsOrigin(t, docs(site))
	env := cliEnv(t, caFileEnv+"="+ca)
	if r := runCLI(t, env, "", "lint", "--strict", ts.URL); r.code != 0 || r.stdout != "" {
		t.Errorf("lint of a good origin:\n%s", r)
	}
	r := runCLI(t, env, "", "lint", "--format", "json", ts.URL)
	if r.code != 0 {
		t.Fatalf("lint --format json of a good origin:\n%s", r)
	}
	got := checkLintJSON(t, []byte(r.stdout))
	kinds := map[string]bool{}
	for _, f := range got.Files {
		kinds[f.Kind] = true
	}
	for _, k := range []string{kindSkillsMD, kindMCPJSON, kindIndex, kindSkillMD} {
		if !kinds[k] {
			t.Errorf("lint of a good origin did not check a %s: %+v", k, got.Files)
		}
	}

	// A tampered artifact and a bad mcp.json, each by its URL.
	bad := map[string]string{}
	for k, v := range site {
		bad[k] = v
	}
	bad["/.well-known/agent-skills/invoice-check/SKILL.md"] += "\nInjected line.\n"
	bad["/.well-known/mcp.json"] = readFixture(t, "testdata/lint/bad/mcp-json/mcp.json")
	tb, _ := tlsOrigin(t, docs(bad))
	r = runCLI(t, env, "", "lint", tb.URL+"/.well-known/agent-skills/index.json")
	if r.code != exitFailure || !strings.Contains(r.stdout, "[digest-mismatch]") || !strings.Contains(r.stdout, "index.json:") {
		t.Errorf("lint of an index with a tampered artifact:\n%s", r)
	}
	r = runCLI(t, env, "", "lint", tb.URL+"/.well-known/mcp.json")
	if r.code != exitFailure || !strings.Contains(r.stdout, "/.well-known/mcp.json:8:9: error: /mcp/servers/0/url") {
		t.Errorf("lint of a bad mcp.json by URL:\n%s", r)
	}
	if r := runCLI(t, env, "", "lint", tb.URL+"/.well-known/nothing.md"); r.code != exitFailure || !strings.Contains(r.stdout, "[not-published]") {
		t.Errorf("lint of a missing URL:\n%s", r)
	}
}

// sarifSchema is the part of the SARIF 2.1.0 schema (sarif-schema-2.1.0.json, OASIS)
// that lint's output uses, with the same constraints: the full schema is not on this
// machine and is not a Go module.
const sarifSubset = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["version", "runs"],
  "properties": {
    "$schema": {"type": "string", "format": "uri"},
    "version": {"const": "2.1.0"},
    "runs": {"type": "array", "minItems": 1, "items": {
      "type": "object",
      "required": ["tool"],
      "properties": {
        "tool": {"type": "object", "required": ["driver"], "properties": {
          "driver": {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string"},
            "version": {"type": "string"},
            "informationUri": {"type": "string", "format": "uri"},
            "rules": {"type": "array", "uniqueItems": true, "items": {
              "type": "object", "required": ["id"], "properties": {
                "id": {"type": "string"},
                "shortDescription": {"$ref": "#/$defs/message"}
              }}}
          }}
        }},
        "columnKind": {"enum": ["utf16CodeUnits", "unicodeCodePoints"]},
        "results": {"type": "array", "items": {
          "type": "object",
          "required": ["message"],
          "properties": {
            "ruleId": {"type": "string"},
            "ruleIndex": {"type": "integer", "minimum": -1},
            "level": {"enum": ["none", "note", "warning", "error"]},
            "message": {"$ref": "#/$defs/message"},
            "locations": {"type": "array", "items": {
              "type": "object", "properties": {
                "physicalLocation": {"type": "object", "properties": {
                  "artifactLocation": {"type": "object", "properties": {"uri": {"type": "string", "format": "uri-reference"}}},
                  "region": {"type": "object", "properties": {
                    "startLine": {"type": "integer", "minimum": 1},
                    "startColumn": {"type": "integer", "minimum": 1}
                  }}
                }},
                "logicalLocations": {"type": "array", "items": {"type": "object", "properties": {
                  "fullyQualifiedName": {"type": "string"}, "kind": {"type": "string"}}}}
              }}}
          }}}
      }}}
  },
  "$defs": {"message": {"type": "object", "anyOf": [{"required": ["text"]}, {"required": ["id"]}],
    "properties": {"text": {"type": "string"}, "id": {"type": "string"}}}}
}`

// checkSARIF validates a SARIF log against sarifSubset, and checks that every result's
// ruleIndex names its rule.
func checkSARIF(t *testing.T, data []byte) {
	t.Helper()
	schema, err := jsonschema.UnmarshalJSON(strings.NewReader(sarifSubset))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif-subset.json", schema); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif-subset.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("SARIF output is not JSON: %v", err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("SARIF output breaks the SARIF 2.1.0 subset: %v", err)
	}
	var log sarifLog
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	for _, run := range log.Runs {
		for _, res := range run.Results {
			if res.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
				t.Errorf("result %q: ruleIndex %d does not name its rule", res.RuleID, res.RuleIndex)
			}
		}
	}
}

// lintJSONOut is lintJSON as a reader decodes it.
type lintJSONOut struct {
	Files    []lintFile `json:"files"`
	Problems []struct {
		File     string `json:"file"`
		Line     int    `json:"line"`
		Column   int    `json:"column"`
		Pointer  string `json:"pointer"`
		Severity string `json:"severity"`
		Code     string `json:"code"`
		Message  string `json:"message"`
	} `json:"problems"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// checkLintJSON decodes --format json output and checks its counts and severities.
func checkLintJSON(t *testing.T, data []byte) lintJSONOut {
	t.Helper()
	var got lintJSONOut
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("--format json: %v\n%s", err, data)
	}
	errs, warns := 0, 0
	for _, p := range got.Problems {
		switch p.Severity {
		case "error":
			errs++
		case "warning":
			warns++
		case "info": // --explain: counted in neither
		default:
			t.Errorf("severity %q", p.Severity)
		}
		if p.File == "" || p.Code == "" || p.Message == "" {
			t.Errorf("incomplete problem %+v", p)
		}
	}
	if errs != got.Errors || warns != got.Warnings {
		t.Errorf("counts %d/%d, problems say %d/%d", got.Errors, got.Warnings, errs, warns)
	}
	return got
}

// TestLintYAMLLineIsTheFileLine: a YAML error in SKILL.md's frontmatter names the
// file's line in its message, the same line as its position (YAML counts from the
// line after the opening ---).
func TestLintYAMLLineIsTheFileLine(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "SKILL.md")
	src := "---\nname: curve\ndescription: Pools.\nmetadata:\n  a: 1\n b: 2\n---\n# Curve\n"
	if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, cliEnv(t), "", "lint", name)
	m := regexp.MustCompile(`SKILL\.md:(\d+):1: error: frontmatter does not parse: line (\d+):`).FindStringSubmatch(r.stdout)
	if r.code != 1 || m == nil || m[1] != m[2] {
		t.Errorf("lint of a bad frontmatter: position and message lines differ or missing:\n%s", r)
	}
}

// what a client or install refuses is an error in lint.
func TestLintErrorsOnWhatClientsRefuse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(rel, body string) string {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := "# Big\n\n" + strings.Repeat("- a line of guidance that goes on and on.\n", 40000) // about 1.6 MB
	bigMCP := `{"mcp":{"spec_version":"2026-06-13","status":"stable","notes":"` + strings.Repeat("x", 1<<20) + `","servers":[]}}`
	skill := "---\nname: secret-skill\ndescription: Has a secret. Use never.\n---\n\nToken ghp_abcdefghijklmnopqrstuvwxyz0123456789 here.\n"
	cases := []struct {
		name, path, code string
	}{
		{"skills.md over the cap", write("big/skills.md", big), "[too-large]"},
		{"mcp.json over the cap", write("bigmcp/mcp.json", bigMCP), "[too-large]"},
		{"GitHub token in skills.md", write("tok/skills.md", "# T\n\nUse ghp_abcdefghijklmnopqrstuvwxyz0123456789 to log in.\n"), "error: possible GitHub token"},
		{"secret key", write("key/skills.md", "# T\n\nKey: sk_live_abcdefghijklmnopqrstuvwx\n"), "[credential]"},
		{"bearer JWT", write("jwt/skills.md", "# T\n\nAuthorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\n"), "[credential]"},
		{"user:pass@ URL", write("url/skills.md", "# T\n\n- API: https://bob:hunter22@api.example.com/v1\n"), "[credential]"},
		{"token in SKILL.md", filepath.Dir(write("secret-skill/SKILL.md", skill)), "[credential]"},
		{"invalid name", filepath.Dir(write("bad-name/SKILL.md", "---\nname: Bad--Name\ndescription: Bad. Use never.\n---\n")), "error: name"},
	}
	link := filepath.Dir(write("linked/SKILL.md", "---\nname: linked\ndescription: Links. Use never.\n---\n"))
	if err := os.Symlink("/etc/hostname", filepath.Join(link, "notes.md")); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, struct{ name, path, code string }{"symlink in a skill folder", link, "[symlink]"})
	for _, tc := range cases {
		r := runCLI(t, nil, "", "lint", tc.path)
		if r.code != exitFailure || !strings.Contains(r.stdout, tc.code) {
			t.Errorf("%s: want exit 1 and %q:\n%s", tc.name, tc.code, r)
		}
	}
	// The same over HTTPS: a skills.md the client refuses fails lint by URL.
	ts, ca := tlsOrigin(t, docs(map[string]string{"/.well-known/skills.md": big}))
	if r := runCLI(t, cliEnv(t, caFileEnv+"="+ca), "", "lint", ts.URL); r.code != exitFailure || !strings.Contains(r.stdout, "[too-large]") {
		t.Errorf("lint of an origin with a 1.6 MB skills.md:\n%s", r)
	}
}

// writeIndex writes a local v0.2.0 index with skill-md entries: name → (url, body).
func writeIndex(t *testing.T, dir string, entries [][3]string) string {
	t.Helper()
	var list []indexEntry
	for _, e := range entries {
		list = append(list, indexEntry{Name: e[0], Type: "skill-md", Description: "d", URL: e[1], Digest: agentskills.Digest([]byte(e[2]))})
		if e[2] != "" && !strings.HasPrefix(e[1], "..") {
			p := filepath.Join(dir, filepath.FromSlash(e[1]))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(e[2]), 0o644)
		}
	}
	data, _ := json.MarshalIndent(map[string]any{"$schema": agentskills.SchemaV020, "skills": list}, "", "  ")
	p := filepath.Join(dir, "index.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// duplicate names are errors; a local index's messages name paths.
func TestLintLocalIndex(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	md := string(skillText("dup", "Twice. Use it.", "# Dup\n"))
	p := writeIndex(t, dir, [][3]string{
		{"dup", "dup/SKILL.md", md},
		{"dup", "dup/SKILL.md", md},
		{"escape", "../../etc/hostname", "x"},
	})
	r := runCLI(t, nil, "", "lint", p)
	if r.code != exitFailure || !strings.Contains(r.stdout, "[duplicate-name]") {
		t.Errorf("duplicate names: want [duplicate-name]:\n%s", r)
	}
	if strings.Contains(r.stdout, "127.0.0.1") || !strings.Contains(r.stdout, "outside the index folder") {
		t.Errorf("local index: loopback URLs in messages:\n%s", r)
	}
}

// HTML pages, cross-origin redirects and unreachable origins, said once and
// rightly.
func TestLintURLFacts(t *testing.T) {
	t.Parallel()
	html := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>hello</html>")
	})
	ts, ca := tlsOrigin(t, html)
	env := cliEnv(t, caFileEnv+"="+ca)
	r := runCLI(t, env, "", "lint", ts.URL+"/.well-known/skills.md")
	if r.code != exitFailure || strings.Contains(r.stdout, "404") || !strings.Contains(r.stdout, "HTML page") {
		t.Errorf("HTML page: want it named, not HTTP 404:\n%s", r)
	}

	a, _, _ := redirectingOrigin(t)
	r = runCLI(t, env, "", "lint", a.URL)
	if r.code != exitFailure || strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stdout, "another origin") ||
		!strings.Contains(r.stdout, "--yes") || strings.Contains(r.stdout, "publishes no") || strings.Contains(r.stdout, "consent denied") {
		t.Errorf("cross-origin redirect: want one problem naming --yes:\n%s", r)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	r = runCLI(t, nil, "", "lint", "http://"+addr)
	if r.code != exitFailure || strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stdout, "[unreachable]") || strings.Contains(r.stdout, "publishes no") {
		t.Errorf("unreachable origin: want one problem:\n%s", r)
	}
}

// columns in code points; mcp.json schema errors with guidance.
func TestLintMCPJSONPresentation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lint := func(body string) cliRun {
		p := filepath.Join(t.TempDir(), "mcp.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return runCLI(t, nil, "", "lint", p)
	}
	_ = dir
	if r := lint(`{"mcp":{"description":"ééé", "x": }}`); !strings.Contains(r.stdout, "mcp.json:1:35: error:") {
		t.Errorf("syntax error column: want 35 (code points):\n%s", r)
	}
	cases := []struct{ name, body, want string }{
		{"plain servers list", `{"servers":[{"name":"a","url":"https://a.example/mcp"}]}`, "wellknown mcp servers"},
		{"registry server.json", `{"name":"io.example/x","version":"1.0.0","remotes":[{"type":"streamable-http","url":"https://a.example/mcp"}]}`, `{"mcp": {`},
		{"missing status", `{"mcp":{"spec_version":"2026-06-13","servers":[]}}`, `"stable" or "experimental"`},
		{"name 42", `{"mcp":{"spec_version":"2026-06-13","status":"stable","servers":[{"name":42,"url":"https://a.example/mcp"}]}}`, "name must be a string, not a number"},
	}
	for _, tc := range cases {
		if r := lint(tc.body); r.code != exitFailure || !strings.Contains(r.stdout, tc.want) {
			t.Errorf("%s: want %q:\n%s", tc.name, tc.want, r)
		}
	}
	r := lint(`{"mcp":{"spec_version":"2026-06-13","status":"active","servers":[]}}`)
	if n := strings.Count(r.stdout, "/mcp/status"); n != 1 {
		t.Errorf("unknown status reported %d times, want once:\n%s", n, r)
	}
}

// A duplicate among names read from "id" (no "name") is found too.
func TestLintDuplicateIDs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	md := string(skillText("dup", "Twice. Use it.", "# Dup\n"))
	if err := os.MkdirAll(filepath.Join(dir, "dup"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dup", "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "index.json")
	doc := `{"skills": [{"id": "dup", "description": "d", "files": ["SKILL.md"]}, {"id": "dup", "description": "d", "files": ["SKILL.md"]}]}`
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, "", "lint", p)
	if r.code != exitFailure || !strings.Contains(r.stdout, "[duplicate-name]") {
		t.Errorf("duplicate ids: want [duplicate-name]:\n%s", r)
	}
}

// TestLintJSONAsEditorsWriteIt: a byte order mark, comments and
// trailing commas are each reported where they are, and the rest of the document is
// still checked and located (before: one "not well-formed JSON" with no position, or
// every problem at 1:1).
func TestLintJSONAsEditorsWriteIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mcp := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(mcp, []byte("\ufeff{\n  // the server\n  \"mcp\": {\"spec_version\": \"2026-06-13\", \"status\": \"stable\",\n    \"servers\": [{\"name\": \"a\", \"url\": \"https://mcp.example.com/mcp\"},]}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, "", "lint", mcp)
	for _, want := range []string{":1:1: error: the file starts with a UTF-8 byte order mark", ":2:3: error: a comment", ":4:68: error: a trailing comma"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("lint mcp.json: lacks %q:\n%s", want, r)
		}
	}
	idx := filepath.Join(dir, ".well-known", "agent-skills", "index.json")
	if err := os.MkdirAll(filepath.Dir(idx), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(idx, []byte("{\n  // hand-edited\n  \"$schema\": \"https://schemas.agentskills.io/discovery/0.2.0/schema.json\",\n  \"skills\": [\n"+
		"    {\"name\": \"a\", \"type\": \"archive\", \"description\": \"d\", \"url\": \"a.tar.gz\", \"digest\": \"sha256:TODO\"},\n  ]\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, nil, "", "lint", idx)
	for _, want := range []string{":2:3: error: a comment", ":5:5: error: /skills/0: entry \"a\" has no valid digest", ":5:101: error: a trailing comma"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("lint index: lacks %q:\n%s", want, r)
		}
	}
}
