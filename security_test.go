package discovery_test

// Tests for the classes of holes the security review of issue 9 found. Each test names
// its class; each fails on the code before the fix.

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/mcpjson"
)

// documentKinds are bodies of every document type the Client reads, plus pointers that
// name the site's own well-known URLs: served at every URL, they make one URL answer
// as several kinds.
func documentKinds() map[string]struct{ ctype, body string } {
	skillMD := "---\nname: any\ndescription: Any skill.\n---\n\n# Any\n"
	index := fmt.Sprintf(`{"$schema": %q, "skills": [
		{"name": "any", "type": "skill-md", "description": "d", "url": "/.well-known/skills.md", "digest": %q},
		{"name": "self", "type": "skill-md", "description": "d", "url": "/.well-known/agent-skills/index.json", "digest": %q},
		{"name": "arch", "type": "archive", "description": "d", "url": "/.well-known/mcp.json", "digest": %q}]}`,
		agentskills.SchemaV020, agentskills.Digest([]byte(skillMD)), agentskills.Digest([]byte("x")), agentskills.Digest([]byte("y")))
	return map[string]struct{ ctype, body string }{
		"skills.md":           {"text/markdown", "# Site\n\n## API\n\n- Base path: `/v1`\n\n## Risky actions\n\n- delete\n"},
		"mcp.json":            {"application/json", `{"servers": [{"name": "x", "url": "/mcp", "transport": "streamable-http"}]}`},
		"pointer to skills":   {"application/json", `{"$ref": "/.well-known/skills.md"}`},
		"pointer to index":    {"application/json", `{"serverCard": "/.well-known/agent-skills/index.json"}`},
		"pointer to itself":   {"application/json", `{"$ref": "/.well-known/mcp.json"}`},
		"pointer to legacy":   {"application/json", `{"$ref": "/.well-known/skills/index.json"}`},
		"skills index":        {"application/json", index},
		"SKILL.md":            {"text/markdown", skillMD},
		"html":                {"text/html", "<!doctype html><p>home</p>"},
		"binary":              {"application/octet-stream", "\x1f\x8b\x08\x00\x00garbage"},
		"json array":          {"application/json", `[1, 2, 3]`},
		"json with both keys": {"application/json", `{"skills": [], "servers": [], "$ref": "/.well-known/skills.md"}`},
	}
}

