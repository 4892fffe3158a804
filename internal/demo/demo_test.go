package demo_test

import (
	"context"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/internal/demo"
)

// The demo origin is discovered as a real site is: skills.md, mcp.json and an index
// whose two skills verify against their digests.
func TestDemoOrigin(t *testing.T) {
	t.Parallel()
	ts, err := demo.NewServer()
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: ts.Client(), InsecureAllowPrivateOrigins: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, err := c.Structured(ctx, ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	if d.Guide == nil || d.MCP == nil {
		t.Fatalf("skills.md %v, mcp.json %v: want both", d.Guide != nil, d.MCP != nil)
	}
	ix, err := c.ListSkills(ctx, ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Index.Skills) != 2 {
		t.Fatalf("%d skills, want 2", len(ix.Index.Skills))
	}
	for _, name := range []string{"invoice-check", "ledger"} {
		sk, err := c.GetSkill(ctx, ix, name)
		if err != nil {
			t.Fatalf("GetSkill(%s): %v", name, err)
		}
		if !sk.Verified || sk.SkillMD.Name() != name {
			t.Errorf("%s: verified %v, named %q", name, sk.Verified, sk.SkillMD.Name())
		}
	}
}
