package discovery_test

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wellknown-dev/discovery"
)

// TestRevalidationFromMemory: a Client revalidates a stale document it fetched before
// with one conditional request, answers a 304 from memory, takes a changed document
// as the HTTP cache would, and leaves the HTTP cache holding the newest answer for
// any other Client that shares it.
func TestRevalidationFromMemory(t *testing.T) {
	var mu sync.Mutex
	version, conds := "v1", []string{}
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		conds = append(conds, r.Header.Get("If-None-Match"))
		w.Header().Set("Cache-Control", "max-age=0")
		w.Header().Set("ETag", `"`+version+`"`)
		if r.Header.Get("If-None-Match") == `"`+version+`"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		_, _ = w.Write([]byte("# Doc " + version + "\n"))
	}))
	cache := discovery.NewMemoryCache(0)
	c := newClient(t, s, &discovery.Options{Cache: cache})
	check := func(c *discovery.Client, source discovery.Source, status int, title string) {
		t.Helper()
		d, err := c.Discover(t.Context(), s.URL)
		if err != nil {
			t.Fatal(err)
		}
		f := d.Fetches[0]
		if f.Source != source || f.StatusCode != status || d.Guide.Title != title || f.Attempts != 1 {
			t.Errorf("fetch = %v %d %q (%d attempts), want %v %d %q", f.Source, f.StatusCode, d.Guide.Title, f.Attempts, source, status, title)
		}
	}
	check(c, discovery.SourceNetwork, 200, "Doc v1")
	check(c, discovery.SourceRevalidated, 304, "Doc v1")
	check(c, discovery.SourceRevalidated, 304, "Doc v1")
	mu.Lock()
	version = "v2"
	mu.Unlock()
	check(c, discovery.SourceNetwork, 200, "Doc v2")
	check(c, discovery.SourceRevalidated, 304, "Doc v2")
	// Another Client on the same HTTP cache revalidates the newest entry.
	other := newClient(t, s, &discovery.Options{Cache: cache})
	check(other, discovery.SourceRevalidated, 304, "Doc v2")
	mu.Lock()
	defer mu.Unlock()
	want := []string{"", `"v1"`, `"v1"`, `"v1"`, `"v2"`, `"v2"`}
	if len(conds) != len(want) {
		t.Fatalf("requests sent If-None-Match %q, want %q", conds, want)
	}
	for i := range want {
		if conds[i] != want[i] {
			t.Errorf("request %d sent If-None-Match %q, want %q", i, conds[i], want[i])
		}
	}
}

// countingCache counts the calls an HTTP cache receives.
type countingCache struct {
	discovery.Cache
	mu               sync.Mutex
	gets, sets, dels int
}

func (c *countingCache) Get(k string) ([]byte, bool) {
	c.mu.Lock()
	c.gets++
	c.mu.Unlock()
	return c.Cache.Get(k)
}

func (c *countingCache) Set(k string, v []byte) {
	c.mu.Lock()
	c.sets++
	c.mu.Unlock()
	c.Cache.Set(k, v)
}

func (c *countingCache) Delete(k string) {
	c.mu.Lock()
	c.dels++
	c.mu.Unlock()
	c.Cache.Delete(k)
}

func (c *countingCache) counts() [3]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return [3]int{c.gets, c.sets, c.dels}
}

// TestUncachedDocumentsSkipTheCache: a document whose answer the HTTP cache could
// never use (no-store; or neither a validator nor a lifetime) is not kept there, and
// the next fetches go below the cache without asking it; when the document becomes
// cacheable, its answer is stored again and revalidated from then on.
func TestUncachedDocumentsSkipTheCache(t *testing.T) {
	for _, header := range []string{"no-store", ""} {
		t.Run("Cache-Control="+header, func(t *testing.T) {
			var mu sync.Mutex
			etag, conds := "", []string{}
			s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				conds = append(conds, r.Header.Get("If-None-Match"))
				if etag != "" {
					w.Header().Set("Cache-Control", "max-age=0")
					w.Header().Set("ETag", etag)
					if r.Header.Get("If-None-Match") == etag {
						w.WriteHeader(http.StatusNotModified)
						return
					}
				} else if header != "" {
					w.Header().Set("Cache-Control", header)
				}
				w.Header().Set("Content-Type", "text/markdown")
				_, _ = w.Write([]byte("# Doc\n"))
			}))
			cache := &countingCache{Cache: discovery.NewMemoryCache(0)}
			c := newClient(t, s, &discovery.Options{Cache: cache})
			u := discovery.PrivatePartition + s.URL + discovery.GuidePath // a loopback origin's partition
			check := func(source discovery.Source, status int) {
				t.Helper()
				d, err := c.Discover(t.Context(), s.URL)
				if err != nil {
					t.Fatal(err)
				}
				if f := d.Fetches[0]; f.Source != source || f.StatusCode != status || d.Guide.Title != "Doc" {
					t.Fatalf("fetch = %v %d %q, want %v %d", f.Source, f.StatusCode, d.Guide.Title, source, status)
				}
			}
			check(discovery.SourceNetwork, 200)
			if _, ok := cache.Cache.Get(u); ok {
				t.Fatal("the HTTP cache keeps a copy it can never answer with")
			}
			before := cache.counts()
			check(discovery.SourceNetwork, 200)
			check(discovery.SourceNetwork, 200)
			if after := cache.counts(); after != before {
				t.Errorf("the HTTP cache was used by fetches of an uncached document: %v, then %v (gets, sets, deletes)", before, after)
			}
			// The site starts sending a validator: the answer is stored, and revalidated.
			mu.Lock()
			etag = `"v1"`
			mu.Unlock()
			check(discovery.SourceNetwork, 200)
			if _, ok := cache.Cache.Get(u); !ok {
				t.Fatal("a cacheable answer after uncached ones was not stored")
			}
			check(discovery.SourceRevalidated, 304)
			other := newClient(t, s, &discovery.Options{Cache: cache}) // revalidates the stored entry
			d, err := other.Discover(t.Context(), s.URL)
			if err != nil || d.Fetches[0].Source != discovery.SourceRevalidated {
				t.Fatalf("another Client on the cache: %v, %v", d.Fetches, err)
			}
			mu.Lock()
			defer mu.Unlock()
			if want := []string{"", "", "", "", `"v1"`, `"v1"`}; strings.Join(conds, ",") != strings.Join(want, ",") {
				t.Errorf("If-None-Match sent: %q, want %q", conds, want)
			}
		})
	}
}

// TestUncachedIgnoresUnaskedNotModified: a 304 to a request that asked nothing (the
// Client holds no copy) is not taken for a confirmation of an empty copy.
func TestUncachedIgnoresUnaskedNotModified(t *testing.T) {
	var mu sync.Mutex
	n := 0
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		n++
		if n > 1 {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte("# Doc\n"))
	}))
	c := newClient(t, s, &discovery.Options{MaxRetries: -1})
	if _, err := c.Discover(t.Context(), s.URL); err != nil {
		t.Fatal(err)
	}
	d, err := c.Discover(t.Context(), s.URL)
	if err == nil && d.Guide != nil && d.Fetches[0].Source == discovery.SourceRevalidated {
		t.Fatalf("an unasked 304 was answered from nothing: %+v", d.Fetches)
	}
}

// TestRevalidationHeadersStayInTheirRound: a revalidation that the site answers with a
// redirect to another origin goes on there, once consented, without the validators
// of the copy it was revalidating (they belong to the first origin's document).
func TestRevalidationHeadersStayInTheirRound(t *testing.T) {
	other := newSite(t, docs(t, map[string]string{discovery.GuidePath: "# Other\n"}))
	var mu sync.Mutex
	moved := false
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if moved {
			http.Redirect(w, r, other.URL+discovery.GuidePath, http.StatusFound)
			return
		}
		w.Header().Set("Cache-Control", "max-age=0")
		w.Header().Set("ETag", `"v1"`)
		_, _ = w.Write([]byte("# Doc\n"))
	}))
	c := newClient(t, s, &discovery.Options{Consent: discovery.AllowAll})
	if _, err := c.Discover(t.Context(), s.URL); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	moved = true
	mu.Unlock()
	d, err := c.Discover(t.Context(), s.URL)
	if err != nil || d.Guide == nil || d.Guide.Title != "Other" {
		t.Fatalf("after the consented redirect: %+v, %v", d, err)
	}
	if first := s.last(); first.Header.Get("If-None-Match") != `"v1"` {
		t.Fatalf("the revalidation sent If-None-Match %q", first.Header.Get("If-None-Match"))
	}
	if r := other.last(); r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
		t.Errorf("the other origin got the first one's validators: %v", r.Header)
	}
}

// TestNoStoreIsNeverRemembered: a no-store answer with an ETag is not kept for a
// conditional request later.
func TestNoStoreIsNeverRemembered(t *testing.T) {
	var conditional atomic.Int32
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") != "" {
			conditional.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		_, _ = w.Write([]byte("# Per request\n"))
	}))
	c := newClient(t, s, &discovery.Options{MaxRetries: -1})
	for range 2 {
		if _, err := c.Discover(t.Context(), s.URL); err != nil {
			t.Fatal(err)
		}
	}
	if n := conditional.Load(); n != 0 {
		t.Errorf("%d conditional requests for a no-store document", n)
	}
}
