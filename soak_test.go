package discovery_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery"
)

// TestConcurrentOrigins: 100 goroutines discover 50 origins through one Client, with
// a counting ConsentFunc. Concurrent fetches of one origin collapse, and max-age keeps
// the rest in cache: each origin's skills.md reaches the network exactly once.
func TestConcurrentOrigins(t *testing.T) {
	t.Parallel()
	const origins, workers = 50, 100
	sites := make([]*site, origins)
	for i := range sites {
		body := fmt.Sprintf("# Site %d\n\n## API\n\n- Base path: `/v%d`\n", i, i)
		sites[i] = newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != discovery.GuidePath {
				fmt.Fprint(w, "ok") // the agent's own calls
				return
			}
			time.Sleep(20 * time.Millisecond) // keep the first fetches in flight together
			w.Header().Set("Cache-Control", "max-age=600")
			fmt.Fprint(w, body)
		}))
	}
	var asked atomic.Int32
	consent := func(ctx context.Context, req *discovery.ConsentRequest) (bool, error) {
		asked.Add(1)
		return req.Action == discovery.ConsentWrite, nil
	}
	c := newClient(t, sites[0], &discovery.Options{Consent: consent})
	t.Cleanup(c.CloseIdleConnections)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for _, i := range r.Perm(origins) {
				d, err := c.Discover(t.Context(), sites[i].URL)
				if err != nil {
					errs <- err
					return
				}
				if d.Guide.Title != fmt.Sprintf("Site %d", i) || d.Guide.BaseURL != fmt.Sprintf("/v%d", i) {
					errs <- fmt.Errorf("origin %d: got %q %q", i, d.Guide.Title, d.Guide.BaseURL)
					return
				}
			}
			// One write through the policy guard: it asks consent.
			d, err := c.Discover(t.Context(), sites[w%origins].URL)
			if err != nil {
				errs <- err
				return
			}
			g, err := c.Guard(d, &discovery.GuardOptions{Base: sites[0].Client().Transport})
			if err != nil {
				errs <- err
				return
			}
			hc := &http.Client{Transport: g}
			resp, err := hc.Post(sites[w%origins].URL+"/api", "text/plain", nil)
			if err != nil {
				errs <- err
				return
			}
			resp.Body.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i, s := range sites {
		if n := s.count(discovery.GuidePath); n != 1 {
			t.Errorf("origin %d: skills.md fetched %d times, want once", i, n)
		}
	}
	if n := asked.Load(); n != workers {
		t.Errorf("consent asked %d times, want %d", n, workers)
	}
}

// TestSoak runs 1,000 discoveries against a server that fails 30% of requests at
// random (fixed seed) in several ways. After the first success every call returns a
// valid document, fresh or last good; none returns a document that failed validation;
// and the heap stays bounded.
func TestSoak(t *testing.T) {
	t.Parallel()
	const calls = 1000
	const heapBound = 64 << 20
	var mu sync.Mutex // guards rng and kinds
	rng := rand.New(rand.NewPCG(2026, 11))
	kinds := map[string]int{}
	faults := []struct {
		name string
		h    http.HandlerFunc
	}{
		{"503", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }},
		{"502", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(502) }},
		{"429", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(429) }},
		{"reset", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "999")
			fmt.Fprint(w, "# Sk")
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}},
		{"invalid UTF-8", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "# Skills\n\xc3\x28") }},
		{"NUL", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "# Evil\x00") }},
		{"empty", func(w http.ResponseWriter, r *http.Request) {}},
		{"too large", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "# Evil\n")
			_, _ = w.Write(make([]byte, discovery.DefaultMaxDocumentBytes))
		}},
	}
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != discovery.GuidePath {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		fail := rng.Float64() < 0.3
		f := faults[rng.IntN(len(faults))]
		if fail {
			kinds[f.name]++
		}
		mu.Unlock()
		if fail {
			f.h(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, goodSkills)
	}))
	s.Config.ErrorLog = quietLog()
	c, err := discovery.NewClientWithHooks(&discovery.Options{HTTPClient: s.Client(), InsecureAllowPrivateOrigins: true},
		discovery.TestHooks{RetryWaitMin: time.Millisecond, RetryWaitMax: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	succeeded, stale := false, 0
	var ms runtime.MemStats
	var peak uint64
	for i := range calls {
		if i%100 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
		d, err := c.Discover(t.Context(), s.URL)
		if err != nil {
			if succeeded {
				t.Fatalf("call %d failed after a success: %v", i, err)
			}
			continue
		}
		succeeded = true
		if d.Guide == nil || d.Guide.Title != "Skills" || d.Guide.BaseURL != "/v1" {
			t.Fatalf("call %d returned a document that is not the valid one: %+v", i, d.Guide)
		}
		if d.Fetches[0].Source == discovery.SourceStale {
			stale++
		}
	}
	runtime.ReadMemStats(&ms)
	peak = max(peak, ms.HeapInuse)
	if peak > heapBound {
		t.Errorf("heap in use peaked at %d MiB, bound %d MiB", peak>>20, heapBound>>20)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(kinds) != len(faults) || stale == 0 {
		t.Errorf("faults injected %v, stale answers %d: the soak did not exercise every kind", kinds, stale)
	}
	t.Logf("%d calls, %d requests, %d stale answers, faults %v, heap in use peaked at %d MiB", calls, s.total(), stale, kinds, peak>>20)
}
