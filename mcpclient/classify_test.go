package mcpclient_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/mcpclient"
)

// TestIsReadReadsTheWholeBody: a body is a read only when it is exactly one JSON-RPC
// message (or one batch) of read methods. A server that reads a stream of messages
// would run whatever follows the first value, so a second value, NDJSON or trailing
// bytes make the body ambiguous: a write, named AmbiguousSubject.
func TestIsReadReadsTheWholeBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		read bool
	}{
		{"one message", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, true},
		{"trailing whitespace", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\t \n", true},
		{"batch of reads", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`, true},
		{"second object", `{"method":"ping"}{"method":"tools/call","params":{"name":"delete_repo"}}`, false},
		{"second object after blank", `{"method":"ping"} {"method":"tools/call","params":{"name":"x"}}`, false},
		{"NDJSON", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n", false},
		{"NDJSON of reads", "{\"method\":\"ping\"}\n{\"method\":\"tools/list\"}\n", false},
		{"trailing garbage", `{"method":"ping"} garbage`, false},
		{"trailing bracket", `{"method":"ping"}]`, false},
		{"trailing comma", `{"method":"ping"},`, false},
		{"trailing NUL", "{\"method\":\"ping\"}\x00", false},
		{"trailing number", `{"method":"ping"}1`, false},
		{"two batches", `[{"method":"ping"}][{"method":"tools/call","params":{"name":"x"}}]`, false},
		{"batch then object", `[{"method":"ping"}]{"method":"tools/call","params":{"name":"x"}}`, false},
		{"batch with a write", `[{"method":"ping"},{"method":"tools/call","params":{"name":"x"}}]`, false},
		{"batch with trailing bytes in an element", `[{"method":"ping"} x]`, false},
		{"unclosed object", `{"method":"ping"`, false},
		{"empty batch", `[]`, false},
		{"tools/call without a name", `{"method":"tools/call","params":{"arguments":{}}}`, false},
		{"tools/call with positional params", `{"method":"tools/call","params":["delete_repo"]}`, false},
		{"tools/call with a numeric name", `{"method":"tools/call","params":{"name":7}}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, _ := http.NewRequest(http.MethodPost, "https://mcp.example/mcp", strings.NewReader(tc.body))
			if got := mcpclient.IsRead(req); got != tc.read {
				t.Errorf("IsRead(%q) = %v, want %v", tc.body, got, tc.read)
			}
			sub := mcpclient.Subject(req)
			if amb := strings.Contains(sub, discovery.AmbiguousSubject); !tc.read && !amb && !strings.Contains(sub, "tool x") {
				t.Errorf("Subject(%q) = %q: a write the classifier cannot read exactly must be named %q", tc.body, sub, discovery.AmbiguousSubject)
			}
			if got, _ := io.ReadAll(req.Body); string(got) != tc.body {
				t.Errorf("body after classification = %q", got)
			}
		})
	}
}

// TestOnlyTheSessionEndpointDeleteIsARead: a DELETE with an Mcp-Session-Id closes a
// session only at the endpoint the session was opened at; anywhere else it is a write
// that asks ConsentWrite. IsRead alone, which knows no endpoint, calls every DELETE a
// write.
func TestOnlyTheSessionEndpointDeleteIsARead(t *testing.T) {
	t.Parallel()
	endpoint, _ := url.Parse("https://mcp.example/mcp?tenant=a")
	tests := []struct {
		name    string
		method  string
		url     string
		session string
		body    string
		want    bool
	}{
		{"the session endpoint", http.MethodDelete, "https://mcp.example/mcp?tenant=a", "abc", "", true},
		{"the endpoint, host spelled in capitals, default port", http.MethodDelete, "https://MCP.example:443/mcp?tenant=a", "abc", "", true},
		{"no session id", http.MethodDelete, "https://mcp.example/mcp?tenant=a", "", "", false},
		{"another path", http.MethodDelete, "https://mcp.example/api/repos/1", "abc", "", false},
		{"a sub-path", http.MethodDelete, "https://mcp.example/mcp/x?tenant=a", "abc", "", false},
		{"another query", http.MethodDelete, "https://mcp.example/mcp?tenant=b", "abc", "", false},
		{"no query", http.MethodDelete, "https://mcp.example/mcp", "abc", "", false},
		{"another host", http.MethodDelete, "https://evil.example/mcp?tenant=a", "abc", "", false},
		{"another port", http.MethodDelete, "https://mcp.example:8443/mcp?tenant=a", "abc", "", false},
		{"another scheme", http.MethodDelete, "http://mcp.example/mcp?tenant=a", "abc", "", false},
		{"with a body", http.MethodDelete, "https://mcp.example/mcp?tenant=a", "abc", `{"all":true}`, false},
		{"not a DELETE", http.MethodPut, "https://mcp.example/mcp?tenant=a", "abc", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			req, _ := http.NewRequest(tc.method, tc.url, body)
			if tc.session != "" {
				req.Header.Set("Mcp-Session-Id", tc.session)
			}
			if got := mcpclient.ClosesSession(req, endpoint); got != tc.want {
				t.Errorf("closes the session = %v, want %v", got, tc.want)
			}
			if mcpclient.IsRead(req) {
				t.Errorf("IsRead(%s %s) = true: IsRead knows no endpoint", tc.method, tc.url)
			}
		})
	}
}

