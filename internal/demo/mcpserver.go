package demo

import (
	"io/fs"
	"net/http/httptest"

	"github.com/wellknown-dev/discovery/skillserver"
)

// MCPSkills returns the skills folder of [NewMCPServer]: invoice-check (with
// references/RULES.md) and ledger-export.
func MCPSkills() fs.FS {
	sub, err := fs.Sub(site, "mcpskills")
	if err != nil {
		panic(err) // embedded at build time: cannot fail
	}
	return sub
}

// NewMCPServer starts a demo MCP server on loopback (plain HTTP), at [MCPPath], that
// serves [MCPSkills] through the MCP Skills Extension (examples/mcpskills): named
// "demo-skills", one skill a page so that a client pages through the listing, a
// skill's folder readable as a directory. The caller closes the server.
func NewMCPServer() (*httptest.Server, error) {
	srv, err := skillserver.New(MCPSkills(), &skillserver.Options{Name: "demo-skills", PageSize: 1, DirectoryRead: true})
	if err != nil {
		return nil, err
	}
	return httptest.NewServer(srv.Handler()), nil
}
