package aicatalog_test

import (
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"testing"

	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/internal/testparts"
)

// upstreamDir holds the AI Catalog specification and its example, read in place and
// never copied into this repository.
const upstreamDir = "../../shared/specs/upstream/ai-catalog"

func readUpstream(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(upstreamDir + "/" + name)
	if err != nil {
		testparts.Skip(t, testparts.Shared, err.Error())
	}
	return data
}

// TestUpstreamExample: the specification's example catalog conforms (Strict mode),
// with only the warnings of its older entry form.
func TestUpstreamExample(t *testing.T) {
	t.Parallel()
	data := readUpstream(t, "example-ai-catalog.json")
	c, err := aicatalog.Parse(data, aicatalog.Options{URL: "https://acme-corp.com/.well-known/ai-catalog.json", Mode: aicatalog.Strict})
	if err != nil {
		t.Fatalf("Strict: %v", err)
	}
	if len(c.Entries) != 2 || c.Form != aicatalog.FormLegacy || c.Host == nil || c.Host.DisplayName != "Acme Services Inc." {
		t.Fatalf("catalog = %+v", c)
	}
	for _, d := range c.Diagnostics {
		if d.Code != "legacy-form" {
			t.Errorf("unexpected diagnostic %v", d)
		}
	}
	if got := c.UnknownTypes; len(got) != 1 || got[0] != "application/parquet" {
		t.Errorf("UnknownTypes = %q", got)
	}
}

var jsonBlock = regexp.MustCompile("(?s)```json\n(.*?)\n```")

// TestUpstreamSpecCatalogs: every complete catalog shown in the specification's text
// (a JSON block with specVersion) conforms in Strict mode.
func TestUpstreamSpecCatalogs(t *testing.T) {
	t.Parallel()
	spec := readUpstream(t, "ai-catalog.md")
	n := 0
	for _, m := range jsonBlock.FindAllSubmatch(spec, -1) {
		block := m[1]
		var top map[string]json.RawMessage
		if json.Unmarshal(block, &top) != nil || top["specVersion"] == nil {
			continue // an entry, a fragment, or another document
		}
		n++
		_, err := aicatalog.Parse(block, aicatalog.Options{URL: "https://acme-corp.com/.well-known/ai-catalog.json", Mode: aicatalog.Strict})
		var ve *aicatalog.ValidationError
		if errors.As(err, &ve) {
			for _, d := range ve.Diagnostics {
				// One example gives a placeholder digest ("sha256:a1b2c3d4e5f6", 12 hex
				// digits): Strict mode rightly rejects it.
				if d.Severity == aicatalog.Error && d.Code != "digest" {
					t.Errorf("catalog %d: %v", n, d)
				}
			}
		} else if err != nil {
			t.Errorf("catalog %d: %v", n, err)
		}
	}
	if n == 0 {
		t.Fatal("no catalog found in the specification")
	}
	t.Logf("%d catalogs", n)
}
