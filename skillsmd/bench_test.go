package skillsmd_test

import (
	"os"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/wellknown-dev/discovery/skillsmd"
)

func benchDoc(b *testing.B) []byte {
	b.Helper()
	data, err := os.ReadFile("testdata/bench-8k.md")
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkParse parses an 8 KiB skills.md.
func BenchmarkParse(b *testing.B) {
	data := benchDoc(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := skillsmd.Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGoldmarkOnly is the baseline: goldmark (with the table extension we use)
// parsing the same bytes, nothing else.
func BenchmarkGoldmarkOnly(b *testing.B) {
	data := benchDoc(b)
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		md.Parser().Parse(text.NewReader(data))
	}
}
