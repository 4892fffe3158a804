package fetch

import (
	"context"
	"fmt"
	"sync"
)

// Flight collapses concurrent fetches of one key into one, as
// golang.org/x/sync/singleflight does: the first caller (the leader) runs the fetch on
// its own goroutine, under its own context, and the callers that come while it runs
// wait for its result. A waiting caller whose context ends leaves at once. A leader
// whose context ends stops the fetch and returns its context's error; the callers
// still waiting then start the fetch again, one of them as the new leader. So no fetch
// runs for nobody, and an impatient caller costs the others a restart, never a wrong
// or cancelled answer. (Running the fetch on the leader's goroutine, rather than
// handing it to another, saves two goroutine switches per fetch: about a twentieth of
// a fetch over a pooled connection.) The zero Flight is ready to use.
type Flight struct {
	mu    sync.Mutex // guards calls and each call's waiters
	calls map[string]*flightCall
}

type flightCall struct {
	done      chan struct{} // closed when the leader has finished; made when a caller waits
	val       any
	abandoned bool // the leader's context ended before the fetch did: start again
	waiters   int  // callers waiting, the leader not counted
}

// Do runs fn once for all concurrent callers with the same key and returns its
// result, or ctx's error if ctx ends first. fn gets the leader's context. A panic in
// fn becomes a value that [InternalError] describes.
func (f *Flight) Do(ctx context.Context, key string, fn func(ctx context.Context) any) (any, error) {
	for {
		f.mu.Lock()
		if f.calls == nil {
			f.calls = make(map[string]*flightCall)
		}
		c, ok := f.calls[key]
		if !ok {
			c = &flightCall{} // most fetches are nobody else's: no channel until one waits
			f.calls[key] = c
			f.mu.Unlock()
			return f.lead(ctx, key, c, fn)
		}
		if c.done == nil {
			c.done = make(chan struct{})
		}
		c.waiters++
		f.mu.Unlock()

		select {
		case <-c.done:
			if !c.abandoned {
				return c.val, nil
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			// The leader gave up before the fetch ended: start it again.
		case <-ctx.Done():
			f.mu.Lock()
			c.waiters--
			f.mu.Unlock()
			return nil, ctx.Err()
		}
	}
}

// lead runs fn for the call c and hands its value to the callers waiting.
func (f *Flight) lead(ctx context.Context, key string, c *flightCall, fn func(ctx context.Context) any) (any, error) {
	defer f.finish(key, c)
	func() {
		// No input may crash the process: a panic becomes the call's value, which
		// callers report as an internal error.
		defer func() {
			if r := recover(); r != nil {
				c.val = panicValue{r}
			}
		}()
		c.val = fn(ctx)
	}()
	if err := ctx.Err(); err != nil {
		c.abandoned, c.val = true, nil
		return nil, err
	}
	return c.val, nil
}

// finish removes c from the calls in flight (a caller that comes now starts a new
// call), then wakes the callers waiting for it.
func (f *Flight) finish(key string, c *flightCall) {
	f.mu.Lock()
	if f.calls[key] == c {
		delete(f.calls, key)
	}
	if c.done != nil {
		close(c.done)
	}
	f.mu.Unlock()
}

// panicValue is the value of a call whose function panicked.
type panicValue struct{ v any }

// InternalError describes a value a flight returned that its caller did not expect:
// a recovered panic, or a value of another type.
func InternalError(v any) error {
	if p, ok := v.(panicValue); ok {
		return fmt.Errorf("discovery: internal error (recovered panic: %v); please report it", p.v)
	}
	return fmt.Errorf("discovery: internal error (unexpected %T); please report it", v)
}
