package discovery

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gregjones/httpcache"
	"github.com/hashicorp/go-retryablehttp"

	"github.com/wellknown-dev/discovery/internal/lru"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Version is the version of this module, sent in the default User-Agent.
const Version = "0.1.0"

// Defaults used when the corresponding [Options] field is zero. They are exported so a
// caller can derive its own settings from them.
const (
	DefaultMaxDocumentBytes = 1 << 20            // 1 MiB, after decompression
	DefaultMaxRetries       = 2                  // retries, not attempts: 3 requests in all (MD-C-7)
	DefaultAttemptTimeout   = 10 * time.Second   // one request, body included (MD-C-11)
	DefaultDocumentTimeout  = 30 * time.Second   // one document: every attempt and backoff
	DefaultMaxRetryAfter    = 10 * time.Second   // a longer Retry-After means give up now
	DefaultMaxStale         = 7 * 24 * time.Hour // how old a last good copy may be when served
	DefaultSkillTimeout     = 60 * time.Second   // one GetSkill: every artifact, retries and unpacking
	maxRedirects            = 5                  // hops per fetch (MD-C-10)
	retryWaitMin            = 250 * time.Millisecond
	retryWaitMax            = 4 * time.Second
)

// Options configures a [Client]. A nil *Options, or the zero Options, gives the secure
// defaults described on each field. NewClient copies the struct: changing it afterwards
// has no effect on the Client.
type Options struct {
	// HTTPClient supplies the base Transport and, when set, the per-attempt Timeout.
	// nil: a private transport with TLS 1.2 or later, certificate verification, no proxy
	// and no cookies. The client is never modified: its CheckRedirect is replaced by the
	// origin policy and its Jar is ignored (discovery fetches carry no cookies or
	// credentials, MD-C-2).
	HTTPClient *http.Client

	// UserAgent is sent on every discovery fetch. "": "discovery-go/" + [Version].
	UserAgent string

	// Consent decides the actions listed on [ConsentAction]. nil: [DenyAll], so
	// cross-origin redirects fail with ErrCrossOrigin and guarded writes are refused.
	Consent ConsentFunc

	// Cache stores HTTP responses for revalidation (ETag, Last-Modified) and max-age
	// freshness. nil: a private in-memory cache per Client. See [NewDiskCache].
	Cache Cache

	// LastGood keeps the newest copy of each document that parsed and validated, served
	// when a later fetch fails. nil: a private in-memory store per Client. See
	// [NewDiskLastGood] for copies that survive a restart.
	LastGood LastGoodStore

	// MaxRetries is the number of retries after the first attempt on connection errors,
	// 408, 429 and 5xx but 501. 0: [DefaultMaxRetries]; negative: no retry.
	MaxRetries int

	// MaxDocumentBytes caps a document body after decompression. 0:
	// [DefaultMaxDocumentBytes]. A larger body fails with [ErrTooLarge]; negative is an error.
	MaxDocumentBytes int64

	// AttemptTimeout bounds one request, body included. 0: HTTPClient.Timeout when set,
	// else [DefaultAttemptTimeout]. Negative is an error.
	AttemptTimeout time.Duration

	// DocumentTimeout bounds the retrieval of one document, every attempt and backoff
	// included, on top of the caller's context. 0: [DefaultDocumentTimeout].
	DocumentTimeout time.Duration

	// SkillTimeout bounds one [Client.GetSkill] call as a whole: every artifact request
	// (a v0.1.0 skill may list hundreds of files), retries, verification and unpacking,
	// on top of the caller's context. 0: [DefaultSkillTimeout]. Negative is an error.
	SkillTimeout time.Duration

	// MaxRetryAfter caps how long the Client honours a Retry-After header. A server that
	// asks for longer gets no retry: the fetch fails at once (and falls back to the last
	// good copy). 0: [DefaultMaxRetryAfter].
	MaxRetryAfter time.Duration

	// MaxStale is the age beyond which a last good copy is no longer served. 0:
	// [DefaultMaxStale]; negative: never serve a last good copy.
	MaxStale time.Duration

	// InsecureAllowPrivateHosts lists hosts that may resolve to private addresses
	// (loopback, RFC 1918, link-local...) even when the discovery origin is public: an
	// intranet service, a proxy, a local test host. nil: none. Naming a host lets that
	// host, and only it, reach a private address: it does not make the host a private
	// origin, so its redirects and agent calls reach no other private address. For
	// trusted networks only: every entry reopens the door to requests into the
	// machine's own network.
	InsecureAllowPrivateHosts []string

	// AllowPrivateOrigins lets the Client discover origins that are themselves private:
	// localhost (and *.localhost) or a loopback or private IP literal, such as
	// http://localhost:8080 or https://10.0.0.9. Such an origin, and its redirects and
	// agent calls, may then reach private addresses. false (the default): they are
	// refused with [ErrPrivateAddress], because a model that chooses origins can be
	// talked into choosing http://localhost:8080/admin or https://169.254.169.254. Set
	// it where a person types the origin (a command line, a local test).
	AllowPrivateOrigins bool

	// Logger receives one record per [Event], with stable keys (see [LogEvent]):
	// fetches and retries at Debug, consent asked and answered at Info, stale answers,
	// guard refusals and shared-store degradation at Warn. nil: no logging.
	Logger *slog.Logger

	// Observe receives every [Event], for metrics or audit. nil: none.
	Observe ObserveFunc

	// Trace starts a span per discovery and per document fetch (package discoveryotel
	// provides one for OpenTelemetry). nil: none.
	Trace TraceFunc

	// WrapTransport wraps the Client's transport, for instrumentation. It is applied
	// outside the private-address guard, which it cannot weaken. nil: none.
	WrapTransport WrapTransportFunc

	// FleetLock lets processes that share a Cache (such as package redisstore's) fetch
	// each document once for the whole fleet: the process that takes the lock fetches
	// and stores the answer, the others wait for it (at most FleetWait) and read it from
	// the shared Cache. nil: every process fetches for itself.
	FleetLock FleetLock

	// FleetWait bounds how long a process waits for another one's fetch before it
	// fetches for itself. 0: [DefaultFleetWait].
	FleetWait time.Duration
}

