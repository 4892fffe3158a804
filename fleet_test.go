package discovery_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery"
)

// memLock is a FleetLock for one process: what redisstore does with SET NX PX.
type memLock struct {
	mu      sync.Mutex
	held    map[string]time.Time // key → expiry
	fail    bool                 // every call fails, as a store that is down
	taken   int
	waiters int
}

func (l *memLock) TryLock(_ context.Context, key string, ttl time.Duration) (func(), bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail {
		return nil, false, errors.New("store down")
	}
	if l.held == nil {
		l.held = map[string]time.Time{}
	}
	if exp, ok := l.held[key]; ok && time.Now().Before(exp) {
		l.waiters++
		return nil, false, nil
	}
	exp := time.Now().Add(ttl)
	l.held[key] = exp
	l.taken++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.held[key] == exp {
			delete(l.held, key)
		}
	}, true, nil
}

func (l *memLock) Held(_ context.Context, key string) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail {
		return false, errors.New("store down")
	}
	exp, ok := l.held[key]
	return ok && time.Now().Before(exp), nil
}

// TestFleetFetchesOnce: Clients sharing a Cache and a FleetLock (processes of a
// fleet) send one request for a document that all of them want at once, and one
// conditional request when it is stale again, whether the shared cache is in memory
// or on disk.
func TestFleetFetchesOnce(t *testing.T) {
	for _, name := range []string{"memory", "disk"} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			conditional := 0
			s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(30 * time.Millisecond) // long enough for every client to pile up
				// max-age=3, not 1: a round of 40 discoveries under -race on a loaded
				// 2-core machine can take over a second, and a copy that went stale during
				// the round would be revalidated again (a flake, not a fault).
				w.Header().Set("Cache-Control", "max-age=3")
				w.Header().Set("ETag", `"1"`)
				if r.Header.Get("If-None-Match") == `"1"` {
					mu.Lock()
					conditional++
					mu.Unlock()
					w.WriteHeader(http.StatusNotModified)
					return
				}
				w.Header().Set("Content-Type", "text/markdown")
				_, _ = w.Write([]byte("# Fleet\n\nBase: `/api`\n"))
			}))
			cache := discovery.NewMemoryCache(0)
			if name == "disk" {
				var err error
				if cache, err = discovery.NewDiskCache(t.TempDir()); err != nil {
					t.Fatal(err)
				}
			}
			lock := &memLock{}
			var clients []*discovery.Client
			for range 4 {
				clients = append(clients, newClient(t, s, &discovery.Options{Cache: cache, FleetLock: lock, FleetWait: 20 * time.Second}))
			}
			// A lock never released (a 304 that does not release it) would make every
			// waiter wait out FleetWait and fetch for itself: more requests.
			round := func() {
				var wg sync.WaitGroup
				errs := make(chan error, 40)
				for i := range 40 {
					wg.Go(func() {
						d, err := clients[i%4].Discover(t.Context(), s.URL)
						if err == nil && d.Guide == nil {
							err = errors.New("no skills.md")
						}
						errs <- err
					})
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			round()
			if n := s.count(discovery.GuidePath); n != 1 {
				t.Errorf("the fleet sent %d requests for skills.md, want 1", n)
			}
			time.Sleep(4100 * time.Millisecond) // stale: max-age=3, and Date has a resolution of one second
			round()
			if n := s.count(discovery.GuidePath); n != 2 || conditional != 1 {
				t.Errorf("after max-age the fleet sent %d requests (%d conditional), want 2 (1)", n, conditional)
			}
		})
	}
}

// TestFleetNeverFails: a lock that is down, or held by a process that died, costs at
// most FleetWait; every discovery succeeds.
func TestFleetNeverFails(t *testing.T) {
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: "# Fleet\n"}))
	for _, tc := range []struct {
		name string
		lock *memLock
	}{
		{"down", &memLock{fail: true}},
		{"holder died", &memLock{held: map[string]time.Time{"fleet " + s.URL + discovery.GuidePath: time.Now().Add(time.Hour)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient(t, s, &discovery.Options{FleetLock: tc.lock, FleetWait: 50 * time.Millisecond})
			for range 3 {
				if d, err := c.Discover(t.Context(), s.URL); err != nil || d.Guide == nil {
					t.Fatalf("Discover = %v, %v", d, err)
				}
			}
		})
	}
	if _, err := discovery.NewClient(&discovery.Options{FleetWait: -1}); err == nil {
		t.Error("a negative FleetWait was accepted")
	}
}

type countingDeletes struct {
	discovery.Cache
	deletes atomic.Int32
}

func (c *countingDeletes) Delete(k string) { c.deletes.Add(1); c.Cache.Delete(k) }

// TestFleetWaitLeavesNoMark: a waiter that had no cached copy (so httpcache deleted
// nothing) leaves no mark behind that would swallow a later, real Delete.
func TestFleetWaitLeavesNoMark(t *testing.T) {
	var fail atomic.Bool
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		time.Sleep(150 * time.Millisecond)
		w.Header().Set("Cache-Control", "max-age=1")
		w.Header().Set("ETag", `"1"`)
		w.Header().Set("Content-Type", "text/markdown")
		_, _ = w.Write([]byte("# Fleet\n"))
	}))
	shared := &countingDeletes{Cache: discovery.NewMemoryCache(0)}
	opts := &discovery.Options{Cache: shared, FleetLock: &memLock{}, MaxRetries: -1, MaxStale: -1}
	a, b := newClient(t, s, opts), newClient(t, s, opts)
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = a.Discover(t.Context(), s.URL) })
	time.Sleep(30 * time.Millisecond)
	wg.Go(func() { _, _ = b.Discover(t.Context(), s.URL) }) // waits for a, with no cached copy
	wg.Wait()
	time.Sleep(2100 * time.Millisecond) // stale
	fail.Store(true)
	before := shared.deletes.Load()
	_, _ = b.Discover(t.Context(), s.URL)
	if shared.deletes.Load() == before {
		t.Error("httpcache's Delete after a failed revalidation was swallowed by a leftover mark")
	}
}
