package redisstore

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wellknown-dev/discovery"
)

func TestFleetLock(t *testing.T) {
	t.Parallel()
	mr, rdb, cnt := newMini(t)
	a, _, _, _ := newStore(t, rdb, nil)
	b, _, _, _ := newStore(t, rdb, nil)
	ctx := t.Context()

	release, ok, err := a.FleetLock().TryLock(ctx, testURL, 5*time.Second)
	if err != nil || !ok {
		t.Fatalf("TryLock = %v, %v; want acquired", ok, err)
	}
	if got := cnt.take(); !slices.Equal(got, []string{"set"}) {
		t.Errorf("TryLock sent %v, want one SET", got)
	}
	k := a.key("lock:", testURL)
	if ttl := mr.TTL(k); ttl != 5*time.Second {
		t.Errorf("lock TTL = %s, want 5s", ttl)
	}
	if _, ok, err := b.FleetLock().TryLock(ctx, testURL, 5*time.Second); ok || err != nil {
		t.Fatalf("second TryLock = %v, %v; want not acquired", ok, err)
	}
	if held, err := b.FleetLock().Held(ctx, testURL); !held || err != nil {
		t.Fatalf("Held = %v, %v; want true", held, err)
	}
	cnt.take()
	release()
	release() // idempotent
	// EVALSHA, and EVAL the first time a server sees the script.
	if got := cnt.take(); !slices.Equal(got, []string{"evalsha"}) && !slices.Equal(got, []string{"evalsha", "eval"}) {
		t.Errorf("release sent %v, want one compare-and-delete", got)
	}
	if held, err := b.FleetLock().Held(ctx, testURL); held || err != nil {
		t.Fatalf("Held after release = %v, %v; want false", held, err)
	}
	// For the grace period, the released lock is not taken again: a process that
	// missed the cache just before the release reads the answer instead.
	if ttl := mr.TTL(k); ttl != lockGrace {
		t.Errorf("released lock TTL = %s, want %s", ttl, lockGrace)
	}
	if _, ok, err := b.FleetLock().TryLock(ctx, testURL, 5*time.Second); ok || err != nil {
		t.Fatalf("TryLock in the grace period = %v, %v; want not acquired", ok, err)
	}
	mr.FastForward(lockGrace)
	if _, ok, err := b.FleetLock().TryLock(ctx, testURL, 5*time.Second); !ok || err != nil {
		t.Fatalf("TryLock after the grace period = %v, %v; want acquired", ok, err)
	}
}

func TestFleetLockGraceAtMostTTL(t *testing.T) {
	t.Parallel()
	mr, rdb, _ := newMini(t)
	s, _, _, _ := newStore(t, rdb, nil)
	release, ok, err := s.FleetLock().TryLock(t.Context(), testURL, 200*time.Millisecond)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	release()
	if ttl := mr.TTL(s.key("lock:", testURL)); ttl != 200*time.Millisecond {
		t.Errorf("released lock TTL = %s, want the lock's 200ms", ttl)
	}
}