// DefaultFleetWait is the wait used when Options.FleetWait is zero.
const DefaultFleetWait = 3 * time.Second

// FleetLock is a lock shared by the processes of a fleet, with an expiry so a holder
// that dies blocks nobody past it (package redisstore implements it with SET NX PX).
// Implementations must be safe for concurrent use and must bound each call in time;
// an error is not a failure of the discovery: the process fetches for itself.
type FleetLock interface {
	// TryLock tries once to take the lock named key for ttl. When it is taken it
	// returns acquired true and the function that releases it (only if still held by
	// this taker).
	TryLock(ctx context.Context, key string, ttl time.Duration) (release func(), acquired bool, err error)
	// Held reports whether anyone holds the lock named key. A lock released a moment
	// ago may be reported not held while TryLock still cannot take it: a store may
	// keep a short "done" marker (redisstore keeps one for a second), so a process
	// that just missed the answer asks the shared cache instead of fetching again.
	Held(ctx context.Context, key string) (bool, error)
}

// Cache stores serialised HTTP responses keyed by URL. Every gregjones/httpcache Cache
// satisfies it. Implementations must be safe for concurrent use.
type Cache interface {
	// Get returns the response stored under key, if any.
	Get(key string) (value []byte, ok bool)
	// Set stores a response under key.
	Set(key string, value []byte)
	// Delete removes the response stored under key.
	Delete(key string)
}

// PrivatePartition begins every key a Client stores, in its [Cache] and its
// [LastGoodStore], for a document fetched for a private origin (localhost, a loopback
// or private IP literal): such an origin names the machine's own network, so its
// answers must never answer a public origin's request, nor be shared with another
// machine (package redisstore keeps them in its local tier only).
const PrivatePartition = "private-origin "

// Memory bounds of a Client's in-process tiers: a long-running agent, or a crawler
// visiting 100,000 origins, must not grow without limit.
const (
	DefaultMemoryCacheBytes = 64 << 20 // NewMemoryCache: serialised responses, least recently used evicted
	parseMemoBytes          = 32 << 20 // the parse memo: bodies kept to recognise unchanged ones
)

// NewMemoryCache returns an in-memory [Cache] bounded to DefaultMemoryCacheBytes
// (least recently used entries go first), safe for concurrent use.
func NewMemoryCache() Cache { return NewMemoryCacheSize(DefaultMemoryCacheBytes) }

// NewMemoryCacheSize is NewMemoryCache with a budget of maxBytes (keys and values).
func NewMemoryCacheSize(maxBytes int64) Cache { return memoryCache{lru.New[[]byte](maxBytes)} }

type memoryCache struct{ c *lru.Cache[[]byte] }

// Get returns the response stored under key.
func (m memoryCache) Get(key string) ([]byte, bool) { return m.c.Get(key) }

// Set stores a response under key.
func (m memoryCache) Set(key string, value []byte) { m.c.Set(key, value, int64(len(key)+len(value))) }

// Delete removes key.
func (m memoryCache) Delete(key string) { m.c.Delete(key) }

// Client retrieves, validates and caches discovery documents. Create it with
// [NewClient] and reuse it; the zero Client is not usable (its methods return an
// error). A Client is immutable after construction and safe for concurrent use by
// multiple goroutines.
type Client struct {
	consent         ConsentFunc
	privateOrigins  bool // Options.AllowPrivateOrigins
	userAgent       string
	maxBytes        int64
	docTimeout      time.Duration
	skillTimeout    time.Duration
	maxRetryAfter   time.Duration
	maxStale        time.Duration
	lastGood        LastGoodStore
	logger          *slog.Logger
	observe         ObserveFunc
	tracer          TraceFunc
	fleetLock       FleetLock
	fleetWait       time.Duration
	http            *http.Client // cache → retries → counting → base transport, for public origins
	httpPrivate     *http.Client // the same stack with its own cache partition, for private origins
	now             func() time.Time
	closeIdleConns  func()
	guard           *dialGuard                 // private-address guard shared by every transport
	agentBase       http.RoundTripper          // guarded default transport of Client.Guard (GuardOptions.Base nil)
	retryWait       [2]time.Duration           // backoff bounds (tests shorten them)
	flight          *flight                    // collapses concurrent fetches of one URL
	parsed          *lru.Cache[*parsed]        // (kind, URL) → the newest parse of each document, bounded
	fresh           [2]*lru.Cache[*freshEntry] // origin string → a fresh discovery (Discover, Structured): the fast path
	validated       [2]*lru.Cache[*validated]  // URL → the last 200, to revalidate without the HTTP cache (public, private)
	below           http.RoundTripper          // the stack under the HTTP cache
	caches          [2]Cache                   // the HTTP cache partitions (public, private)
	publicPartition string                     // the public partition's key prefix ("" without InsecureAllowPrivateHosts)
}