// TestEveryURLAnswersEveryKind (class 1: a site can crash the process). One Client
// meets a site whose well-known URLs answer, round after round, with every kind of
// document in every place, and runs every public entry point against it. Nothing may
// panic (a panic in a flight goroutine would kill the test binary), and a pointer that
// lands on a document that is not mcp.json is a warning.
func TestEveryURLAnswersEveryKind(t *testing.T) {
	t.Parallel()
	kinds := documentKinds()
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	paths := []string{discovery.SkillsPath, discovery.MCPPath, agentskills.IndexPath, agentskills.LegacyIndexPath}
	var mu sync.Mutex
	serve := map[string]string{} // path → kind name; others: the fallback kind
	fallback := ""
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		k, ok := serve[r.URL.Path]
		if !ok {
			k = fallback
		}
		mu.Unlock()
		doc := kinds[k]
		w.Header().Set("Content-Type", doc.ctype)
		w.Header().Set("Cache-Control", "no-cache")
		fmt.Fprint(w, doc.body)
	}))
	c := newClient(t, s, &discovery.Options{Consent: discovery.AllowAll, MaxRetries: -1})
	round := func(t *testing.T) {
		ctx := t.Context()
		var wg sync.WaitGroup
		for range 2 { // concurrent calls share flights
			wg.Go(func() { _, _ = c.Discover(ctx, s.URL) })
			wg.Go(func() { _, _ = c.Structured(ctx, s.URL) })
			wg.Go(func() {
				ix, err := c.ListSkills(ctx, s.URL)
				if err != nil {
					return
				}
				for _, e := range ix.Index.Skills {
					_, _ = c.GetSkill(ctx, ix, e.Name)
				}
			})
		}
		wg.Wait()
		d, err := c.Structured(ctx, s.URL)
		if err == nil {
			resp, err := (&http.Client{Transport: guardOf(t, c, d, nil)}).Get(s.URL + discovery.MCPPath)
			if err == nil {
				resp.Body.Close()
			}
		}
	}
	// Every URL answers the same kind.
	for _, k := range names {
		t.Run("all "+k, func(t *testing.T) {
			mu.Lock()
			clear(serve)
			fallback = k
			mu.Unlock()
			round(t)
		})
	}
	// Each well-known path answers another kind: every rotation of every kind.
	for i := range names {
		t.Run(fmt.Sprintf("rotation %d", i), func(t *testing.T) {
			mu.Lock()
			for j, p := range paths {
				serve[p] = names[(i+j)%len(names)]
			}
			fallback = names[(i+len(paths))%len(names)]
			mu.Unlock()
			round(t)
		})
	}
	// The reported crash, exactly: skills.md is read, then mcp.json points to it.
	t.Run("pointer to the site's own skills.md", func(t *testing.T) {
		mu.Lock()
		clear(serve)
		serve[discovery.SkillsPath], serve[discovery.MCPPath], fallback = "skills.md", "pointer to skills", "html"
		mu.Unlock()
		for range 2 {
			d, err := c.Structured(t.Context(), s.URL)
			if err != nil {
				t.Fatal(err)
			}
			if d.Skills == nil || d.Skills.Title != "Site" {
				t.Errorf("skills.md = %+v", d.Skills)
			}
			if !hasCode(d, discovery.WarnPointer) {
				t.Errorf("no pointer warning: %v", d.Warnings)
			}
		}
	})
	t.Run("pointer to the site's own skills index", func(t *testing.T) {
		mu.Lock()
		clear(serve)
		serve[agentskills.IndexPath], serve[discovery.MCPPath], fallback = "skills index", "pointer to index", "html"
		mu.Unlock()
		if _, err := c.ListSkills(t.Context(), s.URL); err != nil {
			t.Fatal(err)
		}
		d, err := c.Discover(t.Context(), s.URL)
		if err != nil {
			t.Fatal(err)
		}
		if !hasCode(d, discovery.WarnPointer) {
			t.Errorf("no pointer warning: %v", d.Warnings)
		}
	})
}

// publicEnv is a Client whose "public.example" is a public address (203.0.113.7) that
// the dial hook sends to the test server, so a public origin can be tested on loopback.
type publicEnv struct {
	s      *site
	c      *discovery.Client
	loop   string // the server as a private origin: https://127.0.0.1:port
	public string // https://public.example:port
}

func newPublicEnv(t *testing.T, h http.Handler, opts discovery.Options) *publicEnv {
	t.Helper()
	s := newSite(t, h)
	_, port, _ := net.SplitHostPort(s.Listener.Addr().String())
	pub := netip.MustParseAddr("203.0.113.7")
	var d net.Dialer
	hooks := discovery.TestHooks{
		Lookup: func(_ context.Context, host string) ([]netip.Addr, error) { return []netip.Addr{pub}, nil },
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if addr == net.JoinHostPort(pub.String(), port) {
				addr = s.Listener.Addr().String()
			}
			return d.DialContext(ctx, network, addr)
		},
	}
	tlsOnly := &http.Transport{TLSClientConfig: s.Client().Transport.(*http.Transport).TLSClientConfig.Clone()}
	tlsOnly.TLSClientConfig.ServerName = "example.com" // httptest's certificate names example.com
	opts.HTTPClient = &http.Client{Transport: tlsOnly}
	c, err := discovery.NewClientWithHooks(&opts, hooks)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return &publicEnv{s: s, c: c, loop: s.URL, public: "https://public.example:" + port}
}

