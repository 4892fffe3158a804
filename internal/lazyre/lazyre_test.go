package lazyre

import (
	"sync"
	"testing"
)

func TestNew(t *testing.T) {
	re := New(`^a+b$`)
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Go(func() { got[i] = re() })
	}
	wg.Wait()
	for _, g := range got {
		if g != got[0] {
			t.Fatal("compiled more than once")
		}
	}
	if !re().MatchString("aab") || re().MatchString("ba") {
		t.Error("wrong expression")
	}
}

func TestNewPanicsOnFirstUse(t *testing.T) {
	re := New(`(`) // no panic here
	defer func() {
		if recover() == nil {
			t.Error("an invalid expression did not panic on first use")
		}
	}()
	re()
}
