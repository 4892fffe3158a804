package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// maxInitBytes bounds what each of the module's packages allocates while the program
// starts: wellknown is started often, and a package builds its tables and compiles
// its regular expressions (and JSON Schemas) when first used, not when linked.
const maxInitBytes = 64 << 10

// TestColdStartInit runs the built binary with GODEBUG=inittrace=1 and checks what
// each package of the module allocates in its initialisation. Bytes, not time: the
// count is the same on a loaded machine.
func TestColdStartInit(t *testing.T) {
	t.Parallel()
	bin := builtBinary(t)
	cmd := exec.CommandContext(t.Context(), bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	seen := 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init <package> @<t> ms, <clock> ms clock, <bytes> bytes, <allocs> allocs
		f := strings.Fields(sc.Text())
		if len(f) < 9 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		seen++
		if f[1] != "github.com/wellknown-dev/discovery" && !strings.HasPrefix(f[1], "github.com/wellknown-dev/discovery/") {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		if n > maxInitBytes {
			t.Errorf("package %s allocates %d bytes at start, over %d: build what it needs on first use", f[1], n, maxInitBytes)
		}
	}
	if seen == 0 {
		t.Fatalf("no inittrace lines in:\n%s", stderr.String())
	}
}
