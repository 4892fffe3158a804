package agentskills_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
)

// indexShapes gives each index fixture under testdata (one per shape seen in
// published indexes, see testdata/skillsindex-shapes.md at the module root) the
// skills Lenient and Strict mode must read, and the diagnostic codes.
var indexShapes = []struct {
	file         string
	lenient      string // name=path, joined by " "
	lenientDiags string
	strict       string
	strictErr    error // errors.Is, or nil
	strictDiags  string
	lenientErr   error
}{
	{file: "index-schema-variant.json",
		lenient:      "site-overview=/.well-known/agent-skills/site-overview/SKILL.md contact=/.well-known/skills/contact/SKILL.md",
		lenientDiags: "schema,type,digest,digest", strictErr: agentskills.ErrUnknownSchema},
	{file: "index-schema-http-slash.json", lenient: "browse-posts=/.well-known/agent-skills/browse-posts/SKILL.md",
		lenientDiags: "schema", strictErr: agentskills.ErrUnknownSchema},
	{file: "index-schema-version-elsewhere.json", lenient: "find-api=/.well-known/agent-skills/find-api/SKILL.md",
		lenientDiags: "schema", strictErr: agentskills.ErrUnknownSchema},
	{file: "index-v010-folder-prefix.json", lenient: "trading=/.well-known/skills/trading/SKILL.md", lenientDiags: "files",
		strictDiags: "files"},
	{file: "index-v010-lower-skill.json", lenient: "gpu-orchestration=/.well-known/skills/gpu-orchestration/skill.md", lenientDiags: "files",
		strict: "gpu-orchestration=/.well-known/skills/gpu-orchestration/skill.md", strictDiags: "files"},
	{file: "index-v010-path-folder.json", lenient: "cloud-cli=/.well-known/skills/cloud-cli/SKILL.md pm=/.well-known/skills/pm/SKILL.md",
		lenientDiags: "files,files", strictErr: agentskills.ErrNotIndex},
	// Round 4: an entry without a description (read, with a warning, in Lenient mode).
	{file: "index4-no-description.json",
		lenient:      "note-writer=/.well-known/skills/note-writer/SKILL.md weekly-digest=/.well-known/skills/weekly-digest/SKILL.md",
		lenientDiags: "description", strict: "weekly-digest=/.well-known/skills/weekly-digest/SKILL.md", strictDiags: "description"},
	// Round 4: the skill file named in "url", "path" or "entry" instead of "files" (no
	// digest); a URL that is not a SKILL.md is not read as one.
	{file: "index4-skill-file-named.json",
		lenient:      "task-runner=https://cdn.acme.dev/skills/task-runner/SKILL.md pay-router=/skills/pay-router/SKILL.md passport=/skills.md",
		lenientDiags: "files,files,files,files", strictErr: agentskills.ErrNotIndex},
	// Round 4: "version": "0.2.0" with v0.1.0 string file lists under group folders.
	{file: "index4-interim-grouped-files.json",
		lenient:      "acme-refunds=/.well-known/skills/acme-refunds/SKILL.md acme-webhooks=/.well-known/skills/acme-webhooks/SKILL.md",
		lenientDiags: "files,files,files,files", strictDiags: "files,files"},
	// Round 5: the skill file named under another URL key ("install_url", "skillUrl");
	// a URL there that is not a SKILL.md is not read as one (that entry has no files: skipped).
	{file: "index5-other-url-key.json",
		lenient:      "lint-rules=https://cdn.acme.dev/skills/lint-rules/SKILL.md report-card=/skills/report-card/SKILL.md",
		lenientDiags: "files,files,files", strictErr: agentskills.ErrNotIndex},
	// Round 5: the skill name in "id" beside a display name in "name"; file paths that
	// climb out of the skill folder are dropped (never fetched), the skill kept. Strict
	// mode reads neither: display names are not skill names.
	{file: "index5-id-and-unsafe-files.json",
		lenient:      "field-notes=/.well-known/skills/field-notes/SKILL.md tide-tables=/.well-known/skills/tide-tables/SKILL.md",
		lenientDiags: "name,files,name", strictDiags: "name,name"},
	// Round 6: "skills" as an object holding groups of entries, each named by its "id"
	// and pointing at one Markdown file under "path".
	{file: "index6-skills-object.json",
		lenient:      "acme-start=/.well-known/skills/acme-start.md cloud-api=/.well-known/skills/paths/cloud-api.md android-sdk=/.well-known/skills/paths/android-sdk.md",
		lenientDiags: "skills,name,files,name,files,name,files", strictErr: agentskills.ErrNotIndex},
	// Round 6: "skills" as an object keyed by skill name; a valid key or "slug" wins over
	// a display name.
	{file: "index6-skills-keyed.json",
		lenient:      "pdf-tools=/.well-known/skills/pdf-tools/SKILL.md release-notes=https://cdn.acme.dev/skills/release-notes/SKILL.md chart-maker=/.well-known/skills/chart-maker/SKILL.md",
		lenientDiags: "skills,files,name,files,name", strictErr: agentskills.ErrNotIndex},
	// Round 6: entries that give only a name (and inert metadata): located by the v0.1.0
	// convention, with a warning. A display name with only a UUID id, or an entry with a
	// tool's input schema, is not read.
	{file: "index6-names-only.json",
		lenient:      "deploy=/.well-known/skills/deploy/SKILL.md db-query=/.well-known/skills/db-query/SKILL.md",
		lenientDiags: "description,files,files,name,files,files", strictErr: agentskills.ErrNotIndex},
	// Round 6: the skill file under any key, nested one level ("manifest", "links.skill"),
	// never in a command string; a bare "SKILL.md"; a folder named after the skill under
	// "path" or "source" (not "repo").
	{file: "index6-skill-file-anywhere.json",
		lenient: "geo-lookup=https://cdn.acme.dev/geo-lookup/SKILL.md ink-design=/.well-known/skills/ink-design/SKILL.md " +
			"mesh-runner=/.well-known/skills/skills/ops/mesh-runner/SKILL.md note-cli=/.well-known/skills/skills/note-cli/SKILL.md trail-map=/skills/trail-map/SKILL.md",
		lenientDiags: "files,files,files,files,files", strictErr: agentskills.ErrNotIndex},
	// Round 6: REST routes, an MCP service, A2A agent-card skills, pages and tools listed
	// as "skills": not an index in either mode.
	{file: "index6-not-skills.json", lenientErr: agentskills.ErrNotIndex, strictErr: agentskills.ErrNotIndex},
	// Round 6 (held out): a v0.2.0 entry whose type is not skill-md ("md", "claude-code")
	// but whose url names a SKILL.md; an entry of another type ("api") is still skipped.
	{file: "index6-type-names-skill-file.json",
		lenient:      "car-pool=https://cdn.acme.dev/skills/car-pool/SKILL.md hbs-to-jsx=/skills/hbs-to-jsx/skill.md",
		lenientDiags: "type,type,unknown-type", strictDiags: "unknown-type,unknown-type,unknown-type"},
	// A v0.2.0 entry of a type the readers do not know ("prompt", "workflow") whose url
	// is plainly a skill file (named after the skill, or "<stem>-skill.md"): read as
	// skill-md with a warning in Lenient mode; a Markdown page of another name ("readme.md")
	// and a .json file are still skipped. Strict mode skips them all.
	{file: "index-type-unknown-skill-file-url.json",
		lenient:      "pdf-fill=https://cdn.acme.dev/skills/pdf-fill.md geo-tools=/skills/geo-skill.md tide-table=/skills/tide-table.MD",
		lenientDiags: "type,type,type,unknown-type,unknown-type", strictDiags: "unknown-type,unknown-type,unknown-type,unknown-type,unknown-type"},
	// Round 11 (held out): an entry of a type the readers do not know ("webmcp-tool")
	// whose url is a Markdown file in the site's well-known skills folder, or one named
	// after the skill with "_" for "-" ("search-posts.md" for "search_posts"): read as
	// skill-md with a warning in Lenient mode. The folder's README and a Markdown page
	// elsewhere are still skipped; Strict mode skips them all.
	{file: "index-type-unknown-skills-folder-markdown.json",
		lenient:      "search_posts=https://blog.example.org/.well-known/agent-skills/search-posts.md list_feeds=/.well-known/agent-skills/feeds.md",
		lenientDiags: "name,type,name,type,unknown-type,unknown-type", strictDiags: "name,name,unknown-type,unknown-type"},
	// Round 6 (held out): v0.1.0 files written as absolute URLs: read from the folder of
	// the SKILL.md URL; a file outside it is dropped, an http SKILL.md refused.
	{file: "index6-files-as-urls.json",
		lenient:      "flow-builder=https://raw.acme.dev/plugins/skills/flow-builder/SKILL.md form-kit=https://raw.acme.dev/plugins/skills/form-kit/SKILL.md",
		lenientDiags: "files,files,files,files,url", strictDiags: "files,files,files"},
	// Round 7 (held out): a registry export that lists skills under "items" (slug,
	// summary, the SKILL.md URL one object down), not "skills": the entries that point
	// at a skill file or folder are read; one of another type ("blueprint") and one
	// that gives only a name are not, as a catalog lists more than skills.
	{file: "index7-catalog-items.json",
		lenient: "pdf-tools=https://cdn.acme.dev/skills/pdf-tools/SKILL.md note-taker=/.well-known/skills/note-taker/SKILL.md " +
			"chart-maker=/.well-known/skills/skills/chart-maker/SKILL.md",
		lenientDiags: "skills,name,description,files,name,description,files,name,description,files,name,description,files",
		strictErr:    agentskills.ErrNotIndex},
	// JSON with comments and trailing commas (an editor's JSON): read as if they were
	// absent, with a warning; Strict mode refuses it.
	{file: "indexj-editor-json.json",
		lenient:      "invoice-check=/.well-known/skills/invoice-check/SKILL.md",
		lenientDiags: "json", strictErr: agentskills.ErrNotIndex},
	// Round 7: a document that is an array of entries, read as a catalog's list.
	{file: "index7-top-array.json",
		lenient:      "release-notes=https://cdn.acme.dev/skills/release-notes/SKILL.md changelog=/.well-known/skills/changelog/SKILL.md",
		lenientDiags: "skills,files,files,entry", strictErr: agentskills.ErrNotIndex},
	// Round 7 (held out): "version": 1 (a number) and entry members of other JSON types
	// ("url": [...], "type": 2) no longer make the document or the entry unreadable.
	{file: "index7-loose-scalars.json",
		lenient:      "ux-review=/.well-known/skills/ux-review/SKILL.md ux-audit=/.well-known/skills/ux-audit/SKILL.md",
		lenientDiags: "files", strict: "ux-review=/.well-known/skills/ux-review/SKILL.md", strictDiags: "files"},
	// Round 8 (held out): a $schema in the discovery RFC's own repository on GitHub, with
	// "version": "0.2.0" beside it, is a variant spelling of the v0.2.0 identifier.
	{file: "index8-rfc-repo-schema.json",
		lenient:      "feed-publisher=https://example.com/.well-known/agent-skills/feed-publisher/SKILL.md",
		lenientDiags: "schema", strictErr: agentskills.ErrUnknownSchema},
	// Round 8 (held out): "skill-md" entries whose url names a site's llms.txt or OpenAPI
	// file are skipped in both modes (a SKILL.md is Markdown); a url without an extension,
	// or the text twin SKILL.txt, is still read.
	{file: "index8-skill-md-not-markdown.json",
		lenient: "tide-tables=/.well-known/agent-skills/tide-tables/SKILL.md route-planner=https://example.com/skills/route-planner " +
			"work-paper=https://example.org/skills/work-paper/SKILL.txt",
		lenientDiags: "url,url",
		strict: "tide-tables=/.well-known/agent-skills/tide-tables/SKILL.md route-planner=https://example.com/skills/route-planner " +
			"work-paper=https://example.org/skills/work-paper/SKILL.txt",
		strictDiags: "url,url"},
	// Round 8 (held out): a marketplace listing whose "url" is a relative link to an HTML
	// page: the entries point at pages, so the v0.1.0 name convention does not apply.
	{file: "index8-url-pages.json", lenientErr: agentskills.ErrNotIndex, strictErr: agentskills.ErrNotIndex},
	// Round 8 (held out): "url" to a Markdown file named after the skill ("<name>.md"), or
	// to SKILL.txt, read as the skill file; a Markdown page named otherwise is not.
	{file: "index8-url-named-md.json",
		lenient:      "build-kit=https://example.com/.well-known/agent-skills/build-kit.md work-paper=https://example.github.io/site/.well-known/skills/work-paper/SKILL.txt",
		lenientDiags: "files,files,files", strictErr: agentskills.ErrNotIndex},
	// Round 8 (held out): "archive_url" with its digest in "archive_sha256" is an archive
	// entry; a placeholder digest skips it; an archive without a digest is not read, and
	// the "entrypoint" beside an archive (a path inside it) is never a file of the site.
	{file: "index8-archive-url.json",
		lenient:      "map-kit=https://example.com/.well-known/agent-skills/map-kit.tar.gz",
		lenientDiags: "type,digest,files", strictErr: agentskills.ErrNotIndex},
	// Round 8 (held out): a display name in "name" (one with "/") and a url to
	// ".../<folder>/SKILL.md": the skill is named after its folder, as the Agent Skills
	// specification names a skill; a folder of skills ("agent-skills") names none.
	{file: "index8-display-name-folder.json",
		lenient: "ledger-export=https://example.com/.well-known/agent-skills/ledger-export/SKILL.md InvoiceDesk=https://example.com/.well-known/agent-skills/SKILL.md " +
			"pay-check=https://example.com/.well-known/agent-skills/other-folder/SKILL.md",
		lenientDiags: "name,name",
		strict:       "pay-check=https://example.com/.well-known/agent-skills/other-folder/SKILL.md", strictDiags: "name,name"},
	// Round 9 (held out): skill-md entries whose url names no file at all: a folder or
	// page ("https://example.com/operators/", "https://example.com/#tools", "./") or a
	// GitHub repository page or folder view. Skipped in both modes, as a .json or .txt
	// url is; a url without an extension and a SKILL.md on GitHub are still read.
	{file: "index9-skill-md-pages.json",
		lenient: "harbor-guide=/.well-known/agent-skills/harbor-guide/SKILL.md tide-notes=https://example.com/skills/tide-notes " +
			"knot-tying=https://github.com/example-org/harbor-tools/blob/main/skills/knot-tying/SKILL.md",
		lenientDiags: "url,url,url,url,url",
		strict: "harbor-guide=/.well-known/agent-skills/harbor-guide/SKILL.md tide-notes=https://example.com/skills/tide-notes " +
			"knot-tying=https://github.com/example-org/harbor-tools/blob/main/skills/knot-tying/SKILL.md",
		strictDiags: "url,url,url,url,url"},
	// Round 9 (held out): "skills": [] (a placeholder index): read, with a warning
	// saying it lists nothing, in both modes.
	{file: "index9-empty.json", lenientDiags: "empty", strictDiags: "empty"},
	// Round 10 (held out): a $schema in the discovery RFC's repository that names no
	// version ("…/agent-skills-discovery-rfc/main/schema.json"): the RFC's one $schema,
	// v0.2.0's, spelled another way (Lenient); Strict refuses it.
	{file: "index10-rfc-repo-schema-unversioned.json",
		lenient:      "tide-report=https://example.org/.well-known/agent-skills/tide-report/SKILL.md",
		lenientDiags: "schema,type,digest", strictErr: agentskills.ErrUnknownSchema},
	// Round 10 (held out): entries on this machine or a private network
	// ("http://127.0.0.1:3000/…", "https://10.20.30.40/…", "*.localhost") in an index on
	// a public host: skipped in both modes, with a "url" error; the others are read.
	{file: "index10-local-artifact.json",
		lenient: "harbor-guide=/.well-known/agent-skills/harbor-guide/SKILL.md", lenientDiags: "url,url,url",
		strict: "harbor-guide=/.well-known/agent-skills/harbor-guide/SKILL.md", strictDiags: "url,url,url"},
	// Another schema altogether (no v0.2.0 shape, no agentskills.io identifier): refused in both modes.
	{file: "index-schema-other.json", lenientErr: agentskills.ErrUnknownSchema, strictErr: agentskills.ErrUnknownSchema},
}

func TestIndexShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range indexShapes {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []struct {
				mode         agentskills.Mode
				skills, diag string
				err          error
			}{{agentskills.Lenient, tc.lenient, tc.lenientDiags, tc.lenientErr}, {agentskills.Strict, tc.strict, tc.strictDiags, tc.strictErr}} {
				ix, err := agentskills.ParseIndex(data, legacyIndexURL, m.mode)
				if m.err != nil {
					if !errors.Is(err, m.err) {
						t.Errorf("mode %d: error = %v, want %v", m.mode, err, m.err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("mode %d: %v", m.mode, err)
				}
				if entries(ix) != m.skills || codes(ix.Diagnostics) != m.diag {
					t.Errorf("mode %d: skills %q, diags %q (%v)\nwant %q, %q", m.mode, entries(ix), codes(ix.Diagnostics), ix.Diagnostics, m.skills, m.diag)
				}
				for _, d := range ix.Diagnostics {
					if d.Message == "" {
						t.Errorf("diagnostic without a reason: %v", d)
					}
				}
			}
		})
	}
}

// TestIndexShapeFigures computes, over the shape fixtures, the share of skill names
// Lenient mode reads: the figure measured on unseen published indexes (issue 11),
// here over our own fixtures, where it must be 100%.
func TestIndexShapeFigures(t *testing.T) {
	t.Parallel()
	want, got := 0, 0
	for _, tc := range indexShapes {
		if tc.lenientErr != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		want += len(strings.Fields(tc.lenient))
		if ix, err := agentskills.ParseIndex(data, legacyIndexURL, agentskills.Lenient); err == nil {
			got += len(ix.Skills)
		}
	}
	if got != want {
		t.Errorf("skill names read: %d/%d", got, want)
	}
	t.Logf("index shapes: skill names %d/%d", got, want)
}

