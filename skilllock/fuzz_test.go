package skilllock

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse: no panic, and whatever parses re-encodes to
// a stable form that parses again to the same bytes.
func FuzzParse(f *testing.F) {
	if golden, err := os.ReadFile(filepath.Join("testdata", "skills-lock.golden")); err == nil {
		f.Add(golden)
	}
	f.Add([]byte(`{"version":1,"skills":[]}`))
	f.Add([]byte(`{"version":1,"skills":[{"name":"a","source":"s","files":{"../x":"sha256:00"}}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse(data)
		if err != nil {
			return
		}
		b, err := Marshal(l)
		if err != nil {
			t.Fatalf("Marshal(Parse()) error = %v", err)
		}
		l2, err := Parse(b)
		if err != nil {
			t.Fatalf("Parse(Marshal()) error = %v\n%s", err, b)
		}
		b2, err := Marshal(l2)
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("Marshal is not stable:\n%s\n%s", b, b2)
		}
	})
}
