package agentskills_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
)

// Secret markers planted in hostile documents. None of them may appear in a
// diagnostic or an error.
const (
	ghToken     = "ghp_" + "Zq7xK2Zq7xK2Zq7xK2Zq7xK2Zq7xK2Zq7xK2" // GitHub token: ghp_ and 36 alphanumerics
	skKey       = "sk-live-4eC39HqLyjWDarjtT1zdp7dcQx82Lm"
	userinfoURL = "https://user:hunter2pass@host.example/x"
	queryURL    = "/mcp?access_token=SECRETQUERY123"
	basicAuth   = "Authorization: Basic dXNlcjpodW50ZXIy"
)

var (
	plantedSecrets = []string{ghToken, skKey, userinfoURL, queryURL, basicAuth}
	secretNames    = []string{"github", "sk", "userinfo", "query", "basic"}
	// leaks are the substrings that give a secret away.
	leaks = []string{ghToken, skKey, "hunter2pass", "SECRETQUERY123", "dXNlcjpodW50ZXIy", "://user", "user:hunter2"}
)

// TestNoSecretsInDiagnostics plants the secret markers in every place a diagnostic or
// an error could quote: index $schema, entry names, types, urls, digests and files,
// SKILL.md frontmatter (valid and broken YAML), draft indexes and MCP skill entries.
func TestNoSecretsInDiagnostics(t *testing.T) {
	t.Parallel()
	const schema = `"https://schemas.agentskills.io/discovery/0.2.0/schema.json"`
	digest := agentskills.Digest([]byte("x"))
	type input struct {
		kind string // "index", "index-strict", "skill", "skill-strict", "legacy", "list", "get"
		tmpl string // %[1]s: the secret as a JSON string; %[2]s: a valid digest; %[3]s: the raw secret
	}
	inputs := map[string]input{
		"index $schema":      {"index", `{"$schema":%[1]s,"skills":[]}`},
		"index $schema path": {"index", `{"$schema":"https://schemas.example/x?access_token=SECRETQUERY123&k=" + %[1]s,"skills":[]}`},
		"index name":         {"index", `{"$schema":` + schema + `,"skills":[{"name":%[1]s,"type":"skill-md","description":"d","url":"a","digest":"%[2]s"}]}`},
		"index name strict":  {"index-strict", `{"$schema":` + schema + `,"skills":[{"name":%[1]s,"type":"skill-md","description":"d","url":"a","digest":"%[2]s"}]}`},
		"index no desc":      {"index", `{"$schema":` + schema + `,"skills":[{"name":%[1]s,"type":"skill-md","url":"a","digest":"%[2]s"}]}`},
		"index type":         {"index", `{"$schema":` + schema + `,"skills":[{"name":"a","type":%[1]s,"description":"d","url":"a","digest":"%[2]s"}]}`},
		"index url":          {"index", `{"$schema":` + schema + `,"skills":[{"name":"a","type":"skill-md","description":"d","url":%[1]s,"digest":"%[2]s"}]}`},
		"index digest":       {"index", `{"$schema":` + schema + `,"skills":[{"name":"a","type":"skill-md","description":"d","url":"a","digest":%[1]s}]}`},
		"index files":        {"index", `{"skills":[{"name":"a","description":"d","files":["SKILL.md",%[1]s]}]}`},
		"index files name":   {"index", `{"skills":[{"name":%[1]s,"description":"d","files":["x.md"]}]}`},
		"interim digest":     {"index", `{"version":"0.2.0","skills":[{"name":"a","description":"d","files":[{"path":"SKILL.md","digest":%[1]s}]}]}`},
		"skill name":         {"skill", "---\nname: %[1]s\ndescription: d\n---\n"},
		"skill name strict":  {"skill-strict", "---\nname: %[1]s\ndescription: d\n---\n"},
		"skill name number":  {"skill", "---\nname: [%[1]s]\ndescription: d\n---\n"},
		"skill no desc":      {"skill", "---\nname: %[1]s\n---\n"},
		"skill metadata":     {"skill", "---\nname: a\ndescription: d\nmetadata:\n  %[1]s: [1]\n---\n"},
		"skill unknown key":  {"skill-strict", "---\nname: a\ndescription: d\n%[1]s: x\n---\n"},
		"skill duplicate":    {"skill", "---\nname: a\ndescription: d\n%[1]s: 1\n%[1]s: 2\n---\n"},
		"skill as int":       {"skill", "---\nname: a\ndescription: !!int %[1]s\n---\n"},
		"skill as bool":      {"skill", "---\nname: a\ndescription: d\nlicense: !!bool %[1]s\n---\n"},
		"skill broken flow":  {"skill", "---\nname: a\ndescription: [%[1]s\n---\n"},
		"skill bad indent":   {"skill", "---\nname: %[1]s\n  description: %[1]s\n---\n"},
		"skill plain colon":  {"skill", "---\nname: a\ndescription: %[3]s: %[3]s\n  x: y\n---\n"},
		"skill quoted retry": {"skill", "---\nname: a\ndescription: see %[3]s: now\n---\n"},
		"skill anchor":       {"skill", "---\nname: a\ndescription: *%[3]s\n---\n"},
		"legacy type":        {"legacy", `{"$schema":"x","skills":[{"name":"a","type":%[1]s,"url":%[1]s}]}`},
		"legacy url":         {"legacy", `{"$schema":"x","skills":[{"name":"a","type":"skill-md","url":%[1]s}]}`},
		"legacy skill url":   {"legacy", `{"$schema":"x","skills":[{"name":"a","type":"skill-md","url":"skill://a/SKILL.md?x=" + %[1]s}]}`},
		"legacy june":        {"legacy", `{"skills":[{"frontmatter":{"name":%[1]s},"url":%[1]s,"digest":"%[2]s"}]}`},
		"list uri":           {"list", `{"skills":[{"uri":%[1]s,"frontmatter":{"name":%[1]s,"description":"d"},"resources":"dynamic"}]}`},
		"list uri query":     {"list", `{"skills":[{"uri":"skill://a/SKILL.md?k=" + %[1]s,"frontmatter":{"name":"a","description":"d"},"resources":"dynamic"}]}`},
		"list name":          {"list", `{"skills":[{"uri":"skill://a/SKILL.md","frontmatter":{"name":%[1]s,"description":"d"},"resources":"dynamic"}]}`},
		"list resources":     {"list", `{"skills":[{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"d"},"resources":[{"uri":%[1]s,"digest":"%[2]s"},{"uri":"skill://a/" + %[1]s,"digest":"%[2]s"}]}]}`},
		"get uri":            {"get", `{"skill":{"uri":%[1]s,"frontmatter":{"name":%[1]s,"description":"d"},"resources":"dynamic"}}`},
	}
	for iname, in := range inputs {
		for i, s := range plantedSecrets {
			q, _ := json.Marshal(s)
			if strings.HasPrefix(in.kind, "skill") {
				q = []byte(fmt.Sprintf("%q", s)) // a YAML double-quoted scalar
			}
			doc := fmt.Sprintf(in.tmpl, q, digest, s)
			doc = strings.ReplaceAll(doc, `" + "`, "")
			t.Run(iname+"/"+secretNames[i], func(t *testing.T) {
				t.Parallel()
				var diags []agentskills.Diagnostic
				var err error
				switch in.kind {
				case "index", "index-strict":
					mode := agentskills.Lenient
					if in.kind == "index-strict" {
						mode = agentskills.Strict
					}
					var ix *agentskills.Index
					ix, err = agentskills.ParseIndex([]byte(doc), legacyIndexURL, mode)
					if ix != nil {
						diags = ix.Diagnostics
					}
				case "skill", "skill-strict":
					for _, mode := range []agentskills.Mode{agentskills.Lenient, agentskills.Strict} {
						for _, dir := range []string{"", "a", s} {
							sk, err := agentskills.ParseSkillMD([]byte(doc), agentskills.ParseOptions{Mode: mode, Dir: dir})
							if sk != nil {
								assertDiagnostics(t, sk.Diagnostics)
							}
							assertErr(t, err)
						}
					}
				case "legacy":
					_, diags, err = agentskills.ParseLegacyIndex([]byte(doc))
				case "list":
					var res *agentskills.ListResult
					res, err = agentskills.ParseListResult([]byte(doc))
					if res != nil {
						diags = res.Diagnostics
					}
				case "get":
					_, diags, err = agentskills.ParseGetResult([]byte(doc))
				}
				assertDiagnostics(t, diags)
				assertErr(t, err)
			})
		}
	}
}

