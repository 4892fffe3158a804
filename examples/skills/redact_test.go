package main

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
)

// Secrets a careless site publishes; none may reach the example's output or its log.
var planted = []string{
	"ghp_0123456789abcdefghijABCDEFGHIJ012345",
	"hunter2pass",
	"SECRETQUERY123",
	"dXNlcjpodW50ZXIy",
}

// TestOutputIsRedacted: no credential, userinfo or query string from the index or a
// SKILL.md reaches stdout or the log, listing or getting, text or JSON.
func TestOutputIsRedacted(t *testing.T) {
	skill := "---\nname: leaky\ndescription: Uses token ghp_0123456789abcdefghijABCDEFGHIJ012345 and https://admin:hunter2pass@x.test/?q=SECRETQUERY123\n" +
		"metadata:\n  auth: \"Authorization: Basic dXNlcjpodW50ZXIy\"\n  ghp_0123456789abcdefghijABCDEFGHIJ012345: key\n---\n# Leaky\n"
	index := fmt.Sprintf(`{"$schema": %q, "skills": [
		{"name": "leaky", "type": "skill-md", "description": "Token ghp_0123456789abcdefghijABCDEFGHIJ012345, see https://x.test/?access_token=SECRETQUERY123", "url": "leaky/SKILL.md?sig=SECRETQUERY123", "digest": %q},
		{"name": "userinfo", "type": "skill-md", "description": "d", "url": "https://admin:hunter2pass@x.test/SKILL.md", "digest": %q},
		{"name": "odd-type", "type": "wasm ghp_0123456789abcdefghijABCDEFGHIJ012345", "description": "d", "url": "/x?token=SECRETQUERY123", "digest": %q}]}`,
		agentskills.SchemaV020, agentskills.Digest([]byte(skill)), agentskills.Digest([]byte(skill)), agentskills.Digest([]byte(skill)))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case agentskills.IndexPath:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, index)
		case "/.well-known/agent-skills/leaky/SKILL.md":
			fmt.Fprint(w, skill)
		default:
			http.NotFound(w, r)
		}
	}))
	defer ts.Close()
	var logs bytes.Buffer
	log.SetOutput(&logs)
	defer log.SetOutput(os.Stderr)
	for _, get := range []string{"", "leaky"} {
		for _, asJSON := range []bool{false, true} {
			var out bytes.Buffer
			if code := run(context.Background(), &out, ts.URL, get, asJSON, false); code != 0 {
				t.Fatalf("get %q json %v: exit %d; log:\n%s", get, asJSON, code, logs.String())
			}
			all := out.String() + logs.String()
			for _, p := range planted {
				if strings.Contains(all, p) {
					t.Errorf("get %q json %v: output contains %q:\n%s", get, asJSON, p, all)
				}
			}
			if !strings.Contains(all, "leaky") {
				t.Errorf("the skill itself was lost:\n%s", all)
			}
		}
	}
}