// testHooks replace what tests cannot reach through Options: name resolution, the
// connect step and backoff bounds. Set only by export_test.go.
type testHooks struct {
	lookup       func(ctx context.Context, host string) ([]netip.Addr, error)
	dial         func(ctx context.Context, network, address string) (net.Conn, error)
	retryWaitMin time.Duration
	retryWaitMax time.Duration
	memoBytes    int64 // the parse memo's budget; 0: parseMemoBytes
	freshBytes   int64 // the fast path's budget; 0: freshBytes
}

// NewClient returns a Client configured by opts; nil opts gives the defaults. It
// returns an error when an option is out of range.
func NewClient(opts *Options) (*Client, error) { return newClient(opts, testHooks{}) }

func newClient(opts *Options, hooks testHooks) (*Client, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	switch {
	case o.MaxDocumentBytes < 0:
		return nil, fmt.Errorf("discovery: Options.MaxDocumentBytes is negative (%d)", o.MaxDocumentBytes)
	case o.AttemptTimeout < 0:
		return nil, fmt.Errorf("discovery: Options.AttemptTimeout is negative (%s)", o.AttemptTimeout)
	case o.DocumentTimeout < 0:
		return nil, fmt.Errorf("discovery: Options.DocumentTimeout is negative (%s)", o.DocumentTimeout)
	case o.SkillTimeout < 0:
		return nil, fmt.Errorf("discovery: Options.SkillTimeout is negative (%s)", o.SkillTimeout)
	case o.FleetWait < 0:
		return nil, fmt.Errorf("discovery: Options.FleetWait is negative (%s)", o.FleetWait)
	case o.MaxRetryAfter < 0:
		return nil, fmt.Errorf("discovery: Options.MaxRetryAfter is negative (%s)", o.MaxRetryAfter)
	case o.MaxRetries > 10:
		return nil, fmt.Errorf("discovery: Options.MaxRetries is %d; at most 10 are allowed", o.MaxRetries)
	case strings.ContainsAny(o.UserAgent, "\r\n"):
		return nil, errors.New("discovery: Options.UserAgent contains a line break")
	}
	c := &Client{
		consent:        o.Consent,
		privateOrigins: o.AllowPrivateOrigins,
		userAgent:      o.UserAgent,
		maxBytes:       o.MaxDocumentBytes,
		docTimeout:     o.DocumentTimeout,
		skillTimeout:   o.SkillTimeout,
		maxRetryAfter:  o.MaxRetryAfter,
		maxStale:       o.MaxStale,
		lastGood:       o.LastGood,
		logger:         o.Logger,
		observe:        o.Observe,
		tracer:         o.Trace,
		fleetLock:      o.FleetLock,
		fleetWait:      o.FleetWait,
		now:            time.Now,
		flight:         &flight{},
		parsed:         lru.New[*parsed](parseMemoBytes),
		fresh:          [2]*lru.Cache[*freshEntry]{lru.New[*freshEntry](freshBytes), lru.New[*freshEntry](freshBytes)},
		validated:      [2]*lru.Cache[*validated]{lru.New[*validated](validatedBytes), lru.New[*validated](validatedBytes)},
	}
	if c.consent == nil {
		c.consent = DenyAll
	}
	if c.userAgent == "" {
		c.userAgent = "discovery-go/" + Version
	}
	if c.maxBytes == 0 {
		c.maxBytes = DefaultMaxDocumentBytes
	}
	if c.docTimeout == 0 {
		c.docTimeout = DefaultDocumentTimeout
	}
	if c.skillTimeout == 0 {
		c.skillTimeout = DefaultSkillTimeout
	}
	if c.maxRetryAfter == 0 {
		c.maxRetryAfter = DefaultMaxRetryAfter
	}
	if c.fleetWait == 0 {
		c.fleetWait = DefaultFleetWait
	}
	if c.maxStale == 0 {
		c.maxStale = DefaultMaxStale
	}
	if c.lastGood == nil {
		c.lastGood = NewMemoryLastGood()
	}
	allow := make(map[string]bool, len(o.InsecureAllowPrivateHosts))
	for _, h := range o.InsecureAllowPrivateHosts {
		ch, err := canonicalHost(strings.Trim(h, "[]"))
		if err != nil {
			return nil, fmt.Errorf("discovery: Options.InsecureAllowPrivateHosts: %q: %w", h, err)
		}
		allow[ch] = true
	}
	c.guard = newDialGuard(allow)
	if hooks.lookup != nil {
		c.guard.lookup = hooks.lookup
	}
	if hooks.memoBytes > 0 {
		c.parsed = lru.New[*parsed](hooks.memoBytes)
	}
	if hooks.freshBytes > 0 {
		c.fresh = [2]*lru.Cache[*freshEntry]{lru.New[*freshEntry](hooks.freshBytes), lru.New[*freshEntry](hooks.freshBytes)}
		c.validated = [2]*lru.Cache[*validated]{lru.New[*validated](hooks.freshBytes), lru.New[*validated](hooks.freshBytes)}
	}
	if hooks.dial != nil {
		c.guard.dial = hooks.dial
	}
	c.retryWait = [2]time.Duration{retryWaitMin, retryWaitMax}
	if hooks.retryWaitMin > 0 {
		c.retryWait = [2]time.Duration{hooks.retryWaitMin, hooks.retryWaitMax}
	}
	retries := o.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	attempt := o.AttemptTimeout
	var base http.RoundTripper
	if o.HTTPClient != nil {
		base = o.HTTPClient.Transport
		if attempt == 0 {
			attempt = o.HTTPClient.Timeout
		}
	}
	if base == nil {
		base = newBaseTransport(c.guard)
	} else {
		base = c.guard.guardTransport(base)
	}
	if o.WrapTransport != nil {
		// Outside the guard: the wrapper sees every request, and every request it
		// passes on still meets the guard.
		if w := o.WrapTransport(base); w != nil {
			base = w
		}
	}
	// The agent's own calls (Client.Guard with no Base) use the same configured
	// transport: its TLS roots, proxy and dialer, and the same per-policy pools.
	c.agentBase = base
	if attempt == 0 {
		attempt = DefaultAttemptTimeout
	}
	cache := o.Cache
	if cache == nil {
		cache = NewMemoryCache()
	}

	rc := retryablehttp.NewClient()
	rc.Logger = nil // the library logs to stderr by default
	rc.RetryMax = retries
	rc.RetryWaitMin, rc.RetryWaitMax = c.retryWait[0], c.retryWait[1]
	inner := &http.Client{
		// The attempt timeout (body included) is the transport's, not the http.Client's:
		// http.Client.Timeout costs a goroutine and a timer per request.
		Transport: countingTransport{base: base, timeout: attempt},
		// The inner client is the one that follows redirects (retryablehttp calls its
		// Do), so the origin policy must sit here, not on the outer client.
		CheckRedirect: c.checkRedirect,
	}
	rc.HTTPClient = inner
	rc.CheckRetry = c.checkRetry
	rc.Backoff = c.backoff
	rc.ErrorHandler = giveUp
	rc.RequestLogHook = func(_ retryablehttp.Logger, req *http.Request, retry int) {
		if tr := traceOf(req.Context()); tr != nil {
			tr.attempts.Add(1)
			if retry > 0 {
				c.emit(req.Context(), Event{Kind: EventRetry, Origin: tr.origin.String(), URL: redact(req.URL), Attempt: retry,
					Doc: tr.doc, Status: int(tr.status.Load())})
			}
		}
	}
	below := belowCache{base: &retryablehttp.RoundTripper{Client: rc}}
	stack := func(cache Cache, prefix string) *http.Client {
		var next http.RoundTripper = below
		if c.fleetLock != nil {
			keep := &sync.Map{}
			next = fleetTransport{next: below, c: c, prefix: "fleet " + prefix, keep: keep}
			cache = keepingCache{Cache: cache, keep: keep}
		}
		return &http.Client{
			// Cache outside the retries: a fresh hit never touches the network and a
			// revalidation is retried as a unit (dependencies.md §2.2).
			Transport:     &httpcache.Transport{Transport: next, Cache: cache, MarkCachedResponses: true},
			CheckRedirect: c.checkRedirect, // reached only if a 3xx ever comes back through the stack
		}
	}
	// One cache partition per policy class, as for connection pools: a fresh copy a
	// private origin fetched must never answer a public origin's request (a pointer or
	// a consented redirect to that URL) without the private-address guard seeing it.
	// A Client that lets named hosts resolve privately (InsecureAllowPrivateHosts) keeps
	// its public answers apart too: a Client without that list, sharing the Cache, must
	// not be answered with an intranet document its own guard would refuse.
	public := ""
	if len(allow) > 0 {
		hosts := slices.Sorted(maps.Keys(allow))
		sum := sha256.Sum256([]byte(strings.Join(hosts, "\n")))
		public = "allow-" + hex.EncodeToString(sum[:8]) + " "
	}
	c.publicPartition = public
	c.caches = [2]Cache{cache, partition{cache, PrivatePartition}}
	if public != "" {
		c.caches[0] = partition{cache, public}
	}
	c.http = stack(c.caches[0], public)
	c.httpPrivate = stack(c.caches[1], PrivatePartition)
	c.below = below
	c.closeIdleConns = inner.CloseIdleConnections
	return c, nil
}

