package fetch

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// fleetTransport sits between the HTTP cache and the retries when Config.FleetLock is
// set: of the processes sharing the Cache, the one that takes the lock for a URL goes
// to the network (and the HTTP cache above stores the answer when the body has been
// read, before the lock is released); the others wait until the lock is released, at
// most FleetWait, and then ask the HTTP cache again, which now finds the fresh answer.
// A waiter that still finds nothing fresh fetches for itself: sharing saves requests,
// it never makes a fetch fail.
type fleetTransport struct {
	st    *state
	next  http.RoundTripper
	marks *fleetMarks
}

// fleetMarks are the cache keys of one partition whose next Delete is httpcache
// reacting to errFleetRetry; prefix names the partition's locks (locks are per policy
// class, as cache entries are).
type fleetMarks struct {
	prefix string
	keep   sync.Map
}

// keepingCache is the HTTP cache of a fleet Client. When a waiter hands errFleetRetry
// to httpcache, httpcache takes it for a failed revalidation and deletes the entry:
// the very entry the lock holder just stored. That one Delete is skipped.
type keepingCache struct {
	Cache
	marks *fleetMarks
}

// Delete removes key, unless the delete answers a fleet wait.
func (k keepingCache) Delete(key string) {
	if _, skip := k.marks.keep.LoadAndDelete(key); skip {
		return
	}
	k.Cache.Delete(key)
}

// errFleetRetry makes send ask the HTTP cache again after waiting for another process.
var errFleetRetry = errors.New("discovery: another process fetched this document; asking the cache again")

// fleetPoll bounds the interval between two checks of a lock held elsewhere.
const (
	fleetPollMin = 5 * time.Millisecond
	fleetPollMax = 50 * time.Millisecond
)

// RoundTrip implements http.RoundTripper.
func (f *fleetTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, st := req.Context(), f.st
	cfg := &st.f.cfg
	lock := cfg.FleetLock
	if st.fleetDone || req.Method != http.MethodGet {
		return f.next.RoundTrip(req)
	}
	key := f.marks.prefix + req.URL.String()
	release, acquired, err := lock.TryLock(ctx, key, cfg.FleetWait)
	if err != nil {
		return f.next.RoundTrip(req) // the lock's store reports its own failures
	}
	if acquired {
		resp, err := f.next.RoundTrip(req)
		if err != nil || resp == nil {
			release()
			return resp, err
		}
		// The HTTP cache stores the answer when the body reaches EOF, before its
		// reader closes ours: released here, the waiters find it stored. On a 304 the
		// cache answers with its own copy (stored before it returns) and drops this
		// body, so round ties the release to the body it gets as well.
		rel := sync.OnceFunc(release)
		st.fleetRelease = rel
		resp.Body = &releasingBody{ReadCloser: resp.Body, release: rel}
		return resp, nil
	}
	start := time.Now()
	wait := fleetPollMin
	deadline := time.NewTimer(cfg.FleetWait)
	defer deadline.Stop()
	for held := true; held; {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-deadline.C:
			t.Stop()
			held = false
		case <-t.C:
			if h, err := lock.Held(ctx, key); err != nil || !h {
				held = false
			}
			wait = min(2*wait, fleetPollMax)
		}
	}
	st.fleetDone = true    // the next round fetches for itself if the cache has nothing fresh
	key = req.URL.String() // httpcache's key for a GET
	f.marks.keep.Store(key, struct{}{})
	st.fleetKept = func() { f.marks.keep.Delete(key) } // httpcache deletes only when it had a copy
	if cfg.OnFleetWait != nil {
		cfg.OnFleetWait(ctx, st.req, req.URL, time.Since(start))
	}
	return nil, errFleetRetry
}

// releasingBody releases a fleet lock when the response body is closed.
type releasingBody struct {
	io.ReadCloser
	release func()
}

// Close closes the body and releases the lock.
func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}
