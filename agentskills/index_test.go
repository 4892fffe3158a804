package agentskills_test

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/internal/testparts"
)

const legacyIndexURL = "https://docs.example.com/.well-known/skills/index.json"

func entries(ix *agentskills.Index) string {
	var out []string
	for _, s := range ix.Skills {
		out = append(out, s.Name+"="+strings.TrimPrefix(s.URL, "https://docs.example.com"))
	}
	return strings.Join(out, " ")
}

// TestIndexFiles gives every index in the corpus and the vectors an explicit expectation.
func TestIndexFiles(t *testing.T) {
	t.Parallel()
	type want struct {
		err     error  // errors.Is, or nil
		version string //
		skills  string // name=path, joined by " "
		diags   string // diagnostic codes
	}
	expect := map[string]want{
		"skillsindex/DearDhruv__deardhruv.com__static-wellknown-agent-skills-index.json": {err: agentskills.ErrNotIndex},
		"skillsindex/cloudflare__cloudflare-docs__public-wellknown-skills-index.json": {version: agentskills.V010,
			skills: "agents-sdk=/.well-known/skills/agents-sdk/SKILL.md cloudflare=/.well-known/skills/cloudflare/SKILL.md " +
				"durable-objects=/.well-known/skills/durable-objects/SKILL.md wrangler=/.well-known/skills/wrangler/SKILL.md"},
		"skillsindex/getsentry__sentry-docs__public-wellknown-skills-index.json": {version: agentskills.V010,
			skills: "sentry-docs=/.well-known/skills/sentry-docs/SKILL.md technical-docs=/.well-known/skills/technical-docs/SKILL.md docs-review=/.well-known/skills/docs-review/SKILL.md"},
		// v0.2.0 body at the v0.1.0 path; its entry has no digest, so it cannot be verified.
		// No digest: read unverified in Lenient mode (labelled so), skipped in Strict.
		"skillsindex/merxex__merxex-website__wellknown-skills-index.json": {version: agentskills.V020,
			skills: "merxex-exchange=https://merxex.com/SKILL.md", diags: "unverified"},
		"skillsindex/mollie__ai__wellknown-skills-index.json": {version: agentskills.V010,
			skills: "mollie-integration=/.well-known/skills/mollie-integration/SKILL.md"},
		"skillsindex/neondatabase__website__public-wellknown-skills-index.json": {version: agentskills.V010,
			skills: "neon-postgres=/.well-known/skills/neon-postgres/SKILL.md claimable-postgres=/.well-known/skills/claimable-postgres/SKILL.md " +
				"neon-postgres-egress-optimizer=/.well-known/skills/neon-postgres-egress-optimizer/SKILL.md neon-postgres-branches=/.well-known/skills/neon-postgres-branches/SKILL.md " +
				"neon=/.well-known/skills/neon/SKILL.md neon-postgres-agent-platforms=/.well-known/skills/neon-postgres-agent-platforms/SKILL.md " +
				"neon-object-storage=/.well-known/skills/neon-object-storage/SKILL.md neon-ai-gateway=/.well-known/skills/neon-ai-gateway/SKILL.md " +
				"neon-functions=/.well-known/skills/neon-functions/SKILL.md"},
		// Relative URLs resolve against the index URL.
		"skillsindex/rinchen__stanford.tel__wellknown-skills-index.json": {version: agentskills.V020,
			skills: "hermes-radicle=/.well-known/skills/hermes-radicle/SKILL.md hermes-ngit=/.well-known/skills/hermes-ngit/SKILL.md"},
		// A plugin manifest carrying a prompt-injection payload: not an index; its text never surfaces.
		"skillsindex/timlawrenz__216pi.ai__wellknown-skills-index-HOSTILE.json":                    {err: agentskills.ErrNotIndex},
		"vectors/wellknown/AppotaPayInc--skills--well-known-agent-skills-index.NONCONFORMANT.json": {err: agentskills.ErrUnknownSchema},
		// Placeholder digests ("sha256:c4d5e6f7...") cannot verify anything: every entry is skipped.
		// Elided example digests ("sha256:c4d5e6f7..."): placeholders, so the skill-md
		// entries are read unverified; the archive is never read without a digest.
		"vectors/wellknown/cloudflare-rfc--1bd1167--example-index.v0.2.0.json": {version: agentskills.V020,
			skills: "code-review=/.well-known/agent-skills/code-review/SKILL.md git-workflow=/.well-known/agent-skills/git-workflow/SKILL.md",
			diags:  "unverified,unverified,digest"},
		"vectors/wellknown/cloudflare-rfc--d484812--example-index.v0.2.0-interim-draft.json": {version: agentskills.V020Interim,
			skills: "wrangler=/.well-known/skills/wrangler/SKILL.md code-review=/.well-known/skills/code-review/SKILL.md",
			diags:  "unverified,unverified,unverified,unverified"},
		"vectors/wellknown/cloudflare-rfc--d9532a1--example-index.v0.1.0.json": {version: agentskills.V010,
			skills: "wrangler=/.well-known/skills/wrangler/SKILL.md code-review=/.well-known/skills/code-review/SKILL.md"},
		"vectors/wellknown/getsentry--sentry-docs--public-well-known-skills-index.v0.1.0.json": {version: agentskills.V010,
			skills: "sentry-docs=/.well-known/skills/sentry-docs/SKILL.md technical-docs=/.well-known/skills/technical-docs/SKILL.md docs-review=/.well-known/skills/docs-review/SKILL.md"},
	}
	root := "../../shared/corpus"
	if _, err := os.Stat(root); err != nil {
		testparts.Skip(t, testparts.Shared, err.Error())
	}
	var files []string
	for _, g := range []string{"skillsindex/*", "vectors/wellknown/*"} {
		m, _ := filepath.Glob(filepath.Join(root, g))
		files = append(files, m...)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			w, ok := expect[rel]
			if !ok {
				t.Fatalf("no expectation for %s", rel)
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ix, err := agentskills.ParseIndex(data, legacyIndexURL, agentskills.Lenient)
			if w.err != nil {
				if !errors.Is(err, w.err) {
					t.Fatalf("error = %v, want %v", err, w.err)
				}
				if strings.Contains(err.Error(), "CRITICAL") || strings.Contains(err.Error(), "Do not execute") {
					t.Errorf("the error repeats the document's text: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ix.Version != w.version || entries(ix) != w.skills || codes(ix.Diagnostics) != w.diags {
				t.Errorf("version %s, skills %q, diags %q\nwant %s, %q, %q", ix.Version, entries(ix), codes(ix.Diagnostics), w.version, w.skills, w.diags)
			}
		})
	}
}

func TestIndexRules(t *testing.T) {
	t.Parallel()
	digest := agentskills.Digest([]byte("x"))
	const v2 = `{"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json", "skills": [`
	tests := []struct {
		name, doc, skills, diags string
		mode                     agentskills.Mode
	}{
		{"v0.2.0 resolution", v2 + `{"name":"a","type":"skill-md","description":"d","url":"a/SKILL.md","digest":"` + digest + `"},
			{"name":"b","type":"archive","description":"d","url":"https://cdn.example.org/b.tar.gz","digest":"` + digest + `"},
			{"name":"c","type":"skill-md","description":"d","url":"/c/SKILL.md","digest":"` + digest + `"}]}`,
			"a=/.well-known/skills/a/SKILL.md b=https://cdn.example.org/b.tar.gz c=/c/SKILL.md", "", agentskills.Lenient},
		{"unknown type skipped", v2 + `{"name":"a","type":"mcp-resource-template","description":"d","url":"a","digest":"` + digest + `"}]}`, "", "unknown-type", agentskills.Lenient},
		{"http, javascript and userinfo URLs skipped", v2 +
			`{"name":"a","type":"skill-md","description":"d","url":"http://x.example/a","digest":"` + digest + `"},
			{"name":"b","type":"skill-md","description":"d","url":"javascript:alert(1)","digest":"` + digest + `"},
			{"name":"c","type":"skill-md","description":"d","url":"https://u:p@x.example/c","digest":"` + digest + `"}]}`, "", "url,url,url", agentskills.Lenient},
		{"uppercase digest read in lower case", v2 + `{"name":"a","type":"skill-md","description":"d","url":"a","digest":"` + strings.ToUpper(digest) + `"}]}`, "a=/.well-known/skills/a", "digest", agentskills.Lenient},
		{"uppercase digest skipped, strict", v2 + `{"name":"a","type":"skill-md","description":"d","url":"a","digest":"` + strings.ToUpper(digest) + `"}]}`, "", "digest", agentskills.Strict},
		{"v0.1.0 unsafe paths, strict", `{"skills": [{"name":"a","description":"d","files":["SKILL.md","../x"]},
			{"name":"b","description":"d","files":["SKILL.md","/etc/passwd"]},
			{"name":"c","description":"d","files":["SKILL.md","a\\b"]},
			{"name":"d","description":"d","files":["README.md"]},
			{"name":"../e","description":"d","files":["SKILL.md"]}]}`, "", "files,files,files,files,name", agentskills.Strict},
		// Lenient mode drops the unsafe files (never fetched) and keeps the skill; an
		// unsafe skill file or name still skips the entry.
		{"v0.1.0 unsafe paths, lenient", `{"skills": [{"name":"a","description":"d","files":["SKILL.md","../x"]},
			{"name":"b","description":"d","files":["SKILL.md","/etc/passwd"]},
			{"name":"c","description":"d","files":["SKILL.md","a\\b"]},
			{"name":"d","description":"d","files":["README.md"]},
			{"name":"f","description":"d","files":["../SKILL.md"]},
			{"name":"../e","description":"d","files":["SKILL.md"]}]}`,
			"a=/.well-known/skills/a/SKILL.md b=/.well-known/skills/b/SKILL.md c=/.well-known/skills/c/SKILL.md", "files,files,files,files,files,name", agentskills.Lenient},
		{"v0.1.0 SKILL.md first", `{"skills": [{"name":"a","description":"d","files":["references/x.md","SKILL.md"]}]}`, "a=/.well-known/skills/a/SKILL.md", "", agentskills.Lenient},
		{"v0.2.0 entries without $schema, lenient", `{"skills": [{"name":"a","type":"skill-md","description":"d","url":"/a/SKILL.md","digest":"` + digest + `"}]}`, "a=/a/SKILL.md", "version", agentskills.Lenient},
		{"v0.2.0 entries without $schema, strict", `{"skills": [{"name":"a","type":"skill-md","description":"d","url":"/a/SKILL.md","digest":"` + digest + `"}]}`, "", "version", agentskills.Strict},
		{"name not ASCII-lowercase", v2 + `{"name":"Big","type":"skill-md","description":"d","url":"a","digest":"` + digest + `"}]}`, "Big=/.well-known/skills/a", "name", agentskills.Lenient},
		{"empty index", `{"skills": []}`, "", "empty", agentskills.Lenient},
		{"empty index, strict", `{"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json", "skills": []}`, "", "empty", agentskills.Strict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ix, err := agentskills.ParseIndex([]byte(tc.doc), legacyIndexURL, tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			if entries(ix) != tc.skills || codes(ix.Diagnostics) != tc.diags {
				t.Errorf("skills %q, diags %q (%v); want %q, %q", entries(ix), codes(ix.Diagnostics), ix.Diagnostics, tc.skills, tc.diags)
			}
		})
	}
	for _, bad := range []string{`[]`, `{"skills": null}`, `{"name": "x"}`, `not json`, `{"skills": []} trailing`} {
		if _, err := agentskills.ParseIndex([]byte(bad), legacyIndexURL, agentskills.Lenient); !errors.Is(err, agentskills.ErrNotIndex) {
			t.Errorf("ParseIndex(%q) = %v, want ErrNotIndex", bad, err)
		}
	}
}

// indexSeeds adds every index fixture and every index of the shared corpus.
func indexSeeds(f *testing.F) {
	for _, pattern := range []string{"testdata/index*.json", "../../shared/corpus/skillsindex/*.json"} {
		files, _ := filepath.Glob(pattern)
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
				f.Add(data, false)
				f.Add(data, true)
			}
		}
	}
	f.Add([]byte(`{"skills": [{"name": "a", "url": "/a/SKILL.md"}, {"name": "b", "entry": "/b.md", "path": "x/b/SKILL.md"}]}`), false)
	f.Add([]byte(`{"version": "0.2.0", "skills": [{"name": "a", "files": ["g/a/SKILL.md", "g/a/r.md", "other.md"]}]}`), false)
	f.Add([]byte(`{"skills": {"g": [{"id": "a", "path": "a.md"}], "b": {"description": "d"}, "c~/": {"slug": "c", "url": "//x.example/SKILL.md"}}}`), false)
	f.Add([]byte(`{"skills": [{"name": "a", "description": "d", "links": {"skill": "../../SKILL.md"}}, {"name": "b", "description": "d", "dir": "x/b/"}, {"name": "c", "description": "d"}]}`), false)
	f.Add([]byte(`{"version": 1, "items": [{"slug": "a", "summary": "d", "v": {"skill_md_url": "https://x.example/a/SKILL.md"}}, {"slug": "b", "type": "blueprint", "url": "b/SKILL.md"}]}`), false)
	f.Add([]byte(`[{"name": "a", "url": 3, "type": [], "files": ["SKILL.md"]}, "x", {"id": "b", "sha256": 1, "path": "b"}]`), false)
}

