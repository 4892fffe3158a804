package discovery

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestFlight(t *testing.T) {
	t.Parallel()
	var f flight
	var calls atomic.Int32 // fn runs
	release := make(chan struct{})
	fn := func(ctx context.Context) any {
		calls.Add(1)
		select {
		case <-release:
			return "done"
		case <-ctx.Done():
			return "cancelled"
		}
	}
	// Two callers share one call; the one that gives up does not cancel it for the other.
	ctx1, cancel1 := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() { _, err := f.do(ctx1, "k", fn); errs <- err }()
	vals := make(chan any, 1)
	go func() { v, _ := f.do(context.Background(), "k", fn); vals <- v }()
	waitFor(t, func() bool { return f.waiters("k") == 2 })
	cancel1()
	if err := <-errs; err != context.Canceled {
		t.Fatalf("the impatient caller got %v", err)
	}
	close(release)
	if v := <-vals; v != "done" || calls.Load() != 1 {
		t.Fatalf("the patient caller got %v after %d calls", v, calls.Load())
	}
	// When every caller leaves, the call is cancelled and forgotten: the next caller
	// starts afresh instead of joining a cancelled call.
	ctx2, cancel2 := context.WithCancel(context.Background())
	block := make(chan struct{})
	started := make(chan struct{})
	go func() {
		_, _ = f.do(ctx2, "j", func(ctx context.Context) any { close(started); <-ctx.Done(); <-block; return "stale" })
	}()
	<-started
	cancel2()
	waitFor(t, func() bool { return f.waiters("j") == -1 })
	v, err := f.do(context.Background(), "j", func(context.Context) any { return "fresh" })
	close(block)
	if err != nil || v != "fresh" {
		t.Fatalf("next caller got %v, %v", v, err)
	}
}

// waiters returns how many callers wait for key, or -1 when there is no call.
func (f *flight) waiters(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.calls[key]; ok {
		return c.waiters
	}
	return -1
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 5000 {
		if cond() {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("condition not reached")
}

// TestFlightPanicIsAValue: a panic inside the shared call (a goroutine the callers
// cannot recover in) becomes its value, and the flight forgets the call.
func TestFlightPanicIsAValue(t *testing.T) {
	t.Parallel()
	var f flight
	for range 2 {
		v, err := f.do(context.Background(), "k", func(context.Context) any { panic("boom") })
		if err != nil {
			t.Fatal(err)
		}
		if e := internalError(v); e == nil || !strings.Contains(e.Error(), "boom") {
			t.Fatalf("value %v, error %v", v, e)
		}
	}
	if v, _ := f.do(context.Background(), "k", func(context.Context) any { return 1 }); v != 1 {
		t.Errorf("after a panic, the next call got %v", v)
	}
}
