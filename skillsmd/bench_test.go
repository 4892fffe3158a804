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

// BenchmarkParseRatio times Parse and goldmark alone on the same bytes, alternating in
// one loop so that both see the same machine (a shared, noisy host drifts by tens of
// percent within seconds), and reports the ratio of their total times. The budget is
// 1.5.
func BenchmarkParseRatio(b *testing.B) {
	data := benchDoc(b)
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	var ours, theirs time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := skillsmd.Parse(data); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		md.Parser().Parse(text.NewReader(data))
		theirs += time.Since(t1)
		ours += t1.Sub(t0)
	}
	b.ReportMetric(float64(ours)/float64(theirs), "parse/goldmark")
}
