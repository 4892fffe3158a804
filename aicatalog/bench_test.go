package aicatalog_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/internal/benchpair"
)

// benchCatalog is a catalog of 50 entries of mixed types, some with trust manifests
// (about 16 KiB).
func benchCatalog() []byte {
	var entries []string
	for i := range 50 {
		e := fmt.Sprintf(`{"identifier": "urn:air:example.com:mcp:s%d", "type": "application/mcp-server-card+json", "url": "/servers/s%d/server-card", "description": "Server number %d.", "tags": ["a", "b"]`, i, i, i)
		if i%5 == 0 {
			e += fmt.Sprintf(`, "publisher": {"identifier": "did:web:example.com", "displayName": "Example"}, "trustManifest": {"identity": "urn:air:example.com:mcp:s%d", "provenance": [{"relation": "publishedFrom", "sourceId": "https://git.example.com/s", "sourceDigest": "sha256:%s"}]}`, i, strings.Repeat("ab", 32))
		}
		entries = append(entries, e+"}")
	}
	return []byte(`{"specVersion": "1.0", "host": {"displayName": "Example"}, "entries": [` + strings.Join(entries, ",") + `]}`)
}

// BenchmarkParseVsUnmarshal runs json.Unmarshal into map[string]any and Parse
// (Lenient) on the same bytes in every iteration and reports their ratio.
func BenchmarkParseVsUnmarshal(b *testing.B) {
	data := benchCatalog()
	opts := aicatalog.Options{URL: "https://example.com/.well-known/ai-catalog.json"}
	benchpair.Run(b, func() {
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}, func() {
		if _, err := aicatalog.Parse(data, opts); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkStrictVsUnmarshal is the same for Strict mode (schema validation as well).
func BenchmarkStrictVsUnmarshal(b *testing.B) {
	data := benchCatalog()
	opts := aicatalog.Options{URL: "https://example.com/.well-known/ai-catalog.json", Mode: aicatalog.Strict}
	benchpair.Run(b, func() {
		var v map[string]any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}, func() {
		if _, err := aicatalog.Parse(data, opts); err != nil {
			b.Fatal(err)
		}
	})
}
