// Package lru is a least-recently-used map bounded by a total cost (bytes, usually),
// safe for concurrent use.
package lru

import (
	"container/list"
	"sync"
)

// Cache maps keys to values, evicting the least recently used entries when the total
// cost passes its budget. An entry that alone costs more than the budget is not kept.
type Cache[V any] struct {
	mu     sync.Mutex
	budget int64
	cost   int64
	order  *list.List // front: most recently used
	items  map[string]*list.Element
}

type entry[V any] struct {
	key  string
	val  V
	cost int64
}

// New returns a Cache whose entries cost at most budget in all.
func New[V any](budget int64) *Cache[V] {
	return &Cache[V]{budget: budget, order: list.New(), items: map[string]*list.Element{}}
}

// Get returns the value under key and marks it used.
func (c *Cache[V]) Get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*entry[V]).val, true
	}
	var zero V
	return zero, false
}

// Set stores val under key with the given cost, evicting what must go.
func (c *Cache[V]) Set(key string, val V, cost int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		if cost <= c.budget {
			// Replace in place: no new list element for a key that stays.
			en := e.Value.(*entry[V])
			c.cost += cost - en.cost
			en.val, en.cost = val, cost
			c.order.MoveToFront(e)
			for c.cost > c.budget {
				c.remove(c.order.Back())
			}
			return
		}
		c.remove(e)
	}
	if cost > c.budget {
		return
	}
	c.items[key] = c.order.PushFront(&entry[V]{key: key, val: val, cost: cost})
	c.cost += cost
	for c.cost > c.budget {
		c.remove(c.order.Back())
	}
}

// Delete removes key.
func (c *Cache[V]) Delete(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.remove(e)
	}
}

// Len returns the number of entries; Cost their total cost.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// Cost returns the total cost of the entries.
func (c *Cache[V]) Cost() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cost
}

// Budget returns the total cost the entries may reach.
func (c *Cache[V]) Budget() int64 { return c.budget }

func (c *Cache[V]) remove(e *list.Element) {
	en := c.order.Remove(e).(*entry[V])
	delete(c.items, en.key)
	c.cost -= en.cost
}