// TestPooledConnectionsKeepThePolicy (class 2): a connection opened for a private
// origin is never reused for a public origin's request, whether a consented redirect
// or an agent call. On a cold pool the request is refused; it must be refused on a
// warm one too.
func TestPooledConnectionsKeepThePolicy(t *testing.T) {
	t.Parallel()
	for _, warm := range []bool{false, true} {
		t.Run(fmt.Sprintf("warm=%v", warm), func(t *testing.T) {
			t.Parallel()
			var loopURL atomic.Value
			var redirect atomic.Bool
			e := newPublicEnv(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.URL.Path == "/secret":
					fmt.Fprint(w, "# Secret\n\nthe private server answered\n")
				case redirect.Load() && strings.HasPrefix(r.Host, "public.example") && r.URL.Path == discovery.SkillsPath:
					http.Redirect(w, r, loopURL.Load().(string)+"/secret", http.StatusFound)
				case r.URL.Path == discovery.SkillsPath:
					w.Header().Set("Cache-Control", "no-store")
					fmt.Fprint(w, goodSkills)
				default:
					http.NotFound(w, r)
				}
			}), discovery.Options{Consent: discovery.AllowAll, AllowPrivateOrigins: true, MaxRetries: -1})
			loopURL.Store(e.loop)
			warmUp := func() {
				if warm { // a local origin, legitimately: its connection goes to a pool
					if _, err := e.c.Discover(t.Context(), e.loop); err != nil {
						t.Fatal(err)
					}
				}
			}
			warmUp()
			redirect.Store(true)
			_, err := e.c.Discover(t.Context(), e.public)
			if !errors.Is(err, discovery.ErrPrivateAddress) {
				t.Errorf("redirect from a public origin to a private one: error = %v", err)
			}
			if n := e.s.count("/secret"); n != 0 {
				t.Errorf("the private server was reached %d times through a redirect", n)
			}
			// The agent's own call, from the public origin's Discovery.
			redirect.Store(false)
			d, err := e.c.Discover(t.Context(), e.public)
			if err != nil {
				t.Fatal(err)
			}
			warmUp()
			resp, err := (&http.Client{Transport: guardOf(t, e.c, d, nil)}).Get(e.loop + "/secret")
			if err == nil {
				resp.Body.Close()
			}
			if !errors.Is(err, discovery.ErrPrivateAddress) {
				t.Errorf("agent call from a public origin to a private one: error = %v", err)
			}
			if n := e.s.count("/secret"); n != 0 {
				t.Errorf("the private server was reached %d times", n)
			}
		})
	}
}

// TestAllowListNamesOnlyThatHost (class 3): naming a host in InsecureAllowPrivateHosts
// lets that host resolve to a private address and does not make it a private origin:
// its redirects and agent calls reach no other private address.
func TestAllowListNamesOnlyThatHost(t *testing.T) {
	t.Parallel()
	var loop string
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/secret":
			fmt.Fprint(w, "# Secret\n")
		case strings.HasPrefix(r.Host, "example.com") && r.URL.Path == discovery.SkillsPath:
			http.Redirect(w, r, loop+"/secret", http.StatusFound)
		case r.URL.Path == "/ok.md":
			fmt.Fprint(w, goodSkills)
		default:
			http.NotFound(w, r)
		}
	}))
	loop = s.URL
	// httptest's client dials example.com to the server itself: the allow list is
	// what lets that private peer through.
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: s.Client(), InsecureAllowPrivateHosts: []string{"example.com"},
		Consent: discovery.AllowAll, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Discover(t.Context(), "https://example.com")
	if !errors.Is(err, discovery.ErrPrivateAddress) || s.count("/secret") != 0 {
		t.Fatalf("redirect from an allow-listed host to another private address: error = %v, reached %d", err, s.count("/secret"))
	}
	// An agent call from example.com's Discovery to another private address.
	s.Config.Handler = docs(t, map[string]string{discovery.SkillsPath: goodSkills, "/secret": "x"})
	d, err := c.Discover(t.Context(), "https://example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, base := range []http.RoundTripper{nil, s.Client().Transport} {
		resp, err := (&http.Client{Transport: guardOf(t, c, d, &discovery.GuardOptions{Base: base})}).Get(loop + "/secret")
		if err == nil {
			resp.Body.Close()
		}
		if !errors.Is(err, discovery.ErrPrivateAddress) {
			t.Errorf("agent call (base %T) from an allow-listed host to 127.0.0.1: error = %v", base, err)
		}
	}
	// The named host itself still works for agent calls.
	resp, err := (&http.Client{Transport: guardOf(t, c, d, nil)}).Get("https://example.com/.well-known/skills.md")
	if err != nil {
		t.Fatalf("the allow-listed host itself: %v", err)
	}
	resp.Body.Close()
}

