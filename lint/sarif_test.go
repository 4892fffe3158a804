package lint

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SARIF's artifactLocation.uri is a URI reference: a file name with a line break, a
// space, "#", "%", "?" or other bytes a URI cannot hold is percent-encoded, and
// decoding the reference gives the name back.
func TestSARIFArtifactURIIsAURIReference(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		file string
	}{
		{"plain", "testdata/lint/good/skills.md"},
		{"newline", "bad\nname/SKILL.md"},
		{"carriage return and tab", "a\r\tb/SKILL.md"},
		{"space", "my skill/SKILL.md"},
		{"hash", "skill#1/SKILL.md"},
		{"percent", "100%/SKILL.md"},
		{"percent that looks like an escape", "a%2Fb/SKILL.md"},
		{"question mark", "why?/SKILL.md"},
		{"colon first", "c:notes/skills.md"},
		{"non-ASCII", "café/SKILL.md"},
		{"brackets and quotes", "[x] \"y\" <z>/{w}|`v`^/SKILL.md"},
		{"backslash", `dir\sub/SKILL.md`},
		{"absolute inside", filepath.Join(wd, "sub dir", "a#b.md")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			art := sarifArtifactFor(tc.file)
			u, err := url.Parse(art.URI)
			if err != nil {
				t.Fatalf("uri %q is not a URI reference: %v", art.URI, err)
			}
			if u.Scheme != "" || u.Host != "" || u.RawQuery != "" || u.Fragment != "" {
				t.Fatalf("uri %q parses as scheme %q host %q query %q fragment %q, want a relative path", art.URI, u.Scheme, u.Host, u.RawQuery, u.Fragment)
			}
			if art.URIBaseID != srcRoot {
				t.Errorf("uriBaseId %q, want %q", art.URIBaseID, srcRoot)
			}
			want := tc.file
			if filepath.IsAbs(want) {
				want, _ = filepath.Rel(wd, want)
			}
			want = strings.ReplaceAll(filepath.ToSlash(want), `\`, "/")
			if got, err := url.PathUnescape(art.URI); err != nil || got != want {
				t.Errorf("uri %q decodes to %q (%v), want %q", art.URI, got, err, want)
			}
			if strings.ContainsAny(art.URI, " \n\r\t#?\"<>{}|\\^`") {
				t.Errorf("uri %q holds bytes a URI cannot", art.URI)
			}
		})
	}
	// A path outside the working directory is a file: URI; URLs stay URLs.
	for _, file := range []string{filepath.Join(filepath.Dir(wd), "x y\nz", "SKILL.md"), "https://example.com/a b/SKILL.md"} {
		art := sarifArtifactFor(file)
		u, err := url.Parse(art.URI)
		if err != nil || u.Scheme == "" || strings.ContainsAny(art.URI, " \n") {
			t.Errorf("%q: uri %q (%v), want an absolute URI", file, art.URI, err)
		}
	}
}
