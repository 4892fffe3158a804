package discovery_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/mcpjson"
	"github.com/wellknown-dev/discovery/skillsmd"
)

func TestDiscoverDocuments(t *testing.T) {
	t.Parallel()
	skills := readFile(t, "testdata/skills.md")
	mcp := readFile(t, "testdata/mcp.json")
	tests := []struct {
		name       string
		files      map[string]string
		structured bool
		wantSkills bool
		wantMCP    bool
		wantHits   map[string]int
		wantErr    error
	}{
		{"skills.md only", map[string]string{discovery.GuidePath: skills}, false, true, false,
			map[string]int{discovery.GuidePath: 1, discovery.MCPPath: 0}, nil},
		{"mcp.json only falls back", map[string]string{discovery.MCPPath: mcp}, false, false, true,
			map[string]int{discovery.GuidePath: 1, discovery.MCPPath: 1}, nil},
		{"both: skills.md is enough", map[string]string{discovery.GuidePath: skills, discovery.MCPPath: mcp}, false, true, false,
			map[string]int{discovery.GuidePath: 1, discovery.MCPPath: 0}, nil},
		{"both structured", map[string]string{discovery.GuidePath: skills, discovery.MCPPath: mcp}, true, true, true,
			map[string]int{discovery.GuidePath: 1, discovery.MCPPath: 1}, nil},
		{"structured, mcp.json only", map[string]string{discovery.MCPPath: mcp}, true, false, true,
			map[string]int{discovery.GuidePath: 1, discovery.MCPPath: 1}, nil},
		{"structured, skills.md only", map[string]string{discovery.GuidePath: skills}, true, true, false,
			map[string]int{discovery.GuidePath: 1, discovery.MCPPath: 1}, nil},
		{"neither", map[string]string{}, false, false, false,
			map[string]int{discovery.GuidePath: 1, discovery.MCPPath: 1}, discovery.ErrNotPublished},
		{"neither structured", map[string]string{}, true, false, false,
			map[string]int{discovery.GuidePath: 1, discovery.MCPPath: 1}, discovery.ErrNotPublished},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSite(t, docs(t, tc.files))
			c := newClient(t, s, nil)
			call := c.Discover
			if tc.structured {
				call = c.Structured
			}
			d, err := call(t.Context(), s.URL)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error = %v, want %v", err, tc.wantErr)
			}
			for p, n := range tc.wantHits {
				if got := s.count(p); got != n {
					t.Errorf("%s requested %d times, want %d", p, got, n)
				}
			}
			if err != nil {
				return
			}
			if got := d.Guide != nil; got != tc.wantSkills {
				t.Errorf("Skills present = %v, want %v", got, tc.wantSkills)
			}
			if got := d.MCP != nil; got != tc.wantMCP {
				t.Errorf("MCP present = %v, want %v", got, tc.wantMCP)
			}
			if d.Guide != nil && (d.Guide.Title != "Skills" || d.Guide.BaseURL != "https://tracker.example.com/api/v1") {
				t.Errorf("Skills = %+v", d.Guide)
			}
			if d.MCP != nil && (len(d.MCP.Tools) != 1 || d.MCP.Tools[0].Name != "repair-tracker") {
				t.Errorf("MCP = %+v", d.MCP)
			}
			if len(d.Warnings) != 0 {
				t.Errorf("Warnings = %v", d.Warnings)
			}
			for _, f := range d.Fetches {
				if f.Source != discovery.SourceNetwork || f.Attempts != 1 {
					t.Errorf("Fetch %+v, want one attempt from the network", f)
				}
			}
		})
	}
}