// CloseIdleConnections closes the idle connections of the Client's transports. It
// does not interrupt calls in progress; the Client stays usable.
func (c *Client) CloseIdleConnections() {
	if c.usable() == nil {
		c.closeIdleConns()
	}
}

// newBaseTransport returns the default transport: the private-address guard as
// dialer, TLS 1.2 or later with certificate verification, no proxy, bounded header
// size and handshake time, and one connection pool per policy class.
func newBaseTransport(g *dialGuard) *splitTransport {
	return split(&http.Transport{
		DialContext:            g.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 64 << 10,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
	})
}

// defaultClient backs the package-level Discover.
var defaultClient = sync.OnceValues(func() (*Client, error) { return NewClient(nil) })

// Discover discovers origin with a private default Client (the zero Options). See
// [Client.Discover].
func Discover(ctx context.Context, origin string) (*Discovery, error) {
	c, err := defaultClient()
	if err != nil {
		return nil, err
	}
	return c.Discover(ctx, origin)
}

// origin parses s as [ParseOrigin] does and refuses a private origin unless
// Options.AllowPrivateOrigins is set.
func (c *Client) origin(s string) (Origin, error) {
	if o, ok := originMemo.Get(s); ok {
		if !c.privateOrigins && privateOrigin(o) {
			return Origin{}, &PrivateAddressError{Host: o.Host, Addr: o.Host, Origin: true}
		}
		return o, nil
	}
	o, err := ParseOrigin(s)
	if err != nil {
		return Origin{}, err
	}
	if len(s) <= 512 {
		originMemo.Set(s, o, int64(2*len(s)+len(o.Host)+64))
	}
	if !c.privateOrigins && privateOrigin(o) {
		return Origin{}, &PrivateAddressError{Host: o.Host, Addr: o.Host, Origin: true}
	}
	return o, nil
}

