package fetch

import (
	"time"

	"github.com/wellknown-dev/discovery/internal/lru"
)

// FastPath keeps values (the root keeps whole discoveries) until a time, when they
// go stale, in two bounded tiers selected by a flag (Discover and Structured answers).
// A value is only ever read before its time; the caller decides what may be kept.
// Safe for concurrent use.
type FastPath[V any] struct {
	tiers [2]*lru.Cache[fastEntry[V]]
	now   func() time.Time
}

type fastEntry[V any] struct {
	v     V
	until time.Time
}

// NewFastPath returns a FastPath whose tiers hold maxBytes each.
func NewFastPath[V any](maxBytes int64, now func() time.Time) *FastPath[V] {
	return &FastPath[V]{tiers: [2]*lru.Cache[fastEntry[V]]{lru.New[fastEntry[V]](maxBytes), lru.New[fastEntry[V]](maxBytes)}, now: now}
}

// Get returns the value kept under key in the tier, if it is still fresh.
func (p *FastPath[V]) Get(tier bool, key string) (V, bool) {
	e, ok := p.tiers[b2i(tier)].Get(key)
	if !ok || !p.now().Before(e.until) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// Keep keeps v under key in the tier until the time given, at the cost given; a time
// already past keeps nothing.
func (p *FastPath[V]) Keep(tier bool, key string, v V, until time.Time, cost int64) {
	if until.IsZero() || !p.now().Before(until) {
		return
	}
	p.tiers[b2i(tier)].Set(key, fastEntry[V]{v: v, until: until}, cost)
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
