package agentskills_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/internal/testparts"
)

const vectors = "../../shared/corpus/vectors"

func readVector(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(vectors, name))
	if err != nil {
		testparts.Skip(t, testparts.Shared, err.Error())
	}
	return data
}

// TestMCPVectors gives every vector under vectors/mcp an explicit expectation.
func TestMCPVectors(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(vectors); err != nil {
		testparts.Skip(t, testparts.Shared, err.Error())
	}
	files, _ := filepath.Glob(filepath.Join(vectors, "mcp", "*"))
	for _, f := range files {
		rel, _ := filepath.Rel(vectors, f)
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			check, ok := mcpVectorChecks[rel]
			if !ok {
				t.Fatalf("no expectation for %s", rel)
			}
			check(t, readVector(t, rel))
		})
	}
}

// mcpVectorChecks gives every vector under vectors/mcp its expectation.
var mcpVectorChecks = map[string]func(t *testing.T, data []byte){
	"mcp/ext-skills-stable-skills-list-response-dynamic.json": checkDynamicListVector,
	"mcp/sep2640-b405ba5-skills-list-response.json":           checkPlaceholderListVector,
	"mcp/sep2640-b405ba5-skills-get-response.json":            checkPlaceholderGetVector,
	"mcp/sep2640-b405ba5-capabilities.json":                   checkCapabilitiesVector,
	"mcp/sep2640-b405ba5-directory-read-response.json":        checkDirectoryReadVector,
	"mcp/sep2640-238a2f0-skill-index-json-april-draft.json":   checkAprilDraftIndexVector,
	"mcp/sep2640-82609b1-skill-index-json-june-draft.json":    checkJuneDraftIndexVector,
	"mcp/fastmcp-skill-manifest-docs-example.json":            checkFastMCPManifestVector,
}

// Placeholder digests ("sha256:a1b2c3d4...") break the 64-hex rule: a valid
// validator rejects those entries; the dynamic one stands.
func checkDynamicListVector(t *testing.T, data []byte) {
	t.Helper()
	r, err := agentskills.ParseListResult(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Skills) != 1 || !r.Skills[0].Dynamic || r.Skills[0].URI.String() != "skill://reports/daily/SKILL.md" ||
		r.TTLMs == nil || *r.TTLMs != 300000 || r.CacheScope != "public" || len(r.Diagnostics) != 2 {
		t.Errorf("%+v", r)
	}
}

func checkPlaceholderListVector(t *testing.T, data []byte) {
	t.Helper()
	r, err := agentskills.ParseListResult(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Skills) != 0 || len(r.Diagnostics) == 0 {
		t.Errorf("placeholder digests must invalidate the entries: %+v", r)
	}
	for _, d := range r.Diagnostics {
		if !strings.Contains(d.Message, "digest") {
			t.Errorf("unexpected diagnostic %v", d)
		}
	}
}

func checkPlaceholderGetVector(t *testing.T, data []byte) {
	t.Helper()
	_, diags, err := agentskills.ParseGetResult(data)
	if !errors.Is(err, agentskills.ErrInvalidSkill) || len(diags) != 1 || !strings.Contains(diags[0].Message, "digest") {
		t.Errorf("err %v, diags %v", err, diags)
	}
}

func checkCapabilitiesVector(t *testing.T, data []byte) {
	t.Helper()
	declared, dirRead, err := agentskills.Capabilities(data)
	if err != nil || !declared || !dirRead {
		t.Errorf("declared %v, directoryRead %v, %v", declared, dirRead, err)
	}
}

func checkDirectoryReadVector(t *testing.T, data []byte) {
	t.Helper()
	ds, cursor, err := agentskills.ParseDirectoryRead(data)
	if err != nil || len(ds) != 3 || cursor != "" || ds[2].IsDir != true || ds[0].IsDir || ds[2].URI != "skill://pdf-processing/templates/regional" {
		t.Errorf("%+v, %q, %v", ds, cursor, err)
	}
}

// April draft: skill-md entries read (unverified); the archive and the template skipped.
func checkAprilDraftIndexVector(t *testing.T, data []byte) {
	t.Helper()
	es, diags, err := agentskills.ParseLegacyIndex(data)
	if err != nil || len(es) != 2 || es[1].URI != "skill://acme/billing/refunds/SKILL.md" || es[0].Digest != "" || codes(diags) != "archive,template" {
		t.Errorf("%+v, %v, %v", es, codes(diags), err)
	}
}

// June draft: url entries need a well-formed digest (these are placeholders); archive-only skipped.
func checkJuneDraftIndexVector(t *testing.T, data []byte) {
	t.Helper()
	es, diags, err := agentskills.ParseLegacyIndex(data)
	if err != nil || len(es) != 0 || codes(diags) != "digest,digest,archive" {
		t.Errorf("%+v, %v, %v", es, codes(diags), err)
	}
}

