package agentskills_test

import (
	"fmt"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
)

// TestNonASCIINamesFailTheASCIIRule: NameProblems(name, true) is the RFC's ASCII
// rule (a-z, 0-9, '-'), which the lenient reader uses to pick a skill name out of
// "name", "id", "slug" or a "skills" key, Strict mode uses to accept an entry, and
// the CLI's checkSkillName relies on. It judges the name as written, not only its
// NFKC form: "ﬁle-tools" (U+FB01 ligature), "ｐｄｆ" (fullwidth) or "𝚍𝚎𝚙𝚕𝚘𝚢" (math
// monospace) fail it. Such names would otherwise be listed, installed under that
// folder name and kept apart from the user's "file-tools", "pdf" or "deploy" by every
// exact-match check (the install "already exists" check, ScanLocal's shadowing, the
// catalog's collision qualifier), while looking the same to people and, after the
// NFKC normalisation most tokenizers and the Agent Skills reference validator apply,
// to models: a site would so impersonate a local skill.
func TestNonASCIINamesFailTheASCIIRule(t *testing.T) {
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
