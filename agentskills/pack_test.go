package agentskills_test

import (
	"testing"
	"testing/fstest"

	"github.com/wellknown-dev/discovery/agentskills"
)

func TestPackTarGz(t *testing.T) {
	fsys := fstest.MapFS{
		"skills/ledger/SKILL.md":            {Data: []byte("---\nname: ledger\ndescription: Keep the ledger.\n---\n# Ledger\n")},
		"skills/ledger/references/RULES.md": {Data: []byte("# Rules\n")},
		"skills/ledger/a.txt":               {Data: []byte("a\n")},
	}
	a, err := agentskills.PackTarGz(fsys, "skills/ledger")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := agentskills.PackTarGz(fsys, "skills/ledger")
	if agentskills.Digest(a) != agentskills.Digest(b) {
		t.Error("the same folder packed twice gives two digests")
	}
	arc, err := agentskills.ReadArchive(a, agentskills.FormatTarGz, agentskills.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"SKILL.md", "references/RULES.md", "a.txt"} {
		if _, ok := arc.Get(name); !ok {
			t.Errorf("%s missing from the archive", name)
		}
	}
}
