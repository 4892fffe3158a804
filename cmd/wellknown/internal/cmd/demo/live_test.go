package demo_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/root"
)

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// env is a clean environment: a private HOME, nothing else.
func env(t *testing.T) func(string) string {
	home := t.TempDir()
	return func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
}

// mcpSession is what an MCP host sends `wellknown serve` on stdin: initialize, then a
// list_skills call.
const mcpSession = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_skills","arguments":{}}}
`

// TestDemoServe: `wellknown demo --serve` keeps a demo origin up on loopback and
// prints commands to try; each of them, run as printed through the CLI's root
// command, exits 0 with the output it should have. Interrupting the demo stops the
// server and removes the folder skills install wrote into.
func TestDemoServe(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	var out, errOut syncBuffer
	a := cmdutil.New(strings.NewReader(""), &out, &errOut, env(t))
	cmd := root.New(a)
	cmd.SetArgs([]string{"demo", "--serve"})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("demo --serve: %v\n%s", err, errOut.String())
			}
		case <-time.After(time.Minute):
			t.Errorf("demo --serve still running a minute after it was interrupted")
		}
	}
	t.Cleanup(stop)

	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(out.String(), "removed when the demo stops") {
		select {
		case err := <-done:
			stopped = true
			t.Fatalf("demo --serve ended: %v\n%s\n%s", err, out.String(), errOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("demo --serve printed no commands:\n%s\n%s", out.String(), errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	var commands [][]string
	for _, line := range strings.Split(out.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "  wellknown "); ok {
			commands = append(commands, strings.Fields(rest))
		}
	}
	want := map[string]string{ // what each command's output shows
		"discover":              "Demo Tracker",
		"discover --structured": "server demo-skills",
		"skills list":           "invoice-check",
		"skills install":        "installed",
		"skills update":         "unchanged",
		"mcp skills":            "verified: true",
		"lint":                  "no problems",
		"serve":                 "invoice-check",
	}
	seen := map[string]bool{}
	var dir string
	for _, args := range commands {
		key := args[0]
		switch {
		case args[0] == "skills" || args[0] == "mcp":
			key += " " + args[1]
		case len(args) > 1 && args[1] == "--structured":
			key += " --structured"
		}
		if args[0] == "skills" && args[1] == "install" {
			dir = args[len(args)-1]
		}
		stdin := ""
		if key == "serve" {
			stdin = mcpSession
		}
		var stdout, stderr bytes.Buffer
		code := root.Run(args, strings.NewReader(stdin), &stdout, &stderr, env(t))
		if code != 0 || !strings.Contains(stdout.String()+stderr.String(), want[key]) {
			t.Errorf("wellknown %s: exit %d, want 0 and %q in:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want[key], stdout.String(), stderr.String())
		}
		seen[key] = true
	}
	for key := range want {
		if !seen[key] {
			t.Errorf("no %q command printed:\n%s", key, out.String())
		}
	}
	if dir == "" {
		t.Fatalf("no skills install --dir printed")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("skills install folder: %v", err)
	}
	stop()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s left behind after the demo stopped (%v)", dir, err)
	}
}

// TestDemoServeFlags: --serve takes a loopback --addr only, and does not go with the
// discovery flags; --addr goes with --serve.
func TestDemoServeFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"demo", "--serve", "--addr", "0.0.0.0:0"},
		{"demo", "--serve", "--json"},
		{"demo", "--addr", "127.0.0.1:0"},
	} {
		var stdout, stderr bytes.Buffer
		if code := root.Run(args, strings.NewReader(""), &stdout, &stderr, env(t)); code != cmdutil.ExitUsage {
			t.Errorf("wellknown %s: exit %d, want %d:\n%s", strings.Join(args, " "), code, cmdutil.ExitUsage, stderr.String())
		}
	}
}
