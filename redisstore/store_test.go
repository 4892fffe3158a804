package redisstore

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery"
)

func TestNewValidates(t *testing.T) {
	t.Parallel()
	_, rdb, _ := newMini(t)
	if _, err := New(nil, nil); err == nil {
		t.Error("New(nil, nil): no error")
	}
	for name, o := range map[string]Options{
		"Timeout":       {Timeout: -1},
		"RevalidateFor": {RevalidateFor: -1},
		"MaxCacheTTL":   {MaxCacheTTL: -1},
		"Backoff":       {Backoff: -1},
	} {
		if _, err := New(rdb, &o); err == nil || !strings.Contains(err.Error(), "Options."+name) {
			t.Errorf("New with negative %s: %v", name, err)
		}
	}
	s, err := New(rdb, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.prefix != DefaultPrefix || s.timeout != DefaultTimeout || s.revalidate != DefaultRevalidateFor ||
		s.maxTTL != DefaultMaxCacheTTL || s.maxStale != discovery.DefaultMaxStale || s.backoff != DefaultBackoff {
		t.Errorf("defaults not applied: %+v", s)
	}
	if s.Cache() != s.Cache() || s.LastGood() != s.LastGood() || s.FleetLock() != s.FleetLock() {
		t.Error("accessors return different values on each call")
	}
}

func TestZeroStore(t *testing.T) {
	t.Parallel()
	for _, s := range []*Store{nil, {}} {
		s.Cache().Set("k", []byte("v"))
		if _, ok := s.Cache().Get("k"); ok {
			t.Error("zero Store's Cache: hit")
		}
		s.Cache().Delete("k")
		s.LastGood().Store("k", discovery.LastGood{})
		if _, ok := s.LastGood().Load("k"); ok {
			t.Error("zero Store's LastGood: hit")
		}
		s.LastGood().Delete("k")
		if _, _, err := s.FleetLock().TryLock(t.Context(), "k", time.Second); !errors.Is(err, errNotNew) {
			t.Errorf("zero Store's TryLock: %v", err)
		}
		if _, err := s.FleetLock().Held(t.Context(), "k"); !errors.Is(err, errNotNew) {
			t.Errorf("zero Store's Held: %v", err)
		}
		if err := s.Ping(t.Context()); !errors.Is(err, errNotNew) {
			t.Errorf("zero Store's Ping: %v", err)
		}
	}
}

func TestKeysNamespacedAndHashed(t *testing.T) {
	t.Parallel()
	mr, rdb, _ := newMini(t)
	long := "https://docs.example.org/" + strings.Repeat("a", 10000) + "?q=\r\n\x00{slot}"
	for _, prefix := range []string{"", "fleet-7:"} {
		s, _, _, _ := newStore(t, rdb, &Options{Prefix: prefix})
		s.Cache().Set(long, response(t, t0, "max-age=60", "x"))
		s.LastGood().Store(long, lastGood(t0, "x"))
		if _, ok, _ := s.FleetLock().TryLock(t.Context(), long, time.Minute); !ok {
			t.Fatal("TryLock: not acquired")
		}
	}
	re := regexp.MustCompile(`^(discovery|fleet-7):(c|lg|lock):[0-9a-f]{64}$`)
	keys := mr.Keys()
	if len(keys) != 6 {
		t.Errorf("keys = %v, want 6", keys)
	}
	for _, k := range keys {
		if !re.MatchString(k) {
			t.Errorf("key %q is not prefix, kind and hex SHA-256", k)
		}
	}
}

func TestPingClosesBreaker(t *testing.T) {
	t.Parallel()
	mr, rdb, cnt := newMini(t)
	s, _, _, _ := newStore(t, rdb, nil)
	mr.SetError("ERR down")
	if err := s.Ping(t.Context()); err == nil {
		t.Fatal("Ping with Redis failing: no error")
	}
	if _, err := s.FleetLock().Held(t.Context(), "k"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Held after a failed Ping: %v, want ErrUnavailable", err)
	}
	mr.SetError("")
	if err := s.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	cnt.take()
	if _, err := s.FleetLock().Held(t.Context(), "k"); err != nil {
		t.Fatalf("Held after a good Ping: %v", err)
	}
	if got := cnt.take(); len(got) != 1 {
		t.Errorf("commands = %v, want one EXISTS", got)
	}
}

func TestRedactKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://user:pw@docs.example.org/.well-known/skills.md?token=x#f": "https://docs.example.org/.well-known/skills.md",
		"private-origin https://127.0.0.1:8443/.well-known/skills.md?a=b":  "https://127.0.0.1:8443/.well-known/skills.md",
	} {
		if got := redactKey(in); got != want {
			t.Errorf("redactKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFrameRoundTrip(t *testing.T) {
	t.Parallel()
	v := encodeFrame(magicCache, "k", 42, []byte("value"))
	meta, got, err := decodeFrame(magicCache, "k", v)
	if err != nil || meta != 42 || string(got) != "value" {
		t.Errorf("decodeFrame = %d, %q, %v", meta, got, err)
	}
	for i := range v { // every single-byte change is caught
		w := []byte(string(v))
		w[i] ^= 0x40
		if _, _, err := decodeFrame(magicCache, "k", w); err == nil {
			t.Fatalf("flipping byte %d went unnoticed", i)
		}
	}
}

func FuzzDecodeFrame(f *testing.F) {
	f.Add([]byte(encodeFrame(magicCache, "k", 1, []byte("v"))))
	f.Add([]byte(encodeFrame(magicLastGood, "k", 1, encodeLastGood(discovery.LastGood{Kind: "skills.md", Body: []byte("b")}))))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, m := range []string{magicCache, magicLastGood} {
			if _, v, err := decodeFrame(m, "k", data); err == nil && m == magicLastGood {
				decodeLastGood(v)
			}
		}
	})
}
