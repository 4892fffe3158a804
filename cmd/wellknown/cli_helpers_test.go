package main

import (
	"bytes"
	"encoding/pem"
	"errors"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery/internal/demo"
)

// cliRun is one run of the binary: its outputs and exit status.
type cliRun struct {
	code           int
	stdout, stderr string
}

func (r cliRun) String() string {
	return "exit " + strconv.Itoa(r.code) + "\n--- stdout\n" + r.stdout + "--- stderr\n" + r.stderr
}

// cliEnv is a clean environment for the binary: no terminal variables leaking from
// the test run's, a private HOME, and extra.
func cliEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	env := []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color"}
	return append(env, extra...)
}

// runCLI runs the binary with args in the package folder, with no terminal, stdin from
// stdin, and env (cliEnv when nil).
func runCLI(t *testing.T, env []string, stdin string, args ...string) cliRun {
	t.Helper()
	if env == nil {
		env = cliEnv(t)
	}
	cmd := exec.Command(builtBinary(t), args...)
	cmd.Env = env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &errOut, strings.NewReader(stdin)
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("wellknown %s: still running after 2 minutes", strings.Join(args, " "))
	}
	r := cliRun{stdout: out.String(), stderr: errOut.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("wellknown %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// tlsOrigin starts a loopback TLS server with h and returns it with the path of a PEM
// file holding its certificate (httptest's servers share one), for WELLKNOWN_CA_FILE.
func tlsOrigin(t *testing.T, h http.Handler) (*httptest.Server, string) {
	t.Helper()
	ts := httptest.NewUnstartedServer(h)
	ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	ts.StartTLS()
	t.Cleanup(ts.Close)
	p := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return ts, p
}

// docs serves fixed documents by path.
func docs(m map[string]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := m[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		switch {
		case strings.HasSuffix(r.URL.Path, ".json"):
			w.Header().Set("Content-Type", "application/json")
		case strings.HasSuffix(r.URL.Path, ".gz"):
			w.Header().Set("Content-Type", "application/gzip")
		default:
			w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		}
		_, _ = io.WriteString(w, body)
	})
}

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// demoSkillsFS is the demo's skills folder.
func demoSkillsFS(t *testing.T) fs.FS {
	t.Helper()
	return demo.Skills()
}