// TestPrivateOriginsRefusedByDefault (class 4): a model can be talked into choosing a
// private origin; by default every entry point refuses it before any request.
func TestPrivateOriginsRefusedByDefault(t *testing.T) {
	t.Parallel()
	s := newSite(t, docs(t, map[string]string{discovery.SkillsPath: goodSkills}))
	// Should the refusal ever regress, no packet may leave this machine.
	tr := s.Client().Transport.(*http.Transport).Clone()
	tr.DialContext = loopbackOnly
	hc := &http.Client{Transport: tr}
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	for _, origin := range []string{
		s.URL, "http://localhost:8080/admin", "https://169.254.169.254", "https://10.0.0.9", "http://127.0.0.1:1",
		"https://[::1]:8443", "https://[fd00::1]", "https://app.localhost", "https://192.168.1.1", "https://[::ffff:10.0.0.1]",
		"http://LOCALHOST:9", "https://100.64.0.1",
	} {
		_, err := c.Discover(t.Context(), origin)
		var pe *discovery.PrivateAddressError
		if !errors.Is(err, discovery.ErrPrivateAddress) || !errors.As(err, &pe) || !pe.Origin {
			t.Errorf("Discover(%q): error = %v", origin, err)
		}
		if !strings.Contains(fmt.Sprint(err), "AllowPrivateOrigins") {
			t.Errorf("Discover(%q): the error does not say what to do: %v", origin, err)
		}
		if _, err := c.ListSkills(t.Context(), origin); !errors.Is(err, discovery.ErrPrivateAddress) {
			t.Errorf("ListSkills(%q): error = %v", origin, err)
		}
		if _, err := c.Structured(t.Context(), origin); !errors.Is(err, discovery.ErrPrivateAddress) {
			t.Errorf("Structured(%q): error = %v", origin, err)
		}
	}
	if s.total() != 0 {
		t.Errorf("%d requests reached the server", s.total())
	}
	if _, err := discovery.Discover(t.Context(), "http://localhost:1"); !errors.Is(err, discovery.ErrPrivateAddress) {
		t.Errorf("package-level Discover: error = %v", err)
	}
	// Set by a person's tool, the local origin works.
	c, err = discovery.NewClient(&discovery.Options{HTTPClient: hc, AllowPrivateOrigins: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Discover(t.Context(), s.URL); err != nil {
		t.Errorf("with AllowPrivateOrigins: %v", err)
	}
}

// loopbackOnly dials loopback addresses only: tests that name private or public
// addresses must never send a packet to them.
func loopbackOnly(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if host != "localhost" {
		if a, err := netip.ParseAddr(host); err != nil || !a.Unmap().IsLoopback() {
			return nil, fmt.Errorf("test dialer: %s is not loopback; refused", addr)
		}
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// staleIfErrorCache is a Cache that adds stale-if-error to every response it stores,
// as one written by an older version (or another program) might hold.
type staleIfErrorCache struct{ discovery.Cache }

func (c staleIfErrorCache) Set(key string, value []byte) {
	c.Cache.Set(key, []byte(strings.Replace(string(value), "\r\n", "\r\nCache-Control: max-age=0, stale-if-error=86400\r\n", 1)))
}

// TestHTTPCacheNeverAnswersFailures (class 5): a site that once sent stale-if-error
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
				other := newSite(t, docs(t, map[string]string{discovery.SkillsPath: "# Other\n"}))
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
						http.Redirect(w, r, other.URL+discovery.SkillsPath, http.StatusFound)
					case reset:
						panic(http.ErrAbortHandler)
					}
				}))
				s.Config.ErrorLog = quietLog()
				opts := tc.opts
				opts.MaxRetries = -1
				opts.Cache = discovery.NewMemoryCache()
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

var (
	errAny  = errors.New("any error")
	errHook = errors.New("the consent UI crashed")
)

