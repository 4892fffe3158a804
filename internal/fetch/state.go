package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// state is what the pipeline learns about one Get, held in one value that Get creates
// and hands to each layer of the stack it builds (a field of each layer, never a
// context value). The layers run one after the other on the goroutine of the fetch,
// except where a field says otherwise.
type state struct {
	f   *Fetcher
	req *Request

	attempts atomic.Int32 // retryablehttp attempts (read by Get after the rounds)
	requests atomic.Int32 // round trips on the wire, redirect hops included
	status   atomic.Int32 // status of the last response seen on the wire

	mu      sync.Mutex // guards granted and hops
	granted map[Origin]bool
	hops    int // redirect hops followed in earlier rounds (see Fetcher.send)

	// deadline: when the current round must end; zero when the round's context
	// carries it instead (a fetch with a Budget).
	deadline time.Time

	// reval: the remembered copy this fetch revalidates itself (revalidate.go);
	// fromMemory: the answer is that copy, confirmed by a 304.
	reval      *validated
	fromMemory bool

	// redirected: a redirect was met (written by checkRedirect): the answer may be
	// another URL's.
	redirected bool

	// fleetDone: this fetch already waited for another process of the fleet; it now
	// fetches for itself. fleetRelease releases the fleet lock this fetch holds: set by
	// the fleet layer, handed by round to the body the HTTP cache returns (on a 304
	// httpcache answers with its own copy and never closes the body the lock was tied
	// to). fleetKept forgets the mark that spares the entry the holder stored from
	// httpcache's Delete after a fleet wait (see keepingCache).
	fleetDone    bool
	fleetRelease func()
	fleetKept    func()

	// What reached the HTTP cache from below, for the current round.
	belowErr  error
	belowResp *http.Response
}

// startRound returns the context of a new round of the fetch and its cancel function.
// Without a budget the round's deadline is kept in the state, where it bounds each
// attempt (attemptTransport) and stops a retry whose wait would pass it: one timer
// per attempt instead of two. With one, the round gets what the budget has left, and
// is charged for the time it took, body reading included.
func (st *state) startRound(base context.Context) (context.Context, context.CancelFunc) {
	r := st.req
	if r.Budget == nil {
		st.deadline = time.Now().Add(r.Timeout)
		return base, func() {}
	}
	start := st.f.cfg.Now()
	ctx, stop := context.WithTimeout(base, r.Budget.take(r.Timeout))
	return ctx, func() { stop(); r.Budget.charge(st.f.cfg.Now().Sub(start)) }
}

// consented reports whether this fetch followed a redirect the user consented to: its
// answer must never be reused without asking again.
func (st *state) consented() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.granted) > 0
}

func (st *state) isGranted(o Origin) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.granted[o]
}

// grant records consent for o, reached after hops more redirect hops.
func (st *state) grant(o Origin, hops int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.granted == nil {
		st.granted = make(map[Origin]bool)
	}
	st.granted[o] = true
	st.hops += hops
}

func (st *state) earlierHops() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.hops
}

// late reports whether a wait of d before another attempt would pass the round's
// deadline.
func (st *state) late(d time.Duration) bool {
	return !st.deadline.IsZero() && time.Until(st.deadline) < d
}

// redactURL returns u without userinfo, query or fragment, credentials in its path
// redacted, for error messages.
func redactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	return secrets.Redact(c.String())
}

// consentNeeded stops a fetch at a redirect to an origin it was not granted; send
// asks the user and never lets it escape.
type consentNeeded struct {
	target Origin
	next   *url.URL // where the redirect goes, userinfo removed
	hops   int      // hops of the chain so far, this one included
}

// Error implements the error interface.
func (e *consentNeeded) Error() string {
	return fmt.Sprintf("discovery: redirect to another origin: to %s (consent needed)", redactURL(e.next))
}
