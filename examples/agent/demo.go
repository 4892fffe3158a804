package main

import (
	"embed"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/skillserver"
)

//go:embed testdata
var demo embed.FS

// demoSite is the scaffolding the agent loop runs against, all on loopback: a shop
// (TLS) publishing skills.md, a skills index with one skill and a small API, and an
// MCP server with the Skills Extension.
type demoSite struct {
	shop      *httptest.Server
	mcp       *httptest.Server
	localDir  string // the local skills folder
	mcpURL    string
	shopURL   string
	httpShop  *http.Client // trusts the shop's test certificate
	closeDemo func()
}

func startDemo(localDir string) (*demoSite, error) {
	skillsMD, _ := demo.ReadFile("testdata/skills.md")
	invoice := []byte("---\nname: invoice-check\ndescription: Check an invoice against its order. Use when an invoice arrives.\n---\n# Invoice check\n\nCompare each line with the order.\n")
	index := fmt.Sprintf(`{"$schema": %q, "skills": [{"name": "invoice-check", "type": "skill-md",
		"description": "Check an invoice against its order.", "url": "invoice-check/SKILL.md", "digest": %q}]}`,
		agentskills.SchemaV020, agentskills.Digest(invoice))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/skills.md", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		w.Write(skillsMD)
	})
	mux.HandleFunc("GET /.well-known/agent-skills/index.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, index)
	})
	mux.HandleFunc("GET /.well-known/agent-skills/invoice-check/SKILL.md", func(w http.ResponseWriter, r *http.Request) { w.Write(invoice) })
	mux.HandleFunc("GET /api/v1/orders", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `[{"id": 1, "total": 42.5}, {"id": 2, "total": 17}]`)
	})
	shop := httptest.NewTLSServer(mux)
	sub, _ := fs.Sub(demo, "testdata/mcp")
	srv, err := skillserver.New(sub, nil)
	if err != nil {
		shop.Close()
		return nil, err
	}
	mcpTS := httptest.NewServer(srv.Handler())
	return &demoSite{shop: shop, mcp: mcpTS, localDir: localDir, mcpURL: mcpTS.URL + "/mcp", shopURL: shop.URL,
		httpShop: shop.Client(), closeDemo: func() { shop.Close(); mcpTS.Close() }}, nil
}