// errZeroClient is returned by the methods of a Client not made by NewClient.
var errZeroClient = errors.New("discovery: Client was not created with NewClient")

func (c *Client) usable() error {
	if c == nil || c.http == nil {
		return errZeroClient
	}
	return nil
}

// fetchTrace records what happened below the cache for one document fetch. It travels
// in the request context, which is the only per-request channel through httpcache and
// retryablehttp; it carries no configuration.
type fetchTrace struct {
	origin   Origin
	doc      string       // the document kind, for events
	attempts atomic.Int32 // retryablehttp attempts
	requests atomic.Int32 // round trips, redirect hops included
	status   atomic.Int32 // status of the last response seen on the wire
	mu       sync.Mutex   // guards granted and hops
	granted  map[Origin]bool
	hops     int // redirect hops followed in earlier rounds (see Client.send)

	// deadline: when the current round of a document fetch must end (Client.send);
	// zero when a context carries it (skill fetches, with their budget).
	deadline time.Time

	// reval: the remembered copy this fetch revalidates itself (see revalidate.go);
	// fromMemory: the answer is that copy, confirmed by a 304.
	reval      *validated
	fromMemory bool

	// redirected: a redirect was met (written by checkRedirect, in the goroutine of
	// the fetch): the answer may be another URL's.
	redirected bool

	// fleetDone: this fetch already waited for another process of the fleet; it now
	// fetches for itself (written by fleetTransport, read in the same goroutine).
	fleetDone bool
	// fleetRelease releases the fleet lock this fetch holds: set by fleetTransport,
	// handed by send to the body the HTTP cache returns (on a 304 httpcache answers
	// with its own copy and never closes the body the lock was tied to).
	fleetRelease func()
	// fleetKept forgets the mark that spares the entry the holder stored from
	// httpcache's Delete after a fleet wait (see keepingCache).
	fleetKept func()

	// What reached the HTTP cache from below, for the one request of this fetch
	// (written and read in the goroutine of c.http.Do, one after the other).
	belowErr  error
	belowResp *http.Response
}

// belowCache sits between the HTTP cache and the retries. It records what the network
// answered, so the fetch can tell when the cache handed back an old copy instead of a
// failure (httpcache does that on its own for a response that once carried
// Cache-Control: stale-if-error), and strips stale-if-error from every response, so
// new entries never ask for it. Only the last-good logic may serve an old copy: within
// MaxStale, marked stale, never over a policy or consent failure.
type belowCache struct{ base http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (b belowCache) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.base.RoundTrip(req)
	if tr := traceOf(req.Context()); tr != nil {
		tr.belowErr, tr.belowResp = err, resp
	}
	if resp != nil {
		stripStaleIfError(resp.Header)
		capFreshness(resp.Header)
		if resp.Request != nil && resp.Request.URL != nil && !sameOrigin(req.URL, resp.Request.URL) {
			// Another origin's answer, reached through redirects this fetch was allowed
			// (a consented hop, or a hop back to the origin being discovered): never
			// stored under this URL, where a later discovery starting here would be
			// served it without meeting those redirects and their consent.
			resp.Header.Set("Cache-Control", "no-store")
		}
	}
	return resp, err
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	if a == b || strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host) {
		return true // the common case, without parsing
	}
	oa, err := originOf(a)
	if err != nil {
		return false
	}
	ob, err := originOf(b)
	return err == nil && oa == ob
}

// maxFreshness caps how long a response stays fresh in the Client's caches. A site
// decides how long its answer may be reused without asking, but a year of max-age
// (sent by mistake, or by someone who controlled the site for an hour) would have
// every long-running agent reuse that copy for a year: a document the site fixed or
// withdrew since would never be asked for again. Past the cap a copy is revalidated.
const maxFreshness = 24 * time.Hour

// capFreshness rewrites the freshness lifetime of a response with header h down to
// maxFreshness, as freshUntil judges it and as httpcache does (cacheLifetime: the two
// read Cache-Control differently, "MAX-AGE=1" beside a far Expires is a second to one
// and a year to the other, so a cap that asked only freshUntil could leave httpcache a
// year): every max-age in the first Cache-Control header, the one the HTTP cache
// reads, gives way to max-age set to the cap, which takes precedence over Expires. A
// Date in the future (a clock ahead, or a lie: the HTTP cache counts a copy's age from
// it) is read as now.
func capFreshness(h http.Header) {
	until := freshUntil(h)
	life := cacheLifetime(h)
	if until.IsZero() && life <= 0 {
		return // not fresh at all: the common case, nothing allocated
	}
	date, err := responseDate(h)
	if err != nil {
		return
	}
	if now := time.Now(); date.After(now.Add(time.Minute)) {
		h.Set("Date", now.UTC().Format(http.TimeFormat))
		until, life = freshUntil(h), cacheLifetime(h)
		if until.IsZero() && life <= 0 {
			return
		}
		date, _ = responseDate(h)
	}
	if until.Sub(date) <= maxFreshness && life <= maxFreshness {
		return
	}
	vs := h.Values("Cache-Control")
	var keep []string
	if len(vs) > 0 {
		for d := range strings.SplitSeq(vs[0], ",") {
			d = strings.TrimSpace(d)
			if name, _, _ := strings.Cut(d, "="); d == "" || strings.EqualFold(strings.TrimSpace(name), "max-age") {
				continue
			}
			keep = append(keep, d)
		}
		vs = vs[1:]
	}
	keep = append(keep, "max-age="+strconv.Itoa(int(maxFreshness/time.Second)))
	h["Cache-Control"] = append([]string{strings.Join(keep, ", ")}, vs...)
}

