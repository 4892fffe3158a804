package mcpjson_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/mcpjson"
)

func seeds(f *testing.F) {
	for _, dir := range []string{"testdata", corpusDir} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	for _, tc := range spellingCases {
		f.Add([]byte(tc.doc))
	}
	for _, tc := range candidateCases {
		f.Add([]byte(tc.doc))
	}
	for _, tc := range rejectedCandidates {
		f.Add([]byte(tc.doc))
	}
	// The fixture of "wellknown lint --explain" (in the command's testdata).
	if data, err := os.ReadFile("../cmd/wellknown/testdata/lint/explain/mcp.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"mcp":{"spec_version":"2026-06-13","status":"stable","servers":[{"name":"a","url":"https://a"}]}}`))
}

func validPointer(p string) bool { return p == "" || strings.HasPrefix(p, "/") }

// FuzzParse: no panic; every problem has a JSON pointer; the result re-encodes.
func FuzzParse(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := mcpjson.Parse(data)
		if err != nil {
			return
		}
		for _, w := range d.Warnings {
			if !validPointer(w.Pointer) || w.Severity != mcpjson.SeverityWarning {
				t.Fatalf("bad warning %+v", w)
			}
		}
		for _, s := range d.Servers {
			if !s.LocalOnly && mcpjson.CheckURL(s.URL) != "" && mcpjson.CheckURL(s.URL) != "url is relative" {
				t.Fatalf("unusable server URL kept: %q", s.URL)
			}
		}
		for _, c := range d.Candidates {
			if !validPointer(c.Pointer) || c.Taken != (c.Why == "") {
				t.Fatalf("bad candidate %+v", c)
			}
		}
		if _, err := json.Marshal(d); err != nil {
			t.Fatalf("result does not re-encode: %v", err)
		}
	})
}

// FuzzValidate: no panic; every problem has a pointer and a severity.
func FuzzValidate(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range mcpjson.Validate(data) {
			if !validPointer(p.Pointer) || p.Message == "" || (p.Severity != mcpjson.SeverityError && p.Severity != mcpjson.SeverityWarning) {
				t.Fatalf("bad problem %+v", p)
			}
		}
	})
}
