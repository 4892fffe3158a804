package discovery_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery"
)

// guardOf returns the policy guard of c for d, tuned by opts.
func guardOf(t *testing.T, c *discovery.Client, d *discovery.Discovery, opts *discovery.GuardOptions) http.RoundTripper {
	t.Helper()
	rt, err := c.Guard(d, opts)
	if err != nil {
		t.Fatalf("Guard: %v", err)
	}
	return rt
}

// TestWritesByAnotherRoad: a request can write whatever its method says. An upgrade
// (the 101 hands the agent a two-way stream to the site), CONNECT, and a method
// override (a header, or "_method" in the query or the body) are writes: with every
// consent denied, none is sent. Plain reads still pass without a question.
func TestWritesByAnotherRoad(t *testing.T) {
	t.Parallel()
	api := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == discovery.GuidePath {
			fmt.Fprint(w, "# Skills\n\n## API\n\n- Base path: /api\n")
			return
		}
		n, _ := io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, "%d", n) // the body arrived whole
	}))
	type tc struct {
		name   string
		method string
		query  string
		header http.Header // set as written: net/http sends the keys as they are
		ctype  string
		body   string
		isRead bool // a GuardOptions.IsRead that calls every request a read
		write  bool
	}
	tests := []tc{
		{name: "GET", method: http.MethodGet},
		{name: "HEAD", method: http.MethodHead},
		{name: "OPTIONS", method: http.MethodOptions},
		{name: "GET with a plain body", method: http.MethodGet, ctype: "application/json", body: `{"q":"x"}`},
		{name: "GET with Connection keep-alive", method: http.MethodGet, header: http.Header{"Connection": {"keep-alive"}}},
		{name: "TRACE", method: http.MethodTrace, write: true},
		{name: "lower-case get", method: "get", write: true},
		{name: "CONNECT", method: http.MethodConnect, write: true},
		{name: "connect spelled low", method: "connect", isRead: true, write: true},
		{name: "websocket upgrade", method: http.MethodGet, write: true,
			header: http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}, "Sec-Websocket-Version": {"13"}, "Sec-Websocket-Key": {"dGhlIHNhbXBsZSBub25jZQ=="}}},
		{name: "upgrade in lower case", method: http.MethodGet, write: true, header: http.Header{"connection": {"keep-alive, UPGRADE"}, "upgrade": {"WebSocket"}}},
		{name: "Upgrade header alone", method: http.MethodGet, write: true, header: http.Header{"Upgrade": {"h2c"}}},
		{name: "Connection upgrade alone", method: http.MethodHead, write: true, header: http.Header{"Connection": {"close", "Upgrade"}}},
		{name: "WebSocket key alone", method: http.MethodGet, write: true, header: http.Header{"Sec-WebSocket-Key": {"dGhlIHNhbXBsZSBub25jZQ=="}}},
		{name: "upgrade a hook calls a read", method: http.MethodPost, isRead: true, write: true, header: http.Header{"Upgrade": {"websocket"}, "Connection": {"upgrade"}}},
		{name: "X-HTTP-Method-Override", method: http.MethodGet, write: true, header: http.Header{"X-HTTP-Method-Override": {"DELETE"}}},
		{name: "X-Http-Method", method: http.MethodGet, write: true, header: http.Header{"X-Http-Method": {"PUT"}}},
		{name: "x-method-override", method: http.MethodOptions, write: true, header: http.Header{"x-method-override": {"PATCH"}}},
		{name: "override a hook calls a read", method: http.MethodPost, isRead: true, write: true, header: http.Header{"X-Http-Method-Override": {"DELETE"}}},
		{name: "_method in the query", method: http.MethodGet, query: "?id=1&_method=DELETE", write: true},
		{name: "_method percent-encoded", method: http.MethodGet, query: "?%5Fmethod=delete", write: true},
		{name: "_METHOD in the query", method: http.MethodHead, query: "?_METHOD=put", write: true},
		{name: "_method in a form body", method: http.MethodGet, ctype: "application/x-www-form-urlencoded", body: "id=1&_method=DELETE", write: true},
		{name: "_method in a form body a hook calls a read", method: http.MethodPost, isRead: true, ctype: "application/x-www-form-urlencoded", body: "_method=DELETE", write: true},
		{name: "_method in a multipart body", method: http.MethodPost, isRead: true, ctype: "multipart/form-data; boundary=b",
			body: "--b\r\nContent-Disposition: form-data; name=\"_method\"\r\n\r\nDELETE\r\n--b--\r\n", write: true},
		{name: "_method in a JSON body", method: http.MethodPost, isRead: true, ctype: "application/json", body: `{"_method":"DELETE"}`, write: true},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := fmt.Sprintf("/api/%d", i)
			log := &consentLog{answer: func(*discovery.ConsentRequest) (bool, error) { return false, nil }}
			c := newClient(t, api, &discovery.Options{Consent: log.fn})
			d, err := c.Discover(t.Context(), api.URL)
			if err != nil {
				t.Fatal(err)
			}
			opts := &discovery.GuardOptions{}
			if tc.isRead {
				opts.IsRead = func(*http.Request) bool { return true }
			}
			rt := guardOf(t, c, d, opts)
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			req, err := http.NewRequestWithContext(t.Context(), tc.method, api.URL+path+tc.query, body)
			if err != nil {
				t.Fatal(err)
			}
			for k, vs := range tc.header {
				req.Header[k] = vs
			}
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			resp, err := rt.RoundTrip(req)
			var got []byte
			if err == nil {
				got, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			asked := log.actions()
			if tc.write {
				if !errors.Is(err, discovery.ErrConsentDenied) {
					t.Errorf("error = %v, want a refusal (ErrConsentDenied)", err)
				}
				if len(asked) != 1 || !strings.HasPrefix(asked[0], "write ") {
					t.Errorf("consent asked for %v, want one write", asked)
				}
				if n := api.count(path); n != 0 {
					t.Errorf("the site received %d requests; a write without consent sends none", n)
				}
				return
			}
			if err != nil || len(asked) != 0 {
				t.Errorf("a read: error = %v, consent asked for %v", err, asked)
			}
			if tc.method != http.MethodHead && err == nil && string(got) != fmt.Sprint(len(tc.body)) {
				t.Errorf("the site received a body of %s bytes, want %d", got, len(tc.body))
			}
		})
	}
}