func TestNotPublished(t *testing.T) {
	t.Parallel()
	html := "<!DOCTYPE html><html><body>Home</body></html>"
	tests := []struct {
		name string
		h    http.HandlerFunc
	}{
		{"404", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) }},
		{"410", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusGone) }},
		{"HTML with text/html", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "Home page")
		}},
		{"HTML sniffed from the body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "\n  "+html)
		}},
		{"HTML with a lower-case html tag", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			fmt.Fprint(w, "<html lang=en>")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSite(t, tc.h)
			c := newClient(t, s, nil)
			_, err := c.Discover(t.Context(), s.URL)
			if !errors.Is(err, discovery.ErrNotPublished) {
				t.Fatalf("error = %v, want ErrNotPublished", err)
			}
			if s.count(discovery.GuidePath) != 1 || s.count(discovery.MCPPath) != 1 {
				t.Errorf("hits: %d, %d", s.count(discovery.GuidePath), s.count(discovery.MCPPath))
			}
		})
	}
}

func TestContentTypeWarning(t *testing.T) {
	t.Parallel()
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-weird")
		fmt.Fprint(w, "# Skills\n\n## API\n\n- Base path: `/api`\n")
	}))
	d, err := newClient(t, s, nil).Discover(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Warnings) != 1 || d.Warnings[0].Code != discovery.WarnContentType || d.Guide.BaseURL != "/api" {
		t.Errorf("Warnings = %v, BaseURL %q", d.Warnings, d.Guide.BaseURL)
	}
}

func TestRequestHeaders(t *testing.T) {
	t.Parallel()
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: "# Skills\n"}))
	jar := &recordingJar{}
	hc := s.Client()
	hc.Jar = jar
	c := newClient(t, s, &discovery.Options{HTTPClient: hc})
	if _, err := c.Discover(t.Context(), s.URL); err != nil {
		t.Fatal(err)
	}
	r := s.last()
	if ua := r.Header.Get("User-Agent"); ua != "discovery-go/"+discovery.Version {
		t.Errorf("User-Agent = %q", ua)
	}
	if a := r.Header.Get("Accept"); !strings.Contains(a, "text/markdown") {
		t.Errorf("Accept = %q", a)
	}
	if r.Header.Get("Cookie") != "" || r.Header.Get("Authorization") != "" {
		t.Errorf("credentials sent: %v", r.Header)
	}
	if jar.used.Load() {
		t.Error("the caller's cookie jar was used")
	}
}

type recordingJar struct{ used atomic.Bool }

func (j *recordingJar) SetCookies(*urlURL, []*http.Cookie) { j.used.Store(true) }
func (j *recordingJar) Cookies(*urlURL) []*http.Cookie {
	j.used.Store(true)
	return []*http.Cookie{{Name: "session", Value: "secret"}}
}

