package benchpair

import (
	"testing"
	"time"
)

// TestRun: the ratio is the subject's time over the base's, whichever runs first.
func TestRun(t *testing.T) {
	var ratio float64
	res := testing.Benchmark(func(b *testing.B) {
		ratio = Run(b, func() { time.Sleep(time.Millisecond) }, func() { time.Sleep(3 * time.Millisecond) })
	})
	if res.N == 0 || ratio < 2 || ratio > 4 {
		t.Fatalf("ratio %.2f over %d iterations, want about 3", ratio, res.N)
	}
}
