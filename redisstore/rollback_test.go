package redisstore

import (
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/internal/testparts"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef")

// forgetful is a local last-good tier that keeps nothing, so that every Load asks
// Redis: a process whose local copy was evicted, or that restarted.
type forgetful struct{}

func (forgetful) Load(string) (discovery.LastGood, bool) { return discovery.LastGood{}, false }
func (forgetful) Store(string, discovery.LastGood)       {}
func (forgetful) Delete(string)                          {}

// rawGet returns the value under key in Redis.
func rawGet(t *testing.T, mr *miniredis.Miniredis, key string) string {
	t.Helper()
	v, err := mr.Get(key)
	if err != nil {
		t.Fatalf("GET %s: %v", key, err)
	}
	return v
}

// wantRolledBack checks that the last EventStoreDegraded reports a rollback of doc.
func wantRolledBack(t *testing.T, ev *events, doc string) {
	t.Helper()
	e, ok := ev.last(discovery.EventStoreDegraded)
	var rb *RollbackError
	if !ok || !errors.Is(e.Err, ErrRolledBack) || !errors.As(e.Err, &rb) {
		t.Fatalf("EventStoreDegraded = %+v, %v; want a *RollbackError", e, ok)
	}
	if e.URL != testURL || e.Doc != doc || rb.URL != testURL || rb.Doc != doc {
		t.Errorf("the rollback names %q (%s) / %q (%s), want %q (%s)", e.URL, e.Doc, rb.URL, rb.Doc, testURL, doc)
	}
}

// TestLastGoodReplayRefused: with a Secret, an old authentic last good copy written
// back under its key (by anything that can write to the Redis) is never served once
// a newer one was accepted, whether this process remembers the newer one or only the
// fleet's version mark does; the refusal is reported, naming the URL.
func TestLastGoodReplayRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		same bool // the writer loads; the fleet's mark is dropped, leaving its memory alone
	}{
		{"same process, its memory alone", true},
		{"another process, the fleet's mark", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mr, rdb, _ := newMini(t)
			fresh := func() (*Store, *clock, *events) {
				s, clk, ev, _ := newStore(t, rdb, &Options{Secret: testSecret, LocalLastGood: forgetful{}})
				return s, clk, ev
			}
			w, wclk, wev := fresh()
			k := w.key("lg:", testURL)

			w.LastGood().Store(testURL, lastGood(t0, "# Old\n"))
			old := rawGet(t, mr, k)
			wclk.advance(time.Minute)
			w.LastGood().Store(testURL, lastGood(t0.Add(time.Minute), "# New\n"))
			if got, ok := w.LastGood().Load(testURL); !ok || string(got.Body) != "# New\n" {
				t.Fatalf("Load before the replay = %q, %v", got.Body, ok)
			}

			r, rclk, rev := w, wclk, wev
			if tc.same {
				mr.Del(w.key("v:lg:", testURL))
			} else {
				r, rclk, rev = fresh()
			}
			rclk.advance(time.Minute)
			mr.Set(k, old) // the replay
			if got, ok := r.LastGood().Load(testURL); ok {
				t.Fatalf("the replayed older copy was served: %q (saved %s)", got.Body, got.SavedAt)
			}
			wantRolledBack(t, rev, docLastGood)
			if mr.Exists(k) {
				t.Error("the replayed copy is still in Redis")
			}

			// The fleet goes on: a newer copy written since is served.
			w.LastGood().Store(testURL, lastGood(t0.Add(3*time.Minute), "# Newest\n"))
			if got, ok := r.LastGood().Load(testURL); !ok || string(got.Body) != "# Newest\n" {
				t.Errorf("Load after a new Store = %q, %v", got.Body, ok)
			}
		})
	}
}

// TestCacheReplayRefused: the same rule for HTTP cache entries, which a process may
// serve without asking the origin while they are fresh.
func TestCacheReplayRefused(t *testing.T) {
	t.Parallel()
	mr, rdb, _ := newMini(t)
	a, aclk, _, _ := newStore(t, rdb, &Options{Secret: testSecret})
	b, _, bev, _ := newStore(t, rdb, &Options{Secret: testSecret})
	k := a.key("c:", testURL)

	a.Cache().Set(testURL, response(t, t0, "max-age=86400", "# Old\n"))
	old := rawGet(t, mr, k)
	aclk.advance(time.Minute)
	newer := response(t, t0.Add(time.Minute), "max-age=86400", "# New\n")
	a.Cache().Set(testURL, newer)

	mr.Set(k, old) // the replay: still fresh by its own headers
	if v, ok := b.Cache().Get(testURL); ok {
		t.Fatalf("another process served the replayed entry: %q", v)
	}
	wantRolledBack(t, bev, docCache)

	// This process keeps serving its own newer copy.
	mr.Set(k, old)
	if v, ok := a.Cache().Get(testURL); !ok || string(v) != string(newer) {
		t.Errorf("the writer's Get = %q, %v; want its newer copy", v, ok)
	}
}

// TestReplayTooOldRefused: a value older than the longest it may live in Redis is a
// replay even when no process remembers anything and the mark is gone.
func TestReplayTooOldRefused(t *testing.T) {
	t.Parallel()
	mr, rdb, _ := newMini(t)
	opts := &Options{Secret: testSecret, MaxStale: time.Hour, LocalLastGood: forgetful{}}
	w, _, _, _ := newStore(t, rdb, opts)
	k := w.key("lg:", testURL)
	w.LastGood().Store(testURL, lastGood(t0, "# Old\n"))
	old := rawGet(t, mr, k)
	mr.FlushAll()

	r, rclk, rev, _ := newStore(t, rdb, opts)
	rclk.advance(2 * time.Hour)
	mr.Set(k, old)
	if got, ok := r.LastGood().Load(testURL); ok {
		t.Fatalf("a copy older than MaxStale was served: %q", got.Body)
	}
	wantRolledBack(t, rev, docLastGood)
}