func TestRedirects(t *testing.T) {
	t.Parallel()
	skills := "# Skills\n\n## API\n\n- Base URL: https://api.example.com/v1\n"
	t.Run("same-origin 301", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case discovery.GuidePath:
				http.Redirect(w, r, "/docs/skills.md", http.StatusMovedPermanently)
			case "/docs/skills.md":
				fmt.Fprint(w, skills)
			default:
				http.NotFound(w, r)
			}
		}))
		d, err := newClient(t, s, nil).Discover(t.Context(), s.URL)
		if err != nil {
			t.Fatal(err)
		}
		if d.Guide == nil || d.Guide.BaseURL != "https://api.example.com/v1" || s.count("/docs/skills.md") != 1 {
			t.Errorf("Skills = %+v", d.Guide)
		}
	})

	crossOrigin := func(t *testing.T, consent discovery.ConsentFunc) (*site, *site, *discovery.Discovery, error) {
		other := newSite(t, docs(t, map[string]string{discovery.GuidePath: skills}))
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
		}))
		d, err := newClient(t, s, &discovery.Options{Consent: consent}).Discover(t.Context(), s.URL)
		return s, other, d, err
	}
	t.Run("cross-origin without consent", func(t *testing.T) {
		t.Parallel()
		s, other, _, err := crossOrigin(t, nil)
		if !errors.Is(err, discovery.ErrCrossOrigin) {
			t.Fatalf("error = %v, want ErrCrossOrigin", err)
		}
		if s.total() != 1 || other.total() != 0 {
			t.Errorf("requests: origin %d, other %d; want 1, 0", s.total(), other.total())
		}
		if !strings.Contains(err.Error(), other.URL) {
			t.Errorf("error %q does not name the target", err)
		}
	})
	t.Run("cross-origin denied by the callback", func(t *testing.T) {
		t.Parallel()
		s, other, _, err := crossOrigin(t, func(context.Context, *discovery.ConsentRequest) (bool, error) { return false, nil })
		if !errors.Is(err, discovery.ErrCrossOrigin) || s.total() != 1 || other.total() != 0 {
			t.Fatalf("error = %v, requests %d/%d", err, s.total(), other.total())
		}
	})
	t.Run("cross-origin callback error", func(t *testing.T) {
		t.Parallel()
		boom := errors.New("user interface unavailable")
		s, _, _, err := crossOrigin(t, func(context.Context, *discovery.ConsentRequest) (bool, error) { return false, boom })
		if !errors.Is(err, boom) || errors.Is(err, discovery.ErrCrossOrigin) || s.total() != 1 {
			t.Fatalf("error = %v, requests %d", err, s.total())
		}
	})
	t.Run("cross-origin with consent", func(t *testing.T) {
		t.Parallel()
		var mu sync.Mutex
		var got []discovery.ConsentRequest
		consent := func(ctx context.Context, req *discovery.ConsentRequest) (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, *req)
			return true, nil
		}
		s, other, d, err := crossOrigin(t, consent)
		if err != nil {
			t.Fatal(err)
		}
		if d.Guide == nil || other.count(discovery.GuidePath) != 1 || s.count(discovery.GuidePath) != 1 {
			t.Fatalf("Skills %v, hits %d/%d", d.Guide, s.total(), other.total())
		}
		if f := d.Fetches[0]; f.URL != s.URL+discovery.GuidePath || f.FinalURL != other.URL+discovery.GuidePath {
			t.Errorf("Fetch URL %q, FinalURL %q", f.URL, f.FinalURL)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(got) != 1 {
			t.Fatalf("consent asked %d times, want 1", len(got))
		}
		r := got[0]
		if r.Action != discovery.ConsentRedirect || r.Origin.String() != s.URL || r.URL != other.URL+discovery.GuidePath ||
			r.Method != http.MethodGet || !strings.Contains(r.Reason, other.URL) {
			t.Errorf("ConsentRequest = %+v", r)
		}
	})
	t.Run("https to http refused", func(t *testing.T) {
		t.Parallel()
		plain := httptest.NewServer(docs(t, map[string]string{discovery.GuidePath: skills}))
		t.Cleanup(plain.Close)
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, plain.URL+r.URL.Path, http.StatusFound)
		}))
		_, err := newClient(t, s, &discovery.Options{Consent: discovery.AllowAll}).Discover(t.Context(), s.URL)
		if !errors.Is(err, discovery.ErrInsecureOrigin) || s.total() != 1 {
			t.Fatalf("error = %v, requests %d; want ErrInsecureOrigin after 1", err, s.total())
		}
	})
	t.Run("redirect loop", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
		}))
		_, err := newClient(t, s, nil).Discover(t.Context(), s.URL)
		if !errors.Is(err, discovery.ErrTooManyRedirects) || s.total() != 6 {
			t.Fatalf("error = %v, requests %d; want ErrTooManyRedirects after 6", err, s.total())
		}
	})
}

// flaky serves a good skills.md until failing is set, then runs bad.
type flaky struct {
	failing atomic.Bool
	good    string
	bad     http.HandlerFunc
}

