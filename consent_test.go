package discovery_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery"
)

// TestConsentTimeIsNotCounted: a person who takes longer to answer than the attempt
// and document time limits does not make the fetch fail; only the caller's context
// bounds the wait.
func TestConsentTimeIsNotCounted(t *testing.T) {
	t.Parallel()
	other := newSite(t, docs(t, map[string]string{discovery.GuidePath: goodSkills}))
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+discovery.GuidePath, http.StatusFound)
	}))
	slow := func(ctx context.Context, r *discovery.ConsentRequest) (bool, error) {
		select {
		case <-time.After(2500 * time.Millisecond): // longer than both limits below
			return true, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	// Limits wide enough for a TLS handshake under -race on a loaded 2-core CI machine
	// (200 ms was not), still well under the time the answer takes.
	c := newClient(t, s, &discovery.Options{Consent: slow, AttemptTimeout: time.Second, DocumentTimeout: 1500 * time.Millisecond})
	d, err := c.Discover(t.Context(), s.URL)
	if err != nil {
		t.Fatalf("a slow answer failed the fetch: %v", err)
	}
	if d.Guide == nil || d.Fetches[0].FinalURL != other.URL+discovery.GuidePath || other.count(discovery.GuidePath) != 1 || s.total() != 1 {
		t.Errorf("fetch %+v; origin saw %d, other %d", d.Fetches[0], s.total(), other.count(discovery.GuidePath))
	}
	// The caller's context does bound it.
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	c = newClient(t, s, &discovery.Options{Consent: slow})
	if _, err := c.Discover(ctx, s.URL); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("caller's deadline: %v", err)
	}
}

// TestRememberConsent: answers are remembered for the scope the person chose, never
// across subjects for writes, never for credentials unless given for credentials.
func TestRememberConsent(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	scope := discovery.Once
	ask := func(_ context.Context, r *discovery.ConsentRequest) (discovery.ConsentAnswer, error) {
		asked.Add(1)
		return discovery.ConsentAnswer{Allow: true, Scope: scope}, nil
	}
	other := newSite(t, docs(t, map[string]string{"/api": "{}"}))
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: goodSkills, "/api": "{}"}))
	mem := discovery.NewConsentMemory()
	call := rememberingSession(t, s, ask, mem)
	for _, tc := range []struct {
		scope      discovery.Scope
		calls      func()
		wantAsked  int32
		wantMemory int
	}{
		{discovery.Once, func() { call("GET", other.URL+"/api", "", false); call("GET", other.URL+"/api", "", false) }, 2, 0},
		{discovery.ForOrigin, func() { call("GET", other.URL+"/api", "a", false); call("GET", other.URL+"/api", "b", false) }, 1, 1},
		{discovery.ForOrigin, func() { call("POST", s.URL+"/api", "tool a", false); call("POST", s.URL+"/api", "tool b", false) }, 2, 2},
		{discovery.ForSubject, func() { call("POST", s.URL+"/api", "tool a", false); call("POST", s.URL+"/api", "tool a", false) }, 1, 1},
		{discovery.ForOrigin, func() { call("GET", other.URL+"/api", "", false); call("GET", other.URL+"/api", "", true) }, 2, 2},
		// A write without a subject is its own subject: method and URL.
		{discovery.ForSubject, func() { call("POST", s.URL+"/api", "", false); call("DELETE", s.URL+"/api", "", false) }, 2, 2},
		{discovery.ForSubject, func() { call("POST", s.URL+"/api", "", false); call("POST", s.URL+"/api", "", false) }, 1, 1},
	} {
		mem.Forget()
		asked.Store(0)
		scope = tc.scope
		tc.calls()
		if asked.Load() != tc.wantAsked || len(mem.Answers()) != tc.wantMemory {
			t.Errorf("scope %s: asked %d times (want %d), memory %v", tc.scope, asked.Load(), tc.wantAsked, mem.Answers())
		}
	}
	if fmt.Sprint(discovery.ForSubject) != "subject" {
		t.Error(discovery.ForSubject)
	}
}

