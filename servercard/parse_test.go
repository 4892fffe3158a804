package servercard_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/internal/golden"
	"github.com/wellknown-dev/discovery/servercard"
)

const cardURL = "https://weather.example.com/mcp/server-card"

type outcome struct {
	Card   *servercard.Card `json:",omitempty"`
	Error  string           `json:",omitempty"`
	Strict []string         // Strict mode's diagnostics, or its error
}

func strictSays(data []byte) []string {
	c, err := servercard.Parse(data, servercard.Options{URL: cardURL, Mode: servercard.Strict})
	var ve *servercard.ValidationError
	switch {
	case errors.As(err, &ve):
		return diagStrings(ve.Diagnostics)
	case err != nil:
		return []string{err.Error()}
	}
	return diagStrings(c.Diagnostics)
}

func diagStrings(ds []servercard.Diagnostic) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return out
}

// TestGolden parses every testdata/*.json in both modes and compares the outcome with
// testdata/<case>.golden.
func TestGolden(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var o outcome
			o.Card, err = servercard.Parse(data, servercard.Options{URL: cardURL})
			if err != nil {
				o.Error = err.Error()
			}
			o.Strict = strictSays(data)
			got, err := json.MarshalIndent(o, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, strings.TrimSuffix(f, ".json")+".golden", append(got, '\n'))
		})
	}
}

func hasDiag(ds []servercard.Diagnostic, sev servercard.Severity, code, where string) bool {
	for _, d := range ds {
		if d.Severity == sev && d.Code == code && d.Where == where {
			return true
		}
	}
	return false
}

const minimal = `"$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json", "name": "com.example/x", "version": "1.0.0", "description": "X."`

// TestParseErrors: documents that are no card.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{`[]`, `"card"`, `42`, `true`, `null`, ``, `{`, `<!doctype html>`, `{} {}`, strings.Repeat("[", 100000)} {
		for _, mode := range []servercard.Mode{servercard.Lenient, servercard.Strict} {
			if _, err := servercard.Parse([]byte(doc), servercard.Options{Mode: mode}); !errors.Is(err, servercard.ErrNotCard) {
				t.Errorf("Parse(%.20q, mode %d) error = %v, want ErrNotCard", doc, mode, err)
			}
		}
	}
	if _, err := servercard.Parse([]byte(`{}`), servercard.Options{URL: "not/absolute"}); err == nil {
		t.Error("relative Options.URL accepted")
	}
}

// TestStrictViolations: what Lenient mode reads with a warning, Strict mode rejects
// with an error at the same pointer and of the same code.
func TestStrictViolations(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("d", servercard.MaxDescription+1)
	tests := []struct {
		name, doc, code, where string
	}{
		{"other schema version", `{"$schema": "https://static.modelcontextprotocol.io/schemas/2025-11-25/server-card.schema.json", "name": "com.example/x", "version": "1", "description": "X."}`, "schema-version", "/$schema"},
		{"registry schema", `{"$schema": "https://static.modelcontextprotocol.io/schemas/v1/server.schema.json", "name": "com.example/x", "version": "1", "description": "X."}`, "schema-version", "/$schema"},
		{"no schema", `{"name": "com.example/x", "version": "1", "description": "X."}`, "schema-version", ""},
		{"schema not a string", `{"$schema": 1, "name": "com.example/x", "version": "1", "description": "X."}`, "type-mismatch", "/$schema"},
		{"description too long", `{` + minimal + `, "description": "` + long + `"}`, "description", "/description"},
		{"no name", `{"$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json", "version": "1", "description": "X."}`, "name", ""},
		{"name without slash", `{` + minimal + `, "name": "weather"}`, "name", "/name"},
		{"name with two slashes", `{` + minimal + `, "name": "a/b/c"}`, "name", "/name"},
		{"version range", `{` + minimal + `, "version": ">=1.2.3"}`, "version", "/version"},
		{"version wildcard", `{` + minimal + `, "version": "1.x"}`, "version", "/version"},
		{"transport alias", `{` + minimal + `, "remotes": [{"type": "http", "url": "https://a.example/mcp"}]}`, "transport", "/remotes/0/type"},
		{"undeclared variable", `{` + minimal + `, "remotes": [{"type": "sse", "url": "https://{t}.a.example/sse"}]}`, "undeclared-variable", "/remotes/0/url"},
		{"relaxed JSON", `{` + minimal + `,}`, "json", ""},
		{"schema only: website not a URI", `{` + minimal + `, "repository": {"url": "not a uri", "source": "github"}}`, "schema", "/repository/url"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := servercard.Parse([]byte(tc.doc), servercard.Options{})
			if err != nil {
				t.Fatalf("Lenient: %v", err)
			}
			if tc.code != "schema" && !hasDiag(c.Diagnostics, servercard.Warning, tc.code, tc.where) {
				t.Errorf("Lenient: no warning %q at %q in %v", tc.code, tc.where, c.Diagnostics)
			}
			_, err = servercard.Parse([]byte(tc.doc), servercard.Options{Mode: servercard.Strict})
			var ve *servercard.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, servercard.ErrInvalid) || !hasDiag(ve.Diagnostics, servercard.Error, tc.code, tc.where) {
				t.Fatalf("Strict: error = %v, want %q at %q", err, tc.code, tc.where)
			}
		})
	}
}

