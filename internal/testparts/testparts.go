// Package testparts lets a test that needs a part kept outside this repository (the
// shared corpus and specifications beside the checkout, the interop parts from npm,
// redis-server) skip without it, visibly: go test ./... prints nothing of a passing
// package's output, -v aside, so a bare t.Skip hides from the reader that coverage
// was lost. [Skip] also writes one line naming the missing part and how to install it
// to the terminal, and turns the skip into a failure where the part is required (in
// CI).
package testparts

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Part is something a test needs that this repository does not hold.
type Part struct {
	Name    string // what is missing, in the reader's words
	Install string // how to get it
	Require string // the environment variable that, set to anything but "", makes a missing part a failure
}

// The parts the module's tests use.
var (
	// Shared is the folder ../shared beside the checkout: real documents published by
	// others (corpus/, never copied into this repository) and upstream specifications
	// (specs/upstream/).
	Shared = Part{
		Name:    "the shared corpus and specifications (../shared beside the checkout)",
		Install: "put the project's shared folder (corpus/, specs/) next to this repository as ../shared",
		Require: "DISCOVERY_REQUIRE_SHARED",
	}
	// Interop is the TypeScript MCP SDK and the MCP conformance suite, from npm.
	Interop = Part{
		Name:    "the interop parts (the TypeScript MCP SDK and the conformance suite, from npm)",
		Install: "run `bash interop/setup.sh`",
		Require: "DISCOVERY_REQUIRE_INTEROP",
	}
	// Redis is a redis-server binary on PATH.
	Redis = Part{
		Name:    "redis-server on PATH",
		Install: "apt-get install -y redis-server",
		Require: "DISCOVERY_REQUIRE_REDIS",
	}
)

// announced records the parts already announced by this test binary: one line per
// part and package is enough.
var announced sync.Map

// announce opens where the one line goes: the terminal go test runs on, which shows
// it even when go test keeps the package's output to itself; standard error without
// one (a single package's tests, -v, or CI's log).
var announce = func() (io.WriteCloser, error) {
	if f, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		return f, nil
	}
	return nopCloser{os.Stderr}, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// Skip skips t because p is missing (why says how that was found, such as the error
// of a stat), after writing once per part and test binary a line naming the package, the test, the part
// and how to install it. When p's Require variable is set, t fails instead.
func Skip(t testing.TB, p Part, why string) {
	t.Helper()
	msg := fmt.Sprintf("needs %s, missing here (%s); to install: %s", p.Name, why, p.Install)
	if p.Require != "" && os.Getenv(p.Require) != "" {
		t.Fatalf("%s; %s is set, so this is a failure, not a skip", msg, p.Require)
		return
	}
	if _, done := announced.LoadOrStore(p.Name, true); !done {
		if w, err := announce(); err == nil {
			pkg := "."
			if wd, err := os.Getwd(); err == nil {
				pkg = filepath.Base(wd)
			}
			fmt.Fprintf(w, "--- SKIP in %s: %s %s\n", pkg, t.Name(), msg)
			_ = w.Close()
		}
	}
	t.Skip(msg)
}
