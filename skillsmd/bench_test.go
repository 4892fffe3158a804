package skillsmd_test

import (
	"os"
	"testing"
	"time"

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

// BenchmarkParseVsGoldmark runs goldmark and Parse on the same bytes in every
// iteration, alternating which goes first, and reports their ratio: on a shared
// machine two benchmarks run one after the other see different loads, while the two
// halves of a pair see the same. The budget is 1.5×.
func BenchmarkParseVsGoldmark(b *testing.B) {
	data := benchDoc(b)
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	var tGold, tParse time.Duration
	gold := func() {
		start := time.Now()
		md.Parser().Parse(text.NewReader(data))
		tGold += time.Since(start)
	}
	parse := func() {
		start := time.Now()
		if _, err := skillsmd.Parse(data); err != nil {
			b.Fatal(err)
		}
		tParse += time.Since(start)
	}
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			gold()
			parse()
		} else {
			parse()
			gold()
		}
		i++
	}
	b.ReportMetric(float64(tParse)/float64(tGold), "ratio")
}