// TestRemoteLeftOut: remotes that cannot be used are left out in both modes.
func TestRemoteLeftOut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, remote, code, where string
	}{
		{"unknown transport", `{"type": "websocket", "url": "wss://a.example/ws"}`, "transport", "/remotes/0/type"},
		{"stdio", `{"type": "stdio", "url": "https://a.example/x"}`, "transport", "/remotes/0/type"},
		{"no type", `{"url": "https://a.example/x"}`, "transport", "/remotes/0"},
		{"no url", `{"type": "sse"}`, "url", "/remotes/0"},
		{"plain http", `{"type": "sse", "url": "http://a.example/sse"}`, "url", "/remotes/0/url"},
		{"javascript", `{"type": "sse", "url": "javascript:alert(1)"}`, "url", "/remotes/0/url"},
		{"userinfo", `{"type": "sse", "url": "https://u:p@a.example/sse"}`, "url", "/remotes/0/url"},
		{"template userinfo", `{"type": "sse", "url": "https://{user}@a.example/sse", "variables": {"user": {}}}`, "url", "/remotes/0/url"},
		{"private address", `{"type": "sse", "url": "https://172.16.0.1/sse"}`, "url", "/remotes/0/url"},
		{"localhost", `{"type": "sse", "url": "http://localhost:3000/sse"}`, "url", "/remotes/0/url"},
		{"unclosed brace", `{"type": "sse", "url": "https://{a.example/sse"}`, "url", "/remotes/0/url"},
		{"stray brace", `{"type": "sse", "url": "https://a.example/}"}`, "url", "/remotes/0/url"},
		{"bad variable name", `{"type": "sse", "url": "https://{a-b}.example/"}`, "url", "/remotes/0/url"},
		{"template other scheme", `{"type": "sse", "url": "ftp://{h}/x", "variables": {"h": {}}}`, "url", "/remotes/0/url"},
		{"not an object", `7`, "remote", "/remotes/0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc := []byte(`{` + minimal + `, "remotes": [` + tc.remote + `]}`)
			c, err := servercard.Parse(doc, servercard.Options{URL: cardURL})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Remotes) != 0 || !hasDiag(c.Diagnostics, servercard.Error, tc.code, tc.where) {
				t.Errorf("remotes %+v, diagnostics %v", c.Remotes, c.Diagnostics)
			}
			if _, err := servercard.Parse(doc, servercard.Options{URL: cardURL, Mode: servercard.Strict}); !errors.Is(err, servercard.ErrInvalid) {
				t.Errorf("Strict: error = %v", err)
			}
		})
	}
}

// TestLocalCard: a card on this machine may point at this machine.
func TestLocalCard(t *testing.T) {
	t.Parallel()
	doc := []byte(`{` + minimal + `, "remotes": [{"type": "streamable-http", "url": "http://127.0.0.1:3000/mcp"}]}`)
	c, err := servercard.Parse(doc, servercard.Options{URL: "http://localhost:3000/mcp/server-card", Mode: servercard.Strict})
	if err != nil || len(c.Remotes) != 1 || !c.Remotes[0].Connectable() {
		t.Fatalf("%v %+v", err, c)
	}
}

