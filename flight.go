package discovery

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// flight collapses concurrent fetches of one URL into one request, as
// golang.org/x/sync/singleflight does, with one difference that matters here: the
// shared fetch is cancelled only when every caller waiting for it has given up, so one
// impatient caller neither cancels the others' fetch nor leaves it running for nobody.
type flight struct {
	mu    sync.Mutex // guards calls and each call's waiters
	calls map[string]*flightCall
}

type flightCall struct {
	done    chan struct{}
	val     any
	waiters int
	cancel  context.CancelFunc
}

// do runs fn once for all concurrent callers with the same key and returns its
// result, or ctx's error if ctx ends first. fn gets a context that keeps the first
// caller's values, and ends when all callers have left.
func (f *flight) do(ctx context.Context, key string, fn func(ctx context.Context) any) (any, error) {
	f.mu.Lock()
	if f.calls == nil {
		f.calls = make(map[string]*flightCall)
	}
	c, ok := f.calls[key]
	if !ok {
		cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		c = &flightCall{done: make(chan struct{}), cancel: cancel}
		f.calls[key] = c
		flightWorkers.run(func() {
			defer close(c.done)
			defer cancel()
			// No input may crash the process from a goroutine the caller cannot
			// recover in: a panic becomes the call's value, which callers report
			// as an internal error.
			defer func() {
				if r := recover(); r != nil {
					c.val = panicValue{r}
					f.forget(key, c)
				}
			}()
			c.val = fn(cctx)
			f.forget(key, c)
		})
	}
	c.waiters++
	f.mu.Unlock()

	select {
	case <-c.done:
		return c.val, nil
	case <-ctx.Done():
		f.mu.Lock()
		c.waiters--
		if c.waiters == 0 {
			// Nobody waits: stop the fetch, and let the next caller start a new one
			// rather than join a call that is being cancelled.
			c.cancel()
			if f.calls[key] == c {
				delete(f.calls, key)
			}
		}
		f.mu.Unlock()
		return nil, ctx.Err()
	}
}

// forget removes c from the calls in flight, if it is still the call for key.
func (f *flight) forget(key string, c *flightCall) {
	f.mu.Lock()
	if f.calls[key] == c {
		delete(f.calls, key)
	}
	f.mu.Unlock()
}

// workers runs functions on goroutines that outlive them: a fetch goes deep into
// net/http, httpcache and retryablehttp, and a new goroutine per fetch would grow its
// stack from the minimum every time (measured: about a third of a pooled fetch's CPU
// time). A worker waits for the next function for workerIdle, then ends, so an idle
// Client keeps no goroutine.
type workers struct{ tasks chan func() }

// workerIdle is how long a worker waits for more work before it ends.
const workerIdle = time.Second

var flightWorkers = workers{tasks: make(chan func())}

// run runs fn on an idle worker, or on a new one when none is idle.
func (w workers) run(fn func()) {
	select {
	case w.tasks <- fn:
	default:
		go w.work(fn)
	}
}

func (w workers) work(fn func()) {
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		fn()
		fn = nil // nothing of the last call stays reachable while idle
		idle.Reset(workerIdle)
		select {
		case fn = <-w.tasks:
		case <-idle.C:
			return
		}
	}
}

// panicValue is the value of a call whose function panicked.
type panicValue struct{ v any }

// internalError describes a value a flight returned that its caller did not expect:
// a recovered panic, or a value of another type.
func internalError(v any) error {
	if p, ok := v.(panicValue); ok {
		return fmt.Errorf("discovery: internal error (recovered panic: %v); please report it", p.v)
	}
	return fmt.Errorf("discovery: internal error (unexpected %T); please report it", v)
}
