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

// BenchmarkParseVsUnmarshal runs json.Unmarshal and Parse on the same bytes in every
// iteration, alternating which goes first, and reports their ratio: on a shared
// machine two benchmarks run one after the other see different loads, while the two
// halves of a pair see the same. The budget is 4×.
func BenchmarkParseVsUnmarshal(b *testing.B) {
	data := benchDoc(b)
	var tJSON, tParse time.Duration
	unmarshal := func() {
		start := time.Now()
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
		tJSON += time.Since(start)
	}
	parse := func() {
		start := time.Now()
		if _, err := mcpjson.Parse(data); err != nil {
			b.Fatal(err)
		}
		tParse += time.Since(start)
	}
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			unmarshal()
			parse()
		} else {
			parse()
			unmarshal()
		}
		i++
	}
	b.ReportMetric(float64(tParse)/float64(tJSON), "ratio")
}