// TestPrivateRanges (class 11): the address forms that embed or stand for a private
// address.
func TestPrivateRanges(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr    string
		private bool
	}{
		{"64:ff9b:1::a00:1", true},   // RFC 8215 local-use NAT64
		{"64:ff9b:1:ffff::1", true},  // anywhere in 64:ff9b:1::/48
		{"2002:0a00:0001::1", true},  // 6to4 of 10.0.0.1
		{"2002:a9fe:a9fe::1", true},  // 6to4 of 169.254.169.254
		{"2002:7f00:1::", true},      // 6to4 of 127.0.0.1
		{"2002:0808:0808::1", false}, // 6to4 of 8.8.8.8
		{"::a00:1", true},            // IPv4-compatible ::10.0.0.1
		{"::808:808", true},          // IPv4-compatible: deprecated, never a public host
		{"::ffff:0:a00:1", true},     // IPv4-translated ::ffff:0:10.0.0.1
		{"::ffff:0:808:808", true},   // IPv4-translated
		{"fec0::1", true},            // site-local
		{"feff::1", true},            // site-local, top of fec0::/10
		{"64:ff9b::a00:1", true},     // well-known NAT64 of 10.0.0.1
		{"64:ff9b::808:808", false},  // well-known NAT64 of 8.8.8.8
		{"::ffff:169.254.169.254", true},
		{"2606:4700::1111", false},
		{"8.8.8.8", false},
		{"169.254.169.254", true},
	} {
		if got := discovery.IsPrivate(netip.MustParseAddr(tc.addr)); got != tc.private {
			t.Errorf("IsPrivate(%s) = %v, want %v", tc.addr, got, tc.private)
		}
	}
}

// TestConsentPromptIsBounded (class 12): a site controls the URLs it redirects to; a
// 60 KB path must not reach the prompt or the error.
func TestConsentPromptIsBounded(t *testing.T) {
	t.Parallel()
	long := "/" + strings.Repeat("a", 60<<10)
	other := newSite(t, docs(t, map[string]string{}))
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+long, http.StatusFound)
	}))
	var seen []discovery.ConsentRequest
	var mu sync.Mutex
	c := newClient(t, s, &discovery.Options{Consent: func(_ context.Context, r *discovery.ConsentRequest) (bool, error) {
		mu.Lock()
		seen = append(seen, *r)
		mu.Unlock()
		return false, nil
	}})
	_, err := c.Discover(t.Context(), s.URL)
	if !errors.Is(err, discovery.ErrCrossOrigin) {
		t.Fatalf("error = %v", err)
	}
	if len(err.Error()) > 4<<10 {
		t.Errorf("error is %d bytes", len(err.Error()))
	}
	if len(seen) == 0 {
		t.Fatal("consent was not asked")
	}
	for _, r := range seen {
		if len(r.URL) > discovery.MaxConsentURL || len(r.Reason) > discovery.MaxConsentReason {
			t.Errorf("prompt URL %d bytes, reason %d bytes", len(r.URL), len(r.Reason))
		}
		if !strings.HasPrefix(r.URL, other.URL) {
			t.Errorf("shortened URL lost its origin: %.80s", r.URL)
		}
	}
	// Agent calls too.
	s.Config.Handler = docs(t, map[string]string{discovery.SkillsPath: goodSkills})
	d, err := c.Discover(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	seen = nil
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, other.URL+long, nil)
	if resp, err := guardOf(t, c, d, nil).RoundTrip(req); err == nil {
		resp.Body.Close()
	}
	for _, r := range seen {
		if len(r.URL) > discovery.MaxConsentURL || len(r.Reason) > discovery.MaxConsentReason {
			t.Errorf("agent prompt URL %d bytes, reason %d bytes", len(r.URL), len(r.Reason))
		}
	}
}