func TestFleetLockLateAnswerUndone(t *testing.T) {
	t.Parallel()
	// The SET is applied, but its answer comes after the Store's timeout: the lock
	// must not stay behind for its whole ttl.
	mr, rdb, _ := newMini(t)
	gate := make(chan struct{})
	rdb.AddHook(delaySet{gate})
	s, _, _, _ := newStore(t, rdb, &Options{Timeout: 20 * time.Millisecond})
	_, ok, err := s.FleetLock().TryLock(t.Context(), testURL, time.Hour)
	if ok || err == nil {
		t.Fatalf("TryLock = %v, %v; want a timeout", ok, err)
	}
	close(gate)
	k := s.key("lock:", testURL)
	for i := 0; mr.Exists(k); i++ {
		if i == 500 {
			t.Fatal("the lock taken by the late SET was not undone")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// delaySet holds every SET's answer until gate is closed.
type delaySet struct{ gate chan struct{} }

func (d delaySet) DialHook(next redis.DialHook) redis.DialHook { return next }

func (d delaySet) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(context.WithoutCancel(ctx), cmd)
		if cmd.Name() == "set" {
			<-d.gate
		}
		return err
	}
}

func (d delaySet) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func TestFleetLockReleaseOnlyOwn(t *testing.T) {
	t.Parallel()
	mr, rdb, _ := newMini(t)
	a, _, _, _ := newStore(t, rdb, nil)
	b, _, _, _ := newStore(t, rdb, nil)
	ctx := t.Context()
	releaseA, ok, _ := a.FleetLock().TryLock(ctx, testURL, time.Second)
	if !ok {
		t.Fatal("not acquired")
	}
	mr.FastForward(time.Second) // a's lock expires; b takes it
	if held, _ := b.FleetLock().Held(ctx, testURL); held {
		t.Fatal("Held after expiry")
	}
	if _, ok, _ := b.FleetLock().TryLock(ctx, testURL, time.Minute); !ok {
		t.Fatal("b could not take an expired lock")
	}
	releaseA() // late: must not release b's lock
	if held, _ := a.FleetLock().Held(ctx, testURL); !held {
		t.Error("a's late release removed b's lock")
	}
}

func TestFleetLockRedisDown(t *testing.T) {
	t.Parallel()
	mr, rdb, cnt := newMini(t)
	s, clk, ev, _ := newStore(t, rdb, nil)
	ctx := t.Context()
	mr.Close()
	if _, ok, err := s.FleetLock().TryLock(ctx, testURL, time.Second); ok || err == nil {
		t.Fatalf("TryLock with Redis down = %v, %v; want an error", ok, err)
	}
	if n := ev.count(discovery.EventStoreDegraded); n != 1 {
		t.Errorf("EventStoreDegraded count = %d, want 1", n)
	}
	e, _ := ev.last(discovery.EventStoreDegraded)
	if e.Doc != "lock" {
		t.Errorf("event Doc = %q, want lock", e.Doc)
	}
	cnt.take()
	if _, err := s.FleetLock().Held(ctx, testURL); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Held with the breaker open: %v, want ErrUnavailable", err)
	}
	if _, _, err := s.FleetLock().TryLock(ctx, testURL, time.Second); !errors.Is(err, ErrUnavailable) {
		t.Errorf("TryLock with the breaker open: %v, want ErrUnavailable", err)
	}
	if got := cnt.take(); len(got) != 0 {
		t.Errorf("commands with the breaker open: %v", got)
	}
	clk.advance(DefaultBackoff)
	if _, err := s.FleetLock().Held(ctx, testURL); err == nil || errors.Is(err, ErrUnavailable) {
		t.Errorf("Held after Backoff: %v, want a Redis error (a probe)", err)
	}
}

func TestFleetLockCallerCancelDoesNotTrip(t *testing.T) {
	t.Parallel()
	_, rdb, _ := newMini(t)
	s, _, ev, _ := newStore(t, rdb, nil)
	ctx := t.Context()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := s.FleetLock().TryLock(cctx, testURL, time.Second); err == nil {
		t.Fatal("TryLock with a cancelled context: no error")
	}
	if ev.count(discovery.EventStoreDegraded) != 0 {
		t.Error("a caller's cancellation was reported as Redis degradation")
	}
	if _, ok, err := s.FleetLock().TryLock(ctx, testURL, time.Second); !ok || err != nil {
		t.Errorf("TryLock after a cancelled call = %v, %v; the breaker must stay closed", ok, err)
	}
}

func TestFleetLockBadTTL(t *testing.T) {
	t.Parallel()
	_, rdb, _ := newMini(t)
	s, _, _, _ := newStore(t, rdb, nil)
	if _, _, err := s.FleetLock().TryLock(t.Context(), testURL, 0); err == nil {
		t.Error("TryLock with ttl 0: no error")
	}
}
