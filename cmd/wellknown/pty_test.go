package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptyOutput collects what the binary writes to a pseudo-terminal.
type ptyOutput struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *ptyOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

func (o *ptyOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// waitFor polls out until it holds s, or fails t after 30 seconds.
func (o *ptyOutput) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(o.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("terminal never showed %q; it shows:\n%q", s, o.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestConsentPromptOnTerminal: on a terminal the consent request is a y/N prompt on
// stderr, and "y" grants it.
func TestConsentPromptOnTerminal(t *testing.T) {
	t.Parallel()
	a, _, ca := redirectingOrigin(t)
	cmd := exec.Command(builtBinary(t), "discover", a.URL)
	cmd.Env = cliEnv(t, caFileEnv+"="+ca)
	tty, out := startOnPTY(t, cmd)
	out.waitFor(t, "Allow? [y/N]")
	if s := out.String(); !strings.Contains(s, "redirect") {
		t.Errorf("prompt does not say what is asked:\n%q", s)
	}
	if _, err := tty.Write([]byte("y\r")); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("discover after \"y\": %v\n%q", err, out.String())
	}
	out.waitFor(t, "Moved Guide")
}

// TestConsentPromptDenied: on a terminal, Enter (no answer) denies.
func TestConsentPromptDenied(t *testing.T) {
	t.Parallel()
	a, _, ca := redirectingOrigin(t)
	cmd := exec.Command(builtBinary(t), "discover", a.URL)
	cmd.Env = cliEnv(t, caFileEnv+"="+ca)
	tty, out := startOnPTY(t, cmd)
	out.waitFor(t, "Allow? [y/N]")
	if _, err := tty.Write([]byte("\r")); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	time.Sleep(100 * time.Millisecond)
	if s := out.String(); strings.Contains(s, "Moved Guide") || !strings.Contains(s, "denied") {
		t.Errorf("an empty answer must deny:\n%q", s)
	}
}

// runOnTerminal runs the binary with stdout on a pseudo-terminal (stderr and stdin not),
// and returns what the terminal showed.
func runOnTerminal(t *testing.T, env []string, args ...string) string {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	cmd := exec.Command(builtBinary(t), args...)
	cmd.Env = env
	var errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = tty, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	var out ptyOutput
	done := make(chan struct{})
	go func() { _, _ = io.Copy(&out, ptmx); close(done) }()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("wellknown %v: %v\n%s", args, err, errOut.String())
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	return out.String()
}

func TestColorOnTerminalOnly(t *testing.T) {
	t.Parallel()
	if got := runOnTerminal(t, cliEnv(t), "demo"); !strings.Contains(got, "\x1b[1m") {
		t.Errorf("no colour on a terminal:\n%q", got)
	}
	if got := runOnTerminal(t, cliEnv(t, "NO_COLOR=1"), "demo"); strings.Contains(got, "\x1b[") {
		t.Errorf("colour on a terminal with NO_COLOR set:\n%q", got)
	}
	if r := runCLI(t, nil, "", "demo"); strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("colour without a terminal:\n%q", r.stdout)
	}
	// lint colours its severities the same way.
	if got := runOnTerminal(t, cliEnv(t), "lint", "testdata/lint/warn/skills.md"); !strings.Contains(got, "\x1b[33mwarning") {
		t.Errorf("lint: no colour on a terminal:\n%q", got)
	}
}

// TERM=dumb gets no spinner redraws, even on a terminal.
func TestDumbTerminalNoSpinner(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.ts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // slow enough for the spinner to draw
	})
	cmd := exec.Command(builtBinary(t), "skills", "list", s.ts.URL)
	cmd.Env = cliEnv(t, caFileEnv+"="+caFile(t, s.ts), "TERM=dumb")
	out := runOnPTY(t, cmd, 1500)
	if strings.Contains(out, "\x1b[K") {
		t.Errorf("TERM=dumb: spinner redraws on the terminal: %q", out)
	}
}

// startOnPTY starts cmd with stdin, stdout and stderr on a new terminal, closed when
// the test ends, and returns the terminal and what it shows.
func startOnPTY(t *testing.T, cmd *exec.Cmd) (*os.File, *ptyOutput) {
	t.Helper()
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	out := &ptyOutput{}
	go func() { _, _ = io.Copy(out, tty) }()
	return tty, out
}

// runOnPTY runs cmd with stdin, stdout and stderr on a pseudo-terminal for ms
// milliseconds, then kills it, and returns what the terminal showed.
func runOnPTY(t *testing.T, cmd *exec.Cmd, ms int) string {
	t.Helper()
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var out ptyOutput
	done := make(chan struct{})
	go func() { _, _ = io.Copy(&out, tty); close(done) }()
	time.Sleep(time.Duration(ms) * time.Millisecond)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	tty.Close()
	<-done
	return out.String()
}

// TestRedirectAskedOnce: when the guide and the skills index redirect to the same other
// origin, the person is asked once, and the answer covers both.
func TestRedirectAskedOnce(t *testing.T) {
	t.Parallel()
	b, ca := tlsOrigin(t, docs(map[string]string{"/.well-known/skills.md": "# Moved Guide\n\nServed by the other origin.\n"}))
	a, _ := tlsOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, b.URL+r.URL.Path, http.StatusFound) // every path: the guide and the index
	}))
	cmd := exec.Command(builtBinary(t), "discover", a.URL)
	cmd.Env = cliEnv(t, caFileEnv+"="+ca)
	tty, out := startOnPTY(t, cmd)
	out.waitFor(t, "Allow? [y/N]")
	if _, err := tty.Write([]byte("y\r")); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("discover after \"y\": %v\n%q", err, out.String())
	}
	out.waitFor(t, "Moved Guide")
	if n := strings.Count(out.String(), "Allow? [y/N]"); n != 1 {
		t.Errorf("asked %d times, want once:\n%q", n, out.String())
	}
}
