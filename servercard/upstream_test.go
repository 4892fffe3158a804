package servercard_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/internal/testparts"
	"github.com/wellknown-dev/discovery/servercard"
)

// upstreamDir holds the Server Card extension's examples, read in place and never
// copied into this repository.
const upstreamDir = "../../shared/specs/upstream/server-card/examples"

func upstreamFiles(t *testing.T, kind string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(upstreamDir, kind, "*.json"))
	if len(files) == 0 {
		testparts.Skip(t, testparts.Shared, "no examples in "+filepath.Join(upstreamDir, kind))
	}
	return files
}

// TestUpstreamValid: every valid example of the extension conforms in Strict mode,
// without a diagnostic.
func TestUpstreamValid(t *testing.T) {
	t.Parallel()
	for _, f := range upstreamFiles(t, "valid") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			c, err := servercard.Parse(data, servercard.Options{Mode: servercard.Strict})
			if err != nil {
				t.Fatalf("Strict: %v", err)
			}
			if len(c.Diagnostics) != 0 {
				t.Errorf("diagnostics: %v", c.Diagnostics)
			}
		})
	}
}

// TestUpstreamInvalid: every invalid example of the extension fails Strict mode with
// an error naming its problem (a code and pointer for the examples known today; any
// error for new ones), and Lenient mode still reads it, with a warning.
func TestUpstreamInvalid(t *testing.T) {
	t.Parallel()
	want := map[string]struct{ code, where string }{
		"bad-name-pattern.json":      {"name", "/name"},
		"date-versioned-schema.json": {"schema-version", "/$schema"},
		"missing-name.json":          {"name", ""},
		"missing-schema.json":        {"schema-version", ""},
		"wrong-schema-name.json":     {"schema-version", "/$schema"},
	}
	for _, f := range upstreamFiles(t, "invalid") {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, err = servercard.Parse(data, servercard.Options{Mode: servercard.Strict})
			var ve *servercard.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Strict: error = %v, want a ValidationError", err)
			}
			w, known := want[name]
			if known && !hasDiag(ve.Diagnostics, servercard.Error, w.code, w.where) {
				t.Errorf("Strict: %v; want an error %q at %q", ve.Diagnostics, w.code, w.where)
			}
			if !known {
				t.Logf("new invalid example; Strict says %v", ve)
			}
			c, err := servercard.Parse(data, servercard.Options{})
			if err != nil {
				t.Fatalf("Lenient: %v", err)
			}
			if known && !hasDiag(c.Diagnostics, servercard.Warning, w.code, w.where) {
				t.Errorf("Lenient: %v", c.Diagnostics)
			}
			if !strings.Contains(ve.Error(), "servercard: card does not conform") {
				t.Errorf("error text %q", ve.Error())
			}
		})
	}
}