func (f *flaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != discovery.GuidePath {
		http.NotFound(w, r)
		return
	}
	if f.failing.Load() {
		f.bad(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/markdown")
	fmt.Fprint(w, f.good)
}

func TestRetriesAndLastGood(t *testing.T) {
	t.Parallel()
	good := "# Skills\n\n## API\n\n- Base path: `/api/v1`\n"
	status := func(code int, header ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			for i := 0; i+1 < len(header); i += 2 {
				w.Header().Set(header[i], header[i+1])
			}
			w.WriteHeader(code)
		}
	}
	tests := []struct {
		name      string
		bad       http.HandlerFunc
		wantHits  int   // requests for skills.md during the failing call
		wantStale bool  // last good copy served
		wantErr   error // when nothing was cached
	}{
		{"503", status(503), 3, true, nil},
		{"500", status(500), 3, true, nil},
		{"502", status(502), 3, true, nil},
		{"504", status(504), 3, true, nil},
		{"501 is not retried", status(501), 1, true, nil},
		{"408", status(408), 3, true, nil},
		{"429 Retry-After 3600", status(429, "Retry-After", "3600"), 1, true, discovery.ErrRetryAfterTooLong},
		{"503 Retry-After as a date an hour away", status(503, "Retry-After", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)), 1, true, discovery.ErrRetryAfterTooLong},
		{"invalid UTF-8", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "# Skills\n\xff\xfe") }, 1, true, nil},
		{"NUL bytes", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "# Skills\x00\x00") }, 1, true, nil},
		{"over the cap", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, strings.Repeat("a", discovery.DefaultMaxDocumentBytes+1))
		}, 1, true, discovery.ErrTooLarge},
		{"403 is not papered over", status(403), 1, false, nil},
		{"401 is not papered over", status(401), 1, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &flaky{good: good, bad: tc.bad}
			f.failing.Store(true)
			s := newSite(t, f)
			c := newClient(t, s, nil)

			// Nothing cached: an error, after the expected number of requests.
			_, err := c.Discover(t.Context(), s.URL)
			if err == nil || errors.Is(err, discovery.ErrNotPublished) {
				t.Fatalf("cold call error = %v, want a failure", err)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("cold call error = %v, want %v", err, tc.wantErr)
			}
			if got := s.count(discovery.GuidePath); got != tc.wantHits {
				t.Errorf("cold call sent %d requests, want %d", got, tc.wantHits)
			}
			if s.count(discovery.MCPPath) != 0 {
				t.Error("a failing skills.md must not fall back to mcp.json")
			}

			// A good fetch, then the same failure: the last good copy.
			f.failing.Store(false)
			if _, err := c.Discover(t.Context(), s.URL); err != nil {
				t.Fatal(err)
			}
			f.failing.Store(true)
			before := s.count(discovery.GuidePath)
			d, err := c.Discover(t.Context(), s.URL)
			if got := s.count(discovery.GuidePath) - before; got != tc.wantHits {
				t.Errorf("warm call sent %d requests, want %d", got, tc.wantHits)
			}
			if !tc.wantStale {
				var he *discovery.HTTPError
				if !errors.As(err, &he) {
					t.Fatalf("warm call error = %v, want *HTTPError", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("warm call error = %v, want the last good copy", err)
			}
			f0 := d.Fetches[0]
			if f0.Source != discovery.SourceStale || f0.Cause == nil || f0.SavedAt.IsZero() || d.Guide.BaseURL != "/api/v1" {
				t.Errorf("Fetch = %+v, Skills = %+v", f0, d.Guide)
			}
			if len(d.Warnings) != 1 || d.Warnings[0].Code != discovery.WarnStale {
				t.Errorf("Warnings = %v", d.Warnings)
			}
		})
	}
}