func loopback(h string) bool {
	a, err := netip.ParseAddr(h)
	return h == "localhost" || err == nil && a.Unmap().IsLoopback()
}

// localAddress reports a host on this machine or a private network, which an index on
// a public host (legacyIndexURL) may never send a reader to.
func localAddress(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	a, err := netip.ParseAddr(h)
	if err == nil {
		a = a.Unmap()
		return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsUnspecified()
	}
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// FuzzParseIndex: no panic; every entry read has a name and an absolute URL that is
// https (http only on loopback) without userinfo, on no local address (the index is on
// a public host) nor are its files, its first file is that URL, and any digest is well
// formed. Strict mode never reads an entry without a description.
func FuzzParseIndex(f *testing.F) {
	indexSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, strict bool) {
		mode := agentskills.Lenient
		if strict {
			mode = agentskills.Strict
		}
		ix, err := agentskills.ParseIndex(data, legacyIndexURL, mode)
		if err != nil {
			return
		}
		for _, e := range ix.Skills {
			u, perr := url.Parse(e.URL)
			switch {
			case e.Name == "", perr != nil, u.User != nil, u.Host == "",
				u.Scheme != "https" && !(u.Scheme == "http" && loopback(u.Hostname())),
				localAddress(u.Hostname()): // the index is on a public host
				t.Fatalf("bad entry URL %+v", e)
			case slices.ContainsFunc(e.Files, func(f agentskills.IndexFile) bool { return localAddress(hostOf(f.URL)) }):
				t.Fatalf("file on a local address %+v", e)
			case e.Digest != "" && !agentskills.ValidDigest(e.Digest):
				t.Fatalf("bad digest %+v", e)
			case len(e.Files) > 0 && e.Files[0].URL != e.URL:
				t.Fatalf("first file is not the entry URL %+v", e)
			case strict && strings.TrimSpace(e.Description) == "":
				t.Fatalf("strict read an entry without description %+v", e)
			}
		}
	})
}

