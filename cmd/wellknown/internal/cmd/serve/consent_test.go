package serve

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
)

// lockedBuffer is a bytes.Buffer safe for concurrent writers and readers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// redirectingSite starts first, whose skills.md (every path, with all) redirects to
// the same path on other, which serves skills.md only.
func redirectingSite(t *testing.T, all bool) (first, other *httptest.Server) {
	t.Helper()
	other = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/skills.md" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		_, _ = io.WriteString(w, "# Moved Guide\n\nServed by the other origin.\n")
	}))
	t.Cleanup(other.Close)
	first = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if all || r.URL.Path == "/.well-known/skills.md" {
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(first.Close)
	return first, other
}

// TestServeConsentThroughElicitation: a consent request of the discovery client during
// a tool call (here a redirect of skills.md to another origin, during discover_site)
// is asked of the user through the MCP client, with an elicitation, when the client
// can be asked during the call (protocol before 2026-07-28, elicitation declared):
// accepted, the redirect is followed; declined, it is refused and the model is told
// that the redirect was refused. A client that cannot be asked gets a refusal naming --yes.
func TestServeConsentThroughElicitation(t *testing.T) {
	t.Parallel()
	first, other := redirectingSite(t, false)

	accept := &mcp.ElicitResult{Action: "accept", Content: map[string]any{consentField: true}}
	for _, tc := range []struct {
		name, version string
		answer        *mcp.ElicitResult // nil: the client declares no elicitation
		followed      bool
		asked         int
		text, log     string
	}{
		{"accepted", "2025-11-25", accept, true, 1, "Moved Guide", "granted by the user (MCP elicitation)"},
		{"accepted 2025-06-18", "2025-06-18", accept, true, 1, "Moved Guide", "granted by the user (MCP elicitation)"},
		{"declined", "2025-11-25", &mcp.ElicitResult{Action: "decline"}, false, 1, "redirect to another origin: GET " + other.URL, "refused by the user"},
		{"accepted unticked", "2025-11-25", &mcp.ElicitResult{Action: "accept", Content: map[string]any{consentField: false}}, false, 1, "redirect to another origin: GET " + other.URL, "refused by the user"},
		{"no elicitation", "2025-11-25", nil, false, 0, "--yes", "cannot ask the user"},
		{"2026-07-28", "2026-07-28", accept, false, 0, "--yes", "cannot ask the user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var errOut lockedBuffer
			home := t.TempDir()
			a := &app{cmdutil.New(strings.NewReader(""), io.Discard, &errOut, func(k string) string {
				if k == "HOME" {
					return home
				}
				return ""
			})}
			server, err := a.newMCPServer(t.Context(), serveFlags{allowPrivate: true})
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var asked []*mcp.ElicitParams
			opts := &mcp.ClientOptions{}
			if tc.answer != nil {
				opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					mu.Lock()
					defer mu.Unlock()
					asked = append(asked, req.Params)
					return tc.answer, nil
				}
			}
			st, ct := mcp.NewInMemoryTransports()
			ss, err := server.Connect(t.Context(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ss.Close() })
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, opts).
				Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			if ir := cs.InitializeResult(); ir == nil || ir.ProtocolVersion != tc.version {
				t.Fatalf("protocol negotiated: %+v, want %s", ir, tc.version)
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "discover_site", Arguments: map[string]any{"origin": first.URL}})
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			for _, c := range res.Content {
				if txt, ok := c.(*mcp.TextContent); ok {
					text.WriteString(txt.Text)
				}
			}
			got := text.String()
			if strings.Contains(got, "Moved Guide") != tc.followed || res.IsError == tc.followed || !strings.Contains(got, tc.text) {
				t.Errorf("discover_site: IsError %v, want the redirect followed %v and %q in:\n%s", res.IsError, tc.followed, tc.text, got)
			}
			mu.Lock()
			n := len(asked)
			if n > 0 && (!strings.Contains(asked[0].Message, "redirect") || !strings.Contains(asked[0].Message, other.URL)) {
				t.Errorf("question: %q, want the redirect and its target named", asked[0].Message)
			}
			mu.Unlock()
			if n != tc.asked {
				t.Errorf("asked %d times, want %d", n, tc.asked)
			}
			if !strings.Contains(errOut.String(), tc.log) {
				t.Errorf("stderr: want %q in:\n%s", tc.log, errOut.String())
			}
		})
	}
}

// TestServeConsentAskedOncePerPairOfOrigins: when every document of a site redirects
// to the same other origin (discover_site with structured reads skills.md, mcp.json,
// the AI Catalog, the skills index, /skill.md), the user is asked once, and the answer
// covers the other redirects of that pair.
func TestServeConsentAskedOncePerPairOfOrigins(t *testing.T) {
	t.Parallel()
	first, _ := redirectingSite(t, true)
	a := &app{cmdutil.New(strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })}
	server, err := a.newMCPServer(t.Context(), serveFlags{allowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	asked := 0
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			asked++
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{consentField: true}}, nil
		},
	}).Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	for _, structured := range []bool{true, false} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "discover_site", Arguments: map[string]any{"origin": first.URL, "structured": structured}})
		if err != nil || res.IsError {
			t.Fatalf("discover_site: %v %+v", err, res)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if asked != 1 {
		t.Errorf("asked %d times, want once for the pair of origins", asked)
	}
}
