package schemacheck_test

import (
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/internal/schemacheck"
)

const testSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["name"],
  "properties": {
    "name": {"type": "string", "pattern": "^[a-z]+$"},
    "site": {"type": "string", "format": "uri"},
    "list": {"type": "array", "items": {"type": "integer"}}
  }
}`

// TestValidate: problems are leaves with JSON pointers, sorted, and never quote the
// document's values.
func TestValidate(t *testing.T) {
	t.Parallel()
	s, err := schemacheck.Compile([]byte(testSchema), "https://test.example/s.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := schemacheck.Decode([]byte(`{"name": "ghp_0123456789abcdefghijABCDEFGHIJklmnop", "site": "not a uri", "list": [1, "x"]}`))
	if err != nil {
		t.Fatal(err)
	}
	probs := s.Validate(v)
	var got []string
	for _, p := range probs {
		got = append(got, p.Pointer+": "+p.Message)
		if strings.Contains(p.Message, "ghp_") || strings.Contains(p.Message, "not a uri") {
			t.Errorf("value quoted: %s", p.Message)
		}
	}
	want := []string{"/list/1: got string, want integer", "/name: value does not match pattern '^[a-z]+$'", "/site: value is not a valid uri"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	v, _ = schemacheck.Decode([]byte(`{}`))
	if p := s.Validate(v); len(p) != 1 || p[0].Pointer != "" || p[0].Message != `missing required member "name"` {
		t.Errorf("required: %v", p)
	}
	v, _ = schemacheck.Decode([]byte(`{"name": "ok"}`))
	if p := s.Validate(v); p != nil {
		t.Errorf("valid document: %v", p)
	}
}

// TestCompileRefusesExternalRef: no schema is loaded from the network or disk.
func TestCompileRefusesExternalRef(t *testing.T) {
	t.Parallel()
	_, err := schemacheck.Compile([]byte(`{"$ref": "https://elsewhere.example/schema.json"}`), "https://test.example/r.json")
	if err == nil {
		t.Fatal("external $ref compiled")
	}
}

// TestDecode: exactly one JSON value.
func TestDecode(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{``, `{`, `{} {}`, `[1,]`} {
		if _, err := schemacheck.Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%q) succeeded", bad)
		}
	}
}

// TestPointer: tokens are escaped (RFC 6901) and credentials in keys scrubbed.
func TestPointer(t *testing.T) {
	t.Parallel()
	if got := schemacheck.Pointer("a/b", "c~d", "0"); got != "/a~1b/c~0d/0" {
		t.Errorf("Pointer = %q", got)
	}
	if got := schemacheck.Pointer("ghp_0123456789abcdefghijABCDEFGHIJklmnop"); strings.Contains(got, "ghp_0123") {
		t.Errorf("Pointer kept a credential: %q", got)
	}
}
