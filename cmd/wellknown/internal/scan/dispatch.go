package scan

import "context"

// dispatch hands the jobs read from in to the workers through work, at most perHost of
// one host at a time: a job whose host is busy waits in that host's queue while jobs of
// other hosts go ahead, so a list sorted by host keeps every worker busy. The workers
// send each finished job's host on finished. At most window jobs wait at once; reading
// pauses beyond that, so memory stays bounded whatever the list. dispatch closes work
// when in is closed and everything is handed out and finished, or when ctx is done.
// It must run on its own goroutine.
func dispatch(ctx context.Context, in <-chan scanJob, work chan<- scanJob, finished <-chan string, perHost, window int) {
	defer close(work)
	var (
		active   = map[string]int{}       // host → jobs handed out or ready, not finished
		waiting  = map[string][]scanJob{} // host → jobs waiting for a slot, in input order
		ready    []scanJob                // jobs whose host slot is reserved, in order
		pending  int                      // jobs read and not handed out: ready + waiting
		inFlight int                      // jobs handed out and not finished
		inDone   bool
	)
	for {
		if inDone && pending == 0 && inFlight == 0 {
			return
		}
		var out chan<- scanJob
		var next scanJob
		if len(ready) > 0 {
			out, next = work, ready[0]
		}
		var read <-chan scanJob
		if !inDone && pending < window {
			read = in
		}
		select {
		case <-ctx.Done():
			return
		case j, ok := <-read:
			if !ok {
				inDone = true
				continue
			}
			pending++
			switch {
			case j.host == "": // not an origin: no request, no slot
				ready = append(ready, j)
			case active[j.host] < perHost:
				active[j.host]++
				ready = append(ready, j)
			default:
				waiting[j.host] = append(waiting[j.host], j)
			}
		case out <- next:
			ready[0] = scanJob{}
			ready = ready[1:]
			pending--
			inFlight++
		case h := <-finished:
			inFlight--
			if h == "" {
				continue
			}
			if q := waiting[h]; len(q) > 0 {
				ready = append(ready, q[0])
				if len(q) == 1 {
					delete(waiting, h)
				} else {
					waiting[h] = q[1:]
				}
				continue // the slot passes to the next job of h
			}
			if active[h]--; active[h] == 0 {
				delete(active, h)
			}
		}
	}
}