// TestSessionCloseNeedsNoConsent: the DELETE a Session sends to close itself is a read
// for its guard, so it goes out under DenyAll.
func TestSessionCloseNeedsNoConsent(t *testing.T) {
	t.Parallel()
	srv := &skillServer{skills: threeSkills(), declare: true}
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.server() }, nil)
	var deletes atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete && r.Header.Get("Mcp-Session-Id") != "" {
			deletes.Add(1)
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	s, err := mcpclient.ConnectURL(t.Context(), localClient(t, nil), ts.URL, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if deletes.Load() != 1 {
		t.Errorf("the server saw %d session DELETEs, want 1", deletes.Load())
	}
}

// TestAmbiguousCallsAreNotRemembered: a "yes, always" to one malformed or ambiguous
// JSON-RPC call is for that call only. Every such call used to share one subject, so
// RememberConsent's answer for it allowed any later one.
func TestAmbiguousCallsAreNotRemembered(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	t.Cleanup(ts.Close)
	for _, scope := range []discovery.Scope{discovery.ForSubject, discovery.ForOrigin} {
		t.Run(scope.String(), func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var asked []string
			ask := func(_ context.Context, r *discovery.ConsentRequest) (discovery.ConsentAnswer, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, r.Subject)
				return discovery.ConsentAnswer{Allow: true, Scope: scope}, nil
			}
			mem := discovery.NewConsentMemory()
			c := localClient(t, discovery.RememberConsent(ask, mem))
			o, err := discovery.ParseOrigin(ts.URL)
			if err != nil {
				t.Fatal(err)
			}
			rt, err := c.Guard(&discovery.Discovery{Origin: o}, &discovery.GuardOptions{IsRead: mcpclient.IsRead, Subject: mcpclient.Subject})
			if err != nil {
				t.Fatal(err)
			}
			hc := &http.Client{Transport: rt}
			post := func(body string) {
				t.Helper()
				resp, err := hc.Post(ts.URL+"/mcp", "application/json", strings.NewReader(body))
				if err != nil {
					t.Fatalf("POST %s: %v", body, err)
				}
				resp.Body.Close()
			}
			// A well-formed call: the answer is remembered for its tool.
			post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search"}}`)
			post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search"}}`)
			// Ambiguous calls: each is asked, whatever was answered before.
			for _, body := range []string{
				`{"jsonrpc":"2.0","id":3,"method":"ping","Method":"tools/call","params":{"name":"search"}}`,
				`{"jsonrpc":"2.0","id":4,"method":"ping","METHOD":"tools/call","params":{"name":"delete_repo"}}`,
				`{"jsonrpc":"2.0","id":4,"method":"ping","METHOD":"tools/call","params":{"name":"delete_repo"}}`,
				`{"method":"ping"}{"method":"tools/call","params":{"name":"delete_repo"}}`,
				`not json`,
				`not json either`,
				`[{"method":"ping"},{"method":"tools/call","params":{"name":"a","Name":"b"}}]`,
			} {
				post(body)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 8 {
				t.Errorf("asked %d times (%q), want 8: one for the tool, one per ambiguous call", len(asked), asked)
			}
			for k := range mem.Answers() {
				if strings.Contains(k, discovery.AmbiguousSubject) {
					t.Errorf("an answer for an ambiguous call was remembered: %q", k)
				}
			}
		})
	}
}
