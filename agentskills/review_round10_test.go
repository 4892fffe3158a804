package agentskills_test

// TestReviewRound10HasDigestsInterimPlaceholder (security review, round 10): an
// interim index whose SKILL.md has a real digest and whose other file a placeholder.
// The placeholder is dropped (file Digest ""), and IndexEntry.Digest is SKILL.md's:
// HasDigests must not report the skill as verifiable.
import (
	"fmt"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
)

func TestReviewRound10HasDigestsInterimPlaceholder(t *testing.T) {
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