func TestRetryCounts(t *testing.T) {
	t.Parallel()
	t.Run("503 three times with nothing cached", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
		_, err := newClient(t, s, nil).Discover(t.Context(), s.URL)
		var he *discovery.HTTPError
		if !errors.As(err, &he) || he.StatusCode != 503 || he.Attempts != 3 {
			t.Fatalf("error = %#v, want *HTTPError 503 after 3 attempts", err)
		}
		if s.total() != 3 {
			t.Errorf("server saw %d requests, want exactly 3", s.total())
		}
	})
	t.Run("MaxRetries negative means one attempt", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
		_, err := newClient(t, s, &discovery.Options{MaxRetries: -1}).Discover(t.Context(), s.URL)
		if err == nil || s.total() != 1 {
			t.Fatalf("error = %v, requests %d", err, s.total())
		}
	})
	t.Run("429 with Retry-After 1 is retried", func(t *testing.T) {
		t.Parallel()
		var n atomic.Int32
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == discovery.GuidePath && n.Add(1) == 1 {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			fmt.Fprint(w, "# Skills\n")
		}))
		d, err := newClient(t, s, nil).Discover(t.Context(), s.URL)
		if err != nil {
			t.Fatal(err)
		}
		if s.total() != 2 || d.Fetches[0].Attempts != 2 {
			t.Errorf("requests %d, attempts %d; want 2", s.total(), d.Fetches[0].Attempts)
		}
	})
	t.Run("ctx cancelled during backoff", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "8")
			w.WriteHeader(503)
			go func() { time.Sleep(50 * time.Millisecond); cancel() }()
		}))
		start := time.Now()
		_, err := newClient(t, s, nil).Discover(ctx, s.URL)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error = %v, want context.Canceled", err)
		}
		if el := time.Since(start); el > 4*time.Second {
			t.Errorf("returned after %s; the 8 s backoff was not interrupted", el)
		}
		if s.total() != 1 {
			t.Errorf("requests %d, want 1", s.total())
		}
	})
	t.Run("body over a custom cap", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, docs(t, map[string]string{discovery.GuidePath: strings.Repeat("x", 2048)}))
		_, err := newClient(t, s, &discovery.Options{MaxDocumentBytes: 1024}).Discover(t.Context(), s.URL)
		if !errors.Is(err, discovery.ErrTooLarge) {
			t.Fatalf("error = %v, want ErrTooLarge", err)
		}
	})
}

func TestCaching(t *testing.T) {
	t.Parallel()
	t.Run("ETag revalidation", func(t *testing.T) {
		t.Parallel()
		var notModified atomic.Int32
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != discovery.GuidePath {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Cache-Control", "no-cache")
			if r.Header.Get("If-None-Match") == `"v1"` {
				notModified.Add(1)
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("Content-Type", "text/markdown")
			fmt.Fprint(w, "# Skills\n\n## API\n\n- Base path: /v1\n")
		}))
		c := newClient(t, s, nil)
		if _, err := c.Discover(t.Context(), s.URL); err != nil {
			t.Fatal(err)
		}
		d, err := c.Discover(t.Context(), s.URL)
		if err != nil {
			t.Fatal(err)
		}
		f := d.Fetches[0]
		if f.Source != discovery.SourceRevalidated || f.StatusCode != http.StatusNotModified || notModified.Load() != 1 {
			t.Errorf("Fetch = %+v, 304s sent %d", f, notModified.Load())
		}
		if d.Guide.BaseURL != "/v1" || s.total() != 2 {
			t.Errorf("BaseURL %q, requests %d", d.Guide.BaseURL, s.total())
		}
	})
	t.Run("max-age fresh", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "max-age=3600")
			fmt.Fprint(w, "# Skills\n")
		}))
		c := newClient(t, s, nil)
		if _, err := c.Discover(t.Context(), s.URL); err != nil {
			t.Fatal(err)
		}
		before := s.total()
		d, err := c.Discover(t.Context(), s.URL)
		if err != nil {
			t.Fatal(err)
		}
		if s.total() != before || d.Fetches[0].Source != discovery.SourceCache || d.Fetches[0].Attempts != 0 {
			t.Errorf("requests %d→%d, Fetch %+v", before, s.total(), d.Fetches[0])
		}
	})
	t.Run("404 drops the last good copy", func(t *testing.T) {
		t.Parallel()
		var gone atomic.Bool
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.URL.Path != discovery.GuidePath:
				http.NotFound(w, r)
			case gone.Load():
				w.WriteHeader(http.StatusGone)
			default:
				fmt.Fprint(w, "# Skills\n")
			}
		}))
		lg := discovery.NewMemoryLastGood(0)
		c := newClient(t, s, &discovery.Options{LastGood: lg})
		if _, err := c.Discover(t.Context(), s.URL); err != nil {
			t.Fatal(err)
		}
		if _, ok := lg.Load(discovery.PrivatePartition + s.URL + discovery.GuidePath); !ok {
			t.Fatal("the good copy was not stored")
		}
		gone.Store(true)
		if _, err := c.Discover(t.Context(), s.URL); !errors.Is(err, discovery.ErrNotPublished) {
			t.Fatalf("error = %v", err)
		}
		if _, ok := lg.Load(discovery.PrivatePartition + s.URL + discovery.GuidePath); ok {
			t.Error("410 did not drop the last good copy")
		}
	})
	t.Run("last good copy older than MaxStale", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
		lg := discovery.NewMemoryLastGood(0)
		lg.Store(discovery.PrivatePartition+s.URL+discovery.GuidePath, discovery.LastGood{Body: []byte("# Old\n"), SavedAt: time.Now().Add(-2 * time.Hour)})
		c := newClient(t, s, &discovery.Options{LastGood: lg, MaxStale: time.Hour, MaxRetries: -1})
		if _, err := c.Discover(t.Context(), s.URL); err == nil {
			t.Fatal("a copy older than MaxStale was served")
		}
		c = newClient(t, s, &discovery.Options{LastGood: lg, MaxStale: 3 * time.Hour, MaxRetries: -1})
		d, err := c.Discover(t.Context(), s.URL)
		if err != nil || d.Guide.Title != "Old" {
			t.Fatalf("error = %v", err)
		}
		c = newClient(t, s, &discovery.Options{LastGood: lg, MaxStale: -1, MaxRetries: -1})
		if _, err := c.Discover(t.Context(), s.URL); err == nil {
			t.Fatal("MaxStale < 0 served a last good copy")
		}
	})
	t.Run("disk cache writes 0600 files", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		cache, err := discovery.NewDiskCache(dir)
		if err != nil {
			t.Fatal(err)
		}
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "max-age=60")
			fmt.Fprint(w, "# Skills\n")
		}))
		c := newClient(t, s, &discovery.Options{Cache: cache})
		if _, err := c.Discover(t.Context(), s.URL); err != nil {
			t.Fatal(err)
		}
		checkPerms(t, dir)
		c = newClient(t, s, &discovery.Options{Cache: cache})
		d, err := c.Discover(t.Context(), s.URL)
		if err != nil || d.Fetches[0].Source != discovery.SourceCache || s.total() != 1 {
			t.Fatalf("second client: %v, %+v, %d requests", err, d, s.total())
		}
	})
}

func TestMCPJSONProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want any // *mcpjson.SyntaxError or *mcpjson.ValidationError
	}{
		{"missing value", `{"mcp":{"spec_version":"2026-06-13","status":}}`, &mcpjson.SyntaxError{}},
		{"array", `[]`, &mcpjson.ValidationError{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSite(t, docs(t, map[string]string{discovery.MCPPath: tc.body}))
			_, err := newClient(t, s, nil).Discover(t.Context(), s.URL)
			var fe *discovery.FetchError
			if !errors.As(err, &fe) {
				t.Fatalf("error = %v, want *FetchError", err)
			}
			switch tc.want.(type) {
			case *mcpjson.SyntaxError:
				var se *mcpjson.SyntaxError
				if !errors.As(err, &se) || se.Line != 1 {
					t.Errorf("error = %v, want *mcpjson.SyntaxError", err)
				}
			case *mcpjson.ValidationError:
				var ve *mcpjson.ValidationError
				if !errors.As(err, &ve) {
					t.Errorf("error = %v, want *mcpjson.ValidationError", err)
				}
			}
		})
	}
	t.Run("a trailing comma is read, with a warning", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, docs(t, map[string]string{discovery.MCPPath: `{"mcpServers":{"a":{"url":"https://mcp.example.com/mcp",}}}`}))
		d, err := newClient(t, s, nil).Discover(t.Context(), s.URL)
		if err != nil || d.MCP == nil || len(d.MCP.Servers) != 1 || !hasCode(d, discovery.WarnMCP) {
			t.Fatalf("Discover = %+v, %v", d, err)
		}
	})
	t.Run("a spec-shaped document missing status is unsupported, not an error", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, docs(t, map[string]string{discovery.MCPPath: `{"mcp":{"spec_version":"2026-06-13"}}`}))
		d, err := newClient(t, s, nil).Discover(t.Context(), s.URL)
		if err != nil || d.MCP == nil || d.MCP.Shape != mcpjson.ShapeUnknown || len(d.MCP.Servers) != 0 || !hasCode(d, discovery.WarnMCP) {
			t.Fatalf("Discover = %+v, %v", d, err)
		}
	})
	t.Run("skills.md syntax error carries the offset", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, docs(t, map[string]string{discovery.GuidePath: "# Skills\nab\xffc"}))
		_, err := newClient(t, s, nil).Discover(t.Context(), s.URL)
		var se *skillsmd.SyntaxError
		if !errors.As(err, &se) || se.Offset != 11 || se.Line != 2 || se.Column != 3 {
			t.Fatalf("error = %v, want *skillsmd.SyntaxError at byte 11", err)
		}
	})
}