// FuzzParseLegacy: the draft readers never panic, and what they return is inside the
// limits they promise (skill:// SKILL.md URIs, well-formed digests or none).
func FuzzParseLegacy(f *testing.F) {
	for _, s := range []string{
		`{"skills": [{"frontmatter": {"name": "a", "description": "d"}, "url": "skill://a/SKILL.md", "digest": "sha256:` + strings.Repeat("0", 64) + `"}]}`,
		`{"$schema": "x", "skills": [{"name": "a", "type": "skill-md", "url": "skill://a/SKILL.md"}, {"name": "b", "type": "archive", "url": "skill://b.zip"}]}`,
		`{"skills": [{"frontmatter": {"name": "z"}, "archives": [{"url": "skill://z.tar.gz", "mimeType": "application/gzip"}, "bad"]}]}`,
		`{"skills": null}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	if files, _ := filepath.Glob("testdata/index*.json"); len(files) > 0 {
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, _, _ := agentskills.ParseLegacyIndex(data)
		for _, e := range entries {
			if _, err := agentskills.ParseSkillURI(e.URI); err != nil || (e.Digest != "" && !agentskills.ValidDigest(e.Digest)) {
				t.Fatalf("bad entry %+v", e)
			}
		}
		archives, _, _ := agentskills.ParseLegacyArchives(data)
		for _, a := range archives {
			if a.Digest != "" && !agentskills.ValidDigest(a.Digest) || a.Root == "" {
				t.Fatalf("bad archive %+v", a)
			}
		}
	})
}

// TestHasDigestsInterimPlaceholder: in an interim index whose SKILL.md has a real
// digest and whose other file a placeholder, the placeholder is dropped (file Digest
// ""), and IndexEntry.Digest is SKILL.md's: HasDigests must not report the skill as
// verifiable, since one of its files cannot be checked.
func TestHasDigestsInterimPlaceholder(t *testing.T) {
	md := "---\nname: deploy\ndescription: Deploy.\n---\n"
	index := fmt.Sprintf(`{"version": "0.2.0", "skills": [{"name": "deploy", "description": "Deploy.", "files": [
		{"path": "SKILL.md", "digest": %q}, {"path": "run.sh", "digest": "sha256:TODO"}]}]}`, agentskills.Digest([]byte(md)))
	ix, err := agentskills.ParseIndex([]byte(index), "https://a.example/.well-known/agent-skills/index.json", agentskills.Lenient)
	if err != nil || len(ix.Skills) != 1 {
		t.Fatalf("%v %+v", err, ix)
	}
	e := ix.Skills[0]
	if e.Files[1].Digest == "" && e.HasDigests() {
		t.Errorf("HasDigests() = true, but file %q has no digest (entry Digest %q is SKILL.md's)", e.Files[1].Path, e.Digest)
	}
}
