// Package fetch is the HTTP pipeline of the discovery Client: "GET this URL for this
// origin under this policy". [Fetcher.Get] is its one entry point; it returns an
// explicit [Result] (status, source, final URL, body, attempts) and knows nothing of
// documents, parsers or consent prompts, which the root package owns. What the root
// decides (origin rules, consent, which errors are policy) reaches the pipeline through
// the hooks of [Config]; what the pipeline learns about one request is held in one
// explicit value, the request's state, handed to every layer of the stack built for
// that request.
//
// The stack of one request, top to bottom (see Fetcher.round):
//
//  1. the HTTP cache (gregjones/httpcache, httpcache.go), or the revalidator when a
//     copy remembered in memory is revalidated without it (revalidate.go);
//  2. the fleet lock, when processes share the cache (fleet.go);
//  3. the observer of what reached the cache from below (httpcache.go);
//  4. retries (hashicorp/go-retryablehttp, retry.go), whose inner http.Client follows
//     redirects under the origin policy (redirect.go);
//  5. one attempt, bounded in time (attempt.go);
//  6. the base transport: the caller's or the default one, behind the private-address
//     guard and its per-policy pools (package internal/netguard).
package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gregjones/httpcache"
	"github.com/hashicorp/go-retryablehttp"

	"github.com/wellknown-dev/discovery/internal/lru"
	"github.com/wellknown-dev/discovery/internal/netguard"
)

// Origin is a web origin as the root package parses it (scheme, host, port); the root
// converts its own Origin to this type and back. Two equal values are the same origin.
type Origin struct {
	Scheme, Host, Port string
}

// Cache stores serialised HTTP responses keyed by URL; the root's Cache (and every
// gregjones/httpcache Cache) satisfies it. Implementations must be safe for
// concurrent use.
type Cache interface {
	Get(key string) (value []byte, ok bool)
	Set(key string, value []byte)
	Delete(key string)
}

// FleetLock is the lock shared by the processes of a fleet (the root's FleetLock).
type FleetLock interface {
	TryLock(ctx context.Context, key string, ttl time.Duration) (release func(), acquired bool, err error)
	Held(ctx context.Context, key string) (bool, error)
}

// Config configures a [Fetcher]. Every hook must be safe for concurrent use.
type Config struct {
	Base           http.RoundTripper // guarded by netguard, wrapped for instrumentation
	Cache          Cache             // the HTTP cache, before partitioning
	PublicPrefix   string            // key prefix of the public partition ("" for none)
	MaxRetries     int               // retries after the first attempt
	AttemptTimeout time.Duration     // one request, body included
	RetryWait      [2]time.Duration  // backoff bounds
	MaxRetryAfter  time.Duration     // a longer Retry-After means give up now
	FleetLock      FleetLock         // nil: no fleet
	FleetWait      time.Duration     // how long to wait for another process's fetch
	Now            func() time.Time  // nil: time.Now
	ValidatedBytes int64             // budget of the copies remembered for revalidation; 0: the default; at most TierBytes of Cache

	// ErrTooLarge is what a body over Request.Limit wraps (the root's sentinel).
	ErrTooLarge error
	// CheckOrigin returns the origin of an absolute URL under the root's rules.
	CheckOrigin func(u *url.URL) (Origin, error)
	// CheckHop checks one redirect hop to req (the hops-th of the fetch; via is the
	// chain so far) and returns the origin it leads to, or the error that refuses it.
	// It may modify req (it removes userinfo).
	CheckHop func(req *http.Request, via []*http.Request, hops int) (Origin, error)
	// AskRedirect asks whether a fetch for from may follow a redirect to another
	// origin, to, at next. nil error: yes; otherwise the fetch fails with it.
	AskRedirect func(ctx context.Context, from, to Origin, next *url.URL) error
	// Permanent reports a policy failure no retry may mend.
	Permanent func(err error) bool
	// OnRetry reports that a request of r to u is sent again (retry counts from 1;
	// status is the last status seen on the wire).
	OnRetry func(ctx context.Context, r *Request, u *url.URL, retry, status int)
	// OnFleetWait reports that r waited for another process's fetch of u.
	OnFleetWait func(ctx context.Context, r *Request, u *url.URL, waited time.Duration)
}

// Fetcher is the HTTP pipeline of one Client. It is immutable after [New] and safe
// for concurrent use.
type Fetcher struct {
	cfg       Config
	caches    [2]Cache                  // the HTTP cache partitions: public, private
	fleetKeep [2]*fleetMarks            // per partition, with a FleetLock
	validated [2]*lru.Cache[*validated] // URL → the last 200, to revalidate without the HTTP cache
}

// PrivatePrefix begins every key stored for a private origin's document: such an
// origin names the machine's own network, so its answers must never answer a public
// origin's request, nor be shared with another machine.
const PrivatePrefix = "private-origin "

