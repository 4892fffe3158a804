package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// wellknownBin is the wellknown command built once for the package's tests that drive
// the real binary (peak memory, kill and resume). Tests in this package may share it;
// it is "" when the build failed, and buildErr says why.
var (
	wellknownBin string
	buildErr     error
)

// TestMain builds wellknownBin (without -race: the binary's memory is measured), runs
// the tests, and removes the build.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wellknown-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "TestMain:", err)
		os.Exit(1)
	}
	bin := filepath.Join(dir, "wellknown")
	// go test puts its own GOROOT/bin first on PATH: this is the go that runs the tests.
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		buildErr = fmt.Errorf("go build: %v\n%s", err, out)
	} else {
		wellknownBin = bin
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// builtBinary returns wellknownBin, failing t when the build failed.
func builtBinary(t *testing.T) string {
	t.Helper()
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return wellknownBin
}