// TestHostile: odd inputs stay bounded and messages do not repeat secrets or huge
// values.
func TestHostile(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", 256<<10)
	var remotes []string
	for i := range 10000 {
		remotes = append(remotes, fmt.Sprintf(`{"type": "sse", "url": "https://a.example/%d"}`, i))
	}
	docs := []string{
		`{"name": "` + huge + `", "version": "` + huge + `", "description": "` + huge + `", "$schema": "` + huge + `"}`,
		`{` + minimal + `, "remotes": [` + strings.Join(remotes, ",") + `]}`,
		`{` + minimal + `, "remotes": [{"type": "sse", "url": "https://{` + huge + `}.a.example/"}]}`,
		`{` + minimal + `, "remotes": [{"type": "sse", "url": "https://admin:hunter2-secret@a.example/?key=sk-abcdefghijklmnopqrstuvwx"}]}`,
	}
	for i, doc := range docs {
		for _, mode := range []servercard.Mode{servercard.Lenient, servercard.Strict} {
			c, err := servercard.Parse([]byte(doc), servercard.Options{Mode: mode})
			var ds []servercard.Diagnostic
			var ve *servercard.ValidationError
			switch {
			case errors.As(err, &ve):
				ds = ve.Diagnostics
			case err != nil:
				t.Fatalf("doc %d: %v", i, err)
			default:
				ds = c.Diagnostics
				if len(c.Remotes) > 64 {
					t.Errorf("doc %d: %d remotes", i, len(c.Remotes))
				}
				if i == 1 && (len(c.Remotes) != 64 || !hasDiag(c.Diagnostics, servercard.Warning, "limit", "/remotes")) {
					t.Errorf("doc 1: %d remotes, diagnostics %v", len(c.Remotes), c.Diagnostics)
				}
			}
			if len(ds) > 100 {
				t.Errorf("doc %d: %d diagnostics", i, len(ds))
			}
			for _, d := range ds {
				if len(d.Message) > 500 || strings.Contains(d.Message, "hunter2") || strings.Contains(d.Message, "sk-abc") {
					t.Errorf("doc %d: message %.200q", i, d.Message)
				}
			}
		}
	}
}

// TestURLFor: the recommended card location is the streamable-HTTP URL plus
// /server-card.
func TestURLFor(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://host.example/mcp":           "https://host.example/mcp/server-card",
		"https://host.example/mcp/":          "https://host.example/mcp/server-card",
		"https://host.example":               "https://host.example/server-card",
		"https://u:p@host.example/mcp?x=1#f": "https://host.example/mcp/server-card",
	} {
		if got, err := servercard.URLFor(in); err != nil || got != want {
			t.Errorf("URLFor(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "/mcp", "ftp://host/mcp", "javascript:alert(1)"} {
		if _, err := servercard.URLFor(bad); err == nil {
			t.Errorf("URLFor(%q) succeeded", bad)
		}
	}
}

// TestCredential: a credential published in a header value or default is reported
// without being repeated.
func TestCredential(t *testing.T) {
	t.Parallel()
	const token = "ghp_0123456789abcdefghijABCDEFGHIJklmnop"
	doc := []byte(`{` + minimal + `, "remotes": [{"type": "sse", "url": "https://a.example/sse",
	  "headers": [{"name": "Authorization", "value": "Bearer ` + token + `"}, {"name": "X-Key", "default": "` + token + `"}]}]}`)
	c, err := servercard.Parse(doc, servercard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !hasDiag(c.Diagnostics, servercard.Warning, "credential", "/remotes/0/headers/0/value") ||
		!hasDiag(c.Diagnostics, servercard.Warning, "credential", "/remotes/0/headers/1/default") {
		t.Fatalf("diagnostics %v", c.Diagnostics)
	}
	for _, d := range c.Diagnostics {
		if strings.Contains(d.Message, token) {
			t.Errorf("token repeated: %s", d)
		}
	}
}
