package discovery_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/wellknown-dev/discovery"
)

const goodSkills = "# Skills\n\n## API\n\n- Base path: `/v1`\n"

// faultServer is a TLS origin whose skills.md handler and certificate can be swapped
// between calls; mcp.json is always 404.
type faultServer struct {
	*httptest.Server
	handler    atomic.Value // http.HandlerFunc for skills.md
	cert       atomic.Pointer[tls.Certificate]
	handshakes atomic.Int32
	mu         sync.Mutex // guards hits
	hits       int        // skills.md requests
}

func newFaultServer(t *testing.T, cert *tls.Certificate) *faultServer {
	t.Helper()
	fs := &faultServer{}
	fs.cert.Store(cert)
	fs.handler.Store(http.HandlerFunc(serveGood))
	fs.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == discovery.MCPPath {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path == discovery.GuidePath {
			fs.mu.Lock()
			fs.hits++
			fs.mu.Unlock()
		}
		fs.handler.Load().(http.HandlerFunc)(w, r)
	}))
	fs.Config.ErrorLog = quietLog()
	// Our own TLS listener rather than StartTLS: with no SNI (an IP origin) crypto/tls
	// would otherwise serve httptest's built-in certificate, not the one under test.
	fs.Listener = tls.NewListener(fs.Listener, &tls.Config{GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
		fs.handshakes.Add(1)
		return fs.cert.Load(), nil
	}})
	fs.Start()
	fs.URL = "https://" + fs.Listener.Addr().String()
	t.Cleanup(fs.Close)
	return fs
}

func (fs *faultServer) count() int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.hits
}

func (fs *faultServer) reset(h http.HandlerFunc) {
	fs.mu.Lock()
	fs.hits = 0
	fs.mu.Unlock()
	fs.handshakes.Store(0)
	fs.handler.Store(h)
}

func serveGood(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/markdown")
	fmt.Fprint(w, goodSkills)
}

func status(code int, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
	}
}

func body(contentType, s string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if contentType != "" {
			w.Header().Set("Content-Type", contentType)
		}
		fmt.Fprint(w, s)
	}
}

// faultEnv is what a fault's setup may use.
type faultEnv struct {
	t     *testing.T
	ca    *testCA
	fs    *faultServer
	other *faultServer // a second origin
	plain *httptest.Server
}

type faultCase struct {
	name     string
	fault    http.HandlerFunc
	setup    func(e *faultEnv) // after priming, before the failing call
	cold     bool              // no good fetch first
	public   bool              // the origin is https://example.com at a public address
	lookup   func(host string) ([]netip.Addr, error)
	consent  discovery.ConsentFunc
	want     string // "fresh", "stale", "absent" or "error"
	wantErr  error  // errors.Is on the error, or on the stale cause
	wantHits int    // skills.md requests during the failing call; -1: not checked
	minHits  int    // when set, any count from minHits to wantHits passes (attempts that time out before the server sees them)
	bound    time.Duration
	check    func(t *testing.T, e *faultEnv, d *discovery.Discovery)
}