// TestNoCredentialsToOtherOrigins (class 10): site-supplied userinfo is never sent, and
// the caller's credentials go to another origin only when the consent request said so.
func TestNoCredentialsToOtherOrigins(t *testing.T) {
	t.Parallel()
	var auth sync.Map // path → Authorization seen
	record := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if a := r.Header.Get("Authorization") + r.Header.Get("Cookie"); a != "" {
				auth.Store(r.URL.Path, a)
			}
			next.ServeHTTP(w, r)
		})
	}
	other := newSite(t, record(docs(t, map[string]string{discovery.SkillsPath: goodSkills, "/api": "{}"})))
	var self string
	s := newSite(t, record(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case discovery.SkillsPath:
			// Same origin, with userinfo: net/http would send it as Basic auth.
			u, _ := url.Parse(self + "/moved.md")
			u.User = url.UserPassword("site", "hunter2")
			http.Redirect(w, r, u.String(), http.StatusFound)
		case "/moved.md":
			fmt.Fprint(w, goodSkills)
		case "/api":
			fmt.Fprint(w, "{}")
		default:
			http.NotFound(w, r)
		}
	})))
	self = s.URL
	var asked []discovery.ConsentRequest
	var mu sync.Mutex
	c := newClient(t, s, &discovery.Options{Consent: func(_ context.Context, r *discovery.ConsentRequest) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, *r)
		return !r.Credentials, nil // this user never sends credentials elsewhere
	}})
	d, err := c.Discover(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := auth.Load("/moved.md"); ok {
		t.Errorf("redirect userinfo was sent as %q", a)
	}
	hc := &http.Client{Transport: guardOf(t, c, d, nil)}
	// Userinfo in an agent call's URL is not sent either.
	u, _ := url.Parse(s.URL + "/api")
	u.User = url.UserPassword("site", "hunter2")
	if resp, err := hc.Get(u.String()); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if a, ok := auth.Load("/api"); ok {
		t.Errorf("agent call userinfo was sent as %q", a)
	}
	// The caller's own Authorization: same origin, it goes.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+"/api", nil)
	req.Header.Set("Authorization", "Bearer mine")
	if resp, err := hc.Do(req); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if a, _ := auth.Load("/api"); a != "Bearer mine" {
		t.Errorf("same-origin call: Authorization = %v", a)
	}
	// Another origin: the prompt says credentials would be sent; this user says no.
	for _, h := range []string{"Authorization", "Cookie", "Proxy-Authorization", "authorization", "COOKIE"} {
		req, _ = http.NewRequestWithContext(t.Context(), http.MethodGet, other.URL+"/api", nil)
		req.Header[h] = []string{"secret-value"} // as written: net/http sends the key as is
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		if !errors.Is(err, discovery.ErrConsentDenied) {
			t.Errorf("%s to another origin without consent for credentials: error = %v", h, err)
		}
	}
	if _, ok := auth.Load("/api"); ok && other.count("/api") > 0 {
		t.Errorf("credentials reached the other origin")
	}
	mu.Lock()
	var credAsks int
	for _, r := range asked {
		if r.Action == discovery.ConsentCrossOrigin && r.Credentials {
			credAsks++
			if !strings.Contains(r.Reason, "credentials") {
				t.Errorf("the prompt does not say credentials would be sent: %q", r.Reason)
			}
		}
	}
	mu.Unlock()
	if credAsks != 5 {
		t.Errorf("%d consent requests said credentials would be sent, want 5", credAsks)
	}
	// Without credentials, the same call is allowed (this user's rule) and carries none.
	if resp, err := hc.Get(other.URL + "/api"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if other.count("/api") != 1 {
		t.Errorf("other origin saw %d calls, want 1", other.count("/api"))
	}
	if a, ok := auth.Load("/api"); ok && a != "Bearer mine" {
		t.Errorf("credentials reached an origin: %v", a)
	}
	// Granted with credentials, they go.
	c2 := newClient(t, s, &discovery.Options{Consent: discovery.AllowAll})
	d2, err := c2.Discover(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	req, _ = http.NewRequestWithContext(t.Context(), http.MethodGet, other.URL+"/api", nil)
	req.Header.Set("Authorization", "Bearer granted")
	resp, err := (&http.Client{Transport: guardOf(t, c2, d2, nil)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if a, _ := auth.Load("/api"); a != "Bearer granted" {
		t.Errorf("granted credentials: Authorization = %v", a)
	}
}

// TestGetSkillIsBoundedInTime (class 7, time): a v0.1.0 index with many slow files
// cannot hold GetSkill beyond Options.SkillTimeout.
func TestGetSkillIsBoundedInTime(t *testing.T) {
	t.Parallel()
	var files []string
	for i := range 200 {
		files = append(files, fmt.Sprintf("f%d.md", i))
	}
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == agentskills.LegacyIndexPath:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"skills": [{"name": "slow", "description": "d", "files": ["SKILL.md", "%s"]}]}`, strings.Join(files, `", "`))
		case strings.HasSuffix(r.URL.Path, "/SKILL.md"):
			fmt.Fprint(w, "---\nname: slow\ndescription: d\n---\n")
		case strings.HasPrefix(r.URL.Path, "/.well-known/skills/slow/"):
			time.Sleep(50 * time.Millisecond) // each file is slow, none over any per-request bound
			fmt.Fprint(w, "x")
		default:
			http.NotFound(w, r)
		}
	}))
	c := newClient(t, s, &discovery.Options{SkillTimeout: 300 * time.Millisecond})
	ix, err := c.ListSkills(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.GetSkill(t.Context(), ix, "slow")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("GetSkill took %s", el)
	}
	if _, err := discovery.NewClient(&discovery.Options{SkillTimeout: -1}); err == nil {
		t.Error("a negative SkillTimeout was accepted")
	}
}

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
	return d != nil && d.Skills != nil && len(d.Skills.RiskyActions) > 0
}

// gzipHandler serves body gzip-encoded without a length, as CDNs do.
func gzipHandler(body func() string, cacheControl string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != discovery.SkillsPath {
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

// TestDiskCacheTornEntries (class 6): a truncated, torn or corrupted entry in a shared
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
				t.Fatalf("a damaged cache entry became a document without its last section: %q, source %s", d.Skills.Title, d.Fetches[0].Source)
			}
			if d.Fetches[0].Source != discovery.SourceNetwork {
				t.Errorf("source = %s, want network (the damaged entry is a miss)", d.Fetches[0].Source)
			}
		})
	}
}

// TestDiskCacheSharedUnderLoad (class 6): two Clients on one folder, one revalidating
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
		clients[i] = newClient(t, s, &discovery.Options{Cache: cache, LastGood: discovery.NewMemoryLastGood()})
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

// plantedSecrets are what a careless site publishes; none may appear in any error,
// warning, Fetch or consent request of the root package.
var plantedSecrets = []string{"hunter2pass", "SECRETQUERY123", "ghp_0123456789abcdefghijABCDEFGHIJ012345", "dXNlcjpodW50ZXIy"}

// TestNoSecretsInReports (class 9): URLs the site chooses (pointers, redirects, index
// schemas and entries) carry userinfo, queries and tokens; the root package's errors,
// warnings, Fetch records and consent requests repeat none of them.
func TestNoSecretsInReports(t *testing.T) {
	t.Parallel()
	const tok = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	var self string
	routes := map[string]func(w http.ResponseWriter, r *http.Request){
		// mcp.json points (same origin) with userinfo and a query; the target fails.
		discovery.MCPPath: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"serverCard": %q}`, self+"/card.json?access_token=SECRETQUERY123")
		},
		"/card.json": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) },
		// skills.md redirects, with userinfo and a query, to a path holding a token.
		discovery.SkillsPath: func(w http.ResponseWriter, r *http.Request) {
			u, _ := url.Parse(self + "/" + tok + "/skills.md?sig=SECRETQUERY123")
			u.User = url.UserPassword("admin", "hunter2pass")
			http.Redirect(w, r, u.String(), http.StatusFound)
		},
		"/" + tok + "/skills.md": func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "" {
				w.WriteHeader(500)
				return
			}
			fmt.Fprint(w, goodSkills)
		},
		agentskills.IndexPath: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"$schema": "https://admin:hunter2pass@schemas.example/v9/schema.json?k=SECRETQUERY123", "skills": []}`)
		},
	}
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := routes[r.URL.Path]; ok {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	s.Config.ErrorLog = quietLog()
	self = s.URL
	var reports []string
	var mu sync.Mutex
	c := newClient(t, s, &discovery.Options{MaxRetries: -1, Consent: func(_ context.Context, r *discovery.ConsentRequest) (bool, error) {
		mu.Lock()
		reports = append(reports, r.URL, r.Reason)
		mu.Unlock()
		return true, nil
	}})
	add := func(v ...any) {
		mu.Lock()
		defer mu.Unlock()
		for _, x := range v {
			reports = append(reports, fmt.Sprintf("%v %+v", x, x))
		}
	}
	d, err := c.Structured(t.Context(), s.URL)
	add(err)
	if d != nil {
		add(d.Warnings, d.Fetches)
	}
	ix, err := c.ListSkills(t.Context(), s.URL)
	add(err)
	if ix != nil {
		add(ix.Warnings, ix.Fetches)
	}
	// An agent call to a URL with userinfo and a query, refused for another origin.
	if d != nil {
		u, _ := url.Parse("https://admin:hunter2pass@other.example/" + tok + "?access_token=SECRETQUERY123")
		_, err := c.Guard(&discovery.Discovery{}, nil)
		add(err)
		// Cross-origin yes, write no: both questions are asked, nothing is sent.
		record := func(_ context.Context, r *discovery.ConsentRequest) (bool, error) {
			mu.Lock()
			reports = append(reports, r.URL, r.Reason)
			mu.Unlock()
			return r.Action != discovery.ConsentWrite, nil
		}
		g, err := c.Guard(d, &discovery.GuardOptions{Consent: record})
		add(err)
		if g != nil {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, u.String(), nil)
			_, err := g.RoundTrip(req)
			add(err)
		}
		_, err = c.ConnectEndpoint(t.Context(), d, mcpjson.Server{URL: u.String()})
		add(err)
	}
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(reports, "\n")
	for _, p := range plantedSecrets {
		if strings.Contains(all, p) {
			t.Errorf("a report contains %q:\n%s", p, all)
		}
	}
	if !strings.Contains(all, "card.json") {
		t.Errorf("the reports lost what they are about:\n%s", all)
	}
}

// TestCacheAndFlightKeepThePolicy (class 2, found by review): a fresh copy in the HTTP
// cache, or a fetch in flight, made for a private origin never answers a public
// origin's request for the same URL; and a consented redirect never loops on consent.
func TestCacheAndFlightKeepThePolicy(t *testing.T) {
	t.Parallel()
	var loop string
	var private atomic.Int32
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Host == "example.com" {
			http.Redirect(w, r, loop+r.URL.Path, http.StatusFound)
			return
		}
		private.Add(1)
		w.Header().Set("Content-Type", "text/markdown")
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprint(w, "# Internal admin\n\nSECRET-INTRANET-CONTENT\n")
	}))
	loop = s.URL
	var asks atomic.Int32
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: s.Client(), AllowPrivateOrigins: true, MaxRetries: -1,
		InsecureAllowPrivateHosts: []string{"example.com"},
		Consent:                   func(context.Context, *discovery.ConsentRequest) (bool, error) { asks.Add(1); return true, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Discover(t.Context(), s.URL); err != nil { // the private origin, cached fresh
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	d, err := c.Discover(ctx, "https://example.com")
	if !errors.Is(err, discovery.ErrPrivateAddress) {
		t.Fatalf("the public origin got %v, %v", d, err)
	}
	if n := asks.Load(); n != 1 {
		t.Errorf("consent asked %d times, want 1", n)
	}
	if n := private.Load(); n != 1 {
		t.Errorf("the private server was reached %d times, want 1 (the private origin's own fetch)", n)
	}
}

// TestSecretsInBadLocations (class 9, found by review): a Location header that does
// not parse is quoted by net/http; the error repeats no userinfo or query from it.
func TestSecretsInBadLocations(t *testing.T) {
	t.Parallel()
	for _, loc := range []string{
		"https://u:PWSECRET99@other.example.com/%zz",
		"https://other.example.com/%zz?access_token=SECRETQUERY123",
	} {
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Location"] = []string{loc}
			w.WriteHeader(http.StatusFound)
		}))
		_, err := newClient(t, s, &discovery.Options{Consent: discovery.AllowAll, MaxRetries: -1}).Discover(t.Context(), s.URL)
		if err == nil || strings.Contains(err.Error(), "PWSECRET99") || strings.Contains(err.Error(), "SECRETQUERY123") {
			t.Errorf("Location %q: error = %v", loc, err)
		}
	}
}
