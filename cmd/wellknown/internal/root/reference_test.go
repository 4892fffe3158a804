package root

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spf13/cobra/doc"

	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
)

var update = flag.Bool("update", false, "rewrite docs/cli from the commands")

// referenceDir is the generated CLI reference, relative to this package.
const referenceDir = "../../../../docs/cli"

// generateReference writes the Markdown reference of every command into dir.
func generateReference(t *testing.T, dir string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := New(cmdutil.New(nil, &out, &errOut, func(string) string { return "" }))
	cmd.DisableAutoGenTag = true // no date: the files change only when the commands do
	if err := doc.GenMarkdownTree(cmd, dir); err != nil {
		t.Fatal(err)
	}
}

// The reference in docs/cli is generated from the commands (go generate, or go test
// -run TestCLIReference -update in this folder); this fails when it is stale.
func TestCLIReference(t *testing.T) {
	if *update {
		if err := os.RemoveAll(referenceDir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(referenceDir, 0o755); err != nil {
			t.Fatal(err)
		}
		generateReference(t, referenceDir)
		return
	}
	fresh := t.TempDir()
	generateReference(t, fresh)
	want := readTree(t, fresh)
	got := readTree(t, referenceDir)
	for name, body := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("docs/cli/%s is missing: run go generate ./cmd/wellknown/internal/root", name)
		} else if g != body {
			t.Errorf("docs/cli/%s is stale: run go generate ./cmd/wellknown/internal/root", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("docs/cli/%s documents no command: run go generate ./cmd/wellknown/internal/root", name)
		}
	}
}

// readTree returns the contents of the .md files in dir by name.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	m := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(n)] = string(b)
	}
	return m
}