// TestIndexVariantRules covers the edges of the lenient readings.
func TestIndexVariantRules(t *testing.T) {
	t.Parallel()
	hex := strings.TrimPrefix(agentskills.Digest([]byte("x")), "sha256:")
	entry := func(schema, extra string) string {
		return `{"$schema": "` + schema + `", "skills": [{"name": "a", "type": "skill-md", "description": "d", "url": "/a/SKILL.md"` + extra + `}]}`
	}
	tests := []struct {
		name, doc string
		err       error
		skills    string
	}{
		{"other host is not a variant", entry("https://agentskills.example.com/discovery/0.2.0/schema.json", `, "digest": "sha256:`+hex+`"`), agentskills.ErrUnknownSchema, ""},
		{"version 0.20 is not 0.2", entry("https://schemas.agentskills.io/discovery/0.20/schema.json", `, "digest": "sha256:`+hex+`"`), agentskills.ErrUnknownSchema, ""},
		{"version 0.3 is not 0.2", entry("https://schemas.agentskills.io/discovery/0.3.0/schema.json", `, "digest": "sha256:`+hex+`"`), agentskills.ErrUnknownSchema, ""},
		{"userinfo is not a variant", entry("https://u:p@schemas.agentskills.io/discovery/0.2.0/schema.json", `, "digest": "sha256:`+hex+`"`), agentskills.ErrUnknownSchema, ""},
		{"digest object with algorithm and value", entry(agentskills.SchemaV020, `, "digest": {"algorithm": "SHA256", "value": "`+hex+`"}`), nil, "a=/a/SKILL.md"},
		{"digest object with another algorithm", entry(agentskills.SchemaV020, `, "digest": {"sha512": "`+hex+`"}`), nil, ""},
		{"bare sha256 in upper case", entry(agentskills.SchemaV020, `, "sha256": "`+strings.ToUpper(hex)+`"`), nil, "a=/a/SKILL.md"},
		// No usable digest: a skill-md entry is read unverified (labelled so), unless
		// what is there is a digest of its own (another algorithm, hex of another length).
		{"no digest", entry(agentskills.SchemaV020, ``), nil, "a=/a/SKILL.md"},
		{"placeholder digest", entry(agentskills.SchemaV020, `, "digest": "sha256:<64 hex>"`), nil, "a=/a/SKILL.md"},
		{"empty digest object", entry(agentskills.SchemaV020, `, "digest": {"sha256": ""}`), nil, "a=/a/SKILL.md"},
		{"short hex digest", entry(agentskills.SchemaV020, `, "digest": "sha256:abc123"`), nil, ""},
		{"digest of another algorithm", entry(agentskills.SchemaV020, `, "digest": "sha512:`+hex+`"`), nil, ""},
		{"archive without a digest", strings.NewReplacer("SKILL.md", "a.tar.gz", "skill-md", "archive").Replace(entry(agentskills.SchemaV020, ``)), nil, ""},
		{"digest string wins over bare sha256", entry(agentskills.SchemaV020, `, "digest": "sha256:`+hex+`", "sha256": "bad"`), nil, "a=/a/SKILL.md"},
		// Locating a v0.1.0 skill without "files": the safety checks of every URL still hold.
		{"skill file over http", `{"skills": [{"name": "a", "description": "d", "manifest": "http://cdn.example/a/SKILL.md"}]}`, nil, ""},
		{"skill file with userinfo", `{"skills": [{"name": "a", "description": "d", "url": "https://u:p@cdn.example/a/SKILL.md"}]}`, nil, ""},
		{"scheme-relative skill file", `{"skills": [{"name": "a", "description": "d", "url": "//cdn.example/a/SKILL.md"}]}`, nil, "a=https://cdn.example/a/SKILL.md"},
		{"skill file in a command", `{"skills": [{"name": "a", "description": "d", "install": "get https://x.example/SKILL.md", "homepage": "https://x.example/"}]}`, agentskills.ErrNotIndex, ""},
		{"./SKILL.md is the skill's folder", `{"skills": [{"name": "a", "description": "d", "entry": "./SKILL.md"}]}`, nil, "a=/.well-known/skills/a/SKILL.md"},
		{"folder with a query is not a folder", `{"skills": [{"name": "a", "description": "d", "path": "x/a?v=1"}]}`, agentskills.ErrNotIndex, ""},
		{"folder not named after the skill", `{"skills": [{"name": "a", "description": "d", "dir": "skills/b"}]}`, agentskills.ErrNotIndex, ""},
		{"folder under a URL key is not a folder", `{"skills": [{"name": "a", "description": "d", "repository": "https://git.example/o/a"}]}`, agentskills.ErrNotIndex, ""},
		{"markdown outside file keys is a page", `{"skills": [{"name": "a", "description": "d", "docs": "/docs/a.md"}]}`, agentskills.ErrNotIndex, ""},
		{"convention needs a valid name", `{"skills": [{"name": "Big Tool", "description": "d"}]}`, agentskills.ErrNotIndex, ""},
		{"numeric id is not a name", `{"skills": [{"id": "42", "name": "Report Card", "description": "d", "files": ["SKILL.md"]}]}`, nil, "Report Card=/.well-known/skills/Report%20Card/SKILL.md"},
		{"valid name wins over id", `{"skills": [{"id": "other", "name": "a", "description": "d"}]}`, nil, "a=/.well-known/skills/a/SKILL.md"},
		{"keyed entry without name or description", `{"skills": {"react": {"level": "expert"}}}`, agentskills.ErrNotIndex, ""},
		{"groups of strings", `{"skills": {"frontend": ["react", "vue"]}}`, agentskills.ErrNotIndex, ""},
		{"object without entries", `{"skills": {"count": 2}}`, agentskills.ErrNotIndex, ""},
		// Round 7: members of unexpected JSON types, catalogs.
		{"$schema not a string", `{"$schema": 5, "skills": [{"name": "a", "description": "d", "files": ["SKILL.md"]}]}`, agentskills.ErrUnknownSchema, ""},
		{"version an object", `{"version": {"major": 0}, "skills": [{"name": "a", "description": "d", "files": ["SKILL.md"]}]}`, nil, "a=/.well-known/skills/a/SKILL.md"},
		{"non-string url of a v0.2.0 entry", entry(agentskills.SchemaV020, `, "url": 7, "digest": "sha256:`+hex+`"`), nil, ""},
		{"catalog of names only", `{"items": [{"slug": "a", "summary": "d"}, {"id": "b", "description": "d"}]}`, agentskills.ErrNotIndex, ""},
		{"catalog entry of another type", `{"items": [{"name": "a", "description": "d", "type": "api", "url": "https://x.example/a/SKILL.md"}]}`, agentskills.ErrNotIndex, ""},
		{"catalog beside skills is not read", `{"skills": [{"name": "a", "description": "d", "files": ["SKILL.md"]}], "items": [{"name": "b", "description": "d", "url": "https://x.example/b/SKILL.md"}]}`, nil, "a=/.well-known/skills/a/SKILL.md"},
		{"catalog with a placeholder digest", `{"items": [{"name": "a", "description": "d", "skill_url": "https://x.example/a/SKILL.md", "sha256": "auto"}]}`, agentskills.ErrNotIndex, ""},
		{"catalog preference", `{"data": [{"name": "b", "description": "d", "url": "https://x.example/b/SKILL.md"}], "items": [{"name": "a", "description": "d", "url": "https://x.example/a/SKILL.md"}]}`, nil, "a=https://x.example/a/SKILL.md"},
		{"catalog of strings", `{"items": ["a", "b"]}`, agentskills.ErrNotIndex, ""},
		{"array of strings", `["a/SKILL.md", "b/SKILL.md"]`, agentskills.ErrNotIndex, ""},
		// Round 8: the RFC repository's schema, a skill file named otherwise, archives.
		{"a fork of the RFC repository is not the RFC", entry("https://raw.githubusercontent.com/someone/agent-skills-discovery-rfc/main/schemas/v0.2.0/index.schema.json", `, "digest": "sha256:`+hex+`"`), agentskills.ErrUnknownSchema, ""},
		{"an RFC repository page is not a schema", entry("https://github.com/cloudflare/agent-skills-discovery-rfc/tree/v0.2.0", `, "digest": "sha256:`+hex+`"`), agentskills.ErrUnknownSchema, ""},
		{"an RFC repository schema of another version", entry("https://raw.githubusercontent.com/cloudflare/agent-skills-discovery-rfc/main/schemas/v0.3.0/index.schema.json", `, "digest": "sha256:`+hex+`"`), agentskills.ErrUnknownSchema, ""},
		// Round 10: an RFC repository schema that names no version is the RFC's one $schema.
		{"an RFC repository schema without a version", entry("https://raw.githubusercontent.com/cloudflare/agent-skills-discovery-rfc/main/json-schema/skill-index.json", `, "digest": "sha256:`+hex+`"`), nil, "a=/a/SKILL.md"},
		{"an RFC repository schema without a version, another version beside it", `{"$schema": "https://github.com/cloudflare/agent-skills-discovery-rfc/raw/main/schema.json", "version": "1.0.0", "skills": [{"name": "a", "type": "skill-md", "description": "d", "url": "/a/SKILL.md", "digest": "sha256:` + hex + `"}]}`, agentskills.ErrUnknownSchema, ""},
		{"an RFC repository schema with a version in its query", entry("https://raw.githubusercontent.com/cloudflare/agent-skills-discovery-rfc/main/schema.json?v=0.1.0", `, "digest": "sha256:`+hex+`"`), agentskills.ErrUnknownSchema, ""},
		{"an RFC repository page without a version is not a schema", entry("https://github.com/cloudflare/agent-skills-discovery-rfc", `, "digest": "sha256:`+hex+`"`), agentskills.ErrUnknownSchema, ""},
		{"skill-md url to a page", entry(agentskills.SchemaV020, `, "url": "https://x.example/a/index.html", "digest": "sha256:`+hex+`"`), nil, ""},
		{"markdown under url not named after the skill", `{"skills": [{"name": "a", "description": "d", "url": "https://x.example/guide.md"}]}`, agentskills.ErrNotIndex, ""},
		{"archive digest under another stem", `{"skills": [{"name": "a", "description": "d", "archive_url": "https://x.example/a.tar.gz", "package_sha256": "` + hex + `"}]}`, agentskills.ErrNotIndex, ""},
		{"archive digest as a string", `{"skills": [{"name": "a", "description": "d", "tarball": "https://x.example/a.tgz", "tarball_digest": "sha256:` + hex + `"}]}`, nil, "a=https://x.example/a.tgz"},
		{"bare SKILL.txt is no folder", `{"skills": [{"name": "a", "description": "d", "entry": "SKILL.txt"}]}`, agentskills.ErrNotIndex, ""},
		{"display name, SKILL.md at the site root", `{"$schema": "` + agentskills.SchemaV020 + `", "skills": [{"name": "Big Tool", "type": "skill-md", "description": "d", "url": "https://x.example/SKILL.md", "digest": "sha256:` + hex + `"}]}`, nil, "Big Tool=https://x.example/SKILL.md"},
		{"a name with an escape sequence is not a display name", `{"$schema": "` + agentskills.SchemaV020 + `", "skills": [{"name": "bad\u001b[31m-name", "type": "skill-md", "description": "d", "url": "https://x.example/nice/SKILL.md", "digest": "sha256:` + hex + `"}]}`, nil, "bad\x1b[31m-name=https://x.example/nice/SKILL.md"},
		// Round 9: a skill-md url that names no file (a folder, a page, a repository).
		{"skill-md url to the index's folder", entry(agentskills.SchemaV020, `, "url": ".", "digest": "sha256:`+hex+`"`), nil, ""},
		{"skill-md url to the parent folder", entry(agentskills.SchemaV020, `, "url": "..", "digest": "sha256:`+hex+`"`), nil, ""},
		{"skill-md url of a query only", entry(agentskills.SchemaV020, `, "url": "?skill=a", "digest": "sha256:`+hex+`"`), nil, ""},
		{"skill-md url to a GitHub account", entry(agentskills.SchemaV020, `, "url": "https://github.com/example-org"`), nil, ""},
		{"skill-md url to a GitHub repository, trailing slash", entry(agentskills.SchemaV020, `, "url": "https://www.github.com/example-org/tools/"`), nil, ""},
		{"skill-md url to a file on GitHub is read as given", entry(agentskills.SchemaV020, `, "url": "https://github.com/example-org/tools/blob/main/a.md"`), nil, "a=https://github.com/example-org/tools/blob/main/a.md"},
		{"skill-md url to a folder on another host named github", entry(agentskills.SchemaV020, `, "url": "https://github.example/example-org/tools"`), nil, "a=https://github.example/example-org/tools"},
		// Round 10: an artifact on this machine or a private network, from an index on a
		// public host: never read, whatever locates it.
		{"skill-md on loopback over http", entry(agentskills.SchemaV020, `, "url": "http://127.0.0.1:3000/r/a-skill.md", "digest": "sha256:`+hex+`"`), nil, ""},
		{"skill-md on localhost over https", entry(agentskills.SchemaV020, `, "url": "https://localhost./a/SKILL.md", "digest": "sha256:`+hex+`"`), nil, ""},
		{"skill-md on an IPv6 loopback", entry(agentskills.SchemaV020, `, "url": "http://[::1]:8080/a/SKILL.md", "digest": "sha256:`+hex+`"`), nil, ""},
		{"skill-md on a private address", entry(agentskills.SchemaV020, `, "url": "https://192.168.1.20/a/SKILL.md", "digest": "sha256:`+hex+`"`), nil, ""},
		{"skill-md on an IPv4-mapped private address", entry(agentskills.SchemaV020, `, "url": "https://[::ffff:10.0.0.1]/a/SKILL.md", "digest": "sha256:`+hex+`"`), nil, ""},
		{"skill-md on a link-local address", entry(agentskills.SchemaV020, `, "url": "https://169.254.169.254/a/SKILL.md", "digest": "sha256:`+hex+`"`), nil, ""},
		{"skill-md on a *.localhost name", entry(agentskills.SchemaV020, `, "url": "https://app.localhost/a/SKILL.md", "digest": "sha256:`+hex+`"`), nil, ""},
		{"skill-md on a public address", entry(agentskills.SchemaV020, `, "url": "https://203.0.113.7/a/SKILL.md", "digest": "sha256:`+hex+`"`), nil, "a=https://203.0.113.7/a/SKILL.md"},
		{"skill-md on a host named like localhost", entry(agentskills.SchemaV020, `, "url": "https://localhost.example.com/a/SKILL.md", "digest": "sha256:`+hex+`"`), nil, "a=https://localhost.example.com/a/SKILL.md"},
		{"v0.1.0 skill file on loopback", `{"skills": [{"name": "a", "description": "d", "url": "http://localhost:8080/a/SKILL.md"}, {"name": "b", "description": "d", "files": ["SKILL.md"]}]}`, nil, "b=/.well-known/skills/b/SKILL.md"},
		{"v0.1.0 files as URLs on a private address", `{"skills": [{"name": "a", "description": "d", "files": ["https://10.1.1.1/s/a/SKILL.md"]}, {"name": "b", "description": "d", "files": ["SKILL.md"]}]}`, nil, "b=/.well-known/skills/b/SKILL.md"},
		{"archive_url on loopback", `{"skills": [{"name": "a", "description": "d", "archive_url": "http://127.0.0.1/a.tgz", "archive_sha256": "` + hex + `"}, {"name": "b", "description": "d", "files": ["SKILL.md"]}]}`, nil, "b=/.well-known/skills/b/SKILL.md"},
		{"A2A agent card", `{"name": "Trip Agent", "url": "https://agent.example/a2a", "protocolVersion": "0.3.0", "capabilities": {}, "defaultInputModes": ["text"], "skills": [{"id": "route-planner", "name": "Route Planner", "description": "Plans routes.", "tags": ["travel"]}]}`, agentskills.ErrNotIndex, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ix, err := agentskills.ParseIndex([]byte(tc.doc), legacyIndexURL, agentskills.Lenient)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("error = %v, want %v", err, tc.err)
				}
				if strings.Contains(err.Error(), "u:p@") {
					t.Errorf("error repeats userinfo: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if entries(ix) != tc.skills {
				t.Errorf("skills %q, want %q (%v)", entries(ix), tc.skills, ix.Diagnostics)
			}
			if tc.skills == "" && len(ix.Diagnostics) == 0 {
				t.Error("a skipped entry must come with a diagnostic")
			}
		})
	}
}

