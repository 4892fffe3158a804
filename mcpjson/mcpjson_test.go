package mcpjson_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/internal/golden"
	"github.com/wellknown-dev/discovery/mcpjson"
)

// outcome is what a golden file records: the document or the error.
type outcome struct {
	Document *mcpjson.Document `json:",omitempty"`
	Error    string            `json:",omitempty"`
	Problems []mcpjson.Problem `json:",omitempty"` // the ValidationError's problems
	Line     int               `json:",omitempty"` // the SyntaxError's position
	Column   int               `json:",omitempty"`
	Validate []mcpjson.Problem // what the strict validator says
}

// TestGolden parses every testdata/*.json and compares Parse and Validate with
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
			doc, err := mcpjson.Parse(data)
			o.Document = doc
			if err != nil {
				o.Error = err.Error()
				var ve *mcpjson.ValidationError
				var se *mcpjson.SyntaxError
				switch {
				case errors.As(err, &ve):
					o.Problems = ve.Problems
				case errors.As(err, &se):
					o.Line, o.Column = se.Line, se.Column
				default:
					t.Fatalf("error of unexpected type %T: %v", err, err)
				}
			}
			o.Validate = mcpjson.Validate(data)
			got, err := json.MarshalIndent(o, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden.Check(t, strings.TrimSuffix(f, ".json")+".golden", got)
		})
	}
}

// TestAppendixA: the spec's own examples must be valid under both entry points.
func TestAppendixA(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"testdata/appendix-a-2026-04-12.json", "testdata/appendix-a-2026-06-13.json"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if probs := mcpjson.Validate(data); len(probs) != 0 {
			t.Errorf("%s: Validate = %v, want no problem", f, probs)
		}
		d, err := mcpjson.Parse(data)
		if err != nil || d.Shape != mcpjson.ShapeSpec || len(d.Warnings) != 0 {
			t.Errorf("%s: Parse = %+v, %v", f, d, err)
		}
	}
}

func TestShapes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file    string
		shape   mcpjson.Shape
		servers string // name=url(transport), joined by " "
		tools   string // tool names of every server, joined by ","
	}{
		{"spec-full", mcpjson.ShapeSpec, "orders=https://api.example.com/mcp(sse) Bad Name=https://mcp.other.example/mcp(streamable-http) relative=/mcp/rel(sse) local=(stdio)", ""},
		{"legacy", mcpjson.ShapeLegacy, "search=https://search.example.com/mcp(sse)", ""},
		{"card-2127", mcpjson.ShapeCard2127, "io.example/weather=https://weather.example.com/mcp(streamable-http) io.example/weather=https://weather.example.com/sse(sse)", ""},
		{"card-1649", mcpjson.ShapeCard1649, "notes=/mcp(streamable-http)", "add_note,list_notes"},
		{"initialize-stdio", mcpjson.ShapeInitialize, "memo=(stdio)", "remember"},
		{"client-config", mcpjson.ShapeClientConfig, "docs=https://docs.example.com/mcp(streamable-http) graph=(stdio)", ""},
		{"docs-site", mcpjson.ShapeDocsSite, "public=https://mcp.example.com(streamable-http)", ""},
		{"servers-map", mcpjson.ShapeServersMap, "alpha=https://alpha.example.com/mcp(sse) beta=wss://beta.example.com/ws(websocket)", ""},
		{"flat", mcpjson.ShapeFlat, "Flat Server=https://flat.example.com/mcp(streamable-http)", "fetch,search"},
		{"tools-number", mcpjson.ShapeFlat, "Counted=https://count.example.com/mcp(streamable-http)", ""},
		{"sep-1960", mcpjson.ShapeSEP1960, "Grid (sse)=https://grid.example.com/sse(sse) Grid (streamable_http)=https://grid.example.com/mcp(streamable-http)", ""},
		{"mcp-wrapper", mcpjson.ShapeMCPWrapper, "Wrapped=https://w.example.com/sse(sse)", ""},
		{"local", mcpjson.ShapeLocal, "@example/local-mcp=(stdio)", "a,b"},
		{"pointer", mcpjson.ShapePointer, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			d := parseFile(t, "testdata/"+tc.file+".json")
			if d.Shape != tc.shape {
				t.Errorf("Shape = %s, want %s", d.Shape, tc.shape)
			}
			if got := servers(d); got != tc.servers {
				t.Errorf("servers = %q\nwant      %q", got, tc.servers)
			}
			if got := toolNames(d); got != tc.tools {
				t.Errorf("tools = %q, want %q", got, tc.tools)
			}
		})
	}
	t.Run("plain ws off loopback is skipped", func(t *testing.T) {
		t.Parallel()
		d, err := mcpjson.Parse([]byte(`{"servers": {"a": {"url": "ws://a.example.com/ws"}, "b": {"url": "ws://127.0.0.1:9/ws"}}}`))
		if err != nil || !hasWarning(d, "/servers/a/url", "plain ws") || servers(d) != "b=ws://127.0.0.1:9/ws()" {
			t.Errorf("%v: servers %q, warnings %v", err, servers(d), d.Warnings)
		}
	})
	t.Run("nested mcpServers example is not read", func(t *testing.T) {
		t.Parallel()
		d := parseFile(t, "testdata/flat.json")
		if strings.Contains(servers(d), "trap") {
			t.Error("an example nested in another object became a server")
		}
	})
	t.Run("pointer", func(t *testing.T) {
		t.Parallel()
		d := parseFile(t, "testdata/pointer.json")
		if d.Pointer != "https://example.com/.well-known/mcp/server-card.json" {
			t.Errorf("Pointer = %q", d.Pointer)
		}
	})
	t.Run("credential", func(t *testing.T) {
		t.Parallel()
		d := parseFile(t, "testdata/secret.json")
		if !hasWarning(d, "/mcp/notes", "AWS access key id") || strings.Contains(d.Warnings[0].Message, "AKIA") {
			t.Errorf("warnings = %v", d.Warnings)
		}
	})
}

