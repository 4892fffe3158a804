package aicatalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/internal/golden"
)

// fixtureURL is the URL every fixture is read as if fetched from.
const fixtureURL = "https://example.com/.well-known/ai-catalog.json"

// outcome is what a golden file records: the lenient catalog or its error, and what
// Strict mode says.
type outcome struct {
	Catalog *aicatalog.Catalog `json:",omitempty"`
	Error   string             `json:",omitempty"`
	Strict  []string           // Strict mode's diagnostics, or its error
}

func strictSays(data []byte) []string {
	c, err := aicatalog.Parse(data, aicatalog.Options{URL: fixtureURL, Mode: aicatalog.Strict})
	var ve *aicatalog.ValidationError
	switch {
	case errors.As(err, &ve):
		return diagStrings(ve.Diagnostics)
	case err != nil:
		return []string{err.Error()}
	}
	return diagStrings(c.Diagnostics)
}

func diagStrings(ds []aicatalog.Diagnostic) []string {
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
			o.Catalog, err = aicatalog.Parse(data, aicatalog.Options{URL: fixtureURL})
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

// TestParseErrors: documents that are no catalog, or of another major version.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc string
		want      error
	}{
		{"array", `[]`, aicatalog.ErrNotCatalog},
		{"string", `"catalog"`, aicatalog.ErrNotCatalog},
		{"number", `1`, aicatalog.ErrNotCatalog},
		{"null", `null`, aicatalog.ErrNotCatalog},
		{"empty", ``, aicatalog.ErrNotCatalog},
		{"html", `<!doctype html><html></html>`, aicatalog.ErrNotCatalog},
		{"no entries", `{"specVersion": "1.0"}`, aicatalog.ErrNotCatalog},
		{"entries null", `{"specVersion": "1.0", "entries": null}`, aicatalog.ErrNotCatalog},
		{"entries object", `{"specVersion": "1.0", "entries": {}}`, aicatalog.ErrNotCatalog},
		{"two values", `{"specVersion": "1.0", "entries": []} {}`, aicatalog.ErrNotCatalog},
		{"major 2", `{"specVersion": "2.0", "entries": []}`, aicatalog.ErrUnsupportedVersion},
		{"major 0", `{"specVersion": "0.9", "entries": []}`, aicatalog.ErrUnsupportedVersion},
		{"deep", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), aicatalog.ErrNotCatalog},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, mode := range []aicatalog.Mode{aicatalog.Lenient, aicatalog.Strict} {
				_, err := aicatalog.Parse([]byte(tc.doc), aicatalog.Options{Mode: mode})
				if !errors.Is(err, tc.want) {
					t.Errorf("mode %d: Parse() error = %v, want %v", mode, err, tc.want)
				}
			}
		})
	}
}

