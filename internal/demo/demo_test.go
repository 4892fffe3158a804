package demo_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/internal/demo"
	"github.com/wellknown-dev/discovery/mcpclient"
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

// The shop is discovered as a real site is: its skills.md and an index whose one skill
// verifies; its MCP server on the same origin lists weekly-report, and its API answers.
func TestShop(t *testing.T) {
	t.Parallel()
	ts, err := demo.NewShop()
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: ts.Client(), InsecureAllowPrivateOrigins: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, err := c.Discover(ctx, ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	if d.Guide == nil || d.Guide.Title != "Demo Shop" || d.MCP != nil {
		t.Fatalf("skills.md %+v, mcp.json %v: want the shop's guide only", d.Guide, d.MCP != nil)
	}
	ix, err := c.ListSkills(ctx, ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Index.Skills) != 1 {
		t.Fatalf("%d skills, want 1", len(ix.Index.Skills))
	}
	if sk, err := c.GetSkill(ctx, ix, "invoice-check"); err != nil || !sk.Verified {
		t.Fatalf("GetSkill(invoice-check): %v", err)
	}
	listMCP(t, c, ts.URL+demo.MCPPath, "weekly-report")
	resp, err := ts.Client().Get(ts.URL + demo.ShopOrdersPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), `[{"id": 1`) {
		t.Errorf("orders: %d %s", resp.StatusCode, body)
	}
}

// The MCP server lists its two skills, one a page, each verified.
func TestMCPServer(t *testing.T) {
	t.Parallel()
	ts, err := demo.NewMCPServer()
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	c, err := discovery.NewClient(&discovery.Options{InsecureAllowPrivateOrigins: true})
	if err != nil {
		t.Fatal(err)
	}
	listMCP(t, c, ts.URL+demo.MCPPath, "invoice-check", "ledger-export")
}

// listMCP connects to endpoint and checks that it lists the skills want, verified.
func listMCP(t *testing.T, c *discovery.Client, endpoint string, want ...string) {
	t.Helper()
	ctx := context.Background()
	s, err := mcpclient.ConnectURL(ctx, c, endpoint, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l, err := s.ListSkills(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sk := range l.Skills {
		got = append(got, sk.Name)
		if !sk.Verified {
			t.Errorf("%s: not verified", sk.Name)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("skills %v, want %v", got, want)
	}
}