func TestConcurrentDiscover(t *testing.T) {
	t.Parallel()
	skills := readFile(t, "testdata/skills.md")
	mcp := readFile(t, "testdata/mcp.json")
	other := newSite(t, docs(t, map[string]string{discovery.GuidePath: skills}))
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/moved"):
			http.Redirect(w, r, other.URL+discovery.GuidePath, http.StatusFound)
		default:
			docs(t, map[string]string{discovery.GuidePath: skills, discovery.MCPPath: mcp}).ServeHTTP(w, r)
		}
	}))
	var asked atomic.Int32
	consent := func(ctx context.Context, req *discovery.ConsentRequest) (bool, error) {
		asked.Add(1)
		return req.Action == discovery.ConsentCrossOrigin, nil
	}
	c := newClient(t, s, &discovery.Options{Consent: consent})
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Go(func() {
			call := c.Discover
			if i%2 == 0 {
				call = c.Structured
			}
			d, err := call(t.Context(), s.URL)
			if err != nil {
				errs <- err
				return
			}
			if d.Guide == nil || d.Guide.Title != "Skills" || (i%2 == 0 && d.MCP == nil) {
				errs <- fmt.Errorf("goroutine %d: incomplete result", i)
				return
			}
			// The policy guard, shared client, counted consent.
			g, err := c.Guard(d, &discovery.GuardOptions{Base: other.Client().Transport})
			if err != nil {
				errs <- err
				return
			}
			hc := &http.Client{Transport: g}
			resp, err := hc.Get(other.URL + discovery.GuidePath)
			if err != nil {
				errs <- err
				return
			}
			resp.Body.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if asked.Load() != 100 {
		t.Errorf("consent asked %d times, want 100", asked.Load())
	}
}

func TestMCPPointer(t *testing.T) {
	t.Parallel()
	card := `{"name":"io.example/x","remotes":[{"type":"streamable-http","url":"https://mcp.example.com/mcp"}]}`
	t.Run("same origin is followed once", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, docs(t, map[string]string{
			discovery.MCPPath:    `{"$ref": "/cards/server.json"}`,
			"/cards/server.json": card,
		}))
		d, err := newClient(t, s, nil).Discover(t.Context(), s.URL)
		if err != nil {
			t.Fatal(err)
		}
		if d.MCP == nil || d.MCP.Shape != mcpjson.ShapeCard2127 || len(d.MCP.Servers) != 1 || len(d.Fetches) != 3 {
			t.Fatalf("MCP = %+v, fetches %+v", d.MCP, d.Fetches)
		}
		if s.count("/cards/server.json") != 1 {
			t.Errorf("card fetched %d times", s.count("/cards/server.json"))
		}
	})
	t.Run("a pointer to a pointer is not followed further", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, docs(t, map[string]string{
			discovery.MCPPath: `{"$ref": "/a.json"}`,
			"/a.json":         `{"$ref": "/b.json"}`,
			"/b.json":         card,
		}))
		d, err := newClient(t, s, nil).Discover(t.Context(), s.URL)
		if err != nil {
			t.Fatal(err)
		}
		if s.count("/b.json") != 0 || d.MCP.Shape != mcpjson.ShapePointer || !hasCode(d, discovery.WarnPointer) {
			t.Errorf("b.json fetched %d times, MCP %+v, warnings %v", s.count("/b.json"), d.MCP, d.Warnings)
		}
	})
	cross := func(t *testing.T, consent discovery.ConsentFunc) (*site, *discovery.Discovery) {
		other := newSite(t, docs(t, map[string]string{"/card.json": card}))
		s := newSite(t, docs(t, map[string]string{discovery.MCPPath: `{"serverCard": "` + other.URL + `/card.json"}`}))
		d, err := newClient(t, s, &discovery.Options{Consent: consent}).Discover(t.Context(), s.URL)
		if err != nil {
			t.Fatal(err)
		}
		return other, d
	}
	t.Run("another origin needs consent", func(t *testing.T) {
		t.Parallel()
		other, d := cross(t, nil)
		if other.total() != 0 || d.MCP.Shape != mcpjson.ShapePointer || !hasCode(d, discovery.WarnPointer) {
			t.Errorf("other saw %d requests, MCP %+v, warnings %v", other.total(), d.MCP, d.Warnings)
		}
	})
	t.Run("another origin with consent", func(t *testing.T) {
		t.Parallel()
		other, d := cross(t, discovery.AllowAll)
		if other.total() != 1 || d.MCP.Shape != mcpjson.ShapeCard2127 {
			t.Errorf("other saw %d requests, MCP %+v", other.total(), d.MCP)
		}
	})
}

