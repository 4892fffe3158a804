package discovery_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/internal/benchpair"
)

// benchSite serves testdata/skills.md; cacheControl is sent on every answer.
func benchSite(b *testing.B, cacheControl string) *site {
	b.Helper()
	body := []byte(readFileB(b, "testdata/skills.md"))
	s := &site{hits: map[string]int{}}
	s.Server = newTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		if cacheControl != "" {
			w.Header().Set("Cache-Control", cacheControl)
		}
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		_, _ = w.Write(body)
	}))
	b.Cleanup(s.Close)
	return s
}

// coldClient returns an http.Client with a new transport (no pooled connection) that
// trusts the test server.
func coldClient(s *site) *http.Client {
	return &http.Client{Transport: s.Client().Transport.(*http.Transport).Clone()}
}

// cpuPerOp reports the process's CPU time (user and system, every goroutine: the
// test server's too) per iteration as "cpu-ns/op". On a shared machine wall time
// per op varies with the load; CPU time per op does much less, so ratios between
// benchmarks hold. Call it before the loop; it reports when the benchmark ends.
func cpuPerOp(b *testing.B) {
	start := cpuTime()
	b.Cleanup(func() {
		if b.N > 0 {
			b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	})
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rawGet is the baseline: net/http GET and io.ReadAll of skills.md.
func rawGet(b *testing.B, hc *http.Client, u string) {
	resp, err := hc.Get(u)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.ReadAll(resp.Body); err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
}

// discoverCold discovers with nothing cached: a new Client, so an empty HTTP cache and
// last-good store.
func discoverCold(b *testing.B, hc *http.Client, origin string) {
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: hc, InsecureAllowPrivateOrigins: true})
	if err != nil {
		b.Fatal(err)
	}
	defer c.CloseIdleConnections()
	d, err := c.Discover(b.Context(), origin)
	if err != nil || d.Guide == nil {
		b.Fatal(err)
	}
}

// BenchmarkRawGet is the baseline of BenchmarkDiscoverCold: a first contact with the
// origin (new connection and TLS handshake), GET and io.ReadAll of skills.md.
func BenchmarkRawGet(b *testing.B) {
	s := benchSite(b, "")
	b.ReportAllocs()
	for b.Loop() {
		hc := coldClient(s)
		rawGet(b, hc, s.URL+discovery.GuidePath)
		hc.CloseIdleConnections()
	}
}

// BenchmarkDiscoverCold is a first contact with the origin: nothing cached, no pooled
// connection (TLS handshake), skills.md fetched, parsed and stored as last good.
func BenchmarkDiscoverCold(b *testing.B) {
	s := benchSite(b, "")
	b.ReportAllocs()
	for b.Loop() {
		hc := coldClient(s)
		discoverCold(b, hc, s.URL)
		hc.CloseIdleConnections()
	}
}

// BenchmarkRawGetKeepAlive is BenchmarkRawGet over a pooled connection.
func BenchmarkRawGetKeepAlive(b *testing.B) {
	s := benchSite(b, "")
	hc := s.Client()
	rawGet(b, hc, s.URL+discovery.GuidePath) // the connection is pooled before the loop
	b.ReportAllocs()
	cpuPerOp(b)
	for b.Loop() {
		rawGet(b, hc, s.URL+discovery.GuidePath)
	}
}

// BenchmarkDiscoverNoStore discovers over a pooled connection with nothing cacheable
// (Cache-Control: no-store): every call fetches and parses, so the SDK's own work per
// call shows beside BenchmarkRawGetKeepAlive.
func BenchmarkDiscoverNoStore(b *testing.B) {
	s := benchSite(b, "no-store")
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: s.Client(), InsecureAllowPrivateOrigins: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.CloseIdleConnections)
	b.ReportAllocs()
	cpuPerOp(b)
	for b.Loop() {
		d, err := c.Discover(b.Context(), s.URL)
		if err != nil || d.Fetches[0].Source != discovery.SourceNetwork {
			b.Fatal(err)
		}
	}
}

