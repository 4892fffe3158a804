// The agent command is an agent loop without a model: a scripted "model" picks tools
// from the tools package, as a real one would through function calling. It discovers a
// demo shop, builds one skill catalog from a local folder, the shop's skills index and
// an MCP server, activates a skill, reads one of its files, and calls the shop's API
// through the discovery policy guard.
//
//	go run ./examples/agent
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/catalog"
	"github.com/wellknown-dev/discovery/internal/demo"
	"github.com/wellknown-dev/discovery/mcpclient"
	"github.com/wellknown-dev/discovery/tools"
)

func main() {
	log.SetFlags(0)
	local := "examples/agent/testdata/local" // run from the module root
	if _, err := os.Stat(local); err != nil {
		local = "testdata/local" // or from this folder
	}
	if err := run(context.Background(), os.Stdout, local); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer, localDir string) error {
	// The scaffolding, on loopback: a shop (TLS) publishing skills.md, a skills index
	// with one skill, a small API, and an MCP server with the Skills Extension.
	shop, err := demo.NewShop()
	if err != nil {
		return err
	}
	defer shop.Close()
	// The agent's side: one discovery client, one catalog, the tools.
	askUser := func(_ context.Context, r *discovery.ConsentRequest) (bool, error) {
		fmt.Fprintf(out, "  [consent %s: %s] yes\n", r.Action, r.Reason)
		return true, nil
	}
	client, err := discovery.NewClient(&discovery.Options{HTTPClient: shop.Client(), Consent: askUser, InsecureAllowPrivateOrigins: true})
	if err != nil {
		return err
	}
	cat := catalog.New(&catalog.Options{Approvals: catalog.NewMemoryApprovals()})
	if err := cat.AddLocal(ctx, agentskills.LocalOptions{Roots: []string{localDir}}); err != nil {
		return err
	}
	session, err := mcpclient.ConnectURL(ctx, client, shop.URL+demo.MCPPath, false, nil)
	if err != nil {
		return err
	}
	defer session.Close()
	if err := cat.AddMCP(ctx, "reports", session); err != nil {
		return err
	}
	approve := func(_ context.Context, r *tools.ApprovalRequest) (bool, error) {
		fmt.Fprintf(out, "  [approve skill %s from %s] yes\n", r.Entry.Name, r.Entry.Kind)
		return true, nil
	}
	toolset := tools.New(client, cat, &tools.Options{Approve: approve})

	// The scripted "model": each step is a tool call a model would make.
	steps := []struct{ tool, input string }{
		{"discover_site", fmt.Sprintf(`{"origin": %q}`, shop.URL)},
		{"list_skills", fmt.Sprintf(`{"origin": %q}`, shop.URL)},
		{"list_skills", `{}`},
		{"read_skill", `{"name": "weekly-report"}`},
		{"read_skill_file", `{"name": "weekly-report", "path": "references/FORMAT.md"}`},
	}
	for _, s := range steps {
		res, err := toolset.Call(ctx, s.tool, json.RawMessage(s.input))
		if err != nil {
			return fmt.Errorf("%s: %w", s.tool, err)
		}
		fmt.Fprintf(out, "> %s %s\n%s\n", s.tool, s.input, res.Text)
	}
	// The skill says to GET /api/v1/orders: the call goes through the policy guard.
	d, err := client.Discover(ctx, shop.URL)
	if err != nil {
		return err
	}
	guard, err := client.Guard(d, nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Transport: guard}).Get(shop.URL + demo.ShopOrdersPath)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	fmt.Fprintf(out, "> GET /api/v1/orders through the guard: %d %s\n", resp.StatusCode, body)
	return nil
}