// TestFaults runs the fault matrix. Each row primes the client with a good fetch
// (unless cold), injects one fault, and asserts the outcome, the requests the server
// saw, that the call returned within its bound, and that no goroutine is left behind.
// Rows run one after another so the goroutine check sees only their own.
func TestFaults(t *testing.T) {
	ca := newTestCA(t)
	now := time.Now()
	goodCert := ca.leaf(t, []string{"127.0.0.1", "example.com"}, now.Add(-time.Hour), now.Add(time.Hour), false)
	swapCert := func(c *tls.Certificate) func(e *faultEnv) {
		return func(e *faultEnv) { e.fs.cert.Store(c) }
	}
	bigGzip := func() []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write(make([]byte, 16<<20)) // 16 MiB of zeros, about 16 KiB compressed
		zw.Close()
		return b.Bytes()
	}()
	redirectTo := func(target func(e *faultEnv) string) func(e *faultEnv) {
		return func(e *faultEnv) {
			loc := target(e)
			e.fs.handler.Store(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, loc, http.StatusFound)
			}))
		}
	}
	rows := []faultCase{
		{name: "connection refused", setup: func(e *faultEnv) { e.fs.Close() }, want: "stale", wantHits: -1},
		{name: "connection refused, nothing cached", cold: true, setup: func(e *faultEnv) { e.fs.Close() }, want: "error", wantHits: -1},
		{name: "reset mid-body", fault: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "4096")
			fmt.Fprint(w, "# Skills\n\npartial")
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // closes the connection mid-body
		}, want: "stale", wantHits: 1},
		{name: "truncated body (Content-Length larger than sent)", fault: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100")
			fmt.Fprint(w, "# Skills\n")
		}, want: "stale", wantHits: 1},
		{name: "headers never sent (per-attempt timeout)", fault: func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
			// Each attempt times out; under -race on a loaded machine an attempt can time out
			// in its TLS handshake, before the server sees it, so 1 to 3 requests arrive.
		}, want: "stale", wantHits: 3, minHits: 1, bound: 10 * time.Second},
		{name: "body trickling one byte a second", fault: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/markdown")
			for i := 0; i < 60; i++ {
				if _, err := w.Write([]byte("#")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(time.Second):
				}
			}
		}, want: "stale", wantHits: 1, bound: 3 * time.Second},
		{name: "500", fault: status(500), want: "stale", wantHits: 3},
		{name: "502", fault: status(502), want: "stale", wantHits: 3},
		{name: "503", fault: status(503), want: "stale", wantHits: 3},
		{name: "503, nothing cached", cold: true, fault: status(503), want: "error", wantErr: &discovery.HTTPError{}, wantHits: 3},
		{name: "504", fault: status(504), want: "stale", wantHits: 3},
		{name: "429 without Retry-After", fault: status(429), want: "stale", wantHits: 3},
		{name: "429 with Retry-After 1", fault: status(429, "Retry-After", "1"), want: "stale", wantHits: 3, bound: 4 * time.Second},
		{name: "429 with Retry-After as an HTTP date", fault: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", time.Now().Add(time.Second).UTC().Format(http.TimeFormat))
			w.WriteHeader(429)
		}, want: "stale", wantHits: 3, bound: 6 * time.Second},
		{name: "429 with Retry-After of an hour", fault: status(429, "Retry-After", "3600"), want: "stale", wantErr: discovery.ErrRetryAfterTooLong, wantHits: 1},
		{name: "404", fault: status(404), want: "absent", wantHits: 1},
		{name: "410", fault: status(410), want: "absent", wantHits: 1},
		{name: "redirect loop", fault: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
		}, want: "error", wantErr: discovery.ErrTooManyRedirects, wantHits: 6},
		{name: "redirect chain longer than the limit", fault: func(w http.ResponseWriter, r *http.Request) {
			n := len(r.URL.Query().Get("n"))
			http.Redirect(w, r, discovery.GuidePath+"?n="+strings.Repeat("x", n+1), http.StatusFound)
		}, want: "error", wantErr: discovery.ErrTooManyRedirects, wantHits: 6},
		{name: "302 to http", setup: redirectTo(func(e *faultEnv) string { return e.plain.URL + discovery.GuidePath }),
			want: "error", wantErr: discovery.ErrInsecureOrigin, wantHits: 1},
		{name: "307 to another origin without consent", setup: redirectTo(func(e *faultEnv) string { return e.other.URL + discovery.GuidePath }),
			want: "error", wantErr: discovery.ErrCrossOrigin, wantHits: 1,
			check: func(t *testing.T, e *faultEnv, _ *discovery.Discovery) {
				if e.other.count() != 0 {
					t.Errorf("the other origin saw %d requests", e.other.count())
				}
			}},
		{name: "redirect to 169.254.169.254 from a public origin", public: true, consent: discovery.AllowAll,
			setup: redirectTo(func(*faultEnv) string { return "https://169.254.169.254/latest/meta-data/" }),
			want:  "error", wantErr: discovery.ErrPrivateAddress, wantHits: 1},
		{name: "redirect to 10.0.0.1 from a public origin", public: true, consent: discovery.AllowAll,
			setup: redirectTo(func(*faultEnv) string { return "https://10.0.0.1/.well-known/skills.md" }),
			want:  "error", wantErr: discovery.ErrPrivateAddress, wantHits: 1},
		{name: "public host name resolving to 127.0.0.1", public: true, cold: true,
			lookup: func(string) ([]netip.Addr, error) { return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil },
			want:   "error", wantErr: discovery.ErrPrivateAddress, wantHits: 0},
		{name: "public host name resolving to IPv4-mapped ::ffff:10.1.2.3", public: true, cold: true,
			lookup: func(string) ([]netip.Addr, error) { return []netip.Addr{netip.MustParseAddr("::ffff:10.1.2.3")}, nil },
			want:   "error", wantErr: discovery.ErrPrivateAddress, wantHits: 0},
		{name: "empty 200", fault: body("text/markdown", ""), want: "stale", wantHits: 1},
		{name: "HTML error page served with 200", fault: body("text/html", "<h1>Oops</h1>"), want: "absent", wantHits: 1},
		{name: "HTML page with a text/plain type", fault: body("text/plain", "<!DOCTYPE html><p>Oops"), want: "absent", wantHits: 1},
		{name: "wrong Content-Type", fault: body("application/octet-stream", goodSkills), want: "fresh", wantHits: 1,
			check: func(t *testing.T, _ *faultEnv, d *discovery.Discovery) {
				if !hasCode(d, discovery.WarnContentType) {
					t.Errorf("no content-type warning: %v", d.Warnings)
				}
			}},
		{name: "gzip expanding past the cap", fault: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Type", "text/markdown")
			_, _ = w.Write(bigGzip)
		}, want: "stale", wantErr: discovery.ErrTooLarge, wantHits: 1},
		{name: "endless chunked body", fault: func(w http.ResponseWriter, r *http.Request) {
			chunk := bytes.Repeat([]byte("a"), 32<<10)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, want: "stale", wantErr: discovery.ErrTooLarge, wantHits: 1},
		{name: "invalid UTF-8", fault: body("text/markdown", "# Skills\n\xff\xfe\n"), want: "stale", wantHits: 1},
		{name: "NUL bytes", fault: body("text/markdown", "# Skills\x00\x00\n"), want: "stale", wantHits: 1},
		{name: "certificate for another host", setup: swapCert(ca.leaf(t, []string{"other.example"}, now.Add(-time.Hour), now.Add(time.Hour), false)),
			want: "stale", wantHits: 0, check: oneHandshake},
		{name: "self-signed certificate", setup: swapCert(ca.leaf(t, []string{"127.0.0.1", "example.com"}, now.Add(-time.Hour), now.Add(time.Hour), true)),
			want: "stale", wantHits: 0, check: oneHandshake},
		{name: "expired certificate", setup: swapCert(ca.leaf(t, []string{"127.0.0.1", "example.com"}, now.Add(-48*time.Hour), now.Add(-24*time.Hour), false)),
			want: "stale", wantHits: 0, check: oneHandshake},
		{name: "304 when nothing is cached", cold: true, fault: status(304), want: "error", wantErr: &discovery.HTTPError{}, wantHits: 1},
		{name: "ETag that changes between attempts", fault: func() http.HandlerFunc {
			var n atomic.Int32
			return func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1) == 1 {
					w.Header().Set("ETag", `"v2"`)
					w.WriteHeader(503)
					return
				}
				w.Header().Set("ETag", `"v3"`)
				fmt.Fprint(w, "# Skills\n\n## API\n\n- Base path: `/v3`\n")
			}
		}(), want: "fresh", wantHits: 2, check: func(t *testing.T, _ *faultEnv, d *discovery.Discovery) {
			if d.Guide.BaseURL != "/v3" {
				t.Errorf("BaseURL = %q, want the new document's", d.Guide.BaseURL)
			}
		}},
		{name: ".invalid host (DNS failure)", public: true, cold: true,
			lookup: func(h string) ([]netip.Addr, error) {
				return nil, &net.DNSError{Err: "no such host", Name: h, IsNotFound: true}
			}, want: "error", wantHits: 0},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			ignore := goleak.IgnoreCurrent()
			t.Cleanup(func() { goleak.VerifyNone(t, ignore) }) // runs last, after the servers close
			runFault(t, ca, goodCert, row)
		})
	}
}

