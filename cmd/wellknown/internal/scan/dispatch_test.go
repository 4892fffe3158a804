package scan

import (
	"fmt"
	"testing"
	"time"
)

// TestScanDispatch feeds a list sorted by host: 50 origins of one host, then one of
// another, then a bad line. With one slot per host, the other host's origin (and the
// bad line) is handed out while the first host's are still queued (the list fits in
// the window), and no host ever has two origins out at once.
func TestScanDispatch(t *testing.T) {
	t.Parallel()
	in := make(chan scanJob)
	work := make(chan scanJob)
	finished := make(chan string, 4)
	go dispatch(t.Context(), in, work, finished, 1, 64)
	go func() {
		defer close(in)
		for i := range 50 {
			in <- scanJob{origin: fmt.Sprintf("http://a.test:%d", 1000+i), host: "a.test"}
		}
		in <- scanJob{origin: "http://b.test", host: "b.test"}
		in <- scanJob{input: "not an origin"} // no host: never waits
	}()
	out := map[string]int{}
	var order []string
	var held []scanJob
	timeout := time.After(10 * time.Second)
	for len(order) < 52 {
		select {
		case j, ok := <-work:
			if !ok {
				t.Fatalf("work closed after %d jobs", len(order))
			}
			order = append(order, j.host)
			if j.host != "" {
				if out[j.host]++; out[j.host] > 1 {
					t.Fatalf("two jobs of %s out at once", j.host)
				}
				held = append(held, j)
			} else {
				finished <- "" // the worker writes its error result at once
			}
		case <-timeout:
			t.Fatalf("stuck after %d jobs: %v", len(order), order)
		default:
			if len(held) == 0 {
				time.Sleep(time.Millisecond)
				continue
			}
			j := held[0] // finish the oldest job
			held = held[1:]
			out[j.host]--
			finished <- j.host
		}
	}
	pos := map[string]int{}
	for i, h := range order {
		if _, seen := pos[h]; !seen {
			pos[h] = i
		}
	}
	if pos["b.test"] > 2 || pos[""] > 3 {
		t.Errorf("b.test handed out at position %d and the bad line at %d, want both early: %v", pos["b.test"], pos[""], order)
	}
	for _, j := range held {
		finished <- j.host
	}
	select {
	case _, ok := <-work:
		if ok {
			t.Error("a job after the last one")
		}
	case <-time.After(5 * time.Second):
		t.Error("work not closed once everything finished")
	}
}