// BenchmarkDiscoverFresh discovers with a fresh cache entry (max-age): no request
// reaches the server.
func BenchmarkDiscoverFresh(b *testing.B) {
	s := benchSite(b, "max-age=3600")
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: s.Client(), InsecureAllowPrivateOrigins: true})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.Discover(b.Context(), s.URL); err != nil {
		b.Fatal(err)
	}
	before := s.total()
	b.ReportAllocs()
	cpuPerOp(b)
	for b.Loop() {
		d, err := c.Discover(b.Context(), s.URL)
		if err != nil || d.Fetches[0].Source != discovery.SourceCache {
			b.Fatal(err)
		}
	}
	if n := s.total() - before; n != 0 {
		b.Fatalf("%d requests reached the server", n)
	}
	b.ReportMetric(0, "requests/op")
}

// BenchmarkDiscoverRevalidate discovers over a pooled connection with a cached copy
// that must be revalidated on every call (ETag, max-age=0): a 304 each time.
func BenchmarkDiscoverRevalidate(b *testing.B) {
	s := revalidateSite(b)
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: s.Client(), InsecureAllowPrivateOrigins: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.CloseIdleConnections)
	if _, err := c.Discover(b.Context(), s.URL); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpuPerOp(b)
	for b.Loop() {
		d, err := c.Discover(b.Context(), s.URL)
		if err != nil || d.Fetches[0].Source != discovery.SourceRevalidated {
			b.Fatal(err, d.Fetches)
		}
	}
}

// revalidateSite answers with an ETag and max-age=0, and a 304 to a request that
// carries the ETag: every discovery after the first revalidates.
func revalidateSite(b *testing.B) *httptest.Server {
	body := []byte(readFileB(b, "testdata/skills.md"))
	s := newTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=0")
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		_, _ = w.Write(body)
	}))
	b.Cleanup(s.Close)
	return s
}

// pairedRatio runs a bare keep-alive GET of the site's skills.md and a Discover of the
// site in every iteration (see package benchpair) and reports their times and ratio.
func pairedRatio(b *testing.B, url string, hc *http.Client, want discovery.Source) {
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: hc, InsecureAllowPrivateOrigins: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.CloseIdleConnections)
	raw := &http.Client{Transport: hc.Transport} // the same pool, no cache
	if _, err := c.Discover(b.Context(), url); err != nil {
		b.Fatal(err)
	}
	rawGet(b, raw, url+discovery.GuidePath)
	benchpair.Run(b, func() { rawGet(b, raw, url+discovery.GuidePath) }, func() {
		d, err := c.Discover(b.Context(), url)
		if err != nil || d.Fetches[0].Source != want {
			b.Fatal(err, d.Fetches)
		}
	})
}

// BenchmarkPairedFetch compares a full fetch (no-store: fetched and parsed every time)
// with the bare keep-alive GET of the same document from the same server, pair by pair.
func BenchmarkPairedFetch(b *testing.B) {
	s := benchSite(b, "no-store")
	pairedRatio(b, s.URL, s.Client(), discovery.SourceNetwork)
}

// BenchmarkPairedRevalidate compares a revalidation (a 304 answered from the cached
// copy) with the bare keep-alive GET of the same document, pair by pair.
func BenchmarkPairedRevalidate(b *testing.B) {
	s := revalidateSite(b)
	pairedRatio(b, s.URL, s.Client(), discovery.SourceRevalidated)
}

// BenchmarkPairedPlain compares a discovery of a document served with no caching
// headers at all (nothing says how long it stays fresh, nothing to revalidate with:
// every call fetches it in full) with the bare keep-alive GET, pair by pair.
func BenchmarkPairedPlain(b *testing.B) {
	s := benchSite(b, "")
	pairedRatio(b, s.URL, s.Client(), discovery.SourceNetwork)
}
