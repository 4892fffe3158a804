package agentskills_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
)

// TestParseIndexCostBounded: whatever its shape, an index costs about what an index
// of the same size in the RFC's shape costs to parse: the lenient reader looks at
// every string value of an entry (array elements included, under nested path-like
// keys), and a hostile site can serve an index built to make that expensive (changing
// a byte each time so the parse memo misses) to every agent and scanner that lists
// its skills. A 256 KiB index may allocate at most four times what the RFC-shaped one
// does, or 200 bytes per input byte. Not parallel: it measures the process's
// allocations.
func TestParseIndexCostBounded(t *testing.T) {
	rfc := fillIndex(`{"skills":[`, `{"name":"a","description":"d","files":["SKILL.md"]}`, `]}`)
	base := parseIndexAllocs(rfc)
	for name, data := range map[string][]byte{
		"string array under a nested path key": fillIndex(`{"skills":[{"name":"a","description":"d","x":{"path":[`, `"a"`, `]}}]}`),
		"string array, display name":           fillIndex(`{"skills":[{"name":"A","description":"d","path":[`, `"a"`, `]}]}`),
		"name-only entries":                    fillIndex(`{"skills":[`, `{"id":"a"}`, `]}`),
	} {
		got := parseIndexAllocs(data)
		t.Logf("%s: %d MB allocated for %d KiB (RFC-shaped index of the same size: %d MB)", name, got>>20, len(data)>>10, base>>20)
		if limit := max(4*base, 200*uint64(len(data))); got > limit {
			t.Errorf("%s: ParseIndex allocated %d MB for a %d KiB index, over %d MB (%.0f bytes per input byte)",
				name, got>>20, len(data)>>10, limit>>20, float64(got)/float64(len(data)))
		}
	}
}

// indexCostSize is the size of the indexes the cost tests build.
const indexCostSize = 256 << 10

// fillIndex builds an index of about indexCostSize bytes: head, unit repeated with
// commas, tail.
func fillIndex(head, unit, tail string) []byte {
	var b strings.Builder
	b.WriteString(head)
	for i := 0; b.Len() < indexCostSize-len(tail)-len(unit); i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(unit)
	}
	b.WriteString(tail)
	return []byte(b.String())
}

// parseIndexAllocs returns the bytes ParseIndex (Lenient) allocates for data. The
// process's allocations are measured: callers must not run in parallel.
func parseIndexAllocs(data []byte) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _ = agentskills.ParseIndex(data, legacyIndexURL, agentskills.Lenient)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