// TestParseOptions: invalid options are errors, never a panic.
func TestParseOptions(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"specVersion": "1.0", "entries": []}`)
	for _, opts := range []aicatalog.Options{{MaxEntries: -1}, {URL: "relative/path"}, {URL: "https://"}, {URL: "%zz"}} {
		if _, err := aicatalog.Parse(doc, opts); err == nil {
			t.Errorf("Parse(%+v) succeeded", opts)
		}
	}
}

// entryDoc is a catalog of one entry.
func entryDoc(entry string) []byte {
	return []byte(`{"specVersion": "1.0", "entries": [` + entry + `]}`)
}

// TestEntryLeftOut: every entry that cannot be used is left out in both modes, with
// an Error diagnostic at its pointer and of its code; Strict mode fails.
func TestEntryLeftOut(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, entry, code, where string
	}{
		{"both url and data", `{"identifier": "urn:a", "type": "application/a2a-agent-card+json", "url": "https://a.example/x", "data": {}}`, "both-url-and-data", "/entries/0"},
		{"neither url nor data", `{"identifier": "urn:a", "type": "application/a2a-agent-card+json"}`, "no-url-or-data", "/entries/0"},
		{"url not a string", `{"identifier": "urn:a", "type": "application/a2a-agent-card+json", "url": 5}`, "no-url-or-data", "/entries/0"},
		{"no type", `{"identifier": "urn:a", "url": "https://a.example/x"}`, "type", "/entries/0"},
		{"empty type", `{"identifier": "urn:a", "type": "", "url": "https://a.example/x"}`, "type", "/entries/0"},
		{"types disagree", `{"identifier": "urn:a", "type": "application/a2a-agent-card+json", "mediaType": "application/mcp-server-card+json", "url": "https://a.example/x"}`, "type", "/entries/0"},
		{"javascript", `{"identifier": "urn:a", "type": "text/html", "url": "javascript:alert(1)"}`, "url", "/entries/0/url"},
		{"data url", `{"identifier": "urn:a", "type": "text/html", "url": "data:text/html,<script>"}`, "url", "/entries/0/url"},
		{"file", `{"identifier": "urn:a", "type": "text/plain", "url": "file:///etc/passwd"}`, "url", "/entries/0/url"},
		{"ftp", `{"identifier": "urn:a", "type": "text/plain", "url": "ftp://a.example/x"}`, "url", "/entries/0/url"},
		{"plain http", `{"identifier": "urn:a", "type": "text/plain", "url": "http://a.example/x"}`, "url", "/entries/0/url"},
		{"userinfo", `{"identifier": "urn:a", "type": "text/plain", "url": "https://u:p@a.example/x"}`, "url", "/entries/0/url"},
		{"private address", `{"identifier": "urn:a", "type": "text/plain", "url": "https://192.168.1.2/x"}`, "url", "/entries/0/url"},
		{"mapped loopback", `{"identifier": "urn:a", "type": "text/plain", "url": "https://[::ffff:127.0.0.1]/x"}`, "url", "/entries/0/url"},
		{"local name", `{"identifier": "urn:a", "type": "text/plain", "url": "https://printer.local/x"}`, "url", "/entries/0/url"},
		{"empty url", `{"identifier": "urn:a", "type": "text/plain", "url": " "}`, "url", "/entries/0/url"},
		{"json data not object", `{"identifier": "urn:a", "type": "application/ai-catalog+json", "data": [1]}`, "data", "/entries/0/data"},
		{"not an object", `42`, "entry", "/entries/0"},
		{"null entry", `null`, "entry", "/entries/0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := aicatalog.Parse(entryDoc(tc.entry), aicatalog.Options{URL: fixtureURL})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Entries) != 0 {
				t.Errorf("entry kept: %+v", c.Entries[0])
			}
			if !hasDiag(c.Diagnostics, aicatalog.Error, tc.code, tc.where) {
				t.Errorf("no error %q at %q in %v", tc.code, tc.where, c.Diagnostics)
			}
			_, err = aicatalog.Parse(entryDoc(tc.entry), aicatalog.Options{URL: fixtureURL, Mode: aicatalog.Strict})
			var ve *aicatalog.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, aicatalog.ErrInvalid) || !hasDiag(ve.Diagnostics, aicatalog.Error, tc.code, tc.where) {
				t.Errorf("Strict: error = %v", err)
			}
		})
	}
}

func hasDiag(ds []aicatalog.Diagnostic, sev aicatalog.Severity, code, where string) bool {
	for _, d := range ds {
		if d.Severity == sev && d.Code == code && d.Where == where {
			return true
		}
	}
	return false
}

// TestEntryURLs: URLs are resolved against the catalog's URL; relative ones are kept
// as published when it is unknown; loopback http is fine in a catalog on loopback.
func TestEntryURLs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, base, url, want string
	}{
		{"relative path", "https://example.com/.well-known/ai-catalog.json", "cards/a.json", "https://example.com/.well-known/cards/a.json"},
		{"absolute path", "https://example.com/.well-known/ai-catalog.json", "/mcp/server-card", "https://example.com/mcp/server-card"},
		{"parent", "https://example.com/a/b/catalog.json", "../c.json", "https://example.com/a/c.json"},
		{"fragment dropped", "https://example.com/catalog.json", "https://other.example/card#x", "https://other.example/card"},
		{"other host", "https://example.com/catalog.json", "https://mcp-host.example/acme/server-card", "https://mcp-host.example/acme/server-card"},
		{"scheme relative", "https://example.com/catalog.json", "//cdn.example.com/c.json", "https://cdn.example.com/c.json"},
		{"loopback http on loopback", "http://127.0.0.1:8080/catalog.json", "http://localhost:9000/card", "http://localhost:9000/card"},
		{"private on private", "https://10.0.0.1/catalog.json", "https://10.0.0.2/card", "https://10.0.0.2/card"},
		{"relative without base", "", "cards/a.json", "cards/a.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc := entryDoc(fmt.Sprintf(`{"identifier": "urn:a", "type": "application/mcp-server-card+json", "url": %q}`, tc.url))
			c, err := aicatalog.Parse(doc, aicatalog.Options{URL: tc.base})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Entries) != 1 || c.Entries[0].URL != tc.want {
				t.Fatalf("entries = %+v, diagnostics %v; want URL %q", c.Entries, c.Diagnostics, tc.want)
			}
		})
	}
}

// TestForms: both forms are read, the older with a warning that Strict mode keeps a
// warning; Form says which was seen.
func TestForms(t *testing.T) {
	t.Parallel()
	current := `{"identifier": "urn:a", "type": "application/mcp-server-card+json", "url": "https://a.example/c"}`
	legacy := `{"identifier": "urn:b", "displayName": "B", "mediaType": "application/mcp-server-card+json", "url": "https://a.example/d"}`
	tests := []struct {
		name    string
		entries string
		form    aicatalog.Form
	}{
		{"current", current, aicatalog.FormCurrent},
		{"legacy", legacy, aicatalog.FormLegacy},
		{"mixed", current + "," + legacy, aicatalog.FormMixed},
		{"none", ``, aicatalog.FormNone},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, mode := range []aicatalog.Mode{aicatalog.Lenient, aicatalog.Strict} {
				c, err := aicatalog.Parse(entryDoc(tc.entries), aicatalog.Options{Mode: mode})
				if err != nil {
					t.Fatalf("mode %d: %v", mode, err)
				}
				if c.Form != tc.form {
					t.Errorf("mode %d: Form = %q, want %q", mode, c.Form, tc.form)
				}
				if got := len(c.ByType(aicatalog.TypeMCPServerCard)); got != strings.Count(tc.entries, "urn:") {
					t.Errorf("mode %d: ByType found %d", mode, got)
				}
				legacyWarned := hasDiag(c.Diagnostics, aicatalog.Warning, "legacy-form", "/entries/0/mediaType") ||
					hasDiag(c.Diagnostics, aicatalog.Warning, "legacy-form", "/entries/1/mediaType")
				if legacyWarned != (tc.form == aicatalog.FormLegacy || tc.form == aicatalog.FormMixed) {
					t.Errorf("mode %d: legacy-form warning %v: %v", mode, legacyWarned, c.Diagnostics)
				}
			}
		})
	}
}

// TestStrictViolations: what Lenient mode reads with a warning, Strict mode rejects.
func TestStrictViolations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc, code, where string
	}{
		{"no specVersion", `{"entries": []}`, "spec-version", ""},
		{"specVersion not Major.Minor", `{"specVersion": "1", "entries": []}`, "spec-version", "/specVersion"},
		{"no identifier", string(entryDoc(`{"type": "a/b", "url": "https://a.example/x"}`)), "identifier", "/entries/0"},
		{"duplicate", string(entryDoc(`{"identifier": "urn:a", "type": "a/b", "url": "https://a.example/x"}, {"identifier": "urn:a", "type": "a/b", "url": "https://a.example/y"}`)), "duplicate", "/entries/1"},
		{"bad updatedAt", string(entryDoc(`{"identifier": "urn:a", "type": "a/b", "url": "https://a.example/x", "updatedAt": "2026-13-01"}`)), "updated-at", "/entries/0/updatedAt"},
		{"host without name", `{"specVersion": "1.0", "host": {"identifier": "did:web:a.example"}, "entries": []}`, "host", "/host"},
		{"relaxed JSON", "{\"specVersion\": \"1.0\", \"entries\": [],}", "json", ""},
		{"type not a media type", string(entryDoc(`{"identifier": "urn:a", "type": "mcp-server", "url": "https://a.example/x"}`)), "type", "/entries/0/type"},
		{"mediaType not a media type", string(entryDoc(`{"identifier": "urn:a", "mediaType": "a2a", "url": "https://a.example/x"}`)), "type", "/entries/0/mediaType"},
		{"tags not strings", string(entryDoc(`{"identifier": "urn:a", "type": "a/b", "url": "https://a.example/x", "tags": [1]}`)), "type-mismatch", "/entries/0/tags/0"},
		{"schema only: bad uri", `{"specVersion": "1.0", "host": {"displayName": "A", "logoUrl": "not a uri"}, "entries": []}`, "schema", "/host/logoUrl"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := aicatalog.Parse([]byte(tc.doc), aicatalog.Options{}); err != nil {
				t.Fatalf("Lenient: %v", err)
			}
			_, err := aicatalog.Parse([]byte(tc.doc), aicatalog.Options{Mode: aicatalog.Strict})
			var ve *aicatalog.ValidationError
			if !errors.As(err, &ve) || !hasDiag(ve.Diagnostics, aicatalog.Error, tc.code, tc.where) {
				t.Fatalf("Strict: error = %v, want %q at %q", err, tc.code, tc.where)
			}
		})
	}
}

// TestTrustManifest: a manifest is parsed into data; one whose identity is not its
// entry's identifier is dropped; weak and malformed digests are cleared.
func TestTrustManifest(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/trust.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := aicatalog.Parse(data, aicatalog.Options{URL: fixtureURL})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Entries) != 2 {
		t.Fatalf("%d entries", len(c.Entries))
	}
	tm := c.Entries[0].TrustManifest
	if tm == nil || tm.Identity != "urn:acme:agent:finance" || tm.Signature == "" || len(tm.Raw) == 0 {
		t.Fatalf("trust manifest = %+v", tm)
	}
	if got := tm.Attestations[1].Digest; got != "sha256:a1b2c3d4e5f67890abcdef1234567890abcdef1234567890abcdef1234567890" {
		t.Errorf("attestation digest = %q", got)
	}
	if tm.Attestations[1].Size != 245760 {
		t.Errorf("size = %d", tm.Attestations[1].Size)
	}
	if tm.Provenance[0].SourceDigest != "" || tm.Provenance[1].SourceDigest != "" {
		t.Errorf("weak or malformed digests kept: %+v", tm.Provenance)
	}
	if !hasDiag(c.Diagnostics, aicatalog.Warning, "weak-digest", "/entries/0/trustManifest/provenance/0/sourceDigest") {
		t.Errorf("no weak-digest warning: %v", c.Diagnostics)
	}
	if c.Entries[1].TrustManifest != nil || !hasDiag(c.Diagnostics, aicatalog.Error, "trust-identity", "/entries/1/trustManifest/identity") {
		t.Errorf("moved trust manifest kept: %+v, %v", c.Entries[1].TrustManifest, c.Diagnostics)
	}
	if c.Host == nil || c.Host.TrustManifest == nil || !hasDiag(c.Diagnostics, aicatalog.Warning, "trust-identity", "/host/trustManifest/identity") {
		t.Errorf("host = %+v, %v", c.Host, c.Diagnostics)
	}
	if c.Signature == "" || c.SpecVersion != "1.1" {
		t.Errorf("signature %q, specVersion %q", c.Signature, c.SpecVersion)
	}
}

// TestHostile: large and odd inputs stay bounded, and messages never repeat a
// published secret or a huge value.
func TestHostile(t *testing.T) {
	t.Parallel()
	t.Run("10000 entries", func(t *testing.T) {
		t.Parallel()
		var b strings.Builder
		b.WriteString(`{"specVersion": "1.0", "entries": [`)
		for i := range 10000 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"identifier": "urn:x:%d", "mediaType": "application/mcp-server-card+json", "url": "https://x.example/%d"}`, i, i)
		}
		b.WriteString(`]}`)
		c, err := aicatalog.Parse([]byte(b.String()), aicatalog.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Entries) != aicatalog.DefaultMaxEntries || !hasDiag(c.Diagnostics, aicatalog.Warning, "limit", "/entries") {
			t.Fatalf("%d entries, %d diagnostics", len(c.Entries), len(c.Diagnostics))
		}
		if len(c.Diagnostics) > 40 {
			t.Errorf("%d diagnostics: the per-code cap does not hold", len(c.Diagnostics))
		}
		c, err = aicatalog.Parse([]byte(b.String()), aicatalog.Options{MaxEntries: 3})
		if err != nil || len(c.Entries) != 3 {
			t.Fatalf("MaxEntries 3: %v, %d entries", err, len(c.Entries))
		}
	})
	t.Run("huge strings", func(t *testing.T) {
		t.Parallel()
		huge := strings.Repeat("A", 256<<10)
		doc := entryDoc(fmt.Sprintf(`{"identifier": %q, "type": %q, "url": "javascript:%s", "specVersion": %q}`, huge, "text/"+huge, huge, huge))
		c, err := aicatalog.Parse(doc, aicatalog.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range c.Diagnostics {
			if len(d.Message) > 400 {
				t.Errorf("message of %d bytes", len(d.Message))
			}
		}
		_, err = aicatalog.Parse([]byte(`{"specVersion": "`+huge+`", "entries": []}`), aicatalog.Options{Mode: aicatalog.Strict})
		if err == nil || len(err.Error()) > 1000 {
			t.Errorf("Strict error of %d bytes", len(err.Error()))
		}
	})
	t.Run("secrets not repeated", func(t *testing.T) {
		t.Parallel()
		doc := entryDoc(`{"identifier": "urn:a", "type": "a/b", "url": "https://admin:s3cr3t-pa55@a.example/x?token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"}`)
		for _, mode := range []aicatalog.Mode{aicatalog.Lenient, aicatalog.Strict} {
			c, err := aicatalog.Parse(doc, aicatalog.Options{Mode: mode})
			text := fmt.Sprint(err)
			if c != nil {
				text += fmt.Sprint(c.Diagnostics)
			}
			if strings.Contains(text, "s3cr3t") || strings.Contains(text, "ghp_") {
				t.Errorf("mode %d: secret repeated: %s", mode, text)
			}
		}
	})
	t.Run("deep data", func(t *testing.T) {
		t.Parallel()
		deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
		c, err := aicatalog.Parse(entryDoc(`{"identifier": "urn:a", "type": "application/octet-stream", "data": `+deep+`}`), aicatalog.Options{})
		if err != nil || len(c.Entries) != 1 {
			t.Fatalf("%v", err)
		}
	})
}

