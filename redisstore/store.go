// Package redisstore shares a discovery Client's HTTP cache, last good copies and
// fetches across a fleet of processes through Redis.
//
// A [Store] wraps a [redis.UniversalClient] (a single server, Sentinel or Cluster) and
// hands out the three values [discovery.Options] takes:
//
//	rdb := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: []string{"redis:6379"}, ContextTimeoutEnabled: true})
//	store, err := redisstore.New(rdb, &redisstore.Options{Logger: logger})
//	if err != nil { return err }
//	c, err := discovery.NewClient(&discovery.Options{Logger: logger,
//		Cache: store.Cache(), LastGood: store.LastGood(), FleetLock: store.FleetLock()})
//
// # Two tiers
//
// The cache and the last-good store each have a bounded in-process tier in front of
// Redis. Reads go to the local tier first, then to Redis, filling the local tier;
// writes go to both. A local cache entry that is still fresh (by its Date, max-age
// and Expires headers) is served without asking Redis, so a fresh hit costs no round
// trip; a stale one is first compared with the copy in Redis, which another process
// may have revalidated. Responses marked Cache-Control: private or no-store stay in
// the local tier.
//
// # When Redis is slow or down
//
// Redis is never a reason for a discovery to fail. Every operation is bounded by
// Options.Timeout (100 ms by default). A failed or slow operation is a miss (a
// write is dropped), reported as a [discovery.EventStoreDegraded] event (Doc "cache",
// "last-good" or "lock"), logged at Warn, and the local tier keeps serving. After a
// failure the Store skips Redis for Options.Backoff (1 s by default, a circuit
// breaker), then lets one operation through to test it: a dead Redis costs one
// timeout per Backoff, not one per call. FleetLock calls fail fast meanwhile, and the
// Client fetches for itself. A Redis that answers but has no usable entry reports
// [discovery.EventStoreMiss], at Debug.
//
// # Fleet-wide single flight
//
// With the FleetLock in Options.FleetLock, the process that takes a document's lock
// (SET NX PX, with a random token) fetches it and stores the answer; the others wait
// until the lock is released and read that answer from Redis. See [Store.FleetLock].
//
// # Round trips
//
// A Discover answered by a fresh local copy costs no Redis round trip. One answered
// from Redis costs one (GET; MGET with Options.Secret). A miss everywhere costs five:
// GET, SET NX (the lock), SET (the response), SET (the last good copy) and EVALSHA
// (the release; the first time a Redis server sees the script, an EVAL follows).
// With Options.Secret, each of the two SETs is an EVALSHA instead (it raises the
// version mark in the same step).
//
// # Entries in Redis
//
// Keys are Options.Prefix ("discovery:" by default), a kind ("c:" cache, "lg:" last
// good, "lock:" fleet lock, "v:c:" and "v:lg:" version marks) and the hex SHA-256 of
// the URL. Cache entries live for the response's freshness lifetime plus
// Options.RevalidateFor (so ETag revalidation still works), at most
// Options.MaxCacheTTL; last good copies live until they are Options.MaxStale old.
//
// Without Options.Secret, every value is framed with its URL, its length and a SHA-256
// checksum; a torn, corrupt or mismatched value is a miss and is deleted. A checksum
// catches accidents, not forgeries, and the values hold URLs and documents in clear:
// Redis must then be readable and writable only by the fleet.
//
// # Options.Secret: authenticated, confidential, never rolled back
//
// When anything but the fleet can read or write the Redis (another application, a
// shared instance), set Options.Secret. From it the Store derives, with HKDF-SHA256,
// separate keys for three jobs:
//
//   - Values are sealed with AES-256-GCM (a random nonce per value). A value shows
//     neither its URL nor the response or document it holds. Its additional data binds
//     it to its Redis key and URL, its kind and its version: a value that anything
//     without the Secret wrote or changed, one sealed under another Secret, and one
//     moved under another key (another URL, kind or Prefix) are misses, and deleted.
//   - Keys name URLs by their HMAC-SHA256, so keys do not show which URLs the fleet
//     visits either.
//   - Version marks are authenticated with HMAC-SHA256.
//
// Authentication alone would still let anything that can write to the Redis write an
// old value of the fleet's back under its key (a replay), to have an outdated document
// served, fresh from the cache or as a last good copy when the origin fails. So a
// process never uses a value older than one it, or the fleet, has already accepted for
// that URL. Every sealed value carries a version: when it was written, and always above
// any version its writer has seen for that key. Each process remembers the newest
// version it accepted or wrote per key (beyond about 8,000 keys, the least recently
// used are forgotten first), and the fleet keeps an authenticated version mark per key,
// which writers raise, and only raise, in the same Lua script that stores the value
// (a writer whose clock runs behind the mark writes just above it). A value older than
// either, or older than the longest it may live in Redis (Options.MaxCacheTTL for a
// cache entry, Options.MaxStale for a last good copy), is refused, deleted, and
// reported as an [discovery.EventStoreDegraded] event (at Warn) whose Err is a
// [*RollbackError] naming the URL. A mark that fails authentication is ignored.
//
// The limit of the rule: a process that has not seen (or has forgotten) the newer
// value can still be served an older value of the fleet's when both the value and its
// mark were put back together, or the mark was deleted; that copy is then at most
// MaxCacheTTL (a cache entry) or MaxStale (a last good copy) old. Versions are the
// writers' clocks: keep the fleet's clocks in sync. AES-GCM with random nonces allows
// about 2^32 values under one key: rotate the Secret well before a fleet has written
// that many values.
//
// # Concurrency
//
// A Store, and the Cache, LastGoodStore and FleetLock it returns, are safe for
// concurrent use by multiple goroutines, and by many processes sharing one Redis.
package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Defaults used when the corresponding [Options] field is zero. They are exported so a
// caller can derive its own settings from them.
const (
	DefaultPrefix             = "discovery:"           // starts every key
	DefaultTimeout            = 100 * time.Millisecond // one Redis operation
	DefaultRevalidateFor      = 24 * time.Hour         // how long a cache entry outlives its freshness
	DefaultMaxCacheTTL        = 7 * 24 * time.Hour     // the longest a cache entry lives in Redis
	DefaultBackoff            = time.Second            // how long Redis is skipped after a failure
	DefaultLocalLastGoodBytes = 32 << 20               // the local last-good tier's budget
)