// TestSwitchingProtocolsNeedsWriteConsent: a 101 is never handed back for a request
// that had no ConsentWrite, whatever the request looked like; after a yes to the
// write, it is.
func TestSwitchingProtocolsNeedsWriteConsent(t *testing.T) {
	t.Parallel()
	api := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == discovery.GuidePath {
			fmt.Fprint(w, "# Skills\n\n## API\n\n- Base path: /api\n")
			return
		}
		// Switch protocols whatever the request asked for.
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = buf.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
		_ = buf.Flush()
		_, _ = bufio.NewReader(conn).ReadByte() // hold the stream until the client goes
	}))
	for _, tc := range []struct {
		name    string
		isRead  bool // a hook that calls everything a read
		upgrade bool
		allow   bool
		want101 bool
	}{
		{"plain GET", false, false, true, false},
		{"a POST a hook calls a read", true, false, true, false},
		{"upgrade denied", false, true, false, false},
		{"upgrade allowed", false, true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			log := &consentLog{answer: func(*discovery.ConsentRequest) (bool, error) { return tc.allow, nil }}
			c := newClient(t, api, &discovery.Options{Consent: log.fn})
			d, err := c.Discover(t.Context(), api.URL)
			if err != nil {
				t.Fatal(err)
			}
			opts := &discovery.GuardOptions{}
			if tc.isRead {
				opts.IsRead = func(*http.Request) bool { return true }
			}
			method := http.MethodGet
			if tc.isRead {
				method = http.MethodPost
			}
			req, _ := http.NewRequestWithContext(t.Context(), method, api.URL+"/api/ws", nil)
			if tc.upgrade {
				req.Header.Set("Connection", "Upgrade")
				req.Header.Set("Upgrade", "websocket")
			}
			resp, err := guardOf(t, c, d, opts).RoundTrip(req)
			if tc.want101 {
				if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
					t.Fatalf("allowed upgrade: %v, %v", resp, err)
				}
				resp.Body.Close()
				return
			}
			if err == nil {
				resp.Body.Close()
				t.Fatalf("a %d was handed back without consent to write", resp.StatusCode)
			}
			if !errors.Is(err, discovery.ErrConsentDenied) {
				t.Errorf("error = %v, want ErrConsentDenied", err)
			}
		})
	}
}