// TestIndexFilesAsURLs: a v0.1.0 file list written as absolute URLs is read from the
// folder of the SKILL.md URL; a file outside that folder is never listed.
func TestIndexFilesAsURLs(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "index6-files-as-urls.json"))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := agentskills.ParseIndex(data, legacyIndexURL, agentskills.Lenient)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range ix.Skills[0].Files {
		got = append(got, f.Path+"="+f.URL)
	}
	want := "SKILL.md=https://raw.acme.dev/plugins/skills/flow-builder/SKILL.md references/nodes.md=https://raw.acme.dev/plugins/skills/flow-builder/references/nodes.md"
	if strings.Join(got, " ") != want {
		t.Errorf("files %q, want %q", strings.Join(got, " "), want)
	}
}

// TestIndexFilesURLsBesideAPath: a file list that names its SKILL.md by a path keeps
// the skill in the index's folder; a URL beside it (another host's SKILL.md) is an
// unsafe path, dropped, and never moves the other files.
func TestIndexFilesURLsBesideAPath(t *testing.T) {
	doc := `{"skills": [{"name": "notes", "description": "d", "files": ["SKILL.md", "https://other.example/b/SKILL.md", "x.md"]}]}`
	ix, err := agentskills.ParseIndex([]byte(doc), "https://example.com/.well-known/skills/index.json", agentskills.Lenient)
	if err != nil || len(ix.Skills) != 1 {
		t.Fatalf("ParseIndex: %v, %+v", err, ix)
	}
	for _, f := range ix.Skills[0].Files {
		if !strings.HasPrefix(f.URL, "https://example.com/.well-known/skills/notes/") {
			t.Errorf("file %q resolved to %s, outside the skill's folder", f.Path, f.URL)
		}
	}
	if n := len(ix.Skills[0].Files); n != 2 {
		t.Errorf("%d files, want SKILL.md and x.md: %+v", n, ix.Skills[0].Files)
	}
}