// TestDigest: the digest ignores insignificant whitespace and tells content apart.
func TestDigest(t *testing.T) {
	t.Parallel()
	a, _ := aicatalog.Parse([]byte(`{"specVersion":"1.0","entries":[]}`), aicatalog.Options{})
	b, _ := aicatalog.Parse([]byte("{\n  \"specVersion\": \"1.0\",\n  \"entries\": [ ]\n}\n"), aicatalog.Options{})
	c, _ := aicatalog.Parse([]byte(`{"specVersion":"1.1","entries":[]}`), aicatalog.Options{})
	if a.Digest != b.Digest || a.Digest == c.Digest || !strings.HasPrefix(a.Digest, "sha256:") {
		t.Errorf("digests %s %s %s", a.Digest, b.Digest, c.Digest)
	}
}

// TestSourceRedacted: a diagnostic names its catalog without the URL's userinfo or
// query, in Parse and in Walk.
func TestSourceRedacted(t *testing.T) {
	t.Parallel()
	const u = "https://user:pw@example.com/catalog.json?token=s3cr3t"
	doc := entryDoc(`{"identifier": "urn:a", "type": "a/b", "url": "http://x.example/"}, {"identifier": "urn:n", "type": "application/ai-catalog+json", "url": "https://example.com/n.json?key=s3cr3t"}`)
	c, err := aicatalog.Parse(doc, aicatalog.Options{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	w, err := aicatalog.Walk(t.Context(), c, func(context.Context, string) ([]byte, error) {
		return []byte(`{"specVersion": "x", "entries": []}`), nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	all := append(c.Diagnostics, w.Diagnostics...)
	if len(all) < 2 {
		t.Fatalf("diagnostics %v", all)
	}
	for _, d := range all {
		if strings.Contains(d.String(), "s3cr3t") || strings.Contains(d.String(), "pw@") {
			t.Errorf("secret in %s", d)
		}
	}
}