// TestNoSecretsInIndexURL: the index URL itself is redacted in ParseIndex's error.
func TestNoSecretsInIndexURL(t *testing.T) {
	t.Parallel()
	for i, s := range plantedSecrets {
		_, err := agentskills.ParseIndex([]byte(`{"skills":[]}`), s, agentskills.Lenient)
		if err == nil {
			continue
		}
		t.Run(secretNames[i], func(t *testing.T) {
			t.Parallel()
			assertErr(t, err)
		})
	}
}

// TestNoSecretsInScanLocal: skills on disk whose names are secrets, shadowing each
// other, are reported without the secret.
func TestNoSecretsInScanLocal(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	for i, s := range plantedSecrets {
		doc := fmt.Sprintf("---\nname: %q\ndescription: d\n---\n", s)
		write(t, filepath.Join(base, "one", secretNames[i], "SKILL.md"), doc)
		write(t, filepath.Join(base, "two", secretNames[i], "SKILL.md"), doc)
	}
	got, err := agentskills.ScanLocal(agentskills.LocalOptions{Roots: []string{filepath.Join(base, "one"), filepath.Join(base, "two")}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(codes(got.Diagnostics), "shadowed") {
		t.Errorf("no shadowed diagnostic: %v", codes(got.Diagnostics))
	}
	assertDiagnostics(t, got.Diagnostics)
}

func assertErr(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	assertNoLeak(t, "Error", err.Error())
	var se *agentskills.SkillError
	if errors.As(err, &se) {
		assertDiagnostics(t, se.Diagnostics)
	}
}

func assertDiagnostics(t *testing.T, ds []agentskills.Diagnostic) {
	t.Helper()
	for _, d := range ds {
		assertNoLeak(t, "Message", d.Message)
		assertNoLeak(t, "Where", d.Where)
		assertNoLeak(t, "Sprint", fmt.Sprint(d))
	}
	js, err := json.Marshal(ds)
	if err != nil {
		t.Fatal(err)
	}
	assertNoLeak(t, "JSON", string(js))
}

func assertNoLeak(t *testing.T, what, s string) {
	t.Helper()
	for _, l := range leaks {
		if strings.Contains(strings.ToLower(s), strings.ToLower(l)) { // url.Parse lower-cases schemes
			t.Errorf("%s leaks %q: %s", what, l, s)
		}
	}
}

// TestSkillsObjectKeyQuotedInDiagnostics: when "skills" is an object, its member keys
// are document text, and they appear in every Diagnostic.Where of the entry
// ("/skills/" + key). They are quoted as every other piece of the document a
// diagnostic shows: scrubbed of secrets, bounded, without raw control characters, so
// a planted token, a terminal escape sequence or a line break that would forge
// further diagnostic lines never comes out of ParseIndex (nor, from there,
// discovery.SkillsIndex.Warnings). TestNoSecretsInDiagnostics holds Where to the same
// rule.
func TestSkillsObjectKeyQuotedInDiagnostics(t *testing.T) {
	t.Parallel()
	key := ghToken + "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07\n/skills/0: error: forged line " + strings.Repeat("A", 600)
	k, _ := json.Marshal(key)
	for name, doc := range map[string]string{
		// Keyed by name: the entry has no description, so it gets a warning at its key.
		"keyed": fmt.Sprintf(`{"skills": {%s: {"slug": "notes", "files": ["SKILL.md"]}}}`, k),
		// Groups of entries: the key is the group's, and every entry's pointer starts with it.
		"groups": fmt.Sprintf(`{"skills": {%s: [{"name": "notes", "files": ["SKILL.md"]}]}}`, k),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ix, err := agentskills.ParseIndex([]byte(doc), legacyIndexURL, agentskills.Lenient)
			if err != nil {
				t.Fatal(err)
			}
			if len(ix.Diagnostics) == 0 {
				t.Fatal("no diagnostics: the case no longer exercises the key")
			}
			assertDiagnostics(t, ix.Diagnostics) // the token
			for _, d := range ix.Diagnostics {
				s := d.String()
				if strings.ContainsAny(s, "\x1b\x07\n") {
					t.Errorf("diagnostic carries raw control characters from the document: %q", s)
				}
				if len(d.Where) > 512 {
					t.Errorf("Where is %d bytes of document text", len(d.Where))
				}
			}
		})
	}
}