// cacheLifetime is the freshness lifetime httpcache gives a response with header h,
// read exactly as it reads it (getFreshness, parseCacheControl): directives of the
// first Cache-Control header, split on "," and "=", trimmed of spaces only, names
// case-sensitive, the last of a name winning; no-cache means none; max-age through
// time.ParseDuration, else Expires less Date, both time.RFC1123. 0 when none.
func cacheLifetime(h http.Header) time.Duration {
	var maxAge string
	hasMaxAge := false
	for part := range strings.SplitSeq(h.Get("Cache-Control"), ",") {
		part = strings.Trim(part, " ")
		name, rest, _ := strings.Cut(part, "=")
		val, _, _ := strings.Cut(rest, "=")
		switch strings.Trim(name, " ") {
		case "no-cache":
			return 0
		case "max-age":
			maxAge, hasMaxAge = val, true
		}
	}
	date, err := time.Parse(time.RFC1123, h.Get("Date"))
	if err != nil {
		return 0 // httpcache: stale
	}
	if hasMaxAge {
		d, err := time.ParseDuration(maxAge + "s")
		if err != nil {
			return 0
		}
		return d
	}
	exp := h.Get("Expires")
	if exp == "" {
		return 0
	}
	t, err := time.Parse(time.RFC1123, exp)
	if err != nil {
		return 0
	}
	return t.Sub(date)
}

// partition is a Cache whose keys carry a prefix: one Cache, separate key spaces.
type partition struct {
	Cache
	prefix string
}

// Get returns the response stored under key in the partition.
func (p partition) Get(key string) ([]byte, bool) { return p.Cache.Get(p.prefix + key) }

// Set stores a response under key in the partition.
func (p partition) Set(key string, value []byte) { p.Cache.Set(p.prefix+key, value) }

// Delete removes key from the partition.
func (p partition) Delete(key string) { p.Cache.Delete(p.prefix + key) }

// stripStaleIfError removes the stale-if-error directive from Cache-Control.
func stripStaleIfError(h http.Header) {
	vs := h.Values("Cache-Control")
	if !slices.ContainsFunc(vs, func(v string) bool { return containsFold(v, "stale-if-error") }) {
		return // the common case: nothing to strip, nothing allocated
	}
	var keep []string
	changed := false
	for _, v := range vs {
		for d := range strings.SplitSeq(v, ",") {
			d = strings.TrimSpace(d)
			if name, _, _ := strings.Cut(d, "="); strings.EqualFold(strings.TrimSpace(name), "stale-if-error") {
				changed = true
				continue
			}
			if d != "" {
				keep = append(keep, d)
			}
		}
	}
	if changed {
		h.Del("Cache-Control")
		if len(keep) > 0 {
			h.Set("Cache-Control", strings.Join(keep, ", "))
		}
	}
}

// CloseIdleConnections forwards to the transport below.
func (b belowCache) CloseIdleConnections() {
	if ci, ok := b.base.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

type traceKey struct{}

func traceOf(ctx context.Context) *fetchTrace {
	tr, _ := ctx.Value(traceKey{}).(*fetchTrace)
	return tr
}

// consented reports whether this fetch followed a redirect the user consented to: its
// answer must never be reused without asking again (the fast path does not keep it).
func (tr *fetchTrace) consented() bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.granted) > 0
}

func (tr *fetchTrace) isGranted(o Origin) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.granted[o]
}

// grant records consent for o, reached after hops more redirect hops.
func (tr *fetchTrace) grant(o Origin, hops int) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.granted == nil {
		tr.granted = make(map[Origin]bool)
	}
	tr.granted[o] = true
	tr.hops += hops
}

func (tr *fetchTrace) earlierHops() int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.hops
}

// countingTransport counts round trips on the wire for the fetch trace, and bounds
// each one, body included, by the attempt timeout.
type countingTransport struct {
	base    http.RoundTripper
	timeout time.Duration
}

// RoundTrip implements http.RoundTripper.
func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tr := traceOf(req.Context())
	if tr != nil {
		tr.requests.Add(1)
	}
	deadline, cause := time.Now().Add(t.timeout), errAttemptTimeout
	if tr != nil && !tr.deadline.IsZero() && tr.deadline.Before(deadline) {
		deadline, cause = tr.deadline, errDocumentTimeout
	}
	ctx, cancel := context.WithDeadlineCause(req.Context(), deadline, cause)
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil || resp == nil {
		cancel()
		if err != nil && errors.Is(context.Cause(ctx), errDocumentTimeout) && req.Context().Err() == nil {
			err = fmt.Errorf("%w: %v", errDocumentTimeout, err)
		} else if err != nil && errors.Is(context.Cause(ctx), errAttemptTimeout) && req.Context().Err() == nil {
			// %v, not %w: a connection cancelled by the attempt's deadline can report
			// context.Canceled, which must not read as the caller giving up (no retry).
			err = fmt.Errorf("%w (%s): %v", errAttemptTimeout, t.timeout, err)
		}
		return resp, err
	}
	if tr != nil {
		tr.status.Store(int32(resp.StatusCode))
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, ctx: ctx, cancel: cancel, timeout: t.timeout}
	return resp, nil
}