func hasCode(d *discovery.Discovery, code string) bool {
	for _, w := range d.Warnings {
		if w.Code == code {
			return true
		}
	}
	return false
}

func TestDiskLastGoodSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var failing atomic.Bool
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failing.Load() {
			w.WriteHeader(503)
			return
		}
		fmt.Fprint(w, "# Skills\n\n## API\n\n- Base path: /kept\n")
	}))
	store, err := discovery.NewDiskLastGood(filepath.Join(dir, "lastgood"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newClient(t, s, &discovery.Options{LastGood: store}).Discover(t.Context(), s.URL); err != nil {
		t.Fatal(err)
	}
	checkPerms(t, filepath.Join(dir, "lastgood"))
	failing.Store(true)
	// A new process: a new Client and a new store over the same folder.
	store2, _ := discovery.NewDiskLastGood(filepath.Join(dir, "lastgood"))
	d, err := newClient(t, s, &discovery.Options{LastGood: store2, MaxRetries: -1}).Discover(t.Context(), s.URL)
	if err != nil || d.Fetches[0].Source != discovery.SourceStale || d.Guide.BaseURL != "/kept" {
		t.Fatalf("after restart: %v, %+v", err, d)
	}
	store2.Delete(discovery.PrivatePartition + s.URL + discovery.GuidePath)
	if _, ok := store2.Load(discovery.PrivatePartition + s.URL + discovery.GuidePath); ok {
		t.Error("Delete left the entry")
	}
}

// TestErrorsAreRedacted: no error names a query string, userinfo or fragment, even when
// a redirect hop carried one.
func TestErrorsAreRedacted(t *testing.T) {
	t.Parallel()
	other := newSite(t, http.NotFoundHandler())
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
	}{
		{"network error on a hop with a query", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == discovery.GuidePath {
				http.Redirect(w, r, "/next?token=hunter2#frag", http.StatusFound)
				return
			}
			panic(http.ErrAbortHandler)
		}},
		{"cross-origin hop with credentials", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, strings.Replace(other.URL, "https://", "https://user:hunter2@", 1)+"/x?token=hunter2", http.StatusFound)
		}},
		{"http hop with a query", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.1:1/x?token=hunter2", http.StatusFound)
		}},
		{"status on a hop with a query", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == discovery.GuidePath {
				http.Redirect(w, r, "/next?token=hunter2", http.StatusFound)
				return
			}
			w.WriteHeader(http.StatusForbidden)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSite(t, tc.h)
			s.Config.ErrorLog = quietLog()
			_, err := newClient(t, s, &discovery.Options{MaxRetries: -1}).Discover(t.Context(), s.URL)
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
			if msg := err.Error(); containsAny(msg, "hunter2", "token=", "frag") {
				t.Errorf("error leaks a secret: %s", msg)
			}
		})
	}
}
