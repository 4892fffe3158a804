package tools_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/catalog"
	"github.com/wellknown-dev/discovery/tools"
)

// elicitSession serves a Toolset whose approvals are asked with tools.ElicitApproval,
// over the site full, to a client of protocol version (""): the latest) answering
// every elicitation with answer (nil: the client declares no elicitation). It returns
// the session and the questions the client received.
func elicitSession(t *testing.T, full *site, version string, answer func() *mcp.ElicitResult) (*mcp.ClientSession, func() []*mcp.ElicitParams) {
	t.Helper()
	cat := catalog.New(&catalog.Options{Approvals: catalog.NewMemoryApprovals()})
	ts := tools.New(full.client, cat, &tools.Options{Approve: tools.ElicitApproval})
	if err := ts.AddSite(t.Context(), full.URL); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var asked []*mcp.ElicitParams
	opts := &mcp.ClientOptions{}
	if answer != nil {
		opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, req.Params)
			mu.Unlock()
			return answer(), nil
		}
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := ts.MCPServer(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, opts).
		Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, func() []*mcp.ElicitParams {
		mu.Lock()
		defer mu.Unlock()
		return append([]*mcp.ElicitParams(nil), asked...)
	}
}

// readLedger calls read_skill for "ledger" and returns the text and the error flag.
func readLedger(t *testing.T, cs *mcp.ClientSession, params *mcp.CallToolParams) (string, bool) {
	t.Helper()
	if params == nil {
		params = &mcp.CallToolParams{Name: tools.ReadSkill, Arguments: map[string]any{"name": "ledger"}}
	}
	res, err := cs.CallTool(t.Context(), params)
	if err != nil {
		t.Fatalf("read_skill: %v", err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// TestElicitApproval: read_skill asks the user through MCP elicitation, in both
// protocol eras (an elicitation request during the call before 2026-07-28, an input
// request of the result after), reads the skill after an approval, and refuses with
// a clear message when the user declines or dismisses the question; a client without
// elicitation gets an answer saying the skill cannot be approved in this session.
func TestElicitApproval(t *testing.T) {
	t.Parallel()
	accept := func(v any) func() *mcp.ElicitResult {
		return func() *mcp.ElicitResult {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": v}}
		}
	}
	action := func(a string) func() *mcp.ElicitResult {
		return func() *mcp.ElicitResult { return &mcp.ElicitResult{Action: a} }
	}
	for _, version := range []string{"2025-11-25", "2025-06-18", ""} {
		for _, tc := range []struct {
			name   string
			answer func() *mcp.ElicitResult
			read   bool
			want   string
		}{
			{"accepted", accept(true), true, "Run the export."},
			{"accepted unticked", accept(false), false, "did not approve the skill"},
			{"declined", action("decline"), false, "did not approve the skill"},
			{"dismissed", action("cancel"), false, "did not approve the skill"},
			{"no elicitation", nil, false, "no way to ask the user in this session"},
		} {
			t.Run(version+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				full := fullSite(t)
				cs, asked := elicitSession(t, full, version, tc.answer)
				text, isErr := readLedger(t, cs, nil)
				if isErr == tc.read || !strings.Contains(text, tc.want) {
					t.Fatalf("isError=%v, text:\n%s", isErr, text)
				}
				if strings.Contains(text, "then call read_skill again") {
					t.Errorf("the model is told to retry:\n%s", text)
				}
				qs := asked()
				if tc.answer == nil {
					if len(qs) != 0 {
						t.Errorf("%d questions to a client without elicitation", len(qs))
					}
					return
				}
				if len(qs) != 1 {
					t.Fatalf("%d questions, want 1", len(qs))
				}
				q := qs[0]
				digest := agentskills.Digest([]byte(ledgerMD))
				for _, want := range []string{digest, "the site " + full.URL, "<untrusted-skill", "Skill: ledger", "Export the ledger."} {
					if !strings.Contains(q.Message, want) {
						t.Errorf("question lacks %q:\n%s", want, q.Message)
					}
				}
				// The published description is inside the fence, never before it.
				if i, j := strings.Index(q.Message, "<untrusted-skill"), strings.Index(q.Message, "IGNORE PREVIOUS"); j >= 0 && j < i {
					t.Errorf("published text outside the fence:\n%s", q.Message)
				}
				schema, _ := q.RequestedSchema.(map[string]any)
				props, _ := schema["properties"].(map[string]any)
				if p, _ := props["approve"].(map[string]any); p["type"] != "boolean" {
					t.Errorf("requested schema %v, want a boolean approve", q.RequestedSchema)
				}
				// An approval holds for this content: reading again asks nothing. A
				// refusal is not remembered: reading again asks again.
				text, isErr = readLedger(t, cs, nil)
				if isErr == tc.read {
					t.Errorf("second read: isError=%v:\n%s", isErr, text)
				}
				want := 1
				if !tc.read {
					want = 2
				}
				if n := len(asked()); n != want {
					t.Errorf("%d questions after two reads, want %d", n, want)
				}
			})
		}
	}
}

// TestElicitApprovalForgedAnswer: a call that brings an answer to a question the
// server never asked (a request state it did not issue) reads nothing.
func TestElicitApprovalForgedAnswer(t *testing.T) {
	t.Parallel()
	full := fullSite(t)
	cs, asked := elicitSession(t, full, "", func() *mcp.ElicitResult { return &mcp.ElicitResult{Action: "decline"} })
	text, isErr := readLedger(t, cs, &mcp.CallToolParams{
		Name: tools.ReadSkill, Arguments: map[string]any{"name": "ledger"},
		InputResponses: mcp.InputResponseMap{"approve": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}},
		RequestState:   "approve-skill:0000",
	})
	if !isErr || strings.Contains(text, "Run the export.") {
		t.Fatalf("forged answer: isError=%v:\n%s", isErr, text)
	}
	if n := len(asked()); n != 0 {
		t.Errorf("%d questions", n)
	}
}

// TestElicitApprovalOverHTTP: over Streamable HTTP (wellknown serve --http), in both
// protocol eras, the question reaches the client and an approval lets it read the
// skill.
func TestElicitApprovalOverHTTP(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2025-11-25", ""} {
		t.Run("protocol "+version, func(t *testing.T) {
			t.Parallel()
			full := fullSite(t)
			cat := catalog.New(&catalog.Options{Approvals: catalog.NewMemoryApprovals()})
			ts := tools.New(full.client, cat, &tools.Options{Approve: tools.ElicitApproval})
			if err := ts.AddSite(t.Context(), full.URL); err != nil {
				t.Fatal(err)
			}
			ln, err := tools.ListenLoopback("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			served := make(chan error, 1)
			go func() {
				served <- tools.ServeMCPHTTP(ctx, ln, ts.MCPServer(&mcp.Implementation{Name: "test", Version: "1"}, nil))
			}()
			t.Cleanup(func() { cancel(); <-served })
			var asked atomic.Int64
			client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked.Add(1)
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
				},
			})
			cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp"},
				&mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			text, isErr := readLedger(t, cs, nil)
			if isErr || !strings.Contains(text, "Run the export.") || asked.Load() != 1 {
				t.Errorf("asked %d times, isError=%v, text:\n%s", asked.Load(), isErr, text)
			}
		})
	}
}