// errAttemptTimeout is the cause of a request that outlived Options.AttemptTimeout,
// errDocumentTimeout of one cut by Options.DocumentTimeout (never retried).
var (
	errAttemptTimeout  = errors.New("discovery: attempt timed out (Options.AttemptTimeout)")
	errDocumentTimeout = errors.New("discovery: document timed out (Options.DocumentTimeout): " + context.DeadlineExceeded.Error())
)

// cancelBody ends a request's context when its body is read to the end or closed.
type cancelBody struct {
	io.ReadCloser
	ctx     context.Context
	cancel  context.CancelFunc
	timeout time.Duration
}

// Read reads the body; at EOF the request's context ends. A body cut short because
// the context ended is an error, even where the connection's end reads as EOF (a
// response without a length, cut when the transport closes the connection).
func (b *cancelBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && b.ctx.Err() != nil {
		if errors.Is(context.Cause(b.ctx), errAttemptTimeout) {
			return n, fmt.Errorf("%w (%s) while reading the body", errAttemptTimeout, b.timeout)
		}
		return n, fmt.Errorf("discovery: reading the body: %w", context.Cause(b.ctx))
	}
	if err == io.EOF {
		b.cancel()
	}
	return n, err
}

// Close closes the body and ends the request's context.
func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// CloseIdleConnections closes idle connections of the base transport.
func (t countingTransport) CloseIdleConnections() {
	if ci, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// checkRedirect is the origin policy for every redirect hop of a discovery fetch. A
// hop to an origin the fetch was not granted stops the request with consentNeeded:
// the user is asked by send, outside the fetch's time limits.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	tr := traceOf(req.Context())
	hops := len(via)
	if tr != nil {
		tr.redirected = true
		hops += tr.earlierHops()
	}
	if hops > maxRedirects {
		return fmt.Errorf("%w: more than %d hops, last to %s", ErrTooManyRedirects, maxRedirects, redact(req.URL))
	}
	// Never downgrade: a hop from https to http would expose the rest of the chain.
	if strings.EqualFold(via[len(via)-1].URL.Scheme, "https") && !strings.EqualFold(req.URL.Scheme, "https") {
		return fmt.Errorf("%w: redirect from https to %s", ErrInsecureOrigin, redact(req.URL))
	}
	target, err := originOf(req.URL)
	if err != nil {
		return err
	}
	// Never send site-supplied userinfo: net/http would turn it into an Authorization
	// header on this hop.
	req.URL.User = nil
	start, err := splitOrigin(via[0].URL)
	if tr != nil {
		start = tr.origin // the discovery origin, even after an earlier consented hop
	}
	if err != nil || target == start || (tr != nil && tr.isGranted(target)) {
		return err
	}
	next := *req.URL
	return &consentNeeded{target: target, next: &next, hops: len(via)}
}

// consentNeeded stops a fetch at a redirect to an origin it was not granted.
type consentNeeded struct {
	target Origin
	next   *url.URL // where the redirect goes, userinfo removed
	hops   int      // hops of the chain so far, this one included
}

// Error implements the error interface.
func (e *consentNeeded) Error() string {
	return fmt.Sprintf("%s: to %s (consent needed)", ErrCrossOrigin, redact(e.next))
}

// Unwrap returns ErrCrossOrigin: unanswered, the redirect is refused.
func (e *consentNeeded) Unwrap() error { return ErrCrossOrigin }

// send GETs u through the Client's stack for the fetch traced by tr. A redirect to an
// origin the fetch was not granted stops the request; the ConsentFunc is asked with
// parent, outside the time limit (timeout bounds each network round, so the time a
// person takes to answer never counts against it), and on a yes the fetch goes on
// from the redirect's target. budget, when not nil, bounds the network time of all
// rounds together (and is charged for it). send owns header. It returns the response
// and the cancel function of its context, to call once the body is read.
func (c *Client) send(parent context.Context, tr *fetchTrace, u string, header http.Header, timeout time.Duration,
	budget *skillBudget) (*http.Response, context.CancelFunc, error) {
	base := context.WithValue(withDialPolicy(parent, tr.origin), traceKey{}, tr)
	for n := 0; ; n++ {
		round := timeout
		if budget != nil {
			round = budget.take(timeout)
		}
		start := c.now()
		var ctx context.Context
		var cancel context.CancelFunc
		if budget != nil {
			ctx, cancel = context.WithTimeout(base, round)
			stop := cancel
			cancel = func() { stop(); budget.charge(c.now().Sub(start)) } // body reading included
		} else {
			// The round's deadline travels in the trace and bounds each attempt's
			// context (countingTransport), and checkRetry stops a retry whose wait would
			// pass it: one timer per attempt instead of two.
			tr.deadline = time.Now().Add(round)
			ctx, cancel = base, func() {}
		}
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
		private := privateOrigin(tr.origin)
		hc := c.http
		if private {
			hc = c.httpPrivate
		}
		rt := hc.Transport
		if tr.reval != nil {
			rt = revalidator{v: tr.reval, below: c.below, cache: c.caches[b2i(private)], copies: c.validated[b2i(private)], now: c.now}
			tr.reval = nil // one round: a redirect's target goes through the HTTP cache
		}
		tr.belowErr, tr.belowResp = nil, nil // what the cache sees below is per round
		// Straight to the cache's transport: the inner client below the cache follows
		// the redirects, so an outer http.Client would only copy headers and URLs.
		resp, err := rt.RoundTrip(req)
		if rel := tr.fleetRelease; rel != nil {
			tr.fleetRelease = nil
			if resp != nil {
				resp.Body = &releasingBody{ReadCloser: resp.Body, release: rel}
			} else {
				rel()
			}
		}
		if err != nil {
			err = &url.Error{Op: "Get", URL: redact(req.URL), Err: err}
		}
		resp, err = uncache(resp, err, tr)
		if tr.fleetKept != nil {
			tr.fleetKept() // the mark for httpcache's Delete is used now, or never
			tr.fleetKept = nil
		}
		if err != nil && errors.Is(err, errFleetRetry) {
			cancel() // another process fetched it: the cache has it now, or we fetch
			continue
		}
		if err == nil {
			return resp, cancel, nil
		}
		var cn *consentNeeded
		if !errors.As(err, &cn) {
			if budget != nil && budget.spent() {
				err = fmt.Errorf("%w (Options.SkillTimeout used up)", err)
			}
			return resp, cancel, err
		}
		cancel()
		err = ask(parent, c, c.consent, &ConsentRequest{
			Action: ConsentRedirect,
			Origin: tr.origin,
			URL:    redact(cn.next),
			Method: http.MethodGet,
			Reason: fmt.Sprintf("%s redirects discovery to another origin, %s", tr.origin, cn.target),
		}, ErrCrossOrigin)
		if err != nil {
			return nil, func() {}, &RedirectError{From: tr.origin, To: cn.target, URL: redact(cn.next), Err: err}
		}
		tr.grant(cn.target, cn.hops)
		u = cn.next.String()
	}
}