func oneHandshake(t *testing.T, e *faultEnv, _ *discovery.Discovery) {
	t.Helper()
	if n := e.fs.handshakes.Load(); n != 1 {
		t.Errorf("%d TLS handshakes; a certificate error must not be retried", n)
	}
}

func runFault(t *testing.T, ca *testCA, cert *tls.Certificate, row faultCase) {
	e := &faultEnv{t: t, ca: ca}
	e.fs = newFaultServer(t, cert)
	e.other = newFaultServer(t, cert)
	e.plain = httptest.NewServer(http.HandlerFunc(serveGood))
	t.Cleanup(e.plain.Close)

	publicAddr := netip.MustParseAddr("203.0.113.7") // TEST-NET-3: public, never routed
	hooks := discovery.TestHooks{RetryWaitMin: 5 * time.Millisecond, RetryWaitMax: 20 * time.Millisecond}
	hooks.Lookup = func(_ context.Context, host string) ([]netip.Addr, error) {
		if row.lookup != nil {
			return row.lookup(host)
		}
		return []netip.Addr{publicAddr}, nil
	}
	var d net.Dialer
	hooks.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == net.JoinHostPort(publicAddr.String(), "443") {
			addr = e.fs.Listener.Addr().String() // the public test address is this server
		}
		return d.DialContext(ctx, network, addr)
	}
	opts := &discovery.Options{
		HTTPClient:      &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.pool}}},
		AttemptTimeout:  800 * time.Millisecond, // long enough for a TLS handshake on a loaded CI machine
		DocumentTimeout: 5 * time.Second,
		Consent:         row.consent,
		// The fault server is a loopback origin; rows marked public use example.com.
		InsecureAllowPrivateOrigins: !row.public,
	}
	c, err := discovery.NewClientWithHooks(opts, hooks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	origin := e.fs.URL
	if row.public {
		origin = "https://example.com"
	}
	if !row.cold {
		if _, err := c.Discover(t.Context(), origin); err != nil {
			t.Fatalf("priming: %v", err)
		}
	}
	c.CloseIdleConnections() // the fault must meet a new connection
	fault := row.fault
	if fault == nil {
		fault = serveGood
	}
	e.fs.reset(fault)
	if row.setup != nil {
		row.setup(e)
	}

	bound := row.bound
	if bound == 0 {
		bound = 2 * time.Second
	}
	start := time.Now()
	got, err := c.Discover(t.Context(), origin)
	if el := time.Since(start); el > bound {
		t.Errorf("returned after %s, bound %s", el.Round(time.Millisecond), bound)
	}
	switch n := e.fs.count(); {
	case row.minHits > 0 && (n < row.minHits || n > row.wantHits):
		t.Errorf("server saw %d requests for skills.md, want %d to %d", n, row.minHits, row.wantHits)
	case row.minHits == 0 && row.wantHits >= 0 && n != row.wantHits:
		t.Errorf("server saw %d requests for skills.md, want %d", n, row.wantHits)
	}
	matches := func(err error) bool {
		if row.wantErr == nil {
			return true
		}
		var he *discovery.HTTPError
		if _, ok := row.wantErr.(*discovery.HTTPError); ok {
			return errors.As(err, &he)
		}
		return errors.Is(err, row.wantErr)
	}
	switch row.want {
	case "fresh":
		if err != nil || got.Guide == nil || got.Fetches[0].Source == discovery.SourceStale {
			t.Fatalf("want a fresh document, got %+v, %v", got, err)
		}
	case "stale":
		if err != nil {
			t.Fatalf("want the last good copy, got error %v", err)
		}
		f := got.Fetches[0]
		if f.Source != discovery.SourceStale || got.Guide == nil || got.Guide.BaseURL != "/v1" || !matches(f.Cause) {
			t.Fatalf("want the last good copy, got %+v (cause %v) skills=%+v warnings=%v", f, f.Cause, got.Guide, got.Warnings)
		}
	case "absent":
		if !errors.Is(err, discovery.ErrNotPublished) {
			t.Fatalf("want ErrNotPublished, got %v", err)
		}
	case "error":
		if err == nil || !matches(err) {
			t.Fatalf("want error %v, got %v (%+v)", row.wantErr, err, got)
		}
	}
	if row.check != nil {
		row.check(t, e, got)
	}
	e.fs.Close()
	e.other.Close()
	e.plain.Close()
	c.CloseIdleConnections()
}

