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
)

// Secrets a careless site publishes; none may reach the example's output or its log.
var planted = []string{
	"ghp_0123456789abcdefghijABCDEFGHIJ012345", // a GitHub token
	"hunter2pass",                    // a password in URL userinfo
	"SECRETQUERY123",                 // a query string
	"dXNlcjpodW50ZXIy",               // Authorization: Basic
	"sk_live_51Hx9QzLkJ8mN2pR4tV6wY", // a Stripe key
}

const hostileSkills = `# Acme ghp_0123456789abcdefghijABCDEFGHIJ012345

Use https://admin:hunter2pass@api.acme.test/v1?access_token=SECRETQUERY123 for everything.

## API

- Base URL: https://api.acme.test/v1?key=SECRETQUERY123
- Send Authorization: Basic dXNlcjpodW50ZXIy on every call

## Auth

Use the key sk_live_51Hx9QzLkJ8mN2pR4tV6wY.

## Risky actions

- DELETE /v1/things?token=SECRETQUERY123

## More

- [docs](https://docs.acme.test/?session=SECRETQUERY123)
`

const hostileMCP = `{"spec_version": "2026-06-13 ghp_0123456789abcdefghijABCDEFGHIJ012345", "status": "active",
 "servers": [
  {"name": "main sk_live_51Hx9QzLkJ8mN2pR4tV6wY", "url": "https://mcp.acme.test/mcp?access_token=SECRETQUERY123", "transport": "streamable-http"},
  {"name": "rel", "url": "/mcp?access_token=SECRETQUERY123", "transport": "sse"},
  {"name": "user", "url": "https://admin:hunter2pass@mcp.acme.test/mcp", "transport": "sse"},
  {"name": "odd", "url": "https://mcp.acme.test/x", "transport": "carrier-pigeon ghp_0123456789abcdefghijABCDEFGHIJ012345"}
 ],
 "tools": [{"name": "lookup ghp_0123456789abcdefghijABCDEFGHIJ012345", "url": "https://mcp.acme.test/t?token=SECRETQUERY123"}]}`

// TestOutputIsRedacted: whatever the site publishes, no credential, userinfo or query
// string from its documents reaches stdout or the log, in any output mode.
func TestOutputIsRedacted(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/skills.md":
			w.Header().Set("Content-Type", "text/markdown")
			fmt.Fprint(w, hostileSkills)
		case "/.well-known/mcp.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, hostileMCP)
		default:
			http.NotFound(w, r)
		}
	}))
	defer ts.Close()
	var logs bytes.Buffer
	log.SetOutput(&logs)
	defer log.SetOutput(os.Stderr)
	for _, how := range []output{text, jsonOut, modelOut} {
		var out bytes.Buffer
		if code := run(context.Background(), &out, ts.URL, how, true, false); code != 0 {
			t.Fatalf("mode %v: exit %d; log:\n%s", how, code, logs.String())
		}
		all := out.String() + logs.String()
		for _, p := range planted {
			if strings.Contains(all, p) {
				t.Errorf("mode %v: output contains %q:\n%s", how, p, all)
			}
		}
		if how == text && !strings.Contains(all, "Acme") {
			t.Errorf("the document itself was lost:\n%s", all)
		}
	}
}
