package servercard_test

import (
	"errors"
	"testing"

	"github.com/wellknown-dev/discovery/servercard"
)

func templatedRemotes(t *testing.T) []servercard.Remote {
	t.Helper()
	doc := []byte(`{` + minimal + `, "remotes": [
	  {"type": "streamable-http", "url": "https://{tenant}.example.io/mcp", "variables": {"tenant": {"default": "demo"}}},
	  {"type": "sse", "url": "{base_url}/sse", "variables": {"base_url": {}}},
	  {"type": "streamable-http", "url": "https://api.example.io/{region}/mcp", "variables": {"region": {"choices": ["eu", "us"]}}},
	  {"type": "streamable-http", "url": "https://api.example.io/mcp"}
	]}`)
	c, err := servercard.Parse(doc, servercard.Options{URL: cardURL, Mode: servercard.Strict})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Remotes) != 4 {
		t.Fatalf("%d remotes", len(c.Remotes))
	}
	return c.Remotes
}

// TestTemplates: templated remotes are kept with their variables and are not
// connectable until filled; Expand encodes values so they cannot change the host.
func TestTemplates(t *testing.T) {
	t.Parallel()
	rs := templatedRemotes(t)
	for i, want := range []bool{false, false, false, true} {
		if rs[i].Connectable() != want || rs[i].Templated() == want {
			t.Errorf("remote %d: Connectable %v, Templated %v", i, rs[i].Connectable(), rs[i].Templated())
		}
	}
	if len(rs[1].URLVars) != 1 || rs[1].URLVars[0] != "base_url" {
		t.Errorf("URLVars = %q", rs[1].URLVars)
	}
	tests := []struct {
		name   string
		remote int
		values map[string]string
		want   string
	}{
		{"default", 0, nil, "https://demo.example.io/mcp"},
		{"value", 0, map[string]string{"tenant": "acme"}, "https://acme.example.io/mcp"},
		{"host escape encoded", 0, map[string]string{"tenant": "evil.example/x#"}, ""},
		{"userinfo trick encoded", 0, map[string]string{"tenant": "evil.example@"}, ""},
		{"leading variable", 1, map[string]string{"base_url": "https://mcp.acme.example"}, "https://mcp.acme.example/sse"},
		{"leading variable not https", 1, map[string]string{"base_url": "http://mcp.acme.example"}, ""},
		{"leading variable javascript", 1, map[string]string{"base_url": "javascript:alert(1)//"}, ""},
		{"leading variable userinfo", 1, map[string]string{"base_url": "https://u:p@x.example"}, ""},
		{"leading variable loopback", 1, map[string]string{"base_url": "http://127.0.0.1:8080"}, "http://127.0.0.1:8080/sse"},
		{"missing", 1, nil, ""},
		{"choice", 2, map[string]string{"region": "eu"}, "https://api.example.io/eu/mcp"},
		{"not a choice", 2, map[string]string{"region": "cn"}, ""},
		{"path traversal encoded", 2, map[string]string{"region": "../admin"}, ""},
		{"concrete", 3, nil, "https://api.example.io/mcp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := rs[tc.remote].Expand(tc.values)
			if tc.want == "" {
				if !errors.Is(err, servercard.ErrTemplate) {
					t.Fatalf("Expand() = %q, %v; want ErrTemplate", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Expand() = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	// Encoded values stay inside their component.
	got, err := rs[0].Expand(map[string]string{"tenant": "a.b"})
	if err != nil || got != "https://a.b.example.io/mcp" {
		t.Errorf("Expand(a.b) = %q, %v", got, err)
	}
}

// TestHeaderExpand: header values fill without encoding, and refuse line breaks.
func TestHeaderExpand(t *testing.T) {
	t.Parallel()
	h := servercard.Header{Name: "Authorization", Input: servercard.Input{Value: "Bearer {token}"},
		Variables: map[string]servercard.Input{"token": {IsSecret: true}}}
	if got, err := h.Expand(map[string]string{"token": "abc/+="}); err != nil || got != "Bearer abc/+=" {
		t.Errorf("Expand = %q, %v", got, err)
	}
	for _, v := range []string{"a\r\nX-Evil: 1", "a\nb", "a\x00"} {
		if _, err := h.Expand(map[string]string{"token": v}); !errors.Is(err, servercard.ErrTemplate) {
			t.Errorf("Expand(%q) error = %v", v, err)
		}
	}
	if _, err := h.Expand(nil); !errors.Is(err, servercard.ErrTemplate) {
		t.Errorf("missing token: %v", err)
	}
}
