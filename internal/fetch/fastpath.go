package fetch

import (
	"time"

	"github.com/wellknown-dev/discovery/internal/lru"
)

// FastPath keeps values (the root keeps whole discoveries) until a time, when they
// go stale, in two bounded tiers selected by a flag (Discover and Structured answers).
// A value is only ever read before its time; the caller decides what may be kept.
// Freshness is measured on the monotonic clock from when a value is kept: reading it
// costs one clock read, not time.Now's two, and a wall-clock step changes nothing.
// Safe for concurrent use.
type FastPath[V any] struct {
	tiers [2]*lru.Cache[fastEntry[V]]
	start time.Time // carries a monotonic reading: time.Since(start) reads that clock alone
}

type fastEntry[V any] struct {
	v     V
	until time.Duration // since FastPath.start
}

// NewFastPath returns a FastPath whose tiers hold maxBytes each.
func NewFastPath[V any](maxBytes int64) *FastPath[V] {
	return &FastPath[V]{tiers: [2]*lru.Cache[fastEntry[V]]{lru.New[fastEntry[V]](maxBytes), lru.New[fastEntry[V]](maxBytes)}, start: time.Now()}
}

// Get returns the value kept under key in the tier, if it is still fresh.
func (p *FastPath[V]) Get(tier bool, key string) (V, bool) {
	e, ok := p.tiers[b2i(tier)].Get(key)
	if !ok || time.Since(p.start) >= e.until {
		var zero V
		return zero, false
	}
	return e.v, true
}

// Keep keeps v under key in the tier until the time given, at the cost given; a time
// already past keeps nothing.
func (p *FastPath[V]) Keep(tier bool, key string, v V, until time.Time, cost int64) {
	if until.IsZero() {
		return
	}
	now := time.Now()
	if !now.Before(until) {
		return
	}
	// until is a wall-clock time (from Date and max-age): what is left of it now,
	// added to the monotonic time elapsed, is when the value goes stale.
	p.tiers[b2i(tier)].Set(key, fastEntry[V]{v: v, until: now.Sub(p.start) + until.Sub(now)}, cost)
}

// Earliest returns the earlier of two freshness ends, where zero means not fresh.
func Earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.IsZero() {
		return time.Time{}
	}
	if b.Before(a) {
		return b
	}
	return a
}
