package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/mcpclient"
)

// floodServer is a raw Streamable HTTP MCP server (no SDK) that declares the Skills
// Extension (with directoryRead) and answers skills/list and resources/directory/read
// with a text/event-stream: flood bytes of notifications first, then (unless endless)
// the result.
type floodServer struct {
	flood   int  // bytes of notifications before the result
	endless bool // notifications until the client goes away; no result
	ids     bool // events carry ids (resumable streams)
	json    int  // answer skills/list with a JSON body of about this many bytes instead
	init    bool // flood before the initialize result instead

	sent atomic.Int64 // notification bytes written
}

const initResult = `{"protocolVersion":"2025-11-25","serverInfo":{"name":"flood","version":"1"},` +
	`"capabilities":{"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true}}}}`

func (f *floodServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "no standalone stream", http.StatusMethodNotAllowed)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	body, _ := io.ReadAll(r.Body)
	if json.Unmarshal(body, &msg) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	reply := func(result string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
	}
	switch {
	case msg.ID == nil: // a notification
		w.WriteHeader(http.StatusAccepted)
	case msg.Method == "initialize" && !f.init:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply(initResult))
	case msg.Method == "skills/list" && f.json > 0:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply(fmt.Sprintf(`{"skills":[],"_meta":{"padding":%q}}`, strings.Repeat("x", f.json))))
	case msg.Method == "skills/list" || msg.Method == "resources/directory/read" || msg.Method == "initialize":
		w.Header().Set("Content-Type", "text/event-stream")
		fl, _ := w.(http.Flusher)
		note := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%q}}`, strings.Repeat("n", 16<<10))
		for i := 0; f.endless || f.sent.Load() < int64(f.flood); i++ {
			id := ""
			if f.ids {
				id = fmt.Sprintf("id: %d\n", i)
			}
			n, err := fmt.Fprintf(w, "%sevent: message\ndata: %s\n\n", id, note)
			f.sent.Add(int64(n))
			if err != nil || r.Context().Err() != nil {
				return // the client went away
			}
			if fl != nil {
				fl.Flush()
			}
		}
		result := `{"skills":[],"resources":[]}`
		if msg.Method == "initialize" {
			result = initResult
		}
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", reply(result))
	default:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`, msg.ID))
	}
}

// TestResponseBytesBoundEveryMediaType (class: an answer not bounded in bytes). A
// server answering a call with text/event-stream could send any number of
// notifications before the result, each under the per-event limit, and the call
// succeeded: only Options.Timeout bounded it. Every byte of the answer to one call
// now counts against Options.MaxResponseBytes, whatever its media type; over it, the
// call fails with ErrTooMany, naming the limit, long before the timeout. An answer
// under the limit still works.
func TestResponseBytesBoundEveryMediaType(t *testing.T) {
	t.Parallel()
	const limit = 256 << 10
	for _, tc := range []struct {
		name   string
		srv    *floodServer
		wantOK bool
	}{
		{"event stream under the limit", &floodServer{flood: 128 << 10}, true},
		{"json under the limit", &floodServer{json: 128 << 10}, true},
		{"notifications before the result", &floodServer{flood: 4 << 20}, false},
		{"notifications before the result, resumable ids", &floodServer{flood: 4 << 20, ids: true}, false},
		{"notifications and never a result", &floodServer{endless: true}, false},
		{"json over the limit", &floodServer{json: 1 << 20}, false},
		{"notifications before the initialize result", &floodServer{init: true, flood: 4 << 20}, false},
		{"initialize under the limit", &floodServer{init: true, flood: 128 << 10}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := httptest.NewServer(tc.srv)
			t.Cleanup(ts.Close)
			// The timeout is only a safety net for a client that does not bound the
			// stream: the call must fail on bytes, with ErrTooMany, not on time.
			opts := &mcpclient.Options{MaxResponseBytes: limit, Timeout: time.Minute}
			s, err := mcpclient.ConnectURL(t.Context(), localClient(t, nil), ts.URL, false, opts)
			if err == nil {
				t.Cleanup(func() { s.Close() })
				_, err = s.ListSkills(t.Context())
			}
			switch {
			case tc.wantOK && err != nil:
				t.Fatalf("connect and ListSkills = %v, want success", err)
			case tc.wantOK:
				return
			case !errors.Is(err, mcpclient.ErrTooMany):
				t.Fatalf("connect and ListSkills = %v, want ErrTooMany", err)
			case !strings.Contains(err.Error(), fmt.Sprint(limit)) || !strings.Contains(err.Error(), "127.0.0.1"):
				t.Errorf("error %q does not name the limit and the URL", err)
			}
			if sent := tc.srv.sent.Load(); sent > 64<<20 {
				t.Errorf("the server wrote %d bytes of notifications before the call failed", sent)
			}
		})
	}
}

// sseServer serves a draft skill://index.json over the SSE transport (one long-lived
// GET stream carries every answer; the SDK's SSE server takes no custom methods, so no
// skills/list), sending flood bytes of progress notifications on the stream first.
func sseServer(t *testing.T, flood int) *httptest.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "sse", Version: "1"}, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}}})
	const uri = "skill://index.json"
	index := fmt.Sprintf(`{"skills": [{"frontmatter": {"name": "alpha", "description": "d"}, "url": "skill://alpha/SKILL.md", "digest": %q}]}`,
		agentskills.Digest([]byte("x")))
	srv.AddResource(&mcp.Resource{URI: uri, Name: "index"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		note := strings.Repeat("n", 16<<10)
		for sent := 0; sent < flood; sent += len(note) {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: "t", Message: note}); err != nil {
				return nil, err
			}
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: index}}}, nil
	})
	ts := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return ts
}

// TestSSEStreamIsBoundedPerCall: on the SSE transport every answer comes on one
// long-lived stream. The session works past connecting (the stream was opened with the
// context of connect, and cut when connect returned), the stream may carry
// Options.MaxResponseBytes between two completed calls, so calls under it work however
// many there are, and a flood of notifications during one call fails that call with
// ErrTooMany.
func TestSSEStreamIsBoundedPerCall(t *testing.T) {
	t.Parallel()
	const limit = 256 << 10
	t.Run("calls under the limit", func(t *testing.T) {
		t.Parallel()
		s, err := mcpclient.ConnectURL(t.Context(), localClient(t, nil), sseServer(t, 128<<10).URL, true, &mcpclient.Options{MaxResponseBytes: limit})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		for i := range 4 { // 4 × 128 KiB: over the limit together, under it one by one
			l, err := s.ListSkills(t.Context())
			if err != nil || len(l.Skills) != 1 {
				t.Fatalf("call %d: ListSkills = %v, %v", i, summary(l), err)
			}
		}
	})
	t.Run("a flood during one call", func(t *testing.T) {
		t.Parallel()
		s, err := mcpclient.ConnectURL(t.Context(), localClient(t, nil), sseServer(t, 4<<20).URL, true,
			&mcpclient.Options{MaxResponseBytes: limit, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if _, err := s.ListSkills(t.Context()); !errors.Is(err, mcpclient.ErrTooMany) || !strings.Contains(err.Error(), fmt.Sprint(limit)) {
			t.Fatalf("ListSkills = %v; want ErrTooMany naming the limit", err)
		}
	})
}
