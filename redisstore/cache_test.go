package redisstore

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wellknown-dev/discovery"
)

const testURL = "https://docs.example.org/.well-known/skills.md"

func TestCacheSharedBetweenStores(t *testing.T) {
	t.Parallel()
	_, rdb, cnt := newMini(t)
	a, _, _, _ := newStore(t, rdb, nil)
	b, _, evB, _ := newStore(t, rdb, nil)
	resp := response(t, t0, "max-age=60", "# Skills\n")

	if _, ok := b.Cache().Get(testURL); ok {
		t.Fatal("Get on an empty store: hit")
	}
	if evB.count(discovery.EventStoreMiss) != 1 {
		t.Errorf("EventStoreMiss count = %d, want 1", evB.count(discovery.EventStoreMiss))
	}
	cnt.take()
	a.Cache().Set(testURL, resp)
	if got := cnt.take(); !slices.Equal(got, []string{"set"}) {
		t.Errorf("Set sent %v, want [set]", got)
	}
	got, ok := b.Cache().Get(testURL)
	if !ok || !bytes.Equal(got, resp) {
		t.Fatalf("Get from another store = %q, %v; want the response", got, ok)
	}
	if got := cnt.take(); !slices.Equal(got, []string{"get"}) {
		t.Errorf("first Get sent %v, want [get]", got)
	}
	// The local tier now holds the fresh copy: no round trip.
	if _, ok := b.Cache().Get(testURL); !ok {
		t.Fatal("second Get: miss")
	}
	if got := cnt.take(); len(got) != 0 {
		t.Errorf("fresh local hit sent %v, want nothing", got)
	}
}