// TestIndexCatalogDigest: an entry of a catalog that publishes a digest is verified
// with it, as any other located entry: the digest is kept, never dropped.
func TestIndexCatalogDigest(t *testing.T) {
	t.Parallel()
	d := agentskills.Digest([]byte("x"))
	doc := `{"items": [{"slug": "a", "summary": "d", "latest": {"skill_md_url": "https://x.example/a/SKILL.md", "sha256": "` + strings.TrimPrefix(d, "sha256:") + `"}},
		{"slug": "b", "summary": "d", "skill_md_url": "https://x.example/b/SKILL.md", "digest": "` + d + `"}]}`
	ix, err := agentskills.ParseIndex([]byte(doc), legacyIndexURL, agentskills.Lenient)
	if err != nil {
		t.Fatal(err)
	}
	// "a" gives its digest one object down, beside the URL: not the entry's digest,
	// and the entry is read unverified, as the warnings say; "b" is verified.
	got := map[string]string{}
	for _, s := range ix.Skills {
		got[s.Name] = s.Digest
	}
	if got["b"] != d {
		t.Errorf("b read with digest %q, want %q (%v)", got["b"], d, ix.Diagnostics)
	}
	if _, ok := got["a"]; !ok {
		t.Errorf("a not read: %v", ix.Diagnostics)
	}
}

