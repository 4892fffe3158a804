// Package golden compares test output with golden files, rewritten with -update.
package golden

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

// update is registered in every test binary that imports this package.
var update = flag.Bool("update", false, "rewrite the golden files")

// Check compares got with the golden file path, or rewrites the file with -update.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run go test -update and review the diff):\n%s", path, got)
	}
}
