package scan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery"
)

// TestScanFamiliesAreCleanedAndBounded: a family's name is a media type a site's AI
// Catalog chose; scan's results (JSON lines, often printed with jq -r) hold it without
// control or escape characters, shortened, and at most maxFamilies of them.
func TestScanFamiliesAreCleanedAndBounded(t *testing.T) {
	t.Parallel()
	d := &discovery.Discovery{All: &discovery.Published{Families: []discovery.Family{
		{Name: discovery.FamilyGuide},
		{Name: "application/x\x1b]8;;https://attacker.example/\x07click\x1b]8;;\x07"},
		{Name: "application/y\x1b[2J\x1b[H" + strings.Repeat("z", 10_000)},
	}}}
	for i := range 1000 {
		d.All.Families = append(d.All.Families, discovery.Family{Name: fmt.Sprintf("application/t%d", i)})
	}
	var r Result
	r.fillFamilies(d)
	if len(r.Families) > maxFamilies {
		t.Errorf("%d families kept, want at most %d", len(r.Families), maxFamilies)
	}
	if r.Families[0] != discovery.FamilyGuide {
		t.Errorf("first family %q, want %q", r.Families[0], discovery.FamilyGuide)
	}
	for _, f := range r.Families {
		if strings.ContainsAny(f, "\x1b\x07") || len(f) > 256 {
			t.Errorf("family kept as %q (%d bytes)", f, len(f))
		}
	}
}