// TestIndexCatalogCostBounded: reading a catalog's list costs what reading a "skills"
// array of the same size costs, within the bound of TestParseIndexCostBounded.
// Not parallel: it measures the process's allocations.
func TestIndexCatalogCostBounded(t *testing.T) {
	base := parseIndexAllocs(fillIndex(`{"skills":[`, `{"name":"a","description":"d","files":["SKILL.md"]}`, `]}`))
	for name, data := range map[string][]byte{
		"items, names only":       fillIndex(`{"items":[`, `{"slug":"a","summary":"d"}`, `]}`),
		"items, skill file":       fillIndex(`{"items":[`, `{"slug":"a","x":{"skill_md_url":"https://x.example/a/SKILL.md"}}`, `]}`),
		"array, skill file":       fillIndex(`[`, `{"name":"a","url":"https://x.example/a/SKILL.md"}`, `]`),
		"many candidate catalogs": candidates(indexCostSize),
	} {
		got := parseIndexAllocs(data)
		t.Logf("%s: %d MB allocated for %d KiB (RFC-shaped index: %d MB)", name, got>>20, len(data)>>10, base>>20)
		if limit := max(4*base, 200*uint64(len(data))); got > limit {
			t.Errorf("%s: ParseIndex allocated %d MB for a %d KiB index, over %d MB", name, got>>20, len(data)>>10, limit>>20)
		}
	}
}

