package fetch

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gregjones/httpcache"
)

// The HTTP cache is gregjones/httpcache, outside the retries: a fresh hit never
// touches the network, and a revalidation is retried as a unit. Its adaptation, and
// why each part exists:
//   - belowCache records what the network answered, so uncache can tell when
//     httpcache handed back an old copy on its own after a failure (it does that for a
//     response that once carried stale-if-error): only the root's last-good rules may
//     serve an old copy;
//   - belowCache strips stale-if-error from every response, caps freshness at a day
//     (capFreshness), and marks another origin's answer no-store;
//   - FreshUntil and cacheLifetime read freshness exactly as httpcache does, so the
//     fast path and the cap agree with it;
//   - partition keeps one key space per policy class in one Cache.

// httpcacheMark is the header httpcache sets on answers from its cache.
const httpcacheMark = "X-From-Cache"

// httpCache sets up the HTTP cache layer of a round in s, over s.below, in partition
// p, and returns it.
func (s *roundStack) httpCache(f *Fetcher, st *state, p int) http.RoundTripper {
	var next http.RoundTripper = &s.below
	cache := f.caches[p]
	if marks := f.fleetKeep[p]; marks != nil {
		s.fleet = fleetTransport{st: st, next: next, marks: marks}
		next, cache = &s.fleet, keepingCache{Cache: cache, marks: marks}
	}
	s.cache = httpcache.Transport{Transport: next, Cache: cache, MarkCachedResponses: true}
	return &s.cache
}

// belowCache sits between the HTTP cache and the retries (see the file comment).
type belowCache struct {
	st   *state
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (b *belowCache) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(req)
	b.st.belowErr, b.st.belowResp = err, resp
	if resp != nil {
		stripStaleIfError(resp.Header)
		capFreshness(resp.Header)
		if resp.Request != nil && resp.Request.URL != nil && !b.st.f.sameOrigin(req.URL, resp.Request.URL) {
			// Another origin's answer, reached through redirects this fetch was allowed
			// (a consented hop, or a hop back to the origin being discovered): never
			// stored under this URL, where a later discovery starting here would be
			// served it without meeting those redirects and their consent.
			resp.Header.Set("Cache-Control", "no-store")
		}
	}
	return resp, err
}

// uncache undoes an answer the HTTP cache gave on its own after the network failed:
// the failure (an error, a 5xx) is what the fetch must see, so that only the last-good
// logic decides whether an old copy may stand in.
func (st *state) uncache(resp *http.Response, err error) (*http.Response, error) {
	if err != nil || resp.Header.Get(httpcacheMark) != "1" || (st.belowErr == nil && st.belowResp == nil) {
		return resp, err // a network answer, or a fresh hit that asked nothing below
	}
	switch below := st.belowResp; {
	case st.belowErr != nil:
		resp.Body.Close()
		if below != nil {
			below.Body.Close()
		}
		return nil, st.belowErr
	case below != nil && below.StatusCode != http.StatusNotModified && below.StatusCode != http.StatusOK:
		resp.Body.Close()
		return below, nil
	}
	return resp, err
}

// sameOrigin reports whether a and b have the same origin.
func (f *Fetcher) sameOrigin(a, b *url.URL) bool {
	if a == b || strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host) {
		return true // the common case, without parsing
	}
	oa, err := f.cfg.CheckOrigin(a)
	if err != nil {
		return false
	}
	ob, err := f.cfg.CheckOrigin(b)
	return err == nil && oa == ob
}

// maxFreshness caps how long a response stays fresh in the Client's caches. A site
// decides how long its answer may be reused without asking, but a year of max-age
// (sent by mistake, or by someone who controlled the site for an hour) would have
// every long-running agent reuse that copy for a year: a document the site fixed or
// withdrew since would never be asked for again. Past the cap a copy is revalidated.
const maxFreshness = 24 * time.Hour

// capFreshness rewrites the freshness lifetime of a response with header h down to
// maxFreshness, as FreshUntil judges it and as httpcache does (cacheLifetime: the two
// read Cache-Control differently, "MAX-AGE=1" beside a far Expires is a second to one
// and a year to the other, so a cap that asked only FreshUntil could leave httpcache a
// year): every max-age in the first Cache-Control header, the one the HTTP cache
// reads, gives way to max-age set to the cap, which takes precedence over Expires. A
// Date in the future (a clock ahead, or a lie: the HTTP cache counts a copy's age from
// it) is read as now.
func capFreshness(h http.Header) {
	until := FreshUntil(h)
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
		until, life = FreshUntil(h), cacheLifetime(h)
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

// FreshUntil is when a response with header h stops being fresh, as httpcache judges
// it (max-age, else Expires, from Date; no-cache or no-store: never fresh). The zero
// time means it is not fresh at all.
func FreshUntil(h http.Header) time.Time {
	var maxAge string
	hasMaxAge := false
	// The first Cache-Control header only, as httpcache reads it: the two must agree
	// on what is fresh.
	for d := range strings.SplitSeq(h.Get("Cache-Control"), ",") {
		name, val, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "no-cache", "no-store":
			return time.Time{}
		case "max-age":
			maxAge, hasMaxAge = strings.Trim(strings.TrimSpace(val), `"`), true
		}
	}
	var lifetime time.Duration
	var expires time.Time
	switch exp := h.Get("Expires"); {
	case hasMaxAge:
		// As httpcache parses it (time.ParseDuration): what it cannot read is stale.
		d, err := time.ParseDuration(maxAge + "s")
		if err != nil || d <= 0 {
			return time.Time{}
		}
		lifetime = d
	case exp != "":
		t, err := time.Parse(time.RFC1123, exp)
		if err != nil {
			return time.Time{}
		}
		expires = t
	default:
		return time.Time{} // no lifetime: never fresh, and no need to read the Date
	}
	date, err := responseDate(h)
	if err != nil {
		return time.Time{}
	}
	if !expires.IsZero() {
		lifetime = expires.Sub(date)
	}
	if lifetime <= 0 {
		return time.Time{}
	}
	return date.Add(lifetime)
}

// responseDate reads the Date of a response header h as the HTTP cache does
// (time.RFC1123, which takes any zone name: "UTC", "PST", "XYZ"), or as HTTP dates
// are written (http.ParseTime: IMF-fixdate, RFC 850, asctime). httpcache counts a
// copy's age from any Date RFC1123 reads, so FreshUntil and capFreshness must read
// every such Date too: a cap that skipped "... UTC" left a year of max-age in place.
func responseDate(h http.Header) (time.Time, error) {
	v := h.Get("Date")
	t, err := http.ParseTime(v)
	if err != nil {
		t, err = time.Parse(time.RFC1123, v)
	}
	return t, err
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

// containsFold reports whether s contains sub, ignoring ASCII case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}
