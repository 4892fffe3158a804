package agentskills_test

// Security review of commit 843dd97 (round 6 of the lenient index reader), written as
// a hostile site operator would attack it. Each test names the promise it checks; the
// ones for real findings fail until the reader is fixed.

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
)

// TestRound6SkillsObjectKeyNotQuotedRaw: when "skills" is an object, its member keys
// are document text, yet they go verbatim, unscrubbed and unbounded, into every
// Diagnostic.Where of the entry ("/skills/" + key). A planted token, a terminal escape
// sequence or a line break that forges further diagnostic lines comes out of
// ParseIndex as is (and from there into discovery.SkillsIndex.Warnings). Every other
// place a diagnostic quotes the document goes through quoteDoc (scrubbed, bounded,
// Go-quoted); TestNoSecretsInDiagnostics holds Where to the same rule.
func TestRound6SkillsObjectKeyNotQuotedRaw(t *testing.T) {
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

// TestRound6ParseIndexCostBounded: the locator runs normKey (a strings.NewReplacer
// built on every call, about 6 KB each) several times for every string value of an
// entry, array elements included, and decodes every entry three or four times. A 256
// KiB index of one entry with a long array of strings under a nested path-like key
// costs seconds of CPU and gigabytes of allocation: an index of the same size in the
// RFC's shape costs well under a hundred bytes allocated per input byte. A hostile
// site serves such an index (changing a byte each time so the parse memo misses) to
// every agent and scanner that lists its skills. Not parallel: it measures the
// process's allocations.
func TestRound6ParseIndexCostBounded(t *testing.T) {
	rfc := fillIndex(`{"skills":[`, `{"name":"a","description":"d","files":["SKILL.md"]}`, `]}`)
	base := parseIndexAllocs(rfc)
	for name, data := range map[string][]byte{
		"string array under a nested path key": fillIndex(`{"skills":[{"name":"a","description":"d","x":{"path":[`, `"a"`, `]}}]}`),
		"string array, display name":           fillIndex(`{"skills":[{"name":"A","description":"d","path":[`, `"a"`, `]}]}`),
		"name-only entries":                    fillIndex(`{"skills":[`, `{"id":"a"}`, `]}`),
	} {
		got := parseIndexAllocs(data)
		t.Logf("%s: %d MB allocated for %d KiB (RFC-shaped index of the same size: %d MB)", name, got>>20, len(data)>>10, base>>20)
		if limit := max(4*base, 200*uint64(len(data))); got > limit {
			t.Errorf("%s: ParseIndex allocated %d MB for a %d KiB index, over %d MB (%.0f bytes per input byte)",
				name, got>>20, len(data)>>10, limit>>20, float64(got)/float64(len(data)))
		}
	}
}

// TestRound6NonASCIINamesPassTheASCIIRule: NameProblems(name, true) is the RFC's
// ASCII rule (a-z, 0-9, '-'), which the lenient reader uses to pick a skill name out
// of "name", "id", "slug" or a "skills" key, Strict mode uses to accept an entry, and
// the CLI's checkSkillName relies on ("NameProblems already forbids every character
// but a-z, 0-9 and '-'"). It checks the NFKC form but the caller keeps the name as
// written: "ﬁle-tools" (U+FB01 ligature), "ｐｄｆ" (fullwidth) or "𝚍𝚎𝚙𝚕𝚘𝚢" (math
// monospace) pass, are listed, installed under that folder name, and kept apart
// from the user's "file-tools", "pdf" or "deploy" by every exact-match check (the
// install "already exists" check, ScanLocal's shadowing, the catalog's collision
// qualifier), while looking the same to people and, after the NFKC normalisation
// most tokenizers and the Agent Skills reference validator apply, to models. A site
// so impersonates a local skill. (The rule predates this commit; the commit makes it
// the gate of the new name sources.)
func TestRound6NonASCIINamesPassTheASCIIRule(t *testing.T) {
	t.Parallel()
	const schema = `"https://schemas.agentskills.io/discovery/0.2.0/schema.json"`
	digest := agentskills.Digest([]byte("x"))
	for _, name := range []string{"\ufb01le-tools", "ｐｄｆ", "\U0001d68d\U0001d68e\U0001d699\U0001d695\U0001d698\U0001d6a2"} {
		if probs := agentskills.NameProblems(name, true); len(probs) == 0 {
			t.Errorf("NameProblems(%q, asciiOnly) = none: the name is not ASCII", name)
		}
		doc := fmt.Sprintf(`{"$schema": %s, "skills": [{"name": %q, "type": "skill-md", "description": "d", "url": "x/SKILL.md", "digest": %q}]}`,
			schema, name, digest)
		ix, err := agentskills.ParseIndex([]byte(doc), legacyIndexURL, agentskills.Strict)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ix.Skills {
			t.Errorf("Strict mode read the entry named %q (%+q), not a valid RFC skill name", s.Name, s.Name)
		}
	}
}

// indexCostSize is the size of the indexes the cost tests build.
const indexCostSize = 256 << 10

// fillIndex builds an index of about indexCostSize bytes: head, unit repeated with
// commas, tail.
func fillIndex(head, unit, tail string) []byte {
	var b strings.Builder
	b.WriteString(head)
	for i := 0; b.Len() < indexCostSize-len(tail)-len(unit); i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(unit)
	}
	b.WriteString(tail)
	return []byte(b.String())
}

// parseIndexAllocs returns the bytes ParseIndex (Lenient) allocates for data. The
// process's allocations are measured: callers must not run in parallel.
func parseIndexAllocs(data []byte) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _ = agentskills.ParseIndex(data, legacyIndexURL, agentskills.Lenient)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