// candidates is a document of about size bytes whose every key is a catalog key
// spelled another way ("I_tems", "I__tems"...), each holding an array of numbers and,
// last, one object.
func candidates(size int) []byte {
	var b strings.Builder
	b.WriteString("{")
	for i := 1; b.Len() < size-64; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		b.WriteString(`"I` + strings.Repeat("_", i%50+1) + strings.Repeat("-", i/50) + `tems":[1,2,3,{}]`)
	}
	b.WriteString("}")
	return []byte(b.String())
}

// TestIndexArchiveURL: an archive named under "archive_url" with its digest under
// "archive_sha256" is read as an archive entry verified by that digest, never as a
// SKILL.md of the site (its "entrypoint" is a path inside the archive).
func TestIndexArchiveURL(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "index8-archive-url.json"))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := agentskills.ParseIndex(data, legacyIndexURL, agentskills.Lenient)
	if err != nil || len(ix.Skills) != 1 {
		t.Fatalf("ParseIndex: %v, %+v", err, ix)
	}
	e := ix.Skills[0]
	if e.Type != agentskills.TypeArchive || !agentskills.ValidDigest(e.Digest) || len(e.Files) != 0 || !e.HasDigests() {
		t.Errorf("entry %+v, want an archive with its digest and no files", e)
	}
}

