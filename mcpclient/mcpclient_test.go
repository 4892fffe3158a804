package mcpclient_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/mcpclient"
	"github.com/wellknown-dev/discovery/mcpjson"
)

func localClient(t *testing.T, consent discovery.ConsentFunc) *discovery.Client {
	t.Helper()
	c, err := discovery.NewClient(&discovery.Options{InsecureAllowPrivateOrigins: true, Consent: consent})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func connect(t *testing.T, ts *httptest.Server, opts *mcpclient.Options) *mcpclient.Session {
	t.Helper()
	s, err := mcpclient.ConnectURL(t.Context(), localClient(t, nil), ts.URL, false, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func threeSkills() []testSkill {
	return []testSkill{
		newSkill("alpha", map[string]string{"references/RULES.md": "# Rules\n\nBe careful.\n", "scripts/run.sh": "echo hi\n"}),
		newSkill("beta", nil),
		newSkill("gamma", map[string]string{"a/b/c.md": "deep\n"}),
	}
}

func TestListGetReadVerified(t *testing.T) {
	t.Parallel()
	srv := &skillServer{skills: threeSkills(), pageSize: 1, declare: true, dirRead: true}
	ts := srv.start(t)
	s := connect(t, ts, nil)
	if !s.Skills.Declared || !s.Skills.DirectoryRead || s.Protocol == "" {
		t.Fatalf("session = %+v", s)
	}
	l, err := s.ListSkills(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Skills) != 3 || l.Skills[0].Name != "alpha" || l.Skills[2].Name != "gamma" || !l.Skills[0].Verified ||
		l.Skills[0].Source != mcpclient.SourceExtension || len(l.Skills[0].Files()) != 3 {
		t.Fatalf("listing = %+v", l)
	}
	if n := srv.readCount(); n != 0 {
		t.Errorf("listing read %d resources; lazy retrieval reads none", n)
	}
	alpha := &l.Skills[0]
	for _, p := range []string{"SKILL.md", "references/RULES.md", "scripts/run.sh"} {
		data, err := s.ReadFile(t.Context(), alpha, p)
		if err != nil || string(data) != srv.skills[0].files[p] {
			t.Errorf("ReadFile(%s) = %q, %v", p, data, err)
		}
	}
	// skills/get returns the same entry; an unknown one is ErrSkillNotFound.
	got, err := s.GetSkill(t.Context(), "skill://beta/SKILL.md")
	if err != nil || got.Name != "beta" || !got.Verified {
		t.Fatalf("GetSkill = %+v, %v", got, err)
	}
	if _, err := s.GetSkill(t.Context(), "skill://nope/SKILL.md"); !errors.Is(err, mcpclient.ErrSkillNotFound) {
		t.Errorf("unknown skill: %v", err)
	}
	// Acting window: an unlisted file is never read.
	before := srv.readCount()
	if _, err := s.ReadFile(t.Context(), alpha, "references/SECRET.md"); !errors.Is(err, mcpclient.ErrNotListed) {
		t.Errorf("unlisted file: %v", err)
	}
	if _, err := s.ReadFile(t.Context(), alpha, "skill://beta/SKILL.md"); !errors.Is(err, mcpclient.ErrNotListed) {
		t.Errorf("another skill's file: %v", err)
	}
	if srv.readCount() != before {
		t.Errorf("an unlisted file was requested")
	}
	// Directory read.
	dir, err := s.ReadDirectory(t.Context(), "skill://alpha")
	if err != nil || len(dir) != 3 {
		t.Fatalf("ReadDirectory = %+v, %v", dir, err)
	}
}

func TestTamperedFilesAreRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		serve func(uri, c string) string
		file  string
	}{
		{"size", func(uri, c string) string { return c + "x" }, "references/RULES.md"},
		{"digest (same size)", func(uri, c string) string { return strings.Replace(c, "careful", "CAREFUL", 1) }, "references/RULES.md"},
		{"SKILL.md digest", func(uri, c string) string { return strings.Replace(c, "first", "FIRST", 1) }, "SKILL.md"},
		{"frontmatter", nil, "SKILL.md"}, // see below: entry and file agree on bytes, not on frontmatter
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := &skillServer{skills: threeSkills(), declare: true}
			if tc.serve != nil {
				srv.serve = tc.serve
			} else {
				// The listing's frontmatter says one thing; the file (whose size and
				// digest the listing gives truly) says another.
				srv.listHook = func(entries []map[string]any) []map[string]any {
					for _, e := range entries {
						e["frontmatter"] = map[string]any{"name": "alpha", "description": "Something else entirely."}
					}
					return entries
				}
			}
			ts := srv.start(t)
			s := connect(t, ts, nil)
			l, err := s.ListSkills(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			data, err := s.ReadFile(t.Context(), &l.Skills[0], tc.file)
			if !errors.Is(err, agentskills.ErrDigestMismatch) || data != nil {
				t.Fatalf("tampered %s: %q, %v", tc.file, data, err)
			}
		})
	}
}