// retryStatus marks a status that retryablehttp should retry; giveUp turns it back into
// the response so the caller sees the real status after the last attempt.
type retryStatus struct{ code int }

// Error implements the error interface.
func (e *retryStatus) Error() string { return "discovery: HTTP " + strconv.Itoa(e.code) }

// checkRetry retries connection errors, 408, 429 and 5xx but 501, never policy or TLS
// failures, and gives up at once when Retry-After exceeds the cap.
func (c *Client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	// The wait before another attempt must end before the document's deadline.
	tr := traceOf(ctx)
	late := func(wait time.Duration) bool {
		return tr != nil && !tr.deadline.IsZero() && time.Until(tr.deadline) < wait
	}
	if err != nil {
		return !permanent(err) && !errors.Is(err, errDocumentTimeout) && !late(c.retryWait[1]), err
	}
	switch code := resp.StatusCode; {
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests,
		code >= 500 && code != http.StatusNotImplemented:
		d, ok := retryAfter(resp, c.now())
		if ok && d > c.maxRetryAfter {
			return false, &retryStatus{code} // give up now; the caller falls back
		}
		if !ok {
			d = c.retryWait[1]
		}
		return !late(d), &retryStatus{code}
	}
	return false, nil // 2xx, 3xx, 304, 404 and the other 4xx go back to the caller
}

// permanent reports whether err is a failure that a retry cannot mend: a policy
// violation, a certificate problem, or an http answer to an https request.
func permanent(err error) bool {
	var (
		certErr   *tls.CertificateVerificationError
		recordErr tls.RecordHeaderError
		alertErr  tls.AlertError
		dnsErr    *net.DNSError
	)
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return true // NXDOMAIN will not change in a second
	}
	return policyError(err) || errors.Is(err, ErrInvalidOrigin) || errors.Is(err, context.Canceled) ||
		errors.As(err, &certErr) || errors.As(err, &recordErr) || errors.As(err, &alertErr) ||
		// net/http has no type for this one; a plain-HTTP server behind https:// never
		// starts speaking TLS on a retry.
		strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
}

// giveUp runs after the last attempt. For a retried status it hands back the last
// response, so the caller sees 503 rather than a bare "giving up" error.
func giveUp(resp *http.Response, err error, _ int) (*http.Response, error) {
	var rs *retryStatus
	if resp != nil && errors.As(err, &rs) {
		return resp, nil
	}
	if resp != nil {
		resp.Body.Close()
	}
	return nil, err
}

// backoff is exponential with jitter, and follows a Retry-After no longer than the cap.
func (c *Client) backoff(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
	if d, ok := retryAfter(resp, c.now()); ok {
		return min(d, c.maxRetryAfter)
	}
	d := lo << attempt
	if d <= 0 || d > hi {
		d = hi
	}
	return d/2 + rand.N(d/2+1)
}

// retryAfter reads Retry-After on 429 and 503: delta-seconds, or an HTTP date (one in
// the past means 0).
func retryAfter(resp *http.Response, now time.Time) (time.Duration, bool) {
	if resp == nil || (resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable) {
		return 0, false
	}
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > int64(365*24*time.Hour/time.Second) {
			n = int64(365 * 24 * time.Hour / time.Second)
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// redactString redacts a URL given as text (secrets.RedactURL): no userinfo, query or
// fragment; unparsable text is dropped entirely.
func redactString(s string) string {
	if len(s) > 2048 {
		return secrets.RedactURL(s)
	}
	if r, ok := redactMemo.Get(s); ok {
		return r
	}
	r := secrets.RedactURL(s)
	redactMemo.Set(s, r, int64(len(s)+len(r)+64))
	return r
}

// originMemo keeps the parse of the origin strings seen last: ParseOrigin (IDNA,
// canonical hosts) costs microseconds, and an agent names the same few origins.
var originMemo = lru.New[Origin](1 << 20)

// redactMemo keeps the redacted form of the URLs seen last: every fetch reports its
// URL several times, and scanning a URL for secrets costs microseconds.
var redactMemo = lru.New[string](1 << 20)

// containsFold reports whether s contains sub, ignoring ASCII case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}
