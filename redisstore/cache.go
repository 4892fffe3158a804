package redisstore

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/wellknown-dev/discovery"
)

// Doc values of the Store's events.
const (
	docCache    = "cache"
	docLastGood = "last-good"
	docLock     = "lock"
)

// cacheTier is the Store's discovery.Cache: a local tier in front of Redis.
type cacheTier struct {
	s     *Store
	local discovery.Cache
}

// entry is a cached response and when it stops being fresh (zero: unknown, stale).
type entry struct {
	value      []byte
	freshUntil time.Time
	version    int64 // with a Secret: the version of the copy in Redis; 0: none known
}

// Get returns the response stored under key. A fresh local entry answers at once;
// otherwise Redis is asked, and the fresher of the two copies wins (Redis holds what
// another process fetched or revalidated). A Redis failure is a Redis miss.
func (c *cacheTier) Get(key string) ([]byte, bool) {
	now := c.s.now()
	local, lok := c.localGet(key)
	if lok && (now.Before(local.freshUntil) || c.s.localOnly(key)) {
		return local.value, true
	}
	if c.s.localOnly(key) {
		return nil, false
	}
	shared, sok := c.sharedGet(key)
	switch {
	case sok && (!lok || !shared.freshUntil.Before(local.freshUntil)):
		if !lok || !bytes.Equal(shared.value, local.value) || shared.version != local.version {
			c.localSet(key, shared)
		}
		return shared.value, true
	case lok:
		return local.value, true
	}
	return nil, false
}

// Set stores a response under key in both tiers; one that is private, no-store or
// unreadable stays local (and any shared copy under key is deleted).
func (c *cacheTier) Set(key string, value []byte) {
	pol := policyOf(value)
	e := entry{value: value, freshUntil: pol.freshUntil}
	share := !c.s.localOnly(key) && pol.share && len(value) <= maxSharedValue
	k := c.s.cacheKind()
	if share && c.s.seal != nil {
		// The local copy records the version of the copy in Redis, for Delete.
		e.version = c.s.nextVersion(c.s.key(k.prefix, key))
	}
	c.localSet(key, e)
	if c.s.localOnly(key) {
		return
	}
	if !share {
		c.sharedDelete(key)
		return
	}
	ttl := min(max(pol.freshUntil.Sub(c.s.now()), 0)+c.s.revalidate, c.s.maxTTL)
	if stored := c.s.writeShared(k, key, e.version, unixNano(pol.freshUntil), value, ttl); stored != e.version {
		e.version = stored // raised above the fleet's mark, or not stored
		c.localSet(key, e)
	}
}

// Delete removes the response stored under key from the local tier, and from Redis
// if Redis holds the same copy: a copy another process stored since (a fresher one)
// stays. httpcache deletes the entry it had when a revalidation fails, or when a fleet
// waiter hands the request back to it; neither may throw away what the fleet fetched.
func (c *cacheTier) Delete(key string) {
	local, ok := c.localGet(key)
	c.local.Delete(key)
	if c.s.localOnly(key) {
		return
	}
	if !ok {
		c.sharedDelete(key)
		return
	}
	k := c.s.cacheKind()
	rkey := c.s.key(k.prefix, key)
	if c.s.seal == nil {
		sum := frameChecksum(magicCache, key, unixNano(local.freshUntil), local.value)
		c.s.deleteSame(k, key, rkey, sum[:], frameFields+1, frameHeader)
		return
	}
	if local.version != 0 {
		c.s.deleteSame(k, key, rkey, versionBytes(local.version), magicLen+1, sealedHeader)
	}
}

func (c *cacheTier) sharedDelete(key string) { c.s.deleteShared(c.s.cacheKind(), key) }

// sharedGet reads key from Redis. A torn or foreign value is a miss, and is deleted.
func (c *cacheTier) sharedGet(key string) (entry, bool) {
	sh, ok := c.s.readShared(c.s.cacheKind(), key)
	if !ok {
		return entry{}, false
	}
	return entry{value: sh.value, freshUntil: fromUnixNano(sh.meta), version: sh.version}, true
}