// PublicPrefix returns the key prefix of the public partition of a Client's caches
// and last-good store: "" unless hosts may resolve privately (allow, the canonical
// hosts of Options.InsecureAllowPrivateHosts). Such a Client keeps its public answers
// apart: a Client without that list, sharing the Cache, must not be answered with an
// intranet document its own guard would refuse.
func PublicPrefix(allow map[string]bool) string {
	if len(allow) == 0 {
		return ""
	}
	hosts := slices.Sorted(maps.Keys(allow))
	sum := sha256.Sum256([]byte(strings.Join(hosts, "\n")))
	return "allow-" + hex.EncodeToString(sum[:8]) + " "
}

// validatedBytes bounds the copies remembered for revalidation, per partition.
const validatedBytes = 16 << 20

// New returns the Fetcher configured by cfg.
func New(cfg Config) *Fetcher {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ValidatedBytes <= 0 {
		cfg.ValidatedBytes = validatedBytes
	}
	cfg.ValidatedBytes = TierBytes(cfg.Cache, cfg.ValidatedBytes)
	f := &Fetcher{cfg: cfg}
	// One cache partition per policy class, as for connection pools: a fresh copy a
	// private origin fetched must never answer a public origin's request (a pointer or
	// a consented redirect to that URL) without the private-address guard seeing it.
	f.caches = [2]Cache{cfg.Cache, partition{cfg.Cache, PrivatePrefix}}
	if cfg.PublicPrefix != "" {
		f.caches[0] = partition{cfg.Cache, cfg.PublicPrefix}
	}
	prefixes := [2]string{cfg.PublicPrefix, PrivatePrefix}
	for i := range f.validated {
		f.validated[i] = lru.New[*validated](cfg.ValidatedBytes)
		if cfg.FleetLock != nil {
			f.fleetKeep[i] = &fleetMarks{prefix: "fleet " + prefixes[i]}
		}
	}
	return f
}

// CloseIdleConnections closes the idle connections of the base transport.
func (f *Fetcher) CloseIdleConnections() { closeIdle(f.cfg.Base) }

// Request is one GET through the pipeline.
type Request struct {
	URL     string
	Origin  Origin      // the discovery origin: redirects to others need consent
	Private bool        // the origin is private: private cache partition, connection pool and dial policy
	Doc     string      // the document kind, for events ("" for an artifact)
	Header  http.Header // owned by Get from now on
	Timeout time.Duration
	Budget  *Budget // nil: each round of the fetch gets Timeout; else the budget bounds them all
	Limit   int64   // body cap
	// Revalidate lets Get revalidate a copy it remembers itself instead of going
	// through the HTTP cache (document fetches).
	Revalidate bool
	// Read reports whether the body of resp is wanted: nil reads every 200. A body
	// not read is closed unread, so the HTTP cache stores nothing of it.
	Read func(resp *http.Response) bool
}

// Source tells where a Result came from.
type Source int

// Sources, as the root's Source numbers them.
const (
	SourceNetwork     Source = iota + 1 // a full response from the origin
	SourceRevalidated                   // the cached copy, confirmed by a 304
	SourceCache                         // the cached copy, still fresh; nothing was sent
)

// Result is the outcome of one Get. On error, Attempts and WireStatus are still set.
type Result struct {
	Status     int           // the answer's status (a revalidated copy's is its 200)
	Source     Source        // where the answer came from
	Header     http.Header   // the answer's header
	Body       []byte        // the body, when Request.Read wanted it
	Final      *url.URL      // where the answer came from, when redirects led elsewhere; nil otherwise
	Fresh      time.Time     // until when the answer is fresh; zero: not fresh (or reached through consent)
	RetryAfter time.Duration // a 429's or 503's Retry-After; 0 if none
	Attempts   int           // requests sent, retries included
	WireStatus int           // the last status seen on the wire (a refused redirect's, say)

	req      *Request
	bypassed bool // the HTTP cache was bypassed (revalidated from memory or uncached)
	moved    bool // the answer is another URL's
}

// Get sends r through the pipeline and reads the answer's body when r.Read wants it.
func (f *Fetcher) Get(ctx context.Context, r *Request) (Result, error) {
	st := &state{f: f, req: r}
	res := Result{req: r}
	if r.Revalidate {
		st.reval = f.revalidatable(r.URL, r.Private)
		res.bypassed = st.reval != nil
	}
	resp, cancel, err := f.send(ctx, st, r.URL, r.Header)
	defer cancel()
	res.Attempts, res.WireStatus = int(st.attempts.Load()), int(st.status.Load())
	if err != nil {
		return res, err
	}
	defer resp.Body.Close()
	res.Status, res.Header, res.Source = resp.StatusCode, resp.Header, SourceNetwork
	if st.redirected && resp.Request != nil && resp.Request.URL != nil && resp.Request.URL.String() != r.URL {
		res.Final, res.moved = resp.Request.URL, true
	}
	if !st.consented() {
		res.Fresh = FreshUntil(resp.Header) // a consented redirect is asked again next time
	}
	if st.fromMemory || resp.Header.Get(httpcacheMark) == "1" {
		switch {
		case st.requests.Load() == 0:
			res.Source = SourceCache
		case st.status.Load() == http.StatusNotModified:
			res.Source = SourceRevalidated
		}
	}
	res.RetryAfter, _ = retryAfter(resp, f.cfg.Now())
	if resp.StatusCode == http.StatusOK && (r.Read == nil || r.Read(resp)) {
		res.Body, err = ReadCappedSized(resp.Body, r.Limit, resp.ContentLength, f.cfg.ErrTooLarge)
		res.Attempts = int(st.attempts.Load())
	}
	return res, err
}