// TestRememberConsentRedirectsPerPairOfOrigins: a redirect is a question about the
// other origin, not one of its paths: a host whose person answers "for this subject"
// is asked once for every redirect between the same two origins, and again for
// another pair.
func TestRememberConsentRedirectsPerPairOfOrigins(t *testing.T) {
	t.Parallel()
	other := newSite(t, docs(t, map[string]string{
		discovery.GuidePath: goodSkills, discovery.MCPPath: `{"mcpServers": {}}`, discovery.RootSkillPath: "---\nname: s\ndescription: S.\n---\n\n# S\n",
	}))
	redirecting := func() *site {
		return newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
		}))
	}
	a, b := redirecting(), redirecting()
	var mu sync.Mutex
	asked := map[string]int{} // origin → questions
	ask := func(_ context.Context, r *discovery.ConsentRequest) (discovery.ConsentAnswer, error) {
		mu.Lock()
		defer mu.Unlock()
		asked[r.Origin.String()]++
		return discovery.ConsentAnswer{Allow: true, Scope: discovery.ForSubject}, nil
	}
	mem := discovery.NewConsentMemory()
	c := newClient(t, a, &discovery.Options{Consent: discovery.RememberConsent(ask, mem), MaxRetries: -1})
	for _, o := range []*site{a, b} {
		// Four documents behind the same redirect: skills.md, mcp.json, /skill.md and
		// the skills index (404 at the other origin).
		if _, err := c.Structured(t.Context(), o.URL); err != nil {
			t.Fatal(err)
		}
		if _, err := c.RootSkill(t.Context(), o.URL); err != nil {
			t.Fatal(err)
		}
		_, _ = c.ListSkills(t.Context(), o.URL)
	}
	if asked[a.URL] != 1 || asked[b.URL] != 1 {
		t.Errorf("asked %v, want once per pair of origins", asked)
	}
	for k, v := range mem.Answers() {
		if v.Scope != discovery.ForOrigin || strings.Contains(k, "[subject") {
			t.Errorf("remembered %q as %+v, want for the origin", k, v)
		}
	}
	// An answer for this request only is still asked each time.
	once := 0
	c = newClient(t, a, &discovery.Options{MaxRetries: -1, Consent: discovery.RememberConsent(func(context.Context, *discovery.ConsentRequest) (discovery.ConsentAnswer, error) {
		once++
		return discovery.ConsentAnswer{Allow: true, Scope: discovery.Once}, nil
	}, discovery.NewConsentMemory())})
	if _, err := c.Discover(t.Context(), a.URL); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RootSkill(t.Context(), a.URL); err != nil || once != 2 {
		t.Errorf("Once: asked %d times, want 2 (%v)", once, err)
	}
}

// TestRememberConsentLongSubjects: subjects (and write URLs) longer than what a
// prompt shows are remembered whole: two that share the part shown are asked about
// separately.
func TestRememberConsentLongSubjects(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	ask := func(_ context.Context, r *discovery.ConsentRequest) (discovery.ConsentAnswer, error) {
		asked.Add(1)
		return discovery.ConsentAnswer{Allow: true, Scope: discovery.ForSubject}, nil
	}
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: goodSkills, "/api": "{}"}))
	call := rememberingSession(t, s, ask, discovery.NewConsentMemory())
	post := func(subject, path string) { t.Helper(); call(http.MethodPost, s.URL+path, subject, false) }
	long := strings.Repeat("tool", 64) // 256 bytes, past MaxConsentSubject
	post(long+"-a", "/api")
	post(long+"-b", "/api") // same first 128 bytes: asked again
	post(long+"-a", "/api") // remembered
	if n := asked.Load(); n != 2 {
		t.Errorf("asked %d times, want 2", n)
	}
	// A write without a subject is remembered by its whole URL.
	asked.Store(0)
	path := "/api/" + strings.Repeat("p", 400) // the query is not shown (redacted), the path is
	post("", path+"1")
	post("", path+"2")
	post("", path+"1")
	if n := asked.Load(); n != 2 {
		t.Errorf("writes by URL: asked %d times, want 2", n)
	}
}

