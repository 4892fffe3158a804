package lint_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/diag"
	"github.com/wellknown-dev/discovery/lint"
)

// explainMCP is an mcp.json of no known shape: one endpoint the candidate pass takes,
// and candidates it does not take, each for its own reason.
const explainMCP = `{
  "name": "acme",
  "documentation": {"mcp": "https://acme.dev/docs/mcp"},
  "endpoints": {
    "production": {"streamable": {"url": "https://mcp.acme.dev/mcp"}},
    "billing": {"url": "https://api.acme.dev/v1/quote", "transport": "rest"}
  },
  "environments": {"eu": {"url": "https://eu.acme.dev/rpc", "auth": {"type": "bearer"}}},
  "fallback": "http://mcp.acme.dev/mcp"
}
`

// explainSkills is a skills.md whose base is a nested list item, with another base
// stated elsewhere, an Auth section and a request example sending another header.
const explainSkills = "# Acme\n\n## API\n\n- Base URL:\n  - https://api.acme.dev/v1\n\n## Auth\n\nSend your key in the X-Acme-Key header.\n\n" +
	"## Examples\n\n```sh\ncurl -H \"X-Other-Token: $T\" https://api.acme.dev/v1/invoices\n```\n\n## Notes\n\nBase URL: https://old.acme.dev/v0\n"

func lintExplained(t *testing.T, name, doc string, explain bool) *lint.Report {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	l := lint.New(&lint.Options{Explain: explain})
	if err := l.Lint(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	return l.Report()
}

// TestExplain checks that Options.Explain adds, as info problems with their
// evidence, each decision of the readers, and that nothing else changes: the other
// problems and the counts are those of a run without it.
func TestExplain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, doc string
		want            map[string]string // value → "code|part of the message"
	}{
		{"mcp.json", "mcp.json", explainMCP, map[string]string{
			"https://mcp.acme.dev/mcp":      "endpoint-taken|score 5",
			"https://acme.dev/docs/mcp":     `endpoint-rejected|the key "documentation"`,
			"https://api.acme.dev/v1/quote": `endpoint-rejected|"rest" is not MCP`,
			"https://eu.acme.dev/rpc":       "endpoint-rejected|under the 4 needed",
			"http://mcp.acme.dev/mcp":       "endpoint-rejected|plain http",
		}},
		{"skills.md", "skills.md", explainSkills, map[string]string{
			"https://api.acme.dev/v1":                 "base-taken|lead-in",
			"https://old.acme.dev/v0":                 "base-rejected|outranked by https://api.acme.dev/v1",
			"Send your key in the X-Acme-Key header.": "auth-rule|the Auth section",
			"X-Other-Token header":                    "auth-rejected|read only when it states none",
		}},
		{"skills.md credential sentences", "skills.md", "# Acme\n\n## Register\n\nThe response includes a one-time-shown API key.\n\n" +
			"## Submit\n\nPOST https://api.acme.dev/v1/items with bearer auth.\n", map[string]string{
			"POST https://api.acme.dev/v1/items with bearer auth.": "auth-rule|from a sentence",
			"The response includes a one-time-shown API key.":      `auth-rejected|auth sentence "The response includes a one-time-shown API key." from a sentence not taken: it only mentions a key the API hands out; "POST https://api.acme.dev/v1/items with bearer auth." says how to authenticate`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			plain := lintExplained(t, tc.file, tc.doc, false)
			rep := lintExplained(t, tc.file, tc.doc, true)
			var others []lint.Problem
			for _, p := range rep.Problems {
				if p.Severity != diag.Info {
					p.File = ""
					others = append(others, p)
					continue
				}
				if p.Evidence == nil || p.Line == 0 {
					t.Errorf("info without evidence or line: %+v", p)
					continue
				}
				want, ok := tc.want[p.Evidence.Value]
				if !ok {
					continue
				}
				delete(tc.want, p.Evidence.Value)
				code, part, _ := strings.Cut(want, "|")
				if p.Code != code || !strings.Contains(p.Message, part) {
					t.Errorf("%s: %s %q; want %s containing %q", p.Evidence.Value, p.Code, p.Message, code, part)
				}
				if p.Evidence.Taken != strings.HasSuffix(code, "-taken") && code != "auth-rule" {
					t.Errorf("%s: taken %v with code %s", p.Evidence.Value, p.Evidence.Taken, code)
				}
			}
			for v, w := range tc.want {
				t.Errorf("no info for %s (want %s)", v, w)
			}
			for i := range plain.Problems {
				plain.Problems[i].File = ""
				if plain.Problems[i].Severity == diag.Info {
					t.Errorf("info without Explain: %+v", plain.Problems[i])
				}
			}
			if !slices.EqualFunc(others, plain.Problems, func(a, b lint.Problem) bool { return a.Message == b.Message && a.Code == b.Code && a.Line == b.Line }) {
				t.Errorf("Explain changed the other problems:\n%+v\nwant\n%+v", others, plain.Problems)
			}
			e1, w1 := rep.Count()
			e0, w0 := plain.Count()
			if e1 != e0 || w1 != w0 {
				t.Errorf("Count with Explain %d, %d; without %d, %d", e1, w1, e0, w0)
			}
			// The evidence is in the JSON and SARIF outputs; info is SARIF's "note".
			var j, s bytes.Buffer
			if err := rep.WriteJSON(&j); err != nil {
				t.Fatal(err)
			}
			if err := rep.WriteSARIF(&s); err != nil {
				t.Fatal(err)
			}
			var out struct {
				Problems []struct {
					Severity string         `json:"severity"`
					Evidence map[string]any `json:"evidence"`
				} `json:"problems"`
			}
			if err := json.Unmarshal(j.Bytes(), &out); err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(out.Problems, func(p struct {
				Severity string         `json:"severity"`
				Evidence map[string]any `json:"evidence"`
			}) bool {
				return p.Severity == "info" && p.Evidence["kind"] != nil && p.Evidence["taken"] != nil
			}) {
				t.Errorf("no info problem with evidence in the JSON output:\n%s", j.String())
			}
			if !strings.Contains(s.String(), `"level": "note"`) || !strings.Contains(s.String(), `"evidence"`) {
				t.Errorf("SARIF output has no note with evidence")
			}
		})
	}
}