// TestIndexByteOrderMark: an index saved with a UTF-8 byte order mark is read in
// Lenient mode with a warning, and refused in Strict mode.
func TestIndexByteOrderMark(t *testing.T) {
	t.Parallel()
	doc := []byte("\ufeff" + `{"skills": [{"name": "a-b", "description": "d", "files": ["SKILL.md"]}]}`)
	ix, err := agentskills.ParseIndex(doc, "https://example.com/.well-known/skills/index.json", agentskills.Lenient)
	if err != nil || len(ix.Skills) != 1 || len(ix.Diagnostics) != 1 || !strings.Contains(ix.Diagnostics[0].Message, "byte order mark") {
		t.Fatalf("Lenient: %+v, %v", ix, err)
	}
	if _, err := agentskills.ParseIndex(doc, "https://example.com/.well-known/skills/index.json", agentskills.Strict); !errors.Is(err, agentskills.ErrNotIndex) {
		t.Errorf("Strict: %v", err)
	}
}

// TestIndexLocalArtifacts: an index on this machine or a private network may point at
// artifacts there (a development server, an intranet); an index on a public host may not.
func TestIndexLocalArtifacts(t *testing.T) {
	t.Parallel()
	hex := strings.TrimPrefix(agentskills.Digest([]byte("x")), "sha256:")
	doc := func(u string) []byte {
		return []byte(`{"$schema": "` + agentskills.SchemaV020 + `", "skills": [{"name": "a", "type": "skill-md", "description": "d", "url": "` + u + `", "digest": "sha256:` + hex + `"}]}`)
	}
	for _, tc := range []struct {
		index, artifact string
		read            bool
	}{
		{"http://127.0.0.1:8080/.well-known/agent-skills/index.json", "http://127.0.0.1:3000/r/a-skill.md", true},
		{"http://localhost:4321/.well-known/agent-skills/index.json", "http://[::1]:4321/a/SKILL.md", true},
		{"https://10.0.0.2/.well-known/agent-skills/index.json", "https://192.168.0.9/a/SKILL.md", true},
		{"https://docs.example.com/.well-known/agent-skills/index.json", "http://127.0.0.1:3000/r/a-skill.md", false},
		{"https://docs.example.com/.well-known/agent-skills/index.json", "https://[fd00::1]/a/SKILL.md", false},
		{"https://203.0.113.7/.well-known/agent-skills/index.json", "https://127.0.0.2/a/SKILL.md", false},
	} {
		for _, mode := range []agentskills.Mode{agentskills.Lenient, agentskills.Strict} {
			ix, err := agentskills.ParseIndex(doc(tc.artifact), tc.index, mode)
			if err != nil {
				t.Fatalf("%s -> %s: %v", tc.index, tc.artifact, err)
			}
			if got := len(ix.Skills) == 1; got != tc.read {
				t.Errorf("%s -> %s (mode %d): read %v, want %v (%v)", tc.index, tc.artifact, mode, got, tc.read, ix.Diagnostics)
			}
			if !tc.read && (len(ix.Diagnostics) == 0 || ix.Diagnostics[len(ix.Diagnostics)-1].Code != "url") {
				t.Errorf("%s -> %s: skipped without a \"url\" diagnostic: %v", tc.index, tc.artifact, ix.Diagnostics)
			}
		}
	}
}
