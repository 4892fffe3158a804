package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
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
}

func TestLintGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range lintCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, format := range []string{"text", "json", "github", "sarif"} {
				r := runCLI(t, nil, "", append([]string{"lint", "--format", format}, tc.args...)...)
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
