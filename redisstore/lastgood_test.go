package redisstore

import (
	"errors"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery"
)

func lastGood(saved time.Time, body string) discovery.LastGood {
	return discovery.LastGood{Kind: "skills.md", Body: []byte(body), ContentType: "text/markdown; charset=utf-8", SavedAt: saved}
}

func TestLastGoodShared(t *testing.T) {
	t.Parallel()
	mr, rdb, _ := newMini(t)
	a, _, _, _ := newStore(t, rdb, nil)
	b, _, _, _ := newStore(t, rdb, nil)
	doc := lastGood(t0.Add(-time.Hour), "# Skills\n")
	a.LastGood().Store(testURL, doc)
	if got := mr.TTL(a.key("lg:", testURL)); got != discovery.DefaultMaxStale-time.Hour {
		t.Errorf("TTL = %s, want MaxStale less the copy's age", got)
	}
	got, ok := b.LastGood().Load(testURL)
	if !ok {
		t.Fatal("Load from another store: miss")
	}
	if got.Kind != doc.Kind || string(got.Body) != string(doc.Body) || got.ContentType != doc.ContentType ||
		!got.SavedAt.Equal(doc.SavedAt) {
		t.Errorf("Load = %+v, want %+v", got, doc)
	}
	// Now b has it locally, even with Redis gone.
	mr.FlushAll()
	if _, ok := b.LastGood().Load(testURL); !ok {
		t.Error("local tier lost the copy")
	}
	b.LastGood().Delete(testURL)
	if _, ok := b.LastGood().Load(testURL); ok {
		t.Error("Load after Delete: hit")
	}
}

func TestLastGoodNewestWins(t *testing.T) {
	t.Parallel()
	_, rdb, _ := newMini(t)
	a, _, _, _ := newStore(t, rdb, nil)
	b, _, _, _ := newStore(t, rdb, nil)
	old, newer := lastGood(t0.Add(-time.Hour), "# Old\n"), lastGood(t0.Add(-time.Minute), "# New\n")
	b.LastGood().Store(testURL, old)
	a.LastGood().Store(testURL, newer)
	if got, _ := b.LastGood().Load(testURL); string(got.Body) != "# New\n" {
		t.Errorf("Load = %q, want the newer shared copy", got.Body)
	}
	// A local copy newer than the shared one wins too.
	c, _, _, _ := newStore(t, rdb, &Options{MaxStale: -1}) // c shares nothing
	c.LastGood().Store(testURL, lastGood(t0, "# Newest\n"))
	if got, _ := c.LastGood().Load(testURL); string(got.Body) != "# Newest\n" {
		t.Errorf("Load = %q, want the local copy", got.Body)
	}
}

func TestLastGoodNotShared(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts Options
		doc  discovery.LastGood
	}{
		{"MaxStale negative", Options{MaxStale: -1}, lastGood(t0, "x")},
		{"older than MaxStale", Options{MaxStale: time.Hour}, lastGood(t0.Add(-2*time.Hour), "x")},
		{"no SavedAt", Options{}, lastGood(time.Time{}, "x")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mr, rdb, _ := newMini(t)
			s, _, _, _ := newStore(t, rdb, &tc.opts)
			s.LastGood().Store(testURL, tc.doc)
			if keys := mr.Keys(); len(keys) != 0 {
				t.Errorf("Redis keys = %v, want none", keys)
			}
			if _, ok := s.LastGood().Load(testURL); !ok {
				t.Error("the local tier did not keep the copy")
			}
		})
	}
}

func TestLastGoodExpires(t *testing.T) {
	t.Parallel()
	mr, rdb, _ := newMini(t)
	a, _, _, _ := newStore(t, rdb, &Options{MaxStale: time.Hour})
	a.LastGood().Store(testURL, lastGood(t0, "x"))
	mr.FastForward(time.Hour)
	b, _, ev, _ := newStore(t, rdb, nil)
	if _, ok := b.LastGood().Load(testURL); ok {
		t.Error("Load after MaxStale: hit")
	}
	if e, ok := ev.last(discovery.EventStoreMiss); !ok || e.Doc != "last-good" || e.Err != nil {
		t.Errorf("EventStoreMiss = %+v, %v", e, ok)
	}
}

func TestLastGoodCorrupt(t *testing.T) {
	t.Parallel()
	for name, v := range map[string][]byte{
		"torn":            encodeFrame(magicLastGood, testURL, t0.UnixNano(), encodeLastGood(lastGood(t0, "# Skills\n")))[:100],
		"short fields":    encodeFrame(magicLastGood, testURL, t0.UnixNano(), []byte{0, 9, 'a'}),
		"a cache entry":   encodeFrame(magicCache, testURL, t0.UnixNano(), []byte{0, 0, 0, 0}),
		"another URL's":   encodeFrame(magicLastGood, "https://evil.example/", t0.UnixNano(), []byte{0, 0, 0, 0}),
		"no content type": encodeFrame(magicLastGood, testURL, t0.UnixNano(), []byte{0, 0}),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mr, rdb, _ := newMini(t)
			s, _, ev, _ := newStore(t, rdb, nil)
			k := s.key("lg:", testURL)
			mr.Set(k, string(v))
			if got, ok := s.LastGood().Load(testURL); ok {
				t.Fatalf("Load of a corrupt entry = %+v", got)
			}
			if mr.Exists(k) {
				t.Error("the corrupt entry is still in Redis")
			}
			if e, ok := ev.last(discovery.EventStoreMiss); !ok || !errors.Is(e.Err, errCorrupt) {
				t.Errorf("EventStoreMiss = %+v, %v", e, ok)
			}
		})
	}
}

func TestLastGoodRedisDown(t *testing.T) {
	t.Parallel()
	mr, rdb, _ := newMini(t)
	s, _, ev, _ := newStore(t, rdb, nil)
	doc := lastGood(t0, "# Skills\n")
	s.LastGood().Store(testURL, doc)
	mr.Close()
	got, ok := s.LastGood().Load(testURL)
	if !ok || string(got.Body) != "# Skills\n" {
		t.Fatalf("Load with Redis down = %+v, %v; want the local copy", got, ok)
	}
	if ev.count(discovery.EventStoreDegraded) != 1 {
		t.Errorf("EventStoreDegraded count = %d, want 1", ev.count(discovery.EventStoreDegraded))
	}
}

func TestMemoryLastGoodBounded(t *testing.T) {
	t.Parallel()
	m := newMemoryLastGood(1000)
	body := make([]byte, 300)
	for _, u := range []string{"a", "b", "c", "d"} {
		m.Store(u, discovery.LastGood{Body: body})
	}
	if _, ok := m.Load("a"); ok {
		t.Error("the oldest copy was not evicted")
	}
	if _, ok := m.Load("d"); !ok {
		t.Error("the newest copy was evicted")
	}
	body[0] = 1
	if got, _ := m.Load("d"); got.Body[0] != 0 {
		t.Error("Store kept a reference to the caller's Body")
	}
}
