package discovery

import (
	"context"
	"sync"
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
		go func() {
			defer close(c.done)
			defer cancel()
			c.val = fn(cctx)
			f.mu.Lock()
			if f.calls[key] == c {
				delete(f.calls, key)
			}
			f.mu.Unlock()
		}()
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