func TestListingLimits(t *testing.T) {
	t.Parallel()
	t.Run("repeated cursor", func(t *testing.T) {
		t.Parallel()
		srv := &skillServer{skills: threeSkills(), pageSize: 1, declare: true, cursor: func(string) string { return "same" }}
		s := connect(t, srv.start(t), nil)
		if _, err := s.ListSkills(t.Context()); err == nil || !strings.Contains(err.Error(), "repeated a cursor") {
			t.Errorf("error = %v", err)
		}
	})
	t.Run("too many pages", func(t *testing.T) {
		t.Parallel()
		srv := &skillServer{skills: threeSkills(), pageSize: 1, declare: true}
		s := connect(t, srv.start(t), &mcpclient.Options{MaxPages: 2})
		if _, err := s.ListSkills(t.Context()); !errors.Is(err, mcpclient.ErrTooMany) {
			t.Errorf("error = %v", err)
		}
	})
	t.Run("skill over the file limit", func(t *testing.T) {
		t.Parallel()
		files := map[string]string{}
		for i := range 5 {
			files[fmt.Sprintf("f%d.md", i)] = "x"
		}
		srv := &skillServer{skills: []testSkill{newSkill("big", files), newSkill("small", nil)}, declare: true}
		s := connect(t, srv.start(t), &mcpclient.Options{MaxSkillFiles: 4})
		l, err := s.ListSkills(t.Context())
		if err != nil || len(l.Skills) != 1 || l.Skills[0].Name != "small" || len(l.Warnings) != 1 {
			t.Errorf("listing = %+v, %v", l, err)
		}
	})
	t.Run("response over the byte cap", func(t *testing.T) {
		t.Parallel()
		srv := &skillServer{skills: []testSkill{newSkill("huge", map[string]string{"big.md": strings.Repeat("x", 64<<10)})}, declare: true}
		s := connect(t, srv.start(t), &mcpclient.Options{MaxResponseBytes: 16 << 10})
		l, err := s.ListSkills(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ReadFile(t.Context(), &l.Skills[0], "big.md"); err == nil {
			t.Error("a response over the cap was read")
		}
	})
}

func TestLegacyServers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		legacy   string
		source   mcpclient.Source
		verified bool
	}{
		{"index", mcpclient.SourceLegacyIndex, true},
		{"fastmcp", mcpclient.SourceFastMCP, true},
		{"scan", mcpclient.SourceResourceScan, false},
	} {
		t.Run(tc.legacy, func(t *testing.T) {
			t.Parallel()
			srv := &skillServer{skills: threeSkills(), legacy: tc.legacy}
			s := connect(t, srv.start(t), nil)
			if s.Skills.Declared {
				t.Fatal("declared")
			}
			l, err := s.ListSkills(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Skills) != 3 || len(l.Warnings) == 0 {
				t.Fatalf("listing = %+v", l)
			}
			for _, sk := range l.Skills {
				if sk.Source != tc.source || sk.Verified != tc.verified {
					t.Errorf("%s: source %s verified %v", sk.Name, sk.Source, sk.Verified)
				}
			}
			var alpha *mcpclient.Skill
			for i := range l.Skills {
				if l.Skills[i].Name == "alpha" {
					alpha = &l.Skills[i]
				}
			}
			data, err := s.ReadFile(t.Context(), alpha, "SKILL.md")
			if err != nil || !bytes.Contains(data, []byte("name: alpha")) {
				t.Errorf("SKILL.md = %q, %v", data, err)
			}
			if tc.verified {
				srv.serve = func(uri, c string) string { return c + "tampered" }
				if _, err := s.ReadFile(t.Context(), alpha, "SKILL.md"); !errors.Is(err, agentskills.ErrDigestMismatch) {
					t.Errorf("tampered draft skill: %v", err)
				}
			}
			if _, err := s.ReadFile(t.Context(), alpha, "skill://other/SKILL.md"); !errors.Is(err, mcpclient.ErrNotListed) {
				t.Errorf("outside the skill: %v", err)
			}
		})
	}
	t.Run("no skills at all", func(t *testing.T) {
		t.Parallel()
		srv := &skillServer{}
		s := connect(t, srv.start(t), nil)
		if _, err := s.ListSkills(t.Context()); !errors.Is(err, mcpclient.ErrNoSkills) {
			t.Errorf("error = %v", err)
		}
	})
}