func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file      string
		syntax    bool
		line, col int
		contains  string
		lenient   bool // Parse reads it, with a warning; only Validate reports the error
	}{
		{"trailing-comma", true, 1, 59, "trailing comma", true},
		{"bom", true, 1, 1, "byte order mark", true},
		{"symlink-text", true, 1, 1, "invalid character", false},
		{"html", true, 1, 1, "HTML page", false},
		{"array", false, 0, 0, "JSON array, not an object", false},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile("testdata/" + tc.file + ".json")
			if err != nil {
				t.Fatal(err)
			}
			if tc.lenient {
				d, err := mcpjson.Parse(data)
				if err != nil || !hasWarning(d, "", "not strict JSON: ") || !hasWarning(d, "", tc.contains) {
					t.Fatalf("Parse = %+v, %v; want a document and a warning", d, err)
				}
				where := fmt.Sprintf("line %d, column %d: ", tc.line, tc.col)
				probs := mcpjson.Validate(data)
				if len(probs) == 0 || !strings.Contains(probs[0].Message, where) || !strings.Contains(probs[0].Message, tc.contains) {
					t.Errorf("Validate = %v, want %q and %q", probs, where, tc.contains)
				}
				return
			}
			_, err = mcpjson.Parse(data)
			if err == nil || !strings.Contains(err.Error(), tc.contains) {
				t.Fatalf("error = %v, want one containing %q", err, tc.contains)
			}
			var se *mcpjson.SyntaxError
			if got := errors.As(err, &se); got != tc.syntax {
				t.Fatalf("SyntaxError = %v, want %v (%v)", got, tc.syntax, err)
			}
			if tc.syntax && (se.Line != tc.line || se.Column != tc.col) {
				t.Errorf("position = %d:%d, want %d:%d", se.Line, se.Column, tc.line, tc.col)
			}
		})
	}
	// A JSON object never fails for its shape: it is ShapeUnknown, with a warning.
	d, err := mcpjson.Parse([]byte(`{"name":"x"}`))
	if err != nil || d.Shape != mcpjson.ShapeUnknown || len(d.Servers) != 0 || !hasWarning(d, "", "no known mcp.json shape") {
		t.Errorf("unknown shape: %+v, %v", d, err)
	}
}

