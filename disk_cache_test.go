package discovery_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wellknown-dev/discovery"
)

// longSkills is a skills.md whose last section matters: a prefix of it parses as a
// complete, shorter document with no "Risky actions".
func longSkills(version string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Site %s\n\n## API\n\n- Base path: `/v1`\n\n## Notes\n\n", version)
	for i := range 2000 {
		fmt.Fprintf(&b, "- note %d of version %s\n", i, version)
	}
	b.WriteString("\n## Risky actions\n\n- Never delete invoices.\n")
	return b.String()
}

func hasRisky(d *discovery.Discovery) bool {
	return d != nil && d.Guide != nil && len(d.Guide.RiskyActions) > 0
}

// gzipHandler serves body gzip-encoded without a length, as CDNs do.
func gzipHandler(body func() string, cacheControl string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != discovery.GuidePath {
			http.NotFound(w, r)
			return
		}
		b := body()
		w.Header().Set("Content-Type", "text/markdown")
		w.Header().Set("Cache-Control", cacheControl)
		w.Header().Set("ETag", fmt.Sprintf(`"%d"`, len(b)))
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = zw.Write([]byte(b))
		zw.Close()
	}
}

// TestDiskCacheTornEntries: a truncated, torn or corrupted entry in a shared
// disk cache is a miss, never a shorter document.
func TestDiskCacheTornEntries(t *testing.T) {
	t.Parallel()
	for _, damage := range []struct {
		name string
		f    func(data []byte) []byte
	}{
		{"truncated to half", func(d []byte) []byte { return d[:len(d)/2] }},
		{"truncated before the last section", func(d []byte) []byte {
			return d[:bytes.LastIndex(d, []byte("\n"))-200] // a torn read of a gzip-decoded body
		}},
		{"one byte flipped", func(d []byte) []byte { d[len(d)-10] ^= 1; return d }},
		{"empty", func(d []byte) []byte { return nil }},
		{"another key's entry", nil},
	} {
		t.Run(damage.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cache, err := discovery.NewDiskCache(dir)
			if err != nil {
				t.Fatal(err)
			}
			s := newSite(t, gzipHandler(func() string { return longSkills("a") }, "max-age=3600"))
			if _, err := newClient(t, s, &discovery.Options{Cache: cache}).Discover(t.Context(), s.URL); err != nil {
				t.Fatal(err)
			}
			entries, _ := os.ReadDir(dir)
			var files []string
			for _, e := range entries {
				if !e.IsDir() && !strings.HasPrefix(e.Name(), ".tmp") {
					files = append(files, filepath.Join(dir, e.Name()))
				}
			}
			if len(files) != 1 {
				t.Fatalf("cache files: %v", files)
			}
			data, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if damage.f != nil {
				data = damage.f(data)
			} else {
				// A whole, valid entry of another key copied over this one.
				odir := t.TempDir()
				other, _ := discovery.NewDiskCache(odir)
				other.Set("https://elsewhere.example/x", []byte("HTTP/1.1 200 OK\r\nCache-Control: max-age=3600\r\n\r\n# Short\n"))
				oes, _ := os.ReadDir(odir)
				if len(oes) != 1 {
					t.Fatalf("other cache files: %v", oes)
				}
				if data, err = os.ReadFile(filepath.Join(odir, oes[0].Name())); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(files[0], data, 0o600); err != nil {
				t.Fatal(err)
			}
			// A second Client on the same folder (another process, say).
			cache2, _ := discovery.NewDiskCache(dir)
			d, err := newClient(t, s, &discovery.Options{Cache: cache2}).Discover(t.Context(), s.URL)
			if err != nil {
				t.Fatal(err)
			}
			if !hasRisky(d) {
				t.Fatalf("a damaged cache entry became a document without its last section: %q, source %s", d.Guide.Title, d.Fetches[0].Source)
			}
			if d.Fetches[0].Source != discovery.SourceNetwork {
				t.Errorf("source = %s, want network (the damaged entry is a miss)", d.Fetches[0].Source)
			}
		})
	}
}

// TestDiskCacheSharedUnderLoad: two Clients on one folder, one revalidating
// and rewriting entries while both read, never see a torn document.
func TestDiskCacheSharedUnderLoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var n atomic.Int64
	s := newSite(t, gzipHandler(func() string {
		return longSkills(fmt.Sprint(n.Add(1) % 7)) // a new version on every request
	}, "no-cache"))
	var clients [2]*discovery.Client
	for i := range clients {
		cache, err := discovery.NewDiskCache(dir)
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = newClient(t, s, &discovery.Options{Cache: cache, LastGood: discovery.NewMemoryLastGood(0)})
	}
	var wg sync.WaitGroup
	var bad atomic.Int32
	for g := range 6 {
		wg.Go(func() {
			c := clients[g%2]
			for range 40 {
				d, err := c.Discover(t.Context(), s.URL)
				if err != nil || !hasRisky(d) {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if bad.Load() != 0 {
		t.Errorf("%d of 240 discoveries returned an error or a torn document", bad.Load())
	}
}