// TestConsentShowsTheQuery: a write's prompt shows its query ("?dry_run=true"), with
// credential values hidden, and a remembered answer holds for that query only: approving
// "POST /orders?dry_run=true" does not approve "POST /orders".
func TestConsentShowsTheQuery(t *testing.T) {
	t.Parallel()
	var urls []string
	var mu sync.Mutex
	ask := func(_ context.Context, r *discovery.ConsentRequest) (discovery.ConsentAnswer, error) {
		mu.Lock()
		urls = append(urls, r.URL)
		mu.Unlock()
		return discovery.ConsentAnswer{Allow: true, Scope: discovery.ForSubject}, nil
	}
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: goodSkills, "/orders": "{}"}))
	call := rememberingSession(t, s, ask, discovery.NewConsentMemory())
	post := func(query string) { t.Helper(); call(http.MethodPost, s.URL+"/orders"+query, "", false) }
	post("?dry_run=true&api_key=SECRETVALUE123")
	post("?dry_run=true&api_key=SECRETVALUE123") // remembered
	post("")                                     // another request: asked
	want := []string{s.URL + "/orders?dry_run=true&api_key=…", s.URL + "/orders"}
	if !slices.Equal(urls, want) {
		t.Errorf("prompts for %q, want %q", urls, want)
	}
}

// TestRememberedScopesAreWhatTheySay: "for this subject" with
// no subject holds for that request only, not the whole origin; a write answered "for
// this origin" is kept, and listed, as "for this subject"; a yes with credentials
// covers the same call without them.
func TestRememberedScopesAreWhatTheySay(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	scope := discovery.ForSubject
	ask := func(_ context.Context, r *discovery.ConsentRequest) (discovery.ConsentAnswer, error) {
		asked.Add(1)
		return discovery.ConsentAnswer{Allow: true, Scope: scope}, nil
	}
	other := newSite(t, docs(t, map[string]string{"/a": "{}", "/admin/delete-everything": "{}"}))
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: goodSkills, "/w": "{}"}))
	mem := discovery.NewConsentMemory()
	call := rememberingSession(t, s, ask, mem)
	do := func(method, target string, creds bool) { t.Helper(); call(method, target, "", creds) }
	do(http.MethodGet, other.URL+"/a", false)
	do(http.MethodGet, other.URL+"/admin/delete-everything", false) // not covered by the first
	if n := asked.Swap(0); n != 2 {
		t.Errorf("subject scope without a subject: asked %d times, want 2", n)
	}

	scope = discovery.ForOrigin
	do(http.MethodPost, s.URL+"/w", false)
	for k, a := range mem.Answers() {
		if strings.Contains(k, "write") && a.Scope != discovery.ForSubject {
			t.Errorf("write remembered as %v under %q, want subject", a.Scope, k)
		}
	}

	asked.Store(0)
	mem.Forget()
	do(http.MethodGet, other.URL+"/a", true)  // with credentials: asked, yes for the origin
	do(http.MethodGet, other.URL+"/a", false) // without: covered
	if n := asked.Load(); n != 1 {
		t.Errorf("credentials then none: asked %d times, want 1", n)
	}
}

