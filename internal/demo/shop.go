package demo

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/skillserver"
)

// ShopOrdersPath is the shop's API call that lists orders, the one its skills.md
// describes.
const ShopOrdersPath = "/api/v1/orders"

// shopOrders is the body of GET [ShopOrdersPath].
const shopOrders = `[{"id": 1, "total": 42.5}, {"id": 2, "total": 17}]`

// NewShop starts the demo shop an agent loop runs against (examples/agent) on a
// loopback TLS server: its skills.md ("Demo Shop"), a skills index listing one skill
// (invoice-check), a small API (GET [ShopOrdersPath]) and, at [MCPPath], an MCP server
// serving the skill weekly-report through the MCP Skills Extension. It publishes no
// mcp.json. Its Client trusts the server's certificate; the caller closes the server.
func NewShop() (*httptest.Server, error) {
	mux, err := origin{guide: mustRead("shop/skills.md"), skills: []entry{
		{name: "invoice-check", typ: agentskills.TypeSkillMD, url: "invoice-check/SKILL.md",
			body: mustRead("site/skills/invoice-check/SKILL.md"), description: "Check an invoice against its order."},
	}}.mux()
	if err != nil {
		return nil, err
	}
	mcpSkills, err := fs.Sub(site, "shop/mcp")
	if err != nil {
		return nil, err
	}
	srv, err := skillserver.New(mcpSkills, nil)
	if err != nil {
		return nil, err
	}
	mux.Handle(MCPPath, srv.Handler())
	mux.HandleFunc("GET "+ShopOrdersPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, shopOrders)
	})
	return startTLS(mux), nil
}
