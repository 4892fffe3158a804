package mcpjson_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/wellknown-dev/discovery/internal/benchpair"
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
// iteration (see package benchpair) and reports their ratio. The budget is 4×.
func BenchmarkParseVsUnmarshal(b *testing.B) {
	data := benchDoc(b)
	benchpair.Run(b, func() {
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}, func() {
		if _, err := mcpjson.Parse(data); err != nil {
			b.Fatal(err)
		}
	})
}
