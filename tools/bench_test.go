package tools_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/tools"
)

// BenchmarkDiscoverSiteCached measures a discover_site call answered from the fresh
// HTTP cache (the site sends Cache-Control: max-age=300): input validation, the
// cache lookup, parsing and the rendering for the model. Target: 50 µs per call.
func BenchmarkDiscoverSiteCached(b *testing.B) {
	s := fullSite(b)
	ts := tools.New(s.client, nil, nil)
	input := json.RawMessage(fmt.Sprintf(`{"origin": %q}`, s.URL))
	if _, err := ts.Call(b.Context(), "discover_site", input); err != nil {
		b.Fatal(err)
	}
	hits := s.hits[discovery.GuidePath].Load()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := ts.Call(b.Context(), "discover_site", input); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if n := s.hits[discovery.GuidePath].Load(); n != hits {
		b.Fatalf("%d requests during the benchmark: not served from the cache", n-hits)
	}
}