// maxSharedValue caps a value written to or read from Redis: discovery documents are
// at most a few MiB, and a larger value is not ours.
const maxSharedValue = 16 << 20

// ErrUnavailable is returned by the FleetLock's methods while the circuit breaker
// skips Redis after a recent failure. The Client then fetches for itself.
var ErrUnavailable = errors.New("redisstore: Redis skipped after a recent failure")

// errNotNew is returned by the methods of a Store not made by New.
var errNotNew = errors.New("redisstore: Store was not created with New")

// Options configures a [Store]. A nil *Options, or the zero Options, gives the
// defaults described on each field. New copies the struct.
type Options struct {
	// Prefix starts every key the Store writes, so that several applications (or
	// several configurations) can share one Redis. "": [DefaultPrefix].
	Prefix string

	// Timeout bounds each Redis operation, the wait for a pooled connection included.
	// A slower answer counts as a failure. 0: [DefaultTimeout]; negative is an error.
	// Set redis.Options.ContextTimeoutEnabled too, so that go-redis also stops
	// reading at that deadline; otherwise an abandoned operation ends at go-redis's
	// own ReadTimeout, in the background.
	Timeout time.Duration

	// RevalidateFor is how long a cache entry stays in Redis after its freshness
	// lifetime ends, so that a process can still revalidate it with its ETag or
	// Last-Modified instead of fetching the whole document again. 0:
	// [DefaultRevalidateFor]; negative is an error.
	RevalidateFor time.Duration

	// MaxCacheTTL caps how long a cache entry lives in Redis, whatever max-age the
	// origin sent. 0: [DefaultMaxCacheTTL]; negative is an error.
	MaxCacheTTL time.Duration

	// MaxStale is how long a last good copy is kept in Redis after it was saved; use
	// the Client's Options.MaxStale. 0: [discovery.DefaultMaxStale]; negative: last
	// good copies are not shared (the local tier keeps them).
	MaxStale time.Duration

	// Backoff is how long the Store skips Redis after a failure before it lets one
	// operation through to test it. 0: [DefaultBackoff]; negative is an error.
	Backoff time.Duration

	// LocalCache is the in-process tier of the cache. The Store keeps entries in it in
	// its own format (the response and when it stops being fresh). nil:
	// [discovery.NewMemoryCache], bounded to [discovery.DefaultMemoryCacheBytes].
	LocalCache discovery.Cache

	// LocalLastGood is the in-process tier of the last-good store. nil: an in-memory
	// store bounded to [DefaultLocalLastGoodBytes], least recently used copies first
	// out.
	LocalLastGood discovery.LastGoodStore

	// Logger receives one record per event, with the keys of [discovery.LogEvent]:
	// [discovery.EventStoreDegraded] at Warn, [discovery.EventStoreMiss] at Debug.
	// nil: no logging.
	Logger *slog.Logger

	// Observe receives the same events, for metrics. It is called on the goroutine
	// doing the work, with a background context. nil: none.
	Observe discovery.ObserveFunc

	// SharePrivate shares the documents of private origins (localhost, loopback and
	// private IP literals: keys for which discovery.IsPrivateKey is true) through Redis too.
	// false (the default): they stay in each process's local tier, because localhost
	// on one machine is not localhost on another. Set it only when every process
	// sees the same private network (processes on one host, a test).
	SharePrivate bool

	// Secret, when set, seals every value the Store writes to Redis with AES-256-GCM
	// under a key derived from it, names keys with it, and guards every key against
	// rollback (see the package documentation): a value written or changed by anything
	// without the Secret (another application on the same Redis, anyone who can write
	// to it) is a miss, never a document; an old value of the fleet's written back is
	// refused once a newer one was accepted; and neither keys nor values show which
	// URLs the fleet visits or what they hold. Give every process of a fleet the same
	// Secret, at least 16 bytes (32 random bytes recommended), from your secret store.
	// nil (the default): values carry a SHA-256 checksum, which catches torn and
	// corrupt values but not forged or replayed ones, and hold URLs and documents in
	// clear, so Redis must then be readable and writable only by the fleet. Changing it
	// makes every entry a miss until it is written again.
	Secret []byte
}

