package mcpjson_test

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery/mcpjson"
)

func benchDoc(b *testing.B) []byte {
	b.Helper()
	data, err := os.ReadFile("testdata/bench-2k.json")
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkUnmarshalOnly is the baseline: encoding/json into map[string]any.
func BenchmarkUnmarshalOnly(b *testing.B) {
	data := benchDoc(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse is the client path: decode, schema validation, normalisation and the
// credential scan of a 2 KiB spec-shaped document.
func BenchmarkParse(b *testing.B) {
	data := benchDoc(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := mcpjson.Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate is the publisher path: the strict schema with format assertions.
func BenchmarkValidate(b *testing.B) {
	data := benchDoc(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if probs := mcpjson.Validate(data); len(probs) != 0 {
			b.Fatal(probs)
		}
	}
}

// BenchmarkParseRatio alternates Parse and the bare unmarshal in one loop, so both see
// the same machine, and reports parse/unmarshal. The budget is 4.
func BenchmarkParseRatio(b *testing.B) {
	data := benchDoc(b)
	var ours, theirs time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := mcpjson.Parse(data); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
		theirs += time.Since(t1)
		ours += t1.Sub(t0)
	}
	b.ReportMetric(float64(ours)/float64(theirs), "parse/unmarshal")
}