func TestCacheTTL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		cacheControl string
		opts         Options
		want         time.Duration
	}{
		{"max-age plus the revalidation window", "max-age=60", Options{}, 60*time.Second + DefaultRevalidateFor},
		{"revalidation window set", "max-age=60", Options{RevalidateFor: time.Hour}, 61 * time.Minute},
		{"no freshness", "", Options{}, DefaultRevalidateFor},
		{"no-cache is stale", "no-cache, max-age=600", Options{}, DefaultRevalidateFor},
		{"bounded", "max-age=31536000", Options{}, DefaultMaxCacheTTL},
		{"bound set", "max-age=600", Options{MaxCacheTTL: time.Minute}, time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mr, rdb, _ := newMini(t)
			s, _, _, _ := newStore(t, rdb, &tc.opts)
			s.Cache().Set(testURL, response(t, t0, tc.cacheControl, "# Skills\n"))
			if got := mr.TTL(s.key("c:", testURL)); got != tc.want {
				t.Errorf("TTL = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestCacheExpiresInRedis(t *testing.T) {
	t.Parallel()
	mr, rdb, _ := newMini(t)
	a, _, _, _ := newStore(t, rdb, &Options{RevalidateFor: time.Minute})
	b, _, _, _ := newStore(t, rdb, nil)
	a.Cache().Set(testURL, response(t, t0, "max-age=60", "# Skills\n"))
	mr.FastForward(119 * time.Second)
	if _, ok := b.Cache().Get(testURL); !ok {
		t.Fatal("Get within max-age + RevalidateFor: miss")
	}
	c, _, _, _ := newStore(t, rdb, nil)
	mr.FastForward(time.Second)
	if _, ok := c.Cache().Get(testURL); ok {
		t.Fatal("Get after max-age + RevalidateFor: hit")
	}
}

func TestCachePrivateStaysLocal(t *testing.T) {
	t.Parallel()
	for _, cc := range []string{"private, max-age=60", "no-store", `Private="Set-Cookie"`} {
		t.Run(cc, func(t *testing.T) {
			t.Parallel()
			mr, rdb, _ := newMini(t)
			a, _, _, _ := newStore(t, rdb, nil)
			// A shared copy from before the origin said private is dropped.
			a.Cache().Set(testURL, response(t, t0, "max-age=60", "# Old\n"))
			resp := response(t, t0, cc, "# Mine\n")
			a.Cache().Set(testURL, resp)
			if keys := mr.Keys(); len(keys) != 0 {
				t.Errorf("Redis keys = %v, want none", keys)
			}
			if got, ok := a.Cache().Get(testURL); !ok || !bytes.Equal(got, resp) {
				t.Errorf("local Get = %q, %v; want the response", got, ok)
			}
		})
	}
}

func TestCacheCorruptIsMissAndDeleted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mangle func(s *Store, v []byte) []byte
	}{
		{"torn", func(_ *Store, v []byte) []byte { return v[:len(v)-3] }},
		{"bit flip", func(_ *Store, v []byte) []byte { v = bytes.Clone(v); v[len(v)-1] ^= 1; return v }},
		{"longer", func(_ *Store, v []byte) []byte { return append(bytes.Clone(v), 'x') }},
		{"empty", func(_ *Store, v []byte) []byte { return nil }},
		{"header only", func(_ *Store, v []byte) []byte { return v[:frameHeader] }},
		{"another key's entry", func(_ *Store, _ []byte) []byte {
			return encodeFrame(magicCache, "https://other.example/", 0, []byte("x"))
		}},
		{"a last-good entry", func(_ *Store, _ []byte) []byte {
			return encodeFrame(magicLastGood, testURL, 0, []byte("x"))
		}},
		{"not ours", func(_ *Store, _ []byte) []byte { return []byte("hello") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mr, rdb, _ := newMini(t)
			a, _, _, _ := newStore(t, rdb, nil)
			b, _, ev, logs := newStore(t, rdb, nil)
			a.Cache().Set(testURL, response(t, t0, "max-age=60", "# Skills\n"))
			k := a.key("c:", testURL)
			v, err := mr.Get(k)
			if err != nil {
				t.Fatal(err)
			}
			if err := mr.Set(k, string(tc.mangle(a, []byte(v)))); err != nil {
				t.Fatal(err)
			}
			if _, ok := b.Cache().Get(testURL); ok {
				t.Fatal("Get of a mangled entry: hit")
			}
			if mr.Exists(k) {
				t.Error("the mangled entry is still in Redis")
			}
			e, ok := ev.last(discovery.EventStoreMiss)
			if !ok || !errors.Is(e.Err, errCorrupt) || e.Doc != "cache" || e.URL != testURL {
				t.Errorf("EventStoreMiss = %+v, %v; want one with errCorrupt", e, ok)
			}
			if !strings.Contains(logs.String(), "level=DEBUG") || !strings.Contains(logs.String(), "event=store.miss") {
				t.Errorf("log = %q, want a Debug store.miss record", logs.String())
			}
		})
	}
}

func TestCacheStaleLocalLosesToFresherShared(t *testing.T) {
	t.Parallel()
	_, rdb, cnt := newMini(t)
	a, clkA, _, _ := newStore(t, rdb, nil)
	b, clkB, _, _ := newStore(t, rdb, nil)
	a.Cache().Set(testURL, response(t, t0, "max-age=60", "# v1\n"))
	if _, ok := b.Cache().Get(testURL); !ok { // fills b's local tier
		t.Fatal("miss")
	}
	// A minute later, a revalidates and writes a fresher copy.
	clkA.advance(90 * time.Second)
	clkB.advance(90 * time.Second)
	v2 := response(t, t0.Add(90*time.Second), "max-age=60", "# v2\n")
	a.Cache().Set(testURL, v2)
	cnt.take()
	got, ok := b.Cache().Get(testURL)
	if !ok || !bytes.Equal(got, v2) {
		t.Fatalf("Get with a stale local copy = %q, want the fresher shared one", got)
	}
	if got := cnt.take(); !slices.Equal(got, []string{"get"}) {
		t.Errorf("stale local Get sent %v, want [get]", got)
	}
	if _, ok := b.Cache().Get(testURL); !ok {
		t.Fatal("miss")
	}
	if got := cnt.take(); len(got) != 0 {
		t.Errorf("Get after the refill sent %v, want nothing", got)
	}
}

func TestCacheStaleLocalServedWhenSharedIsOlderOrGone(t *testing.T) {
	t.Parallel()
	mr, rdb, _ := newMini(t)
	s, clk, _, _ := newStore(t, rdb, nil)
	v1 := response(t, t0, "max-age=60", "# v1\n")
	s.Cache().Set(testURL, v1)
	clk.advance(time.Hour)
	mr.FlushAll()
	if got, ok := s.Cache().Get(testURL); !ok || !bytes.Equal(got, v1) {
		t.Fatalf("Get = %q, %v; want the stale local copy, for revalidation", got, ok)
	}
}

func TestCacheRedisErrors(t *testing.T) {
	t.Parallel()
	mr, rdb, cnt := newMini(t)
	s, clk, ev, logs := newStore(t, rdb, nil)
	resp := response(t, t0, "max-age=60", "# Skills\n")
	s.Cache().Set(testURL, resp)
	mr.SetError("LOADING Redis is loading the dataset in memory")
	cnt.take()

	// A fresh local copy needs no Redis at all.
	if _, ok := s.Cache().Get(testURL); !ok {
		t.Fatal("fresh local Get: miss")
	}
	// A miss asks Redis, which fails: a miss, reported, and the breaker opens.
	if _, ok := s.Cache().Get("https://other.example/.well-known/skills.md"); ok {
		t.Fatal("Get with Redis failing: hit")
	}
	if n := ev.count(discovery.EventStoreDegraded); n != 1 {
		t.Fatalf("EventStoreDegraded count = %d, want 1", n)
	}
	e, _ := ev.last(discovery.EventStoreDegraded)
	if e.Doc != "cache" || e.URL != "https://other.example/.well-known/skills.md" || e.Err == nil {
		t.Errorf("EventStoreDegraded = %+v", e)
	}
	if l := logs.String(); !strings.Contains(l, "level=WARN") || !strings.Contains(l, "event=store.degraded") ||
		!strings.Contains(l, "err=") {
		t.Errorf("log = %q, want a Warn store.degraded record with err", l)
	}
	if got := cnt.take(); len(got) != 1 {
		t.Errorf("commands = %v, want one GET", got)
	}

	// While the breaker is open, Redis is skipped: no command, no new event; writes
	// still reach the local tier.
	other := response(t, t0, "max-age=60", "# Other\n")
	s.Cache().Set("https://third.example/", other)
	if got, ok := s.Cache().Get("https://third.example/"); !ok || !bytes.Equal(got, other) {
		t.Error("local tier lost a write made while Redis was down")
	}
	s.Cache().Get("https://other.example/")
	s.Cache().Delete("https://other.example/")
	if got := cnt.take(); len(got) != 0 {
		t.Errorf("commands while the breaker is open = %v, want none", got)
	}
	if n := ev.count(discovery.EventStoreDegraded); n != 1 {
		t.Errorf("EventStoreDegraded count = %d, want still 1", n)
	}

	// After Backoff, one probe goes through; Redis has recovered, so sharing resumes.
	clk.advance(DefaultBackoff)
	mr.SetError("")
	s.Cache().Get("https://other.example/")
	s.Cache().Set("https://fourth.example/", other)
	if got := cnt.take(); !slices.Equal(got, []string{"get", "set"}) {
		t.Errorf("commands after Backoff = %v, want [get set]", got)
	}
}

func TestCacheSlowRedisIsAMiss(t *testing.T) {
	t.Parallel()
	// A Redis that accepts connections and never answers, and a client that does not
	// honour context deadlines: the Store's own timeout still holds.
	rdb := redis.NewClient(&redis.Options{Addr: hangingRedis(t), MaxRetries: -1, ReadTimeout: time.Minute,
		Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { rdb.Close() })
	s, _, ev, _ := newStore(t, rdb, &Options{Timeout: 50 * time.Millisecond})
	if _, ok := s.Cache().Get(testURL); ok {
		t.Fatal("hit")
	}
	e, ok := ev.last(discovery.EventStoreDegraded)
	if !ok || !errors.Is(e.Err, context.DeadlineExceeded) {
		t.Fatalf("EventStoreDegraded = %+v, %v; want a deadline", e, ok)
	}
	// The breaker is open: TryLock fails at once without asking Redis.
	if _, _, err := s.FleetLock().TryLock(t.Context(), "k", time.Second); !errors.Is(err, ErrUnavailable) {
		t.Errorf("TryLock error = %v, want ErrUnavailable", err)
	}
}

func TestPolicyOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		raw   string
		share bool
		fresh time.Time
	}{
		{"max-age", "Cache-Control: max-age=30", true, t0.Add(30 * time.Second)},
		{"expires", "Expires: " + t0.Add(time.Hour).Format(http.TimeFormat), true, t0.Add(time.Hour)},
		{"max-age over expires", "Cache-Control: max-age=5\r\nExpires: " + t0.Add(time.Hour).Format(http.TimeFormat), true, t0.Add(5 * time.Second)},
		{"no-cache", "Cache-Control: no-cache, max-age=30", true, time.Time{}},
		{"bad max-age", "Cache-Control: max-age=soon", true, time.Time{}},
		{"private", "Cache-Control: PRIVATE, max-age=30", false, t0.Add(30 * time.Second)},
		{"no-store", "Cache-Control: max-age=30\r\nCache-Control: no-store", false, t0.Add(30 * time.Second)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			raw := "HTTP/1.1 200 OK\r\nDate: " + t0.Format(http.TimeFormat) + "\r\n" + tc.raw + "\r\nContent-Length: 0\r\n\r\n"
			p := policyOf([]byte(raw))
			if p.share != tc.share || !p.freshUntil.Equal(tc.fresh) {
				t.Errorf("policyOf = %+v, want share %v fresh until %s", p, tc.share, tc.fresh)
			}
		})
	}
	if p := policyOf([]byte("garbage")); p.share {
		t.Error("an unreadable value may be shared")
	}
	if p := policyOf([]byte("HTTP/1.1 200 OK\r\nCache-Control: max-age=30\r\n\r\n")); !p.freshUntil.IsZero() {
		t.Error("a response without Date is fresh")
	}
}

