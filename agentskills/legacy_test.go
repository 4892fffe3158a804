package agentskills_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
)

// fastMCPManifest returns a FastMCP manifest of n files, each with an md5 hash (not a
// usable digest).
func fastMCPManifest(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"skill": "x", "files": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"path": "f%d", "size": 1, "hash": "md5:0"}`, i)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// TestFastMCPManifestBounded: a manifest's size bounds what the parser gives its
// caller: more than MaxResources files is an error (not that many resources and
// diagnostics), and unusable hashes give at most 32 diagnostics and a count.
func TestFastMCPManifestBounded(t *testing.T) {
	t.Parallel()
	if _, files, diags, err := agentskills.ParseFastMCPManifest(fastMCPManifest(100000)); err == nil || len(files) != 0 || len(diags) != 0 {
		t.Errorf("100,000 files: %d files, %d diagnostics, err %v", len(files), len(diags), err)
	}
	_, files, diags, err := agentskills.ParseFastMCPManifest(fastMCPManifest(agentskills.MaxResources))
	if err != nil || len(files) != agentskills.MaxResources || len(diags) != 33 ||
		!strings.Contains(diags[32].Message, fmt.Sprintf("%d more files", agentskills.MaxResources-32)) {
		t.Errorf("%d files: %d files, %d diagnostics, err %v", agentskills.MaxResources, len(files), len(diags), err)
	}
}
