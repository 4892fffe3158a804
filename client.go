package discovery

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wellknown-dev/discovery/internal/fetch"
	"github.com/wellknown-dev/discovery/internal/lru"
	"github.com/wellknown-dev/discovery/internal/netguard"
	"github.com/wellknown-dev/discovery/trust"
)

// Version is the version of this module, sent in the default User-Agent.
const Version = "0.1.0"

// Defaults used when the corresponding [Options] field is zero. They are exported so a
// caller can derive its own settings from them.
const (
	DefaultMaxDocumentBytes = 1 << 20            // 1 MiB, after decompression
	DefaultMaxRetries       = 2                  // retries, not attempts: 3 requests in all
	DefaultAttemptTimeout   = 10 * time.Second   // one request, body included
	DefaultDocumentTimeout  = 30 * time.Second   // one document: every attempt and backoff
	DefaultMaxRetryAfter    = 10 * time.Second   // a longer Retry-After means give up now
	DefaultMaxStale         = 7 * 24 * time.Hour // how old a last good copy may be when served
	DefaultSkillTimeout     = 60 * time.Second   // one GetSkill: every artifact, retries and unpacking
	maxRedirects            = 5                  // hops per fetch
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
	// credentials).
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

	// TrustRoots are the publisher trust anchors (package trust) against which
	// [Client.GetSkill] verifies the Trust Manifest published beside each skill's
	// artifact (its URL with [trust.ManifestSuffix]); manifest and keys are fetched
	// under the same policy as the artifact. The outcome is [Skill.Publisher]. nil: no
	// manifest is fetched and Publisher is nil (unless RequireSignedSkills).
	TrustRoots []trust.Root

	// RequireSignedSkills makes GetSkill fail, wrapping the [*trust.VerifyError], for a
	// skill whose manifest does not verify with TrustRoots. false: an unverified skill
	// is returned, with Publisher saying why.
	RequireSignedSkills bool

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

	// InsecureAllowPrivateOrigins lets the Client discover origins that are themselves
	// private: localhost (and *.localhost) or a loopback or private IP literal, such as
	// http://localhost:8080 or https://10.0.0.9. Such an origin, and its redirects and
	// agent calls, may then reach private addresses. false (the default): they are
	// refused with [ErrPrivateAddress], because a model that chooses origins can be
	// talked into choosing http://localhost:8080/admin or https://169.254.169.254. Set
	// it only where a person chooses the origin (a command line, local development, a
	// test), never for origins taken from model input or from documents.
	InsecureAllowPrivateOrigins bool

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

// Client retrieves, validates and caches discovery documents. Create it with
// [NewClient] and reuse it; the zero Client is not usable (its methods return an
// error). A Client is immutable after construction and safe for concurrent use by
// multiple goroutines.
type Client struct {
	consent         ConsentFunc
	privateOrigins  bool // Options.InsecureAllowPrivateOrigins
	userAgent       string
	docTimeout      time.Duration
	skillTimeout    time.Duration
	trustRoots      []trust.Root // Options.TrustRoots, copied
	requireSigned   bool         // Options.RequireSignedSkills
	maxRetryAfter   time.Duration
	logger          *slog.Logger
	observe         ObserveFunc
	tracer          TraceFunc
	now             func() time.Time
	fetcher         *fetch.Fetcher              // the HTTP pipeline (internal/fetch)
	guard           *netguard.Guard             // private-address guard shared by every transport
	agentBase       http.RoundTripper           // guarded default transport of Client.Guard (GuardOptions.Base nil)
	flight          *fetch.Flight               // collapses concurrent fetches of one document
	docs            *fetch.Documents            // the pipeline's document layer: status, content, parse memo, last good
	fresh           *fetch.FastPath[*Discovery] // origin string → a fresh discovery (Discover, Structured)
	publicPartition string                      // the public partition's key prefix ("" without InsecureAllowPrivateHosts)
}

// testHooks replace what tests cannot reach through Options: name resolution, the
// connect step and backoff bounds. Set only by export_test.go.
type testHooks struct {
	lookup       func(ctx context.Context, host string) ([]netip.Addr, error)
	dial         func(ctx context.Context, network, address string) (net.Conn, error)
	retryWaitMin time.Duration
	retryWaitMax time.Duration
	memoBytes    int64 // the parse memo's budget; 0: parseMemoBytes
	freshBytes   int64 // the fast path's (and remembered copies') budget; 0: freshBytes
}

// Memory bounds of a Client's in-process tiers: a long-running agent, or a crawler
// visiting 100,000 origins, must not grow without limit.
const (
	parseMemoBytes = 32 << 20 // the parse memo: bodies kept to recognise unchanged ones
	freshBytes     = 32 << 20 // the fast path, counting the documents it keeps alive
)

// NewClient returns a Client configured by opts; nil opts gives the defaults. It
// returns an error when an option is out of range.
func NewClient(opts *Options) (*Client, error) { return newClient(opts, testHooks{}) }

func newClient(opts *Options, hooks testHooks) (*Client, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	allow, err := allowedHosts(o.InsecureAllowPrivateHosts)
	if err != nil {
		return nil, err
	}
	c := &Client{
		consent:        o.Consent,
		privateOrigins: o.InsecureAllowPrivateOrigins,
		userAgent:      cmp.Or(o.UserAgent, "discovery-go/"+Version),
		docTimeout:     cmp.Or(o.DocumentTimeout, DefaultDocumentTimeout),
		skillTimeout:   cmp.Or(o.SkillTimeout, DefaultSkillTimeout),
		trustRoots:     slices.Clone(o.TrustRoots),
		requireSigned:  o.RequireSignedSkills,
		maxRetryAfter:  cmp.Or(o.MaxRetryAfter, DefaultMaxRetryAfter),
		logger:         o.Logger,
		observe:        o.Observe,
		tracer:         o.Trace,
		now:            time.Now,
		flight:         &fetch.Flight{},
		fresh:          fetch.NewFastPath[*Discovery](fetch.TierBytes(o.Cache, cmp.Or(hooks.freshBytes, freshBytes))),
		guard:          netguard.New(netguard.Config{Allow: allow, Lookup: hooks.lookup, Dial: hooks.dial, Refuse: refusePrivate}),
	}
	if c.consent == nil {
		c.consent = DenyAll
	}
	c.publicPartition = fetch.PublicPrefix(allow)
	c.agentBase = c.baseTransport(&o)
	c.fetcher = fetch.New(c.pipelineConfig(&o, hooks))
	c.docs = fetch.NewDocuments(c.fetcher, c.documentConfig(&o, cmp.Or(hooks.memoBytes, parseMemoBytes)))
	return c, nil
}

// validate reports the first option out of range.
func (o *Options) validate() error {
	switch {
	case o.MaxDocumentBytes < 0:
		return fmt.Errorf("discovery: Options.MaxDocumentBytes is negative (%d)", o.MaxDocumentBytes)
	case o.AttemptTimeout < 0:
		return fmt.Errorf("discovery: Options.AttemptTimeout is negative (%s)", o.AttemptTimeout)
	case o.DocumentTimeout < 0:
		return fmt.Errorf("discovery: Options.DocumentTimeout is negative (%s)", o.DocumentTimeout)
	case o.SkillTimeout < 0:
		return fmt.Errorf("discovery: Options.SkillTimeout is negative (%s)", o.SkillTimeout)
	case o.FleetWait < 0:
		return fmt.Errorf("discovery: Options.FleetWait is negative (%s)", o.FleetWait)
	case o.MaxRetryAfter < 0:
		return fmt.Errorf("discovery: Options.MaxRetryAfter is negative (%s)", o.MaxRetryAfter)
	case o.MaxRetries > 10:
		return fmt.Errorf("discovery: Options.MaxRetries is %d; at most 10 are allowed", o.MaxRetries)
	case strings.ContainsAny(o.UserAgent, "\r\n"):
		return errors.New("discovery: Options.UserAgent contains a line break")
	}
	return nil
}

// allowedHosts returns the canonical forms of Options.InsecureAllowPrivateHosts.
func allowedHosts(hosts []string) (map[string]bool, error) {
	allow := make(map[string]bool, len(hosts))
	for _, h := range hosts {
		ch, err := canonicalHost(strings.Trim(h, "[]"))
		if err != nil {
			return nil, fmt.Errorf("discovery: Options.InsecureAllowPrivateHosts: %q: %w", h, err)
		}
		allow[ch] = true
	}
	return allow, nil
}

// baseTransport returns the transport every request of the Client ends in: the
// caller's (Options.HTTPClient) or the default one, behind the private-address guard,
// wrapped by Options.WrapTransport. The agent's own calls (Client.Guard with no Base)
// use it too: its TLS roots, proxy and dialer, and the same per-policy pools.
func (c *Client) baseTransport(o *Options) http.RoundTripper {
	var base http.RoundTripper
	if o.HTTPClient != nil && o.HTTPClient.Transport != nil {
		base = c.guard.Wrap(o.HTTPClient.Transport)
	} else {
		base = c.guard.NewTransport()
	}
	if o.WrapTransport != nil {
		// Outside the guard: the wrapper sees every request, and every request it
		// passes on still meets the guard.
		if w := o.WrapTransport(base); w != nil {
			base = w
		}
	}
	return base
}

// CloseIdleConnections closes the idle connections of the Client's transports. It
// does not interrupt calls in progress; the Client stays usable.
func (c *Client) CloseIdleConnections() {
	if c.usable() == nil {
		c.fetcher.CloseIdleConnections()
	}
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
// Options.InsecureAllowPrivateOrigins is set.
func (c *Client) origin(s string) (Origin, error) {
	o, ok := originMemo.Get(s)
	if !ok {
		var err error
		if o, err = ParseOrigin(s); err != nil {
			return Origin{}, err
		}
		if len(s) <= 512 {
			originMemo.Set(s, o, int64(2*len(s)+len(o.Host)+64))
		}
	}
	if !c.privateOrigins && privateOrigin(o) {
		return Origin{}, &PrivateAddressError{Host: o.Host, Addr: o.Host, Origin: true}
	}
	return o, nil
}

// errZeroClient is returned by the methods of a Client not made by NewClient.
var errZeroClient = errors.New("discovery: Client was not created with NewClient")

func (c *Client) usable() error {
	if c == nil || c.fetcher == nil {
		return errZeroClient
	}
	return nil
}

// redactString redacts a URL given as text: no userinfo, query or fragment;
// unparsable text is dropped entirely.
func redactString(s string) string { return fetch.RedactURL(s) }

// originMemo keeps the parse of the origin strings seen last: ParseOrigin (IDNA,
// canonical hosts) costs microseconds, and an agent names the same few origins.
var originMemo = lru.New[Origin](1 << 20)
