//go:build unix

package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDemoServeStopsOnSignals: `wellknown demo --serve` stopped by SIGINT (Ctrl-C),
// SIGTERM (kill, a service manager) or SIGHUP (its terminal closed) stops its origin,
// removes its temporary folder and exits 0, instead of dying with the folder left
// behind.
func TestDemoServeStopsOnSignals(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			cmd := exec.Command(builtBinary(t), "demo", "--serve")
			cmd.Env = cliEnv(t, "TMPDIR="+tmp)
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			// The folder is named on the last line of what the demo prints at start.
			dirc := make(chan string, 1)
			go func() {
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					if rest, ok := strings.CutPrefix(sc.Text(), "(skills install writes into "); ok {
						dir, _, _ := strings.Cut(rest, ", removed when the demo stops")
						dirc <- dir
						break
					}
				}
				_, _ = io.Copy(io.Discard, stdout)
				done <- cmd.Wait()
			}()
			var dir string
			select {
			case dir = <-dirc:
			case err := <-done:
				t.Fatalf("demo --serve exited before printing its folder: %v\n%s", err, errOut.String())
			case <-time.After(2 * time.Minute):
				_ = cmd.Process.Kill()
				t.Fatalf("demo --serve printed no folder in 2 minutes\n%s", errOut.String())
			}
			if _, err := os.Stat(dir); err != nil || !strings.HasPrefix(dir, tmp) {
				t.Fatalf("demo folder %q (want one under %s): %v", dir, tmp, err)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err = <-done:
			case <-time.After(2 * time.Minute):
				_ = cmd.Process.Kill()
				t.Fatalf("demo --serve still running 2 minutes after %s\n%s", sig, errOut.String())
			}
			if err != nil {
				t.Errorf("after %s: %v, want exit 0\n%s", sig, err, errOut.String())
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("after %s: the demo folder %s is still there (%v)", sig, dir, err)
			}
		})
	}
}