func checkFastMCPManifestVector(t *testing.T, data []byte) {
	t.Helper()
	skill, res, diags, err := agentskills.ParseFastMCPManifest(data)
	if err != nil || skill != "pdf-processing" || len(res) != 3 || res[2].URI != "skill://pdf-processing/examples/sample.pdf" ||
		res[2].Size != 89012 || res[0].Digest != "" || len(diags) != 3 {
		t.Errorf("%q %+v %v %v", skill, res, diags, err)
	}
}

// TestSkillMDVectors: every SKILL.md under vectors/skillmd, checked against its folder.
func TestSkillMDVectors(t *testing.T) {
	t.Parallel()
	type want struct{ lenient, strict, name string }
	expect := map[string]want{
		"anthropics-claude-api-excerpt/claude-api/SKILL.md":                       {"description-length", "err:description-length", "claude-api"},
		"anthropics-template/template/SKILL.md":                                   {"name-mismatch", "err:name-mismatch", "template-skill"},
		"builderio-efficient-frontier-unquoted-colon/efficient-frontier/SKILL.md": {"yaml-quoted", "err:yaml", "efficient-frontier"},
		"ext-skills-acme-refunds/acme/billing/refunds/SKILL.md":                   {"", "", "refunds"},
		"forest6511-hooks/implement-feature/SKILL.md":                             {"", "unknown-field", "implement-feature"},
		"ratchet-colon-in-name/sidequest/SKILL.md":                                {"name,name-mismatch", "err:name", "ratchet:sidequest"},
		"rcholic-side-quests-extra-fields/side-quests/SKILL.md":                   {"", "unknown-field", "side-quests"},
	}
	root := filepath.Join(vectors, "skillmd")
	if _, err := os.Stat(root); err != nil {
		testparts.Skip(t, testparts.Shared, err.Error())
	}
	var files []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "SKILL.md" {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != len(expect) {
		t.Errorf("%d SKILL.md vectors, %d expectations", len(files), len(expect))
	}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		t.Run(rel, func(t *testing.T) {
			t.Parallel()
			w, ok := expect[rel]
			if !ok {
				t.Fatalf("no expectation for %s", rel)
			}
			checkFile(t, f, filepath.Base(filepath.Dir(f)), w.lenient, w.strict, w.name)
		})
	}
}

func TestEntryVerification(t *testing.T) {
	t.Parallel()
	skill, _ := os.ReadFile("testdata/invoice-check.md")
	rules := []byte("# Rules\n\nTotals must match within 0.01.\n")
	list := `{"resultType":"complete","skills":[{"uri":"skill://finance/invoice-check/SKILL.md",
		"frontmatter":{"name":"invoice-check","description":"Check supplier invoices against purchase orders. Use when an invoice arrives."},
		"resources":[{"uri":"skill://finance/invoice-check/SKILL.md","digest":"` + agentskills.Digest(skill) + `","size":183},
		{"uri":"skill://finance/invoice-check/references/RULES.md","digest":"` + agentskills.Digest(rules) + `","size":40}]}],
		"ttlMs":60000,"cacheScope":"private"}`
	r, err := agentskills.ParseListResult([]byte(list))
	if err != nil || len(r.Skills) != 1 {
		t.Fatalf("%+v, %v", r, err)
	}
	e := r.Skills[0]
	for _, tc := range []struct {
		uri     string
		content []byte
		ok      bool
	}{
		{"skill://finance/invoice-check/SKILL.md", skill, true},
		{"skill://finance/invoice-check/references/RULES.md", rules, true},
		{"skill://finance/invoice-check/references/RULES.md", append([]byte("x"), rules[1:]...), false}, // same size, other bytes
		{"skill://finance/invoice-check/references/RULES.md", rules[:39], false},                        // size first
		{"skill://finance/invoice-check/references/OTHER.md", rules, false},                             // not listed
	} {
		err := e.VerifyFile(tc.uri, tc.content)
		if tc.ok != (err == nil) {
			t.Errorf("VerifyFile(%s) = %v", tc.uri, err)
		}
	}
	// A SKILL.md whose bytes match but whose frontmatter differs from the listing fails:
	// the listing here claims another description.
	tampered := strings.Replace(list, "Use when an invoice arrives.", "Use always.", 1)
	r2, _ := agentskills.ParseListResult([]byte(tampered))
	if err := r2.Skills[0].VerifyFile("skill://finance/invoice-check/SKILL.md", skill); !errors.Is(err, agentskills.ErrDigestMismatch) {
		t.Errorf("frontmatter mismatch: %v", err)
	}
	for _, bad := range []string{
		`{"skills":[{"uri":"skill://x/SKILL.md","frontmatter":{"name":"y","description":"d"},"resources":"dynamic"}]}`,
		`{"skills":[{"uri":"skill://x/SKILL.md","frontmatter":{"name":"x","description":"d"}}]}`,
		`{"skills":[{"uri":"skill://x/SKILL.md","frontmatter":{"name":"x","description":"d"},"resources":null}]}`,
		`{"skills":[{"uri":"skill://x/SKILL.md","frontmatter":{"name":"x","description":"d"},"resources":"static"}]}`,
		`{"skills":[{"uri":"skill://x/SKILL.md","frontmatter":{"name":"x","description":"d"},"resources":[{"uri":"skill://y/a.md","digest":"` + agentskills.Digest(nil) + `","size":0}]}]}`,
		`{"skills":[{"uri":"skill://x/SKILL.md","frontmatter":{"name":"x","description":"d"},"resources":[{"uri":"skill://x/a.md","digest":"` + agentskills.Digest(nil) + `","size":0}]}]}`,
	} {
		r, err := agentskills.ParseListResult([]byte(bad))
		if err != nil || len(r.Skills) != 0 || len(r.Diagnostics) != 1 {
			t.Errorf("%s: %+v, %v", bad, r, err)
		}
	}
}