func TestCacheDeleteKeepsNewerSharedCopy(t *testing.T) {
	t.Parallel()
	mr, rdb, _ := newMini(t)
	a, _, _, _ := newStore(t, rdb, nil)
	b, _, _, _ := newStore(t, rdb, nil)
	k := a.key("c:", testURL)
	v1 := response(t, t0, "max-age=60", "# v1\n")
	a.Cache().Set(testURL, v1)
	b.Cache().Get(testURL) // b's local tier holds v1

	// a stores v2 (it revalidated); b then deletes the v1 it saw, as httpcache does
	// when its revalidation fails or a fleet waiter hands the request back.
	v2 := response(t, t0.Add(time.Minute), "max-age=60", "# v2\n")
	a.Cache().Set(testURL, v2)
	b.Cache().Delete(testURL)
	if !mr.Exists(k) {
		t.Fatal("Delete of an older copy removed the newer shared one")
	}
	if got, _ := b.Cache().Get(testURL); !bytes.Equal(got, v2) {
		t.Errorf("Get after Delete = %q, want v2 from Redis", got)
	}
	// Deleting the copy Redis holds removes it.
	b.Cache().Delete(testURL)
	if mr.Exists(k) {
		t.Error("Delete of the shared copy left it in Redis")
	}
	// With nothing local, Delete removes the shared copy whatever it is.
	a.Cache().Set(testURL, v1)
	b.Cache().Delete(testURL)
	if mr.Exists(k) {
		t.Error("Delete without a local copy left the shared one")
	}
}
