package fetch

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestFlight(t *testing.T) {
	t.Parallel()
	var f Flight
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
	lead := func(ctx context.Context, key string) (chan any, chan error) {
		vals, errs := make(chan any, 1), make(chan error, 1)
		go func() { v, err := f.Do(ctx, key, fn); vals <- v; errs <- err }()
		waitFor(t, func() bool { return f.waiters(key) == 0 }) // the call exists: this caller leads
		return vals, errs
	}
	join := func(ctx context.Context, key string, n int) (chan any, chan error) {
		vals, errs := make(chan any, 1), make(chan error, 1)
		go func() { v, err := f.Do(ctx, key, fn); vals <- v; errs <- err }()
		waitFor(t, func() bool { return f.waiters(key) == n })
		return vals, errs
	}

	// A waiting caller that gives up leaves at once; the leader's fetch goes on.
	_, _ = lead(context.Background(), "a")
	ctx1, cancel1 := context.WithCancel(context.Background())
	_, errs1 := join(ctx1, "a", 1)
	cancel1()
	if err := <-errs1; err != context.Canceled {
		t.Fatalf("the impatient waiter got %v", err)
	}

	// A leader that gives up stops its fetch; the caller still waiting starts it again
	// and gets the answer, never the leader's cancellation.
	ctx2, cancel2 := context.WithCancel(context.Background())
	_, leaderErrs := lead(ctx2, "b")
	patient, patientErrs := join(context.Background(), "b", 1)
	cancel2()
	if err := <-leaderErrs; err != context.Canceled {
		t.Fatalf("the impatient leader got %v", err)
	}
	waitFor(t, func() bool { return f.waiters("b") == 0 }) // the patient caller leads the new call
	close(release)
	if v, err := <-patient, <-patientErrs; v != "done" || err != nil {
		t.Fatalf("the patient caller got %v, %v", v, err)
	}
	// Runs of fn: "a" once, "b" twice (the cancelled one and the new one).
	waitFor(t, func() bool { return f.waiters("a") == -1 })
	if n := calls.Load(); n != 3 {
		t.Fatalf("fn ran %d times, want 3", n)
	}

	// When the leader leaves, the call is forgotten: the next caller starts afresh
	// instead of joining a cancelled call.
	ctx3, cancel3 := context.WithCancel(context.Background())
	started := make(chan struct{})
	left := make(chan error, 1)
	go func() {
		_, err := f.Do(ctx3, "j", func(ctx context.Context) any { close(started); <-ctx.Done(); return "stale" })
		left <- err
	}()
	<-started
	cancel3()
	if err := <-left; err != context.Canceled {
		t.Fatalf("the leader got %v", err)
	}
	v, err := f.Do(context.Background(), "j", func(context.Context) any { return "fresh" })
	if err != nil || v != "fresh" {
		t.Fatalf("next caller got %v, %v", v, err)
	}
}

// waiters returns how many callers wait for key, or -1 when there is no call.
func (f *Flight) waiters(key string) int {
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
	var f Flight
	for range 2 {
		v, err := f.Do(context.Background(), "k", func(context.Context) any { panic("boom") })
		if err != nil {
			t.Fatal(err)
		}
		if e := InternalError(v); e == nil || !strings.Contains(e.Error(), "boom") {
			t.Fatalf("value %v, error %v", v, e)
		}
	}
	if v, _ := f.Do(context.Background(), "k", func(context.Context) any { return 1 }); v != 1 {
		t.Errorf("after a panic, the next call got %v", v)
	}
}
