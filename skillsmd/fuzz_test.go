package skillsmd_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/wellknown-dev/discovery/skillsmd"
)

// FuzzParse checks that Parse never panics, that every warning points inside the
// document, that the result re-encodes as JSON, and that ForModel stays in budget
// inside one fence: one opening and one closing tag with the same nonce, the nonce
// never in the site text (checkFence).
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"testdata", corpusDir} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte("---\na: [\n---\n# T\n"))
	f.Add([]byte("\xef\xbb\xbf# T\r\n## API\r- Base URL: https://x.example/api\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := skillsmd.Parse(data)
		if err != nil {
			if utf8.Valid(data) && bytes.IndexByte(data, 0) < 0 {
				t.Fatalf("valid UTF-8 without NUL rejected: %v", err)
			}
			return
		}
		lines := bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) + 1
		for _, w := range d.Warnings {
			if w.Line < 0 || w.Line > lines {
				t.Fatalf("warning line %d outside the %d-line document: %v", w.Line, lines, w)
			}
		}
		for _, s := range d.Sections {
			if s.Line < 1 || s.Line > lines {
				t.Fatalf("section line %d outside the document", s.Line)
			}
		}
		if _, err := json.Marshal(d); err != nil {
			t.Fatalf("result does not re-encode: %v", err)
		}
		fm := d.ForModel("https://fuzz.example")
		if len(fm) > skillsmd.ModelBudget || !utf8.ValidString(fm) {
			t.Fatalf("ForModel broke its contract (%d bytes):\n%s", len(fm), fm)
		}
		checkFence(t, fm)
	})
}