func TestRelate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url  string
		want mcpjson.Relation
	}{
		{"https://example.com/mcp", mcpjson.RelationSameOrigin},
		{"https://EXAMPLE.com:443/mcp", mcpjson.RelationSameOrigin},
		{"/mcp", mcpjson.RelationSameOrigin},
		{"https://api.example.com/mcp", mcpjson.RelationSubdomain},
		{"https://example.com:8443/mcp", mcpjson.RelationOther},
		{"https://notexample.com/mcp", mcpjson.RelationOther},
		{"https://example.com.evil.net/mcp", mcpjson.RelationOther},
		{"http://example.com/mcp", mcpjson.RelationOther},
	}
	for _, tc := range tests {
		if got := mcpjson.Relate("https://example.com", tc.url); got != tc.want {
			t.Errorf("Relate(%q) = %s, want %s", tc.url, got, tc.want)
		}
	}
	if (mcpjson.Server{LocalOnly: true}).Relation("https://example.com") != mcpjson.RelationLocal {
		t.Error("a local server must relate as local")
	}
	u, err := mcpjson.Resolve("https://example.com/.well-known/mcp.json", "/mcp")
	if err != nil || u.String() != "https://example.com/mcp" {
		t.Errorf("Resolve = %v, %v", u, err)
	}
	if _, err := mcpjson.Resolve("https://example.com/.well-known/mcp.json", "javascript:alert(1)"); err == nil {
		t.Error("Resolve accepted javascript:")
	}
}

func parseFile(t *testing.T, name string) *mcpjson.Document {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	d, err := mcpjson.Parse(data)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return d
}

func servers(d *mcpjson.Document) string {
	var out []string
	for _, s := range d.Servers {
		out = append(out, s.Name+"="+s.URL+"("+string(s.Transport)+")")
	}
	return strings.Join(out, " ")
}

func toolNames(d *mcpjson.Document) string {
	var out []string
	for _, s := range d.Servers {
		out = append(out, s.Tools...)
	}
	return strings.Join(out, ",")
}

func hasWarning(d *mcpjson.Document, ptr, contains string) bool {
	for _, w := range d.Warnings {
		if w.Pointer == ptr && strings.Contains(w.Message, contains) {
			return true
		}
	}
	return false
}

// TestValidateIsStrict: for a publisher, what a client would only warn about is an
// error: a relative server URL, plain http, a published credential.
func TestValidateIsStrict(t *testing.T) {
	for _, doc := range []string{
		`{"mcp": {"spec_version": "2026-06-13", "status": "stable", "servers": [{"name": "a", "url": "/mcp", "transport": "streamable-http"}]}}`,
		`{"mcp": {"spec_version": "2026-06-13", "status": "stable", "servers": [{"name": "a", "url": "http://mcp.example.com/mcp", "transport": "streamable-http"}]}}`,
		`{"mcp": {"spec_version": "2026-06-13", "status": "stable", "notes": "key AKIAIOSFODNN7EXAMPLF"}}`,
	} {
		probs := mcpjson.Validate([]byte(doc))
		if len(probs) == 0 {
			t.Errorf("%s: no problem", doc)
		}
		for _, p := range probs {
			if p.Severity != mcpjson.SeverityError {
				t.Errorf("%s: %+v is not an error", doc, p)
			}
		}
	}
}

// TestSpecBrokenIsUnsupported: a spec-shaped document that breaks its schema is
// treated as unsupported, never an error: Shape unknown, no servers, a
// warning naming each problem's pointer.
func TestSpecBrokenIsUnsupported(t *testing.T) {
	for _, doc := range []string{`{"mcp":{"spec_version":"2026-06-13"}}`, `{"mcp":{"status": 7}}`} {
		d, err := mcpjson.Parse([]byte(doc))
		if err != nil || d.Shape != mcpjson.ShapeUnknown || len(d.Servers) != 0 || len(d.Warnings) == 0 ||
			!strings.Contains(d.Warnings[0].Message, "treated as unsupported") {
			t.Errorf("%s: %+v, %v", doc, d, err)
		}
	}
	data, err := os.ReadFile("testdata/spec-broken.json")
	if err != nil {
		t.Fatal(err)
	}
	d, err := mcpjson.Parse(data)
	if err != nil || d.Shape != mcpjson.ShapeUnknown || !strings.HasPrefix(d.Warnings[0].Pointer, "/mcp") {
		t.Errorf("spec-broken: %+v, %v", d, err)
	}
}

func TestAuthDescribe(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a    *mcpjson.Auth
		want string
	}{
		{nil, ""},
		{&mcpjson.Auth{}, ""},
		{&mcpjson.Auth{Type: "none"}, "none"},
		{&mcpjson.Auth{Type: "api-key", Header: "X-Api-Key"}, "api-key in the X-Api-Key header"},
		{&mcpjson.Auth{Type: "bearer"}, "bearer in the Authorization header"},
		{&mcpjson.Auth{Type: "oauth2", Scopes: []string{"a", "b"}, TokenEndpoint: "https://id.example.com/token"},
			"oauth2, scopes a b, token endpoint https://id.example.com/token"},
	} {
		if got := tc.a.Describe(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.a, got, tc.want)
		}
	}
}
