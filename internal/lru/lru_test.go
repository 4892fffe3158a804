package lru

import (
	"fmt"
	"sync"
	"testing"
)

func TestBoundedByCost(t *testing.T) {
	c := New[[]byte](1000)
	for i := range 100_000 {
		c.Set(fmt.Sprint("k", i), make([]byte, 10), 10+int64(len(fmt.Sprint("k", i))))
		if c.Cost() > 1000 {
			t.Fatalf("cost %d over the budget after %d sets", c.Cost(), i)
		}
	}
	if _, ok := c.Get("k0"); ok {
		t.Error("the oldest entry survived")
	}
	if _, ok := c.Get("k99999"); !ok {
		t.Error("the newest entry was evicted")
	}
	c.Set("big", make([]byte, 2000), 2000)
	if _, ok := c.Get("big"); ok {
		t.Error("an entry over the whole budget was kept")
	}
}

func TestRecentlyUsedSurvives(t *testing.T) {
	c := New[int](30)
	c.Set("a", 1, 10)
	c.Set("b", 2, 10)
	c.Set("c", 3, 10)
	c.Get("a")
	c.Set("d", 4, 10) // evicts b, the least recently used
	if _, ok := c.Get("b"); ok {
		t.Error("b survived")
	}
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Error("a was evicted")
	}
	c.Set("a", 5, 10) // replace
	if v, _ := c.Get("a"); v != 5 || c.Cost() != 30 || c.Len() != 3 {
		t.Errorf("replace: %d, cost %d, len %d", v, c.Cost(), c.Len())
	}
	c.Delete("a")
	if c.Len() != 2 || c.Cost() != 20 {
		t.Errorf("delete: len %d cost %d", c.Len(), c.Cost())
	}
}

func TestConcurrent(t *testing.T) {
	c := New[int](1 << 10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				k := fmt.Sprint(g, "-", i%50)
				c.Set(k, i, 8)
				c.Get(k)
			}
		})
	}
	wg.Wait()
	if c.Cost() > 1<<10 {
		t.Errorf("cost %d", c.Cost())
	}
}

func TestReplaceKeepsCostRight(t *testing.T) {
	c := New[int](100)
	c.Set("a", 1, 10)
	c.Set("b", 2, 10)
	c.Set("a", 3, 30) // replaced in place
	if v, _ := c.Get("a"); v != 3 || c.Len() != 2 || c.Cost() != 40 {
		t.Fatalf("after replace: a=%d len=%d cost=%d", v, c.Len(), c.Cost())
	}
	c.Set("a", 4, 95) // grows past the budget: b, the least recently used, goes
	if _, ok := c.Get("b"); ok || c.Cost() != 95 {
		t.Fatalf("after growing: b kept or cost %d", c.Cost())
	}
	c.Set("a", 5, 101) // alone over the budget: not kept
	if _, ok := c.Get("a"); ok || c.Cost() != 0 || c.Len() != 0 {
		t.Fatalf("an entry over the budget was kept: cost %d", c.Cost())
	}
}