// TestSkillURIIndexCorpus: the skill://index.json and skills/list documents of the MCP
// skills drafts in the corpus, each with an explicit expectation.
func TestSkillURIIndexCorpus(t *testing.T) {
	t.Parallel()
	dir := "../../shared/corpus/skilluri-index"
	if _, err := os.Stat(dir); err != nil {
		testparts.Skip(t, testparts.Shared, err.Error())
	}
	legacy := func(uris, diags string) func(t *testing.T, data []byte) {
		return func(t *testing.T, data []byte) {
			es, ds, err := agentskills.ParseLegacyIndex(data)
			var got []string
			for _, e := range es {
				got = append(got, e.URI)
			}
			if err != nil || strings.Join(got, " ") != uris || codes(ds) != diags {
				t.Errorf("entries %q, diags %q, %v; want %q, %q", got, codes(ds), err, uris, diags)
			}
		}
	}
	checks := map[string]func(t *testing.T, data []byte){
		"PrefectHQ__fastmcp__skill-manifest-resource.json": func(t *testing.T, data []byte) {
			skill, res, _, err := agentskills.ParseFastMCPManifest(data)
			if err != nil || skill != "pdf-processing" || len(res) != 3 {
				t.Errorf("%q %v %v", skill, res, err)
			}
		},
		// April draft form: skill-md entries read unverified, the template never expanded.
		"modelcontextprotocol__experimental-ext-skills__sep-draft-index-with-template.json": legacy(
			"skill://git-workflow/SKILL.md skill://acme/billing/refunds/SKILL.md", "template"),
		// With (placeholder) digests: an entry whose digest cannot verify anything is skipped.
		"modelcontextprotocol__modelcontextprotocol__sep2640-0608-index-archive-digest.json":       legacy("", "digest,digest,digest"),
		"modelcontextprotocol__modelcontextprotocol__sep2640-0625-index-frontmatter-archives.json": legacy("", "digest,digest,archive"),
		"panyam__mcpkit__ext-skills-types_test-sepExampleIndex.json":                               legacy("", "digest,digest,digest,template"),
		"modelcontextprotocol__modelcontextprotocol__sep2640-0821-skills-list-result.json": func(t *testing.T, data []byte) {
			r, err := agentskills.ParseListResult(data)
			if err != nil || len(r.Skills) != 0 || len(r.Diagnostics) == 0 {
				t.Errorf("placeholder digests must invalidate the entries: %+v, %v", r, err)
			}
		},
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			check, ok := checks[name]
			if !ok {
				t.Fatalf("no expectation for %s", name)
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			check(t, data)
		})
	}
}

// TestFrontmatterNumbersExact: frontmatter numbers compare as written, not as float64.
func TestFrontmatterNumbersExact(t *testing.T) {
	md := []byte("---\nname: n\ndescription: d\nlimit: 9007199254740993\n---\n")
	e := &agentskills.Entry{Dynamic: true, Frontmatter: map[string]any{"name": "n", "description": "d", "limit": json.Number("9007199254740992")}}
	u, _ := agentskills.ParseSkillURI("skill://n/SKILL.md")
	e.URI = u
	if err := e.VerifyFile("skill://n/SKILL.md", md); !errors.Is(err, agentskills.ErrDigestMismatch) {
		t.Errorf("2^53+1 vs 2^53: %v", err)
	}
	e.Frontmatter["limit"] = json.Number("9007199254740993")
	if err := e.VerifyFile("skill://n/SKILL.md", md); err != nil {
		t.Errorf("equal numbers: %v", err)
	}
}
