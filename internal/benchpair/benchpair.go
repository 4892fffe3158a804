// Package benchpair measures one piece of work against a baseline in the same
// benchmark loop. On a shared machine the load changes from second to second: two
// benchmarks run one after the other see different loads, while the two halves of a
// pair see the same, so the ratio of a paired run is what to compare with a budget.
package benchpair

import (
	"testing"
	"time"
)

// Run calls base and subject once per iteration of b's loop, alternating which goes
// first, and reports the mean time of each ("base-ns/op", "subject-ns/op") and their
// ratio ("ratio": subject over base). It returns the ratio.
func Run(b *testing.B, base, subject func()) float64 {
	b.Helper()
	var tBase, tSubject time.Duration
	timed := func(f func(), total *time.Duration) {
		start := time.Now()
		f()
		*total += time.Since(start)
	}
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			timed(base, &tBase)
			timed(subject, &tSubject)
		} else {
			timed(subject, &tSubject)
			timed(base, &tBase)
		}
		i++
	}
	if i == 0 || tBase == 0 {
		return 0
	}
	ratio := float64(tSubject) / float64(tBase)
	b.ReportMetric(float64(tBase.Nanoseconds())/float64(i), "base-ns/op")
	b.ReportMetric(float64(tSubject.Nanoseconds())/float64(i), "subject-ns/op")
	b.ReportMetric(ratio, "ratio")
	return ratio
}