// TestHappyEyeballs: a host whose first address is a black hole is reached through its
// next address after the fallback delay, not after a full connect timeout, and the
// abandoned attempt ends.
func TestHappyEyeballs(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: goodSkills}))
	blackHole := netip.MustParseAddr("2606:4700::6810:84e5")
	reachable := netip.MustParseAddr("203.0.113.9")
	var d net.Dialer
	var holes atomic.Int32
	hooks := discovery.TestHooks{
		Lookup: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{blackHole, reachable}, nil
		},
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if addr == net.JoinHostPort(blackHole.String(), "443") {
				holes.Add(1)
				<-ctx.Done() // never answers
				return nil, ctx.Err()
			}
			return d.DialContext(ctx, network, s.Listener.Addr().String())
		},
	}
	// A transport with only the test TLS roots: httptest's own client dials the server
	// for example.com itself, which the private-address guard (rightly) refuses.
	tlsOnly := &http.Transport{TLSClientConfig: s.Client().Transport.(*http.Transport).TLSClientConfig}
	c, err := discovery.NewClientWithHooks(&discovery.Options{HTTPClient: &http.Client{Transport: tlsOnly}}, hooks)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := c.Discover(t.Context(), "https://example.com") // httptest's certificate covers example.com
	if err != nil || got.Guide == nil {
		t.Fatalf("Discover: %v", err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("took %s; the black-holed address was not abandoned", el)
	}
	if holes.Load() != 1 {
		t.Errorf("black hole dialled %d times", holes.Load())
	}
	c.CloseIdleConnections()
	s.Close()
	goleak.VerifyNone(t, ignore)
}

// TestCallerDialerIsChecked: a caller's transport with its own dial function (here
// httptest's, which sends example.com to 127.0.0.1) is checked after connecting, and a
// private peer from a public origin is refused before any byte is sent.
func TestCallerDialerIsChecked(t *testing.T) {
	t.Parallel()
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: goodSkills}))
	c := newClient(t, s, nil)
	_, err := c.Discover(t.Context(), "https://example.com")
	var pe *discovery.PrivateAddressError
	if !errors.Is(err, discovery.ErrPrivateAddress) || !errors.As(err, &pe) || pe.Addr != "127.0.0.1" {
		t.Fatalf("error = %v", err)
	}
	if s.total() != 0 {
		t.Errorf("%d requests reached the server", s.total())
	}
	// Allowed explicitly, the same host works.
	c = newClient(t, s, &discovery.Options{InsecureAllowPrivateHosts: []string{"Example.COM"}})
	if _, err := c.Discover(t.Context(), "https://example.com"); err != nil {
		t.Fatalf("with the allow list: %v", err)
	}
}