func TestIsRead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		method, body string
		header       string
		read         bool
		subject      string
	}{
		{"POST", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, "", true, "initialize"},
		{"POST", `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`, "", true, "server/discover"},
		{"POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "", true, "notifications/initialized"},
		{"POST", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "", true, "tools/list"},
		{"POST", `{"jsonrpc":"2.0","id":2,"method":"skills/list"}`, "", true, "skills/list"},
		{"POST", `{"jsonrpc":"2.0","id":2,"method":"skills/get","params":{"uri":"skill://a/SKILL.md"}}`, "", true, "skills/get"},
		{"POST", `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"x"}}`, "", true, "resources/read"},
		{"POST", `{"jsonrpc":"2.0","id":2,"method":"resources/directory/read","params":{"uri":"x"}}`, "", true, "resources/directory/read"},
		{"POST", `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"p"}}`, "", true, "prompts/get"},
		{"POST", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, "", true, "ping"},
		{"POST", `{"jsonrpc":"2.0","id":3,"result":{}}`, "", true, ""},
		{"POST", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"delete_repo"}}`, "", false, "tool delete_repo"},
		{"POST", `{"jsonrpc":"2.0","id":3,"method":"acme/launch"}`, "", false, "acme/launch"},
		{"POST", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}]`, "", false, "ping, tool x"},
		// A body that cannot be read exactly is named AmbiguousSubject, so that no
		// remembered answer covers the next one (it was "" before, which every such
		// call shared).
		{"POST", `not json`, "", false, "a malformed or ambiguous request"},
		{"POST", ``, "", false, "a malformed or ambiguous request"},
		{"GET", ``, "", true, ""},
		// IsRead does not know the session's endpoint: a DELETE is a write here; the
		// guard of a Session lets through the one to its own endpoint
		// (TestOnlyTheSessionEndpointDeleteIsARead).
		{"DELETE", ``, "abc", false, ""},
		{"DELETE", ``, "", false, ""},
		{"PUT", `{"method":"ping"}`, "", false, ""},
		// Disguises: keys that differ only in case, duplicates, no method at all.
		{"POST", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_all"},"Method":"ping"}`, "", false, "a malformed or ambiguous request"},
		{"POST", `{"jsonrpc":"2.0","id":2,"Method":"tools/call","method":"ping"}`, "", false, "a malformed or ambiguous request"},
		{"POST", `{"jsonrpc":"2.0","id":2,"method":"tools/call","method":"ping"}`, "", false, "a malformed or ambiguous request"},
		{"POST", `{"jsonrpc":"2.0","id":2,"METHOD":"tools/call"}`, "", false, "a malformed or ambiguous request"},
		{"POST", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"mEthod":"tools/call","method":"ping"}]`, "", false, "ping, a malformed or ambiguous request"},
		{"POST", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","Name":"b"}}`, "", false, "a malformed or ambiguous request"},
		{"POST", `{"jsonrpc":"2.0","id":2}`, "", false, "a malformed or ambiguous request"},
	} {
		req, _ := http.NewRequest(tc.method, "https://mcp.example/mcp", strings.NewReader(tc.body))
		if tc.header != "" {
			req.Header.Set("Mcp-Session-Id", tc.header)
		}
		if got := mcpclient.IsRead(req); got != tc.read {
			t.Errorf("IsRead(%s %s) = %v", tc.method, tc.body, got)
		}
		if got := mcpclient.Subject(req); tc.method == "POST" && got != tc.subject {
			t.Errorf("Subject(%s) = %q, want %q", tc.body, got, tc.subject)
		}
		// The body is still there for the transport.
		if tc.body != "" && tc.method == "POST" {
			b := new(strings.Builder)
			_, _ = fmt.Fprint(b, readAll(req))
			if b.String() != tc.body {
				t.Errorf("body after classification = %q", b.String())
			}
		}
	}
}

