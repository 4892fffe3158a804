package redisstore

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery"
)

// TestSecretKeepsValuesConfidential: with a Secret, what Redis holds shows neither the
// URL nor the document, its kind or its headers.
func TestSecretKeepsValuesConfidential(t *testing.T) {
	t.Parallel()
	mr, rdb, _ := newMini(t)
	s, _, _, _ := newStore(t, rdb, &Options{Secret: testSecret})
	const body = "# Confidential skills for the example origin\n"
	s.LastGood().Store(testURL, lastGood(t0, body))
	s.Cache().Set(testURL, response(t, t0, "max-age=60", body))
	keys := mr.Keys()
	if len(keys) == 0 {
		t.Fatal("nothing was written to Redis")
	}
	for _, k := range keys {
		v := rawGet(t, mr, k)
		for _, clear := range []string{testURL, "docs.example", body, "Confidential", "text/markdown", "skills.md", "Etag", "max-age"} {
			if strings.Contains(k, clear) || strings.Contains(v, clear) {
				t.Errorf("%s (%d bytes) shows %q in clear", k, len(v), clear)
			}
		}
	}
}

// TestSealedValueBoundToItsKey: a sealed value moved under another key (another URL,
// the other kind, another Prefix) or read with another Secret is refused and deleted.
func TestSealedValueBoundToItsKey(t *testing.T) {
	t.Parallel()
	const other = "https://docs.example.org/.well-known/other.md"
	tests := []struct {
		name   string
		reader *Options
		load   func(s *Store) (string, bool) // reads the key the value was moved to
		key    func(s *Store) string
	}{
		{"another URL", &Options{Secret: testSecret}, loadLastGood(other), func(s *Store) string { return s.key("lg:", other) }},
		{"the other kind", &Options{Secret: testSecret}, getCache(testURL), func(s *Store) string { return s.key("c:", testURL) }},
		{"another Prefix", &Options{Secret: testSecret, Prefix: "other:"}, loadLastGood(testURL), func(s *Store) string { return s.key("lg:", testURL) }},
		{"another Secret", &Options{Secret: []byte("fedcba9876543210fedcba9876543210")}, loadLastGood(testURL), func(s *Store) string { return s.key("lg:", testURL) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mr, rdb, _ := newMini(t)
			w, _, _, _ := newStore(t, rdb, &Options{Secret: testSecret})
			w.LastGood().Store(testURL, lastGood(t0, "# Skills\n"))
			v := rawGet(t, mr, w.key("lg:", testURL))
			r, _, ev, _ := newStore(t, rdb, tc.reader)
			k := tc.key(r)
			mr.Set(k, v)
			if got, ok := tc.load(r); ok {
				t.Fatalf("a value moved under %s was served: %q", k, got)
			}
			if mr.Exists(k) {
				t.Error("the moved value is still in Redis")
			}
			if e, ok := ev.last(discovery.EventStoreMiss); !ok || !errors.Is(e.Err, errCorrupt) {
				t.Errorf("EventStoreMiss = %+v, %v", e, ok)
			}
		})
	}
}

func loadLastGood(url string) func(s *Store) (string, bool) {
	return func(s *Store) (string, bool) {
		lg, ok := s.LastGood().Load(url)
		return string(lg.Body), ok
	}
}

func getCache(url string) func(s *Store) (string, bool) {
	return func(s *Store) (string, bool) {
		v, ok := s.Cache().Get(url)
		return string(v), ok
	}
}

func TestSealRoundTrip(t *testing.T) {
	t.Parallel()
	k, err := newSealer(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	v := k.seal(magicSealedCache, "rk", "name", 7, 42, []byte("value"))
	version, meta, got, err := k.open(magicSealedCache, "rk", "name", v)
	if err != nil || version != 7 || meta != 42 || string(got) != "value" {
		t.Errorf("open = %d, %d, %q, %v", version, meta, got, err)
	}
	if w := k.seal(magicSealedCache, "rk", "name", 7, 42, []byte("value")); bytes.Equal(v, w) {
		t.Error("two seals of one value are equal: the nonce is not random")
	}
	for i := range v { // every single-byte change is caught
		w := bytes.Clone(v)
		w[i] ^= 0x40
		if _, _, _, err := k.open(magicSealedCache, "rk", "name", w); err == nil {
			t.Fatalf("flipping byte %d went unnoticed", i)
		}
	}
	m := k.mark("mk", 1234)
	if n, ok := k.readMark("mk", m); !ok || n != 1234 {
		t.Errorf("readMark = %d, %v", n, ok)
	}
	if _, ok := k.readMark("other", m); ok {
		t.Error("a mark moved to another key was accepted")
	}
}

func FuzzOpen(f *testing.F) {
	k, err := newSealer(testSecret)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(k.seal(magicSealedLastGood, "rk", "k", 1, 1, encodeLastGood(discovery.LastGood{Kind: "skills.md", Body: []byte("b")})))
	f.Add([]byte(k.mark("mk", 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, m := range []string{magicSealedCache, magicSealedLastGood} {
			if _, _, v, err := k.open(m, "rk", "k", data); err == nil && m == magicSealedLastGood {
				decodeLastGood(v)
			}
		}
		k.readMark("mk", string(data))
	})
}