// MinSecretLen is the shortest Options.Secret New accepts.
const MinSecretLen = 16

// Store is a two-tier store, an in-process tier in front of Redis, shared by a fleet
// of processes. Create it with [New]; the zero Store is not usable (its Cache and
// LastGood always miss, its FleetLock and Ping return an error). A Store is safe for
// concurrent use by multiple goroutines.
type Store struct {
	rdb        redis.UniversalClient
	prefix     string
	timeout    time.Duration
	revalidate time.Duration
	maxTTL     time.Duration
	maxStale   time.Duration // negative: last good copies are not shared
	backoff    time.Duration
	logger     *slog.Logger
	observe    discovery.ObserveFunc
	share      bool     // Options.SharePrivate
	seal       *sealer  // keys derived from Options.Secret; nil: checksums only
	seen       versions // with a Secret: the newest version accepted per key
	now        func() time.Time

	cache    *cacheTier
	lastGood *lastGoodTier
	lock     *fleetLock

	// openUntil is the circuit breaker: 0 while Redis is healthy; otherwise the
	// UnixNano time before which Redis is skipped.
	openUntil atomic.Int64
}

// New returns a Store that keeps its shared tier in rdb. rdb is used as it is and
// never closed by the Store. New returns an error when rdb is nil or an option is out
// of range.
func New(rdb redis.UniversalClient, opts *Options) (*Store, error) {
	if rdb == nil {
		return nil, errors.New("redisstore: New: nil Redis client")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	switch {
	case o.Timeout < 0:
		return nil, fmt.Errorf("redisstore: Options.Timeout is negative (%s)", o.Timeout)
	case o.RevalidateFor < 0:
		return nil, fmt.Errorf("redisstore: Options.RevalidateFor is negative (%s)", o.RevalidateFor)
	case o.MaxCacheTTL < 0:
		return nil, fmt.Errorf("redisstore: Options.MaxCacheTTL is negative (%s)", o.MaxCacheTTL)
	case o.Backoff < 0:
		return nil, fmt.Errorf("redisstore: Options.Backoff is negative (%s)", o.Backoff)
	case o.Secret != nil && len(o.Secret) < MinSecretLen:
		return nil, fmt.Errorf("redisstore: Options.Secret is %d bytes; use at least %d (32 random bytes recommended)", len(o.Secret), MinSecretLen)
	}
	s := &Store{
		rdb:        rdb,
		prefix:     orDefault(o.Prefix, DefaultPrefix),
		timeout:    orDefault(o.Timeout, DefaultTimeout),
		revalidate: orDefault(o.RevalidateFor, DefaultRevalidateFor),
		maxTTL:     orDefault(o.MaxCacheTTL, DefaultMaxCacheTTL),
		maxStale:   orDefault(o.MaxStale, discovery.DefaultMaxStale),
		backoff:    orDefault(o.Backoff, DefaultBackoff),
		logger:     o.Logger,
		observe:    o.Observe,
		share:      o.SharePrivate,
		now:        time.Now,
	}
	if o.Secret != nil {
		seal, err := newSealer(o.Secret)
		if err != nil {
			return nil, err
		}
		s.seal, s.seen = seal, newVersions()
	}
	local := o.LocalCache
	if local == nil {
		local = discovery.NewMemoryCache(0)
	}
	localLG := o.LocalLastGood
	if localLG == nil {
		localLG = newMemoryLastGood(DefaultLocalLastGoodBytes)
	}
	s.cache = &cacheTier{s: s, local: local}
	s.lastGood = &lastGoodTier{s: s, local: localLG}
	s.lock = &fleetLock{s: s}
	return s, nil
}

// orDefault returns v, or def when v is the zero value.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Cache returns the Store's [discovery.Cache], for Options.Cache: HTTP responses,
// keyed by URL. Every call returns the same value.
func (s *Store) Cache() discovery.Cache {
	if !s.usable() {
		return noCache{}
	}
	return s.cache
}

// LastGood returns the Store's [discovery.LastGoodStore], for Options.LastGood. Every
// call returns the same value.
func (s *Store) LastGood() discovery.LastGoodStore {
	if !s.usable() {
		return noLastGood{}
	}
	return s.lastGood
}

// FleetLock returns the Store's [discovery.FleetLock], for Options.FleetLock: SET NX
// PX with a random token; Held is one GET. Every call returns the same value.
//
// A release, by a script that checks the token first, does not delete the lock at
// once: for a grace period (one second, at most the lock's ttl) the key holds a
// "done" marker, for which Held reports false and TryLock does not acquire. A process
// that looked in the cache just before the holder stored its answer, and tries the
// lock just after the release, then waits for nothing, looks in the cache again and
// finds that answer, instead of fetching the document a second time.
func (s *Store) FleetLock() discovery.FleetLock {
	if !s.usable() {
		return noLock{}
	}
	return s.lock
}

// Ping checks that Redis answers within Options.Timeout, whatever the circuit
// breaker says, for a readiness probe. A success closes the breaker: the Store uses
// Redis again at once.
func (s *Store) Ping(ctx context.Context) error {
	if !s.usable() {
		return errNotNew
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		s.trip()
		return fmt.Errorf("redisstore: PING: %w", err)
	}
	s.openUntil.Store(0)
	return nil
}

func (s *Store) usable() bool { return s != nil && s.rdb != nil }

// key returns the Redis key of name in the kind's namespace. With a Secret the name's
// hash is a hash tag ({...}), so that a value and its version mark ("v:" and the
// value's kind) live on one Cluster node.
func (s *Store) key(kind, name string) string {
	if s.seal != nil {
		return s.prefix + kind + "{" + s.seal.name(name) + "}"
	}
	sum := sha256.Sum256([]byte(name))
	return s.prefix + kind + hex.EncodeToString(sum[:])
}

// allow reports whether an operation may use Redis now. While the breaker is open it
// says no; once Backoff has passed it says yes to one caller, the probe, and pushes
// the others back by another Backoff.
func (s *Store) allow() bool {
	until := s.openUntil.Load()
	if until == 0 {
		return true
	}
	now := s.now().UnixNano()
	if now < until {
		return false
	}
	return s.openUntil.CompareAndSwap(until, now+int64(s.backoff))
}

// trip opens the breaker for Backoff.
func (s *Store) trip() { s.openUntil.Store(s.now().Add(s.backoff).UnixNano()) }

// healthy closes the breaker after a successful operation.
func (s *Store) healthy() {
	if s.openUntil.Load() != 0 {
		s.openUntil.Store(0)
	}
}

// result is what one Redis operation returned.
type result[T any] struct {
	v   T
	err error
}

// op describes one Redis operation for roundTrip.
type op[T any] struct {
	doc, key string // for the events: the kind of entry and the key as the Client named it
	// force runs the operation even while the breaker is open (releasing a lock
	// taken moments ago is worth one more try).
	force bool
	// late, if set, receives a result that came back after the caller gave up at
	// the deadline (on the operation's goroutine), to undo what it did.
	late func(v T)
}

// roundTrip runs fn against Redis within Options.Timeout, unless the breaker is open
// (ErrUnavailable). A miss (redis.Nil) is a success. A failure opens the breaker, and
// is reported as EventStoreDegraded, unless it is ctx's own end, which is the caller's
// doing and says nothing about Redis.
//
// fn runs on its own goroutine, so that the timeout holds even when the go-redis
// client does not honour context deadlines (ContextTimeoutEnabled off): the caller
// returns at the deadline, and fn ends in the background at go-redis's own timeout.
func roundTrip[T any](ctx context.Context, s *Store, o op[T], fn func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	if !o.force && !s.allow() {
		return zero, ErrUnavailable
	}
	start := s.now()
	octx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	var (
		mu     sync.Mutex // guards gaveUp and the send on ch
		gaveUp bool
		ch     = make(chan result[T], 1)
	)
	go func() {
		v, err := fn(octx)
		mu.Lock()
		late := gaveUp
		if !late {
			ch <- result[T]{v, err} // buffered: never blocks
		}
		mu.Unlock()
		if late && err == nil && o.late != nil {
			o.late(v)
		}
	}()
	var r result[T]
	select {
	case r = <-ch:
	case <-octx.Done():
		mu.Lock()
		gaveUp = true
		select {
		case r = <-ch: // it came in time after all
		default:
			r.err = octx.Err()
		}
		mu.Unlock()
	}
	switch {
	case r.err == nil || errors.Is(r.err, redis.Nil):
		s.healthy()
		return r.v, r.err
	case ctx.Err() != nil:
		return zero, ctx.Err() // the caller gave up; Redis may be fine
	}
	s.trip()
	if errors.Is(r.err, context.DeadlineExceeded) {
		r.err = fmt.Errorf("redisstore: no answer within %s: %w", s.timeout, r.err)
	}
	s.emit(discovery.Event{Kind: discovery.EventStoreDegraded, URL: redactKey(o.key), Doc: o.doc,
		Duration: s.now().Sub(start), Err: r.err})
	return zero, r.err
}

// emit logs e and passes it to the observer.
func (s *Store) emit(e discovery.Event) {
	ctx := context.Background()
	discovery.LogEvent(ctx, s.logger, e)
	if s.observe != nil {
		s.observe(ctx, e)
	}
}

// miss reports that Redis had no usable entry for key (err says why when it had one).
func (s *Store) miss(doc, key string, err error) {
	s.emit(discovery.Event{Kind: discovery.EventStoreMiss, URL: redactKey(key), Doc: doc, Err: err})
}

// redactKey returns the URL in a cache key (httpcache keys are a URL, possibly after a
// method or partition name and a space), without userinfo, query or fragment.
func redactKey(key string) string {
	if i := strings.LastIndexByte(key, ' '); i >= 0 {
		key = key[i+1:]
	}
	return secrets.RedactURL(key)
}
