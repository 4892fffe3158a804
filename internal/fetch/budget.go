package fetch

import (
	"sync"
	"time"
)

// Budget is the network time a multi-request operation (a GetSkill call) has left.
// Time spent asking the user for consent is not charged. Safe for concurrent use.
type Budget struct {
	mu   sync.Mutex // guards left
	left time.Duration
}

// NewBudget returns a Budget of d.
func NewBudget(d time.Duration) *Budget { return &Budget{left: d} }

// Spent reports whether nothing is left.
func (b *Budget) Spent() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.left <= 0
}

// take returns the time a request may use, at most d.
func (b *Budget) take(d time.Duration) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return max(min(d, b.left), time.Millisecond)
}

// charge deducts the time a request used.
func (b *Budget) charge(d time.Duration) {
	b.mu.Lock()
	b.left -= d
	b.mu.Unlock()
}
