package discovery_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery"
)

// TestFlightLeaderCancelled (run with -race): callers share one fetch;
// the leader's context ends while the site is still answering. The waiters neither get
// the leader's cancellation nor an empty answer: they fetch again, one of them leading,
// and all get the document. No goroutine is left behind.
func TestFlightLeaderCancelled(t *testing.T) {
	var first atomic.Bool
	release := make(chan struct{})
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != discovery.GuidePath {
			http.NotFound(w, r)
			return
		}
		if first.CompareAndSwap(false, true) {
			select { // the leader's request hangs until the leader gives up
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		w.Header().Set("Cache-Control", "no-store") // every call goes to the site
		fmt.Fprint(w, "# Site\n\nA site.\n")
	}))
	c := newClient(t, s, &discovery.Options{MaxRetries: -1})
	before := runtime.NumGoroutine()

	leaderCtx, cancel := context.WithCancel(t.Context())
	leaderDone := make(chan error, 1)
	go func() {
		_, err := c.Discover(leaderCtx, s.URL)
		leaderDone <- err
	}()
	for s.count(discovery.GuidePath) == 0 {
		time.Sleep(time.Millisecond)
	}
	const waiters = 8
	var wg sync.WaitGroup
	errs := make([]error, waiters)
	titles := make([]string, waiters)
	for i := range waiters {
		wg.Go(func() {
			d, err := c.Discover(t.Context(), s.URL)
			errs[i] = err
			if d != nil && d.Guide != nil {
				titles[i] = d.Guide.Title
			}
		})
	}
	time.Sleep(50 * time.Millisecond) // the waiters join the leader's call
	cancel()
	if err := <-leaderDone; !errors.Is(err, context.Canceled) {
		t.Errorf("leader: error = %v, want context.Canceled", err)
	}
	wg.Wait()
	close(release)
	for i := range waiters {
		if errs[i] != nil || titles[i] != "Site" {
			t.Errorf("waiter %d: title %q, error %v", i, titles[i], errs[i])
		}
	}
	c.CloseIdleConnections()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		t.Errorf("%d goroutines after the calls, %d before", n, before)
	}
}
