//go:build unix

package main

import (
	"runtime"
	"slices"
	"syscall"
	"time"
)

// A point is one measurement: the cost of one operation at one size.
type point struct {
	size   int     // bytes, entries, skills or origins
	ns     float64 // CPU time of one operation (wall time for the scan), the best of several batches
	allocs float64 // allocations of one operation
	bytes  float64 // bytes allocated by one operation
	rss    float64 // peak resident memory of the process, MiB (scan only)
}

// A curve is one operation measured at growing sizes.
type curve struct {
	group  string // the figure it is drawn in
	name   string
	unit   string // what size counts: "B", "entries", "skills", "origins"
	points []point
	note   string
}

// measure runs op in batches until each batch takes at least batch, keeps the best
// batch's CPU time per operation, and counts the allocations of one run of op. CPU
// time (of the whole process, the garbage collector's threads included) rather than
// wall time: on a shared machine waiting for a CPU is not the reader's cost, and the
// best of three batches is the least disturbed by the caches others share.
func measure(size int, batch time.Duration, op func()) point {
	op() // warm: lazy initialisation, grown buffers
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	op()
	runtime.ReadMemStats(&m1)
	p := point{size: size, allocs: float64(m1.Mallocs - m0.Mallocs), bytes: float64(m1.TotalAlloc - m0.TotalAlloc)}
	n := 1
	var best []float64
	for len(best) < 3 {
		start := cpuTime()
		for range n {
			op()
		}
		el := cpuTime() - start
		if el < batch && n < 1<<20 {
			n *= 2
			continue
		}
		best = append(best, float64(el)/float64(n))
	}
	p.ns = slices.Min(best)
	return p
}

// Linearity bounds: a curve whose cost per unit at its largest size is more than
// these times its lowest cost per unit at a smaller size grows faster than its size.
// The short form (CI) allows 3× in time: its sizes stop at 64 KiB, where a document
// parses in microseconds and one lucky small measurement (the lowest cost per unit is
// the reference) moves the ratio by a third on a shared machine; allocations, which
// do not vary, keep their bound, and the long form keeps 2×.
var maxTimeRatio = 2.0

const maxAllocRatio = 1.5

// ratios returns the time and allocation ratios of c: the cost per unit at the
// largest size over the lowest cost per unit at the smaller sizes (at small sizes
// fixed costs dominate, which only raises their cost per unit and lowers the ratio).
// For a curve with peak memory (scan), the second ratio is the largest run's peak
// over the smallest run's: it must stay flat.
func (c *curve) ratios() (timeRatio, allocRatio float64) {
	if len(c.points) < 2 {
		return 1, 1
	}
	last := c.points[len(c.points)-1]
	minT, minA := 0.0, 0.0
	for _, p := range c.points[:len(c.points)-1] {
		t, a := p.ns/float64(p.size), p.allocs/float64(p.size)
		if minT == 0 || t < minT {
			minT = t
		}
		if minA == 0 || a < minA {
			minA = a
		}
	}
	timeRatio = last.ns / float64(last.size) / minT
	allocRatio = 1
	if last.rss > 0 { // memory must stay flat: the peak against the smallest run's
		minR := last.rss
		for _, p := range c.points {
			minR = min(minR, p.rss)
		}
		return timeRatio, last.rss / minR
	}
	if minA > 0 {
		allocRatio = last.allocs / float64(last.size) / minA
	}
	return timeRatio, allocRatio
}

// superlinear reports whether c grows faster than its size.
func (c *curve) superlinear() bool {
	t, a := c.ratios()
	return t > maxTimeRatio || a > maxAllocRatio
}

// cpuTime returns the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		panic(err)
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