// TestWriterBehindTheMark: a writer whose clock runs behind the fleet's mark (another
// process's clock runs ahead) still stores its newer copy, above the mark, and the
// fleet reads it.
func TestWriterBehindTheMark(t *testing.T) {
	t.Parallel()
	_, rdb, _ := newMini(t)
	ahead, aclk, _, _ := newStore(t, rdb, &Options{Secret: testSecret, LocalLastGood: forgetful{}})
	behind, _, _, _ := newStore(t, rdb, &Options{Secret: testSecret, LocalLastGood: forgetful{}})
	reader, _, rev, _ := newStore(t, rdb, &Options{Secret: testSecret, LocalLastGood: forgetful{}})
	aclk.advance(time.Hour)
	ahead.LastGood().Store(testURL, lastGood(t0, "# First\n"))
	behind.LastGood().Store(testURL, lastGood(t0, "# Second\n"))
	if got, ok := reader.LastGood().Load(testURL); !ok || string(got.Body) != "# Second\n" {
		t.Errorf("Load = %q, %v; want the last copy written", got.Body, ok)
	}
	if n := rev.count(discovery.EventStoreDegraded); n != 0 {
		t.Errorf("%d EventStoreDegraded events, want none", n)
	}
}

// TestForgedMarkIgnored: a version mark that fails authentication (forged with a huge
// version) neither blocks writers nor makes readers refuse the fleet's values.
func TestForgedMarkIgnored(t *testing.T) {
	t.Parallel()
	mr, rdb, _ := newMini(t)
	w, _, _, _ := newStore(t, rdb, &Options{Secret: testSecret, LocalLastGood: forgetful{}})
	r, _, _, _ := newStore(t, rdb, &Options{Secret: testSecret, LocalLastGood: forgetful{}})
	mkey := w.key("v:lg:", testURL)
	forged := "99999999999999999999" + string(make([]byte, 2*32))
	for i := range 64 {
		forged = forged[:markDigits+i] + "a" + forged[markDigits+i+1:]
	}
	mr.Set(mkey, forged)
	w.LastGood().Store(testURL, lastGood(t0, "# Skills\n"))
	if got, ok := r.LastGood().Load(testURL); !ok || string(got.Body) != "# Skills\n" {
		t.Errorf("Load under a forged mark = %q, %v", got.Body, ok)
	}
	mr.Set(mkey, forged)
	if got, ok := r.LastGood().Load(testURL); !ok || string(got.Body) != "# Skills\n" {
		t.Errorf("Load with a forged mark = %q, %v", got.Body, ok)
	}
}

// TestRollbackRuleOnRedisServer runs the sealed write (its Lua script compares marks
// as strings), the read and the replay refusal against a real redis-server, when one
// is installed.
func TestRollbackRuleOnRedisServer(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		testparts.Skip(t, testparts.Redis, err.Error())
	}
	srv := startRedis(t, bin, t.TempDir(), freePort(t))
	rdb := redis.NewClient(&redis.Options{Addr: srv.addr, MaxRetries: -1, ContextTimeoutEnabled: true})
	t.Cleanup(func() { rdb.Close() })
	opts := &Options{Secret: testSecret, LocalLastGood: forgetful{}}
	ahead, aclk, _, _ := newStore(t, rdb, opts)
	behind, _, _, _ := newStore(t, rdb, opts)
	reader, _, rev, _ := newStore(t, rdb, opts)
	k := ahead.key("lg:", testURL)

	aclk.advance(time.Hour)
	ahead.LastGood().Store(testURL, lastGood(t0, "# First\n"))
	old, err := rdb.Get(t.Context(), k).Result()
	if err != nil {
		t.Fatal(err)
	}
	behind.LastGood().Store(testURL, lastGood(t0, "# Second\n")) // written above the mark
	if got, ok := reader.LastGood().Load(testURL); !ok || string(got.Body) != "# Second\n" {
		t.Fatalf("Load = %q, %v; want the last copy written", got.Body, ok)
	}
	if err := rdb.Set(t.Context(), k, old, 0).Err(); err != nil {
		t.Fatal(err)
	}
	fresh, _, fev, _ := newStore(t, rdb, opts)
	if got, ok := fresh.LastGood().Load(testURL); ok {
		t.Fatalf("the replayed older copy was served: %q", got.Body)
	}
	wantRolledBack(t, fev, docLastGood)
	if n, err := rdb.Exists(t.Context(), k).Result(); err != nil || n != 0 {
		t.Errorf("the replayed copy is still in Redis (%d, %v)", n, err)
	}
	if n := rev.count(discovery.EventStoreDegraded); n != 0 {
		t.Errorf("the reader saw %d EventStoreDegraded events, want none", n)
	}

	// The cache tier's Delete removes the copy it stored, and only that one.
	ahead.Cache().Set(testURL, response(t, t0, "max-age=60", "# Skills\n"))
	ahead.Cache().Delete(testURL)
	if n, err := rdb.Exists(t.Context(), ahead.key("c:", testURL)).Result(); err != nil || n != 0 {
		t.Errorf("Delete left the copy in Redis (%d, %v)", n, err)
	}
}