// Local entries are framed too: magic, then freshUntil (UnixNano, 0 for none), then
// the version of the copy in Redis (0 for none), then the response. A local value
// without the frame (a Cache shared with something else) is a miss.
const (
	magicLocal     = "dlc2"
	localHeaderLen = len(magicLocal) + 16
)

func (c *cacheTier) localGet(key string) (entry, bool) {
	v, ok := c.local.Get(key)
	if !ok || len(v) < localHeaderLen || string(v[:len(magicLocal)]) != magicLocal {
		return entry{}, false
	}
	fresh := int64(binary.BigEndian.Uint64(v[len(magicLocal):]))
	version := int64(binary.BigEndian.Uint64(v[len(magicLocal)+8:]))
	return entry{value: v[localHeaderLen:], freshUntil: fromUnixNano(fresh), version: version}, true
}

func (c *cacheTier) localSet(key string, e entry) {
	buf := make([]byte, localHeaderLen, localHeaderLen+len(e.value))
	copy(buf, magicLocal)
	binary.BigEndian.PutUint64(buf[len(magicLocal):], uint64(unixNano(e.freshUntil)))
	binary.BigEndian.PutUint64(buf[len(magicLocal)+8:], uint64(e.version))
	c.local.Set(key, append(buf, e.value...))
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// policy is what a stored response says about its own caching.
type policy struct {
	share      bool      // may go to the shared tier: readable, neither private nor no-store
	freshUntil time.Time // when it stops being fresh; zero: stale already (no Date, no-cache...)
}

// policyOf reads the headers of a response serialised by httputil.DumpResponse and
// judges freshness as httpcache does: Date plus max-age, else Expires minus Date;
// no-cache means stale.
func policyOf(value []byte) policy {
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(value)), nil)
	if err != nil {
		return policy{}
	}
	resp.Body.Close()
	cc := cacheControl(resp.Header)
	_, private := cc["private"]
	_, noStore := cc["no-store"]
	pol := policy{share: !private && !noStore}
	if _, ok := cc["no-cache"]; ok {
		return pol
	}
	date, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		return pol
	}
	var lifetime time.Duration
	if maxAge, ok := cc["max-age"]; ok {
		n, err := strconv.ParseInt(maxAge, 10, 64)
		if err != nil || n <= 0 {
			return pol
		}
		lifetime = time.Duration(min(n, int64(100*365*24*time.Hour/time.Second))) * time.Second
	} else if exp := resp.Header.Get("Expires"); exp != "" {
		t, err := time.Parse(time.RFC1123, exp)
		if err != nil {
			return pol
		}
		lifetime = t.Sub(date)
	}
	if lifetime > 0 {
		pol.freshUntil = date.Add(lifetime)
	}
	return pol
}

// cacheControl parses the Cache-Control directives of h, names lower-cased.
func cacheControl(h http.Header) map[string]string {
	cc := make(map[string]string)
	for _, line := range h.Values("Cache-Control") {
		for d := range strings.SplitSeq(line, ",") {
			name, val, _ := strings.Cut(strings.TrimSpace(d), "=")
			name = strings.ToLower(strings.TrimSpace(name))
			if name != "" {
				cc[name] = strings.Trim(strings.TrimSpace(val), `"`)
			}
		}
	}
	return cc
}

// noCache is the Cache of a Store not made by New: it keeps nothing.
type noCache struct{}

func (noCache) Get(string) ([]byte, bool) { return nil, false }
func (noCache) Set(string, []byte)        {}
func (noCache) Delete(string)             {}

// localOnly reports a key of a private origin's document (discovery.IsPrivateKey):
// localhost and private addresses name each machine's own network, so what one process
// fetched there must never answer another machine. Such keys stay in the local tier,
// unless Options.SharePrivate.
func (s *Store) localOnly(key string) bool {
	return !s.share && discovery.IsPrivateKey(key)
}