func readAll(r *http.Request) string {
	var b bytes.Buffer
	_, _ = b.ReadFrom(r.Body)
	return b.String()
}

// consentLog records every consent request.
type consentLog struct {
	mu   sync.Mutex
	reqs []discovery.ConsentRequest
	yes  func(*discovery.ConsentRequest) bool
}

func (c *consentLog) ask(_ context.Context, r *discovery.ConsentRequest) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reqs = append(c.reqs, *r)
	if c.yes == nil {
		return true, nil
	}
	return c.yes(r), nil
}

func (c *consentLog) count(a discovery.ConsentAction) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, r := range c.reqs {
		if r.Action == a {
			n++
		}
	}
	return n
}

// TestConnectFromDiscovery: an origin's mcp.json lists a server on another origin;
// connecting asks ConsentConnect once with the server's name, and listing, getting and
// reading ask nothing more; refused entries never connect.
func TestConnectFromDiscovery(t *testing.T) {
	t.Parallel()
	srv := &skillServer{skills: threeSkills(), declare: true}
	mcpTS := srv.start(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != discovery.MCPPath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"servers": [
			{"name": "skills", "url": %q, "transport": "streamable-http"},
			{"name": "local", "command": "npx", "args": ["some-server"], "transport": "stdio"},
			{"name": "ws", "url": "wss://ws.example/mcp", "transport": "websocket"}]}`, mcpTS.URL)
	}))
	t.Cleanup(site.Close)
	log := &consentLog{}
	c := localClient(t, log.ask)
	d, err := c.Structured(t.Context(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	servers := map[string]mcpjson.Server{}
	for _, s := range d.MCP.Servers {
		servers[s.Name] = s
	}
	s, err := mcpclient.Connect(t.Context(), c, d, servers["skills"], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l, err := s.ListSkills(t.Context())
	if err != nil || len(l.Skills) != 3 {
		t.Fatalf("%+v, %v", l, err)
	}
	if _, err := s.ReadFile(t.Context(), &l.Skills[0], "SKILL.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetSkill(t.Context(), l.Skills[1].URI); err != nil {
		t.Fatal(err)
	}
	if n := log.count(discovery.ConsentConnect); n != 1 {
		t.Errorf("ConsentConnect asked %d times, want 1", n)
	}
	if n := len(log.reqs); n != 1 {
		t.Errorf("%d consent requests in all, want 1: %+v", n, log.reqs)
	}
	if log.reqs[0].Subject != "skills" {
		t.Errorf("subject = %q", log.reqs[0].Subject)
	}
	if _, err := mcpclient.Connect(t.Context(), c, d, servers["local"], nil); !errors.Is(err, discovery.ErrLocalOnly) {
		t.Errorf("local server: %v", err)
	}
	if _, err := mcpclient.Connect(t.Context(), c, d, servers["ws"], nil); !errors.Is(err, mcpclient.ErrUnsupportedTransport) {
		t.Errorf("websocket server: %v", err)
	}
	if _, err := mcpclient.Connect(t.Context(), c, d, mcpjson.Server{Name: "empty"}, nil); !errors.Is(err, discovery.ErrInvalidOrigin) {
		t.Errorf("server without a URL: %v", err)
	}
	// Denied, nothing is sent.
	denied := &consentLog{yes: func(*discovery.ConsentRequest) bool { return false }}
	c2 := localClient(t, denied.ask)
	d2, err := c2.Structured(t.Context(), site.URL)
	if err != nil {
		t.Fatal(err)
	}
	srv.mu.Lock()
	before := len(srv.methods)
	srv.mu.Unlock()
	if _, err := mcpclient.Connect(t.Context(), c2, d2, servers["skills"], nil); !errors.Is(err, discovery.ErrConsentDenied) {
		t.Errorf("denied connect: %v", err)
	}
	srv.mu.Lock()
	after := len(srv.methods)
	srv.mu.Unlock()
	if after != before {
		t.Errorf("a denied connection reached the server")
	}
}

// TestIsReadKeepsLargeBodies: a body too large to classify is a write, and reaches the
// transport whole.
func TestIsReadKeepsLargeBodies(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"upload","arguments":{"data":"` + strings.Repeat("x", 5<<20) + `"}}}`
	req, _ := http.NewRequest("POST", "https://mcp.example/mcp", io.NopCloser(strings.NewReader(body)))
	req.ContentLength = -1
	if mcpclient.IsRead(req) {
		t.Error("a 5 MiB body was classified as a read")
	}
	if got := readAll(req); got != body {
		t.Errorf("body after classification: %d bytes, want %d", len(got), len(body))
	}
}