// rememberingSession discovers s with a Client whose consent is RememberConsent(ask,
// mem), and returns a function that sends a request through the Discovery's guard:
// method and target, the subject the guard names ("" for none), and the caller's
// Authorization header when creds.
func rememberingSession(t *testing.T, s *site, ask discovery.AskFunc, mem discovery.ConsentMemory) func(method, target, subject string, creds bool) {
	t.Helper()
	c := newClient(t, s, &discovery.Options{Consent: discovery.RememberConsent(ask, mem)})
	d, err := c.Discover(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	return func(method, target, subject string, creds bool) {
		t.Helper()
		g := guardOf(t, c, d, &discovery.GuardOptions{Subject: func(*http.Request) string { return subject }})
		req, _ := http.NewRequestWithContext(t.Context(), method, target, nil)
		if creds {
			req.Header.Set("Authorization", "Bearer x")
		}
		resp, err := (&http.Client{Transport: g}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
}

// TestConsentPromptIsBounded: a site controls the URLs it redirects to; a
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
	s.Config.Handler = docs(t, map[string]string{discovery.GuidePath: goodSkills})
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

// The prompt for an agent's call shows its query, but consent events (logs, metrics,
// traces) and the denial error keep the redaction Event and the error docs promise:
// parameter names at most, never a value the agent sent.
func TestConsentEventsHideQueryValues(t *testing.T) {
	t.Parallel()
	other := newSite(t, docs(t, map[string]string{"/a": "{}"}))
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: goodSkills}))
	var logs bytes.Buffer
	var mu sync.Mutex
	var events []string
	var prompts []string
	c := newClient(t, s, &discovery.Options{
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Observe: func(_ context.Context, e discovery.Event) {
			mu.Lock()
			events = append(events, e.URL)
			mu.Unlock()
		},
		Consent: func(_ context.Context, r *discovery.ConsentRequest) (bool, error) {
			mu.Lock()
			prompts = append(prompts, r.URL)
			mu.Unlock()
			return false, nil
		},
	})
	d, err := c.Discover(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: guardOf(t, c, d, nil)}
	_, err = hc.Get(other.URL + "/a?email=alice%40example.com&pwd=hunter2")
	if !errors.Is(err, discovery.ErrConsentDenied) {
		t.Fatalf("err = %v", err)
	}
	var inner error = err
	for u := errors.Unwrap(inner); u != nil && strings.Contains(inner.Error(), "Get \""); u = errors.Unwrap(inner) {
		inner = u // past net/http's *url.Error, which quotes the URL as the caller gave it
	}
	mu.Lock()
	defer mu.Unlock()
	// The person sees the query, but never a password's value.
	if len(prompts) != 1 || !strings.Contains(prompts[0], "email=alice%40example.com") || !strings.Contains(prompts[0], "pwd=…") ||
		strings.Contains(prompts[0], "hunter2") {
		t.Errorf("prompt %q: the person should see the query, without the password", prompts)
	}
	for what, text := range map[string]string{"log": logs.String(), "events": strings.Join(events, " "), "error": inner.Error()} {
		if strings.Contains(text, "hunter2") || strings.Contains(text, "alice") {
			t.Errorf("%s holds a query value: %s", what, text)
		}
	}
}

// A query the agent was talked into sending with a bidi override or a line separator
// must not reorder or split the consent prompt: those characters are shown escaped.
func TestConsentURLShowsInvisibleCharactersEscaped(t *testing.T) {
	t.Parallel()
	other := newSite(t, docs(t, map[string]string{"/a": "{}"}))
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: goodSkills}))
	var mu sync.Mutex
	var prompts []string
	c := newClient(t, s, &discovery.Options{Consent: func(_ context.Context, r *discovery.ConsentRequest) (bool, error) {
		mu.Lock()
		prompts = append(prompts, r.URL)
		mu.Unlock()
		return false, nil
	}})
	d, err := c.Discover(t.Context(), s.URL)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: guardOf(t, c, d, nil)}
	if _, err := hc.Get(other.URL + "/a?name=\u202egpj.exe&note=a\u2028b"); !errors.Is(err, discovery.ErrConsentDenied) {
		t.Fatalf("err = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(prompts) != 1 || strings.ContainsAny(prompts[0], "\u202e\u2028") || !strings.Contains(prompts[0], "%E2%80%AE") {
		t.Errorf("prompt %q", prompts)
	}
}

// A remembered "for this request" answer holds for that query only: a value the
// prompt hides because its name looks like a credential's ("access", "code", "author")
// still tells two requests apart, so a yes for "?access=read" is no yes for
// "?access=admin".
func TestRememberedQueryKeepsHiddenValuesApart(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var urls []string
	ask := func(_ context.Context, r *discovery.ConsentRequest) (discovery.ConsentAnswer, error) {
		mu.Lock()
		urls = append(urls, r.URL)
		mu.Unlock()
		return discovery.ConsentAnswer{Allow: true, Scope: discovery.ForSubject}, nil
	}
	s := newSite(t, docs(t, map[string]string{discovery.GuidePath: goodSkills, "/users/5/role": "{}"}))
	mem := discovery.NewConsentMemory()
	call := rememberingSession(t, s, ask, mem)
	call(http.MethodPost, s.URL+"/users/5/role?access=read", "", false)
	call(http.MethodPost, s.URL+"/users/5/role?access=read", "", false) // remembered
	call(http.MethodPost, s.URL+"/users/5/role?access=admin", "", false)
	mu.Lock()
	defer mu.Unlock()
	if len(urls) != 2 {
		t.Errorf("asked %d times (%q), want 2: the answer for access=read covered access=admin", len(urls), urls)
	}
	for k := range mem.Answers() {
		if strings.Contains(k, "read") || strings.Contains(k, "admin") {
			t.Errorf("a hidden value is in a remembered key: %q", k)
		}
	}
}