// Remember records what the next fetch of the Result's URL may do without the HTTP
// cache (see revalidate.go). The root calls it once the body proved usable.
func (f *Fetcher) Remember(res *Result) {
	r := res.req
	if res.Source == SourceNetwork || (res.Source == SourceRevalidated && !res.bypassed) {
		// A 304 answered from memory updated its copy already.
		f.remember(r.URL, r.Private, !res.bypassed, res.moved, res.Status, res.Header, res.Body)
	}
}

// send GETs u for the fetch whose state is st. A redirect to an origin the fetch was
// not granted stops the request; Config.AskRedirect is asked with parent, outside the
// time limit (the time a person takes to answer never counts against it), and on a
// yes the fetch goes on from the redirect's target. It returns the response and the
// cancel function of its context, to call once the body is read.
func (f *Fetcher) send(parent context.Context, st *state, u string, header http.Header) (*http.Response, context.CancelFunc, error) {
	r := st.req
	base := netguard.WithPolicy(parent, r.Private)
	for n := 0; ; n++ {
		ctx, cancel := st.startRound(base)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			cancel()
			return nil, func() {}, err
		}
		if n > 0 {
			// A new round starts from the caller's headers, without the conditional ones
			// a revalidation in the round before added to them.
			header = header.Clone()
			header.Del("If-None-Match")
			header.Del("If-Modified-Since")
		}
		req.Header = header // send owns it
		resp, err := f.round(st, req)
		var cn *consentNeeded
		switch {
		case err == nil:
			return resp, cancel, nil
		case errors.Is(err, errFleetRetry):
			cancel() // another process fetched it: the cache has it now, or we fetch
			continue
		case !errors.As(err, &cn):
			if r.Budget != nil && r.Budget.Spent() {
				err = fmt.Errorf("%w (Options.SkillTimeout used up)", err)
			}
			return resp, cancel, err
		}
		cancel()
		if err := f.cfg.AskRedirect(parent, r.Origin, cn.target, cn.next); err != nil {
			return nil, func() {}, err
		}
		st.grant(cn.target, cn.hops)
		u = cn.next.String()
	}
}

// round sends req once through the stack built for it (see the package comment) and
// returns the answer the fetch must see.
func (f *Fetcher) round(st *state, req *http.Request) (*http.Response, error) {
	p := b2i(st.req.Private)
	s := new(roundStack) // every layer of the round in one allocation
	s.below = belowCache{st: st, next: s.retryLayer(st)}
	var top http.RoundTripper
	if st.reval != nil {
		s.reval = revalidator{st: st, v: st.reval, below: &s.below, cache: f.caches[p], copies: f.validated[p], now: f.cfg.Now}
		top = &s.reval
		st.reval = nil // one round: a redirect's target goes through the HTTP cache
	} else {
		top = s.httpCache(f, st, p)
	}
	st.belowErr, st.belowResp = nil, nil // what the cache sees below is per round
	resp, err := top.RoundTrip(req)
	if rel := st.fleetRelease; rel != nil {
		st.fleetRelease = nil
		if resp != nil {
			resp.Body = &releasingBody{ReadCloser: resp.Body, release: rel}
		} else {
			rel()
		}
	}
	if err != nil {
		err = &url.Error{Op: "Get", URL: redactURL(req.URL), Err: err}
	}
	resp, err = st.uncache(resp, err)
	if st.fleetKept != nil {
		st.fleetKept() // the mark for httpcache's Delete is used now, or never
		st.fleetKept = nil
	}
	return resp, err
}

// roundStack holds the layers of one round, top to bottom, so that building them
// costs one allocation.
type roundStack struct {
	cache   httpcache.Transport
	reval   revalidator
	fleet   fleetTransport
	below   belowCache
	retryRT retryablehttp.RoundTripper
	retry   retryablehttp.Client
	inner   http.Client
	attempt attemptTransport
}

// closeIdle closes the idle connections of rt, when it has any.
func closeIdle(rt http.RoundTripper) {
	if ci, ok := rt.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
