package discovery_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wellknown-dev/discovery"
)

// keysCache records the keys a Client stores.
type keysCache struct {
	discovery.Cache
	mu   sync.Mutex
	keys []string
}

func (k *keysCache) Set(key string, value []byte) {
	k.mu.Lock()
	k.keys = append(k.keys, key)
	k.mu.Unlock()
	k.Cache.Set(key, value)
}

// TestIsPrivateKey: every key a Client stores for a private origin's documents, in its
// Cache and its LastGoodStore, is one IsPrivateKey recognises (a shared store keeps
// them local); a public URL is not.
func TestIsPrivateKey(t *testing.T) {
	t.Parallel()
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: goodSkills}))
	cache := &keysCache{Cache: discovery.NewMemoryCache(0)}
	lg := discovery.NewMemoryLastGood(0)
	c := newClient(t, s, &discovery.Options{Cache: cache, LastGood: lg})
	if _, err := c.Discover(t.Context(), s.URL); err != nil {
		t.Fatal(err)
	}
	if len(cache.keys) == 0 {
		t.Fatal("nothing was cached")
	}
	for _, k := range cache.keys {
		if !discovery.IsPrivateKey(k) {
			t.Errorf("cache key %q of a loopback origin is not private", k)
		}
	}
	if _, ok := lg.Load(discovery.PrivatePartition + s.URL + discovery.GuidePath); !ok {
		t.Error("the last good copy is not under the private partition")
	}
	if discovery.IsPrivateKey("https://example.com" + discovery.GuidePath) {
		t.Error("a public URL is private")
	}
}

// staleIfErrorCache is a Cache that adds stale-if-error to every response it stores,
// as one written by an older version (or another program) might hold.
type staleIfErrorCache struct{ discovery.Cache }

func (c staleIfErrorCache) Set(key string, value []byte) {
	c.Cache.Set(key, []byte(strings.Replace(string(value), "\r\n", "\r\nCache-Control: max-age=0, stale-if-error=86400\r\n", 1)))
}

// TestHTTPCacheNeverAnswersFailures: a site that once sent stale-if-error
// cannot make the HTTP cache hide a failure. Policy and consent failures stay errors,
// MaxStale < 0 serves nothing old, and an old copy is only ever the last-good one,
// marked stale.
func TestHTTPCacheNeverAnswersFailures(t *testing.T) {
	t.Parallel()
	type mode int
	const (
		good mode = iota
		unavailable
		crossRedirect
		reset
	)
	for _, hostileCache := range []bool{false, true} {
		for _, tc := range []struct {
			name    string
			mode    mode
			opts    discovery.Options
			want    error  // errors.Is on the error; nil: a stale copy
			wantSrc string // for a stale copy
		}{
			{"503, MaxStale -1", unavailable, discovery.Options{MaxStale: -1}, &discovery.HTTPError{}, ""},
			{"503, last good copy", unavailable, discovery.Options{}, nil, "stale"},
			{"reset, MaxStale -1", reset, discovery.Options{MaxStale: -1}, errAny, ""},
			{"cross-origin redirect denied", crossRedirect, discovery.Options{}, discovery.ErrCrossOrigin, ""},
			{"consent hook fails", crossRedirect, discovery.Options{Consent: func(context.Context, *discovery.ConsentRequest) (bool, error) {
				return false, errHook
			}}, errHook, ""},
		} {
			t.Run(fmt.Sprintf("%s, hostile cache %v", tc.name, hostileCache), func(t *testing.T) {
				t.Parallel()
				var m atomic.Int32
				other := newSite(t, docs(t, map[string]string{discovery.GuidePath: "# Other\n"}))
				s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					switch mode(m.Load()) {
					case good:
						w.Header().Set("Cache-Control", "max-age=0, stale-if-error=86400")
						w.Header().Set("ETag", `"v1"`)
						w.Header().Set("Content-Type", "text/markdown")
						fmt.Fprint(w, goodSkills)
					case unavailable:
						w.WriteHeader(503)
					case crossRedirect:
						http.Redirect(w, r, other.URL+discovery.GuidePath, http.StatusFound)
					case reset:
						panic(http.ErrAbortHandler)
					}
				}))
				s.Config.ErrorLog = quietLog()
				opts := tc.opts
				opts.MaxRetries = -1
				opts.Cache = discovery.NewMemoryCache(0)
				if hostileCache {
					opts.Cache = staleIfErrorCache{opts.Cache}
				}
				c := newClient(t, s, &opts)
				if _, err := c.Discover(t.Context(), s.URL); err != nil {
					t.Fatal(err)
				}
				m.Store(int32(tc.mode))
				d, err := c.Discover(t.Context(), s.URL)
				if tc.want != nil {
					if err == nil {
						t.Fatalf("an old copy came back as %+v", d.Fetches[0])
					}
					if tc.want != errAny && !errors.Is(err, tc.want) && !errors.As(err, new(*discovery.HTTPError)) {
						t.Fatalf("error = %v, want %v", err, tc.want)
					}
					if tc.want != errAny && !errors.Is(err, tc.want) {
						if _, isHTTP := tc.want.(*discovery.HTTPError); !isHTTP {
							t.Fatalf("error = %v, want %v", err, tc.want)
						}
					}
					if other.total() != 0 {
						t.Errorf("the other origin was reached")
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if f := d.Fetches[0]; f.Source.String() != tc.wantSrc || f.Cause == nil || !hasCode(d, discovery.WarnStale) {
					t.Errorf("fetch = %+v, warnings %v", f, d.Warnings)
				}
			})
		}
	}
}
