package discovery_test

import (
	"net/http"
	"sync"
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
	cache := discovery.NewMemoryCache()
	c := newClient(t, s, &discovery.Options{Cache: cache})
	check := func(c *discovery.Client, source discovery.Source, status int, title string) {
		t.Helper()
		d, err := c.Discover(t.Context(), s.URL)
		if err != nil {
			t.Fatal(err)
		}
		f := d.Fetches[0]
		if f.Source != source || f.StatusCode != status || d.Skills.Title != title || f.Attempts != 1 {
			t.Errorf("fetch = %v %d %q (%d attempts), want %v %d %q", f.Source, f.StatusCode, d.Skills.Title, f.Attempts, source, status, title)
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
