package servercard_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/wellknown-dev/discovery/internal/benchpair"
	"github.com/wellknown-dev/discovery/servercard"
)

func benchCard(b *testing.B) []byte {
	b.Helper()
	data, err := os.ReadFile("testdata/templated.json")
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkParseVsUnmarshal runs json.Unmarshal into map[string]any and Parse
// (Lenient) on the same card in every iteration and reports their ratio.
func BenchmarkParseVsUnmarshal(b *testing.B) {
	data := benchCard(b)
	benchpair.Run(b, func() {
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}, func() {
		if _, err := servercard.Parse(data, servercard.Options{}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkStrictVsUnmarshal is the same for Strict mode (schema validation as well)
// on a card that conforms.
func BenchmarkStrictVsUnmarshal(b *testing.B) {
	data, err := os.ReadFile("testdata/full.json")
	if err != nil {
		b.Fatal(err)
	}
	benchpair.Run(b, func() {
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}, func() {
		if _, err := servercard.Parse(data, servercard.Options{Mode: servercard.Strict}); err != nil {
			b.Fatal(err)
		}
	})
}
