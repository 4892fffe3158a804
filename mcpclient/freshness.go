package mcpclient

import (
	"encoding/json"
	"slices"
	"sync"
	"time"
)

// Listing freshness (protocol 2026-07-28): skills/list and skills/get results carry
// ttlMs, how long the client may use them without asking again, and cacheScope,
// "public" when any user of the server would get the same answer and "private" when
// it is this user's. A Session keeps a result for ttlMs, never longer, and answers
// ListSkills and GetSkill from it meanwhile; a "public" result is also shared with
// the other Sessions to the same server (the same full URL, see serverKey) through
// Options.Listings. A result without ttlMs (older protocol versions), with ttlMs 0,
// or of a listing whose pages disagree is not kept; a scope other than "public" is
// private. A
// notifications/resources/list_changed from the server drops what the Session, and
// Options.Listings for its endpoint, kept. Freshness is a hint, never integrity:
// files are verified, and pins checked, whatever the listing's age.

// Cache scopes of skills/list and skills/get results.
const (
	ScopePublic  = "public"
	ScopePrivate = "private"
)

// maxShared bounds the results a ListingCache keeps.
const maxShared = 1024

// ListingCache shares the skills listings servers mark public between Sessions (set
// it as Options.Listings of each). Results marked private never enter it. Its zero
// value is an empty cache; it is safe for concurrent use.
type ListingCache struct {
	mu sync.Mutex           // guards m
	m  map[string]freshness // endpoint + " " + what → result
}

// freshness is one kept result: a *Listing or a *Skill, usable until until.
type freshness struct {
	val   any
	until time.Time
}

func (c *ListingCache) get(key string, now time.Time) (any, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.m[key]
	if !ok || !now.Before(f.until) {
		delete(c.m, key)
		return nil, false
	}
	return f.val, true
}

func (c *ListingCache) put(key string, f freshness, now time.Time) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]freshness{}
	}
	if len(c.m) >= maxShared {
		for k, v := range c.m {
			if !now.Before(v.until) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxShared {
			clear(c.m)
		}
	}
	c.m[key] = f
}

// dropEndpoint forgets every result of endpoint.
func (c *ListingCache) dropEndpoint(endpoint string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.m {
		if len(k) > len(endpoint) && k[:len(endpoint)] == endpoint && k[len(endpoint)] == ' ' {
			delete(c.m, k)
		}
	}
}

// cacheHints are the freshness fields of one result.
type cacheHints struct {
	TTLMs      *int64 `json:"ttlMs"`
	CacheScope string `json:"cacheScope"`
}

// hintsOf reads the freshness fields of a result as received.
func hintsOf(raw []byte) cacheHints {
	var h cacheHints
	if json.Unmarshal(raw, &h) != nil {
		return cacheHints{}
	}
	return h
}

// combine merges the hints of one more page: the shortest ttl, and private unless
// every page is public. A page without ttlMs makes the whole listing uncacheable.
func (h cacheHints) combine(page cacheHints) cacheHints {
	if h.TTLMs == nil || page.TTLMs == nil {
		return cacheHints{}
	}
	ttl := min(*h.TTLMs, *page.TTLMs)
	scope := ScopePrivate
	if h.CacheScope == ScopePublic && page.CacheScope == ScopePublic {
		scope = ScopePublic
	}
	return cacheHints{TTLMs: &ttl, CacheScope: scope}
}

// cached returns the result kept for what ("list", or "get " and a URI), from the
// Session first, then from Options.Listings.
func (s *Session) cached(what string) (any, bool) {
	now := time.Now()
	s.mu.Lock()
	f, ok := s.fresh[what]
	if ok && !now.Before(f.until) {
		delete(s.fresh, what)
		ok = false
	}
	s.mu.Unlock()
	if ok {
		return f.val, true
	}
	return s.opts.Listings.get(s.key+" "+what, now)
}

// keep stores val for what as h allows, unless a list_changed arrived since gen was
// read (the result may predate the change).
func (s *Session) keep(what string, val any, h cacheHints, gen uint64) {
	if h.TTLMs == nil || *h.TTLMs <= 0 {
		return
	}
	now := time.Now()
	f := freshness{val: val, until: now.Add(time.Duration(*h.TTLMs) * time.Millisecond)}
	s.mu.Lock()
	if s.gen != gen {
		s.mu.Unlock()
		return
	}
	if s.fresh == nil {
		s.fresh = map[string]freshness{}
	}
	if len(s.fresh) >= maxShared {
		clear(s.fresh)
	}
	s.fresh[what] = f
	s.mu.Unlock()
	if h.CacheScope == ScopePublic {
		s.opts.Listings.put(s.key+" "+what, f, now)
	}
}

// generation returns the count of list_changed notifications received so far.
func (s *Session) generation() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// listChanged drops every listing kept for this Session's server: the server said
// its resources changed.
func (s *Session) listChanged() {
	s.mu.Lock()
	s.gen++
	clear(s.fresh)
	s.mu.Unlock()
	s.opts.Listings.dropEndpoint(s.key)
}

// copyListing returns a Listing whose slices the caller may change.
func copyListing(l *Listing) *Listing {
	return &Listing{Skills: slices.Clone(l.Skills), Warnings: slices.Clone(l.Warnings)}
}