// TestErrorsAreRedacted: a server's URL with a token in its query never reaches an error.
func TestErrorsAreRedacted(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hj, _ := w.(http.Hijacker)
		conn, _, _ := hj.Hijack()
		conn.Close() // drop the connection: the SDK's error quotes the URL
	}))
	defer ts.Close()
	_, err := mcpclient.ConnectURL(t.Context(), localClient(t, nil), ts.URL+"/mcp?access_token=QSECRETVALUE77", false, nil)
	if err == nil || strings.Contains(err.Error(), "QSECRETVALUE77") || !strings.Contains(err.Error(), "connect to") {
		t.Errorf("error = %v", err)
	}
}

// TestConnectPlainHTTPHint: https:// naming a loopback server that speaks plain http
// fails with a hint to use http://, on either transport.
func TestConnectPlainHTTPHint(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.NotFoundHandler())
	defer ts.Close()
	host := strings.TrimPrefix(ts.URL, "http://")
	for _, sse := range []bool{false, true} {
		_, err := mcpclient.ConnectURL(t.Context(), localClient(t, nil), "https://"+host+"/mcp", sse, nil)
		if err == nil || !strings.Contains(err.Error(), "try http://"+host) || !errors.Is(err, http.ErrSchemeMismatch) {
			t.Errorf("sse %v: error = %v, want a hint to use http://%s", sse, err, host)
		}
	}
}

// TestListingByteBound: a server that sends huge pages is stopped at
// Options.MaxListBytes, not at the page limit.
func TestListingByteBound(t *testing.T) {
	t.Parallel()
	srv := &skillServer{skills: threeSkills(), pageSize: 1, declare: true, listHook: func(entries []map[string]any) []map[string]any {
		for _, e := range entries {
			e["frontmatter"].(map[string]any)["padding"] = strings.Repeat("x", 64<<10)
		}
		return entries
	}}
	s := connect(t, srv.start(t), &mcpclient.Options{MaxListBytes: 100 << 10})
	if _, err := s.ListSkills(t.Context()); !errors.Is(err, mcpclient.ErrTooMany) {
		t.Errorf("error = %v", err)
	}
}
