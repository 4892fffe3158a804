// Package demo holds the demo origins that "wellknown demo", the examples and the tests
// run against, with no network, built in one place.
//
// The tracker is the demo origin of "wellknown demo", examples/discover and
// examples/skills: skills.md, mcp.json and a v0.2.0 Agent Skills index listing a
// SKILL.md skill (invoice-check) and an archive skill (ledger). [NewServer] serves it
// over TLS on loopback; [Handler] is the same site as an http.Handler, [LiveHandler]
// the same with an MCP server of its own, and [Skills] the skills folder (for
// skillserver, or a local catalog).
//
// [NewShop] is the shop of examples/agent (skills.md, an index, a small API and an MCP
// server on one origin), and [NewMCPServer] the MCP Skills Extension server of
// examples/mcpskills.
package demo

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"path"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/skillserver"
)

// site holds the documents of the demo origins: site/ the tracker of [Handler], shop/
// the shop of [NewShop], mcpskills/ the skills of [NewMCPServer].
//
//go:embed site shop mcpskills
var site embed.FS

// Index entries' descriptions, as the index publishes them.
const (
	invoiceDescription = "Check supplier invoices against purchase orders. Use when an invoice arrives."
	ledgerDescription  = "Export ledgers to CSV. Use when a user asks for accounting data."
)

// Skills returns the demo's skills folder: invoice-check/SKILL.md and
// ledger/SKILL.md with ledger/references/FORMAT.md.
func Skills() fs.FS {
	sub, err := fs.Sub(site, "site/skills")
	if err != nil {
		panic(err) // embedded at build time: cannot fail
	}
	return sub
}

// File returns the demo document name: "skills.md", "mcp.json" or a path under
// "skills/".
func File(name string) ([]byte, error) { return site.ReadFile("site/" + name) }

// Handler serves the demo origin: /.well-known/skills.md, /.well-known/mcp.json, the
// v0.2.0 skills index at /.well-known/agent-skills/index.json and its two artifacts,
// each with a Content-Type, an ETag and Cache-Control: max-age=300.
func Handler() (http.Handler, error) {
	mux, err := handler(nil)
	if err != nil {
		return nil, err
	}
	return mux, nil
}

// LiveHandler serves the demo origin at origin (such as http://127.0.0.1:8080) for a
// person to try every command against ("wellknown demo --serve"): the documents of
// [Handler], except that its mcp.json lists the origin's own MCP server, at
// origin/mcp, which serves the demo's skills through the MCP Skills Extension
// (package skillserver), instead of a host that does not exist.
func LiveHandler(origin string) (http.Handler, error) {
	mcpJSON, err := json.MarshalIndent(map[string]any{"mcp": map[string]any{
		"spec_version": "2026-06-13",
		"status":       "stable",
		"skills_url":   origin + discovery.GuidePath,
		"notes":        "Demo discovery document served by wellknown demo --serve: its MCP server is on this origin.",
		"servers": []map[string]any{{
			"name":        "demo-skills",
			"url":         origin + MCPPath,
			"transport":   "http",
			"description": "The demo's Agent Skills, served through the MCP Skills Extension.",
			"auth":        map[string]string{"type": "none"},
		}},
	}}, "", "  ")
	if err != nil {
		return nil, err
	}
	srv, err := skillserver.New(Skills(), &skillserver.Options{Name: "demo-skills", Version: discovery.Version, DirectoryRead: true})
	if err != nil {
		return nil, err
	}
	mux, err := handler(mcpJSON)
	if err != nil {
		return nil, err
	}
	mux.Handle(MCPPath, srv.Handler())
	return mux, nil
}

// MCPPath is the path of the MCP server of [LiveHandler].
const MCPPath = "/mcp"

// handler is the demo origin's mux, serving mcpJSON as mcp.json (nil: the embedded
// one).
func handler(mcpJSON []byte) (*http.ServeMux, error) {
	skillMD := mustRead("site/skills/invoice-check/SKILL.md")
	archive, err := agentskills.PackTarGz(site, "site/skills/ledger")
	if err != nil {
		return nil, err
	}
	if mcpJSON == nil {
		mcpJSON = mustRead("site/mcp.json")
	}
	return origin{guide: mustRead("site/skills.md"), mcpJSON: mcpJSON, skills: []entry{
		{name: "invoice-check", typ: agentskills.TypeSkillMD, url: "invoice-check/SKILL.md", body: skillMD, description: invoiceDescription},
		{name: "ledger", typ: agentskills.TypeArchive, url: "ledger.tar.gz", body: archive, description: ledgerDescription},
	}}.mux()
}

// mustRead returns an embedded file.
func mustRead(name string) []byte {
	b, err := site.ReadFile(name)
	if err != nil {
		panic(err) // embedded at build time: cannot fail
	}
	return b
}

// entry is one skill of a demo origin's skills index, its artifact served at url
// under the index's folder.
type entry struct {
	name, typ, description, url string
	body                        []byte
}

// origin is what one demo origin publishes; a nil document is not served.
type origin struct {
	guide, mcpJSON []byte
	skills         []entry // the v0.2.0 skills index; none: no index
}

// mux serves the origin's documents, each with a Content-Type, an ETag and
// Cache-Control: max-age=300.
func (o origin) mux() (*http.ServeMux, error) {
	serve := func(body []byte, ctype string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.Header().Set("ETag", fmt.Sprintf(`"%x"`, agentskills.Digest(body)[7:23]))
			w.Header().Set("Cache-Control", "max-age=300")
			_, _ = w.Write(body)
		}
	}
	mux := http.NewServeMux()
	if o.guide != nil {
		mux.Handle("GET "+discovery.GuidePath, serve(o.guide, "text/markdown; charset=utf-8"))
	}
	if o.mcpJSON != nil {
		mux.Handle("GET "+discovery.MCPPath, serve(o.mcpJSON, "application/json"))
	}
	if len(o.skills) == 0 {
		return mux, nil
	}
	listed := make([]map[string]string, 0, len(o.skills))
	dir := path.Dir(agentskills.IndexPath) + "/"
	for _, e := range o.skills {
		listed = append(listed, map[string]string{"name": e.name, "type": e.typ, "url": e.url, "digest": agentskills.Digest(e.body),
			"description": e.description})
		ctype := "text/markdown; charset=utf-8"
		if e.typ == agentskills.TypeArchive {
			ctype = "application/gzip"
		}
		mux.Handle("GET "+dir+e.url, serve(e.body, ctype))
	}
	index, err := json.MarshalIndent(map[string]any{"$schema": agentskills.SchemaV020, "skills": listed}, "", "  ")
	if err != nil {
		return nil, err
	}
	mux.Handle("GET "+agentskills.IndexPath, serve(index, "application/json"))
	return mux, nil
}

// startTLS serves h on a loopback TLS server whose log is discarded.
func startTLS(h http.Handler) *httptest.Server {
	ts := httptest.NewUnstartedServer(h)
	ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	ts.StartTLS()
	return ts
}

// NewServer starts the demo origin on a loopback TLS server. Its Client trusts the
// server's certificate: pass it as discovery.Options.HTTPClient. The caller closes the
// server.
func NewServer() (*httptest.Server, error) {
	h, err := Handler()
	if err != nil {
		return nil, err
	}
	return startTLS(h), nil
}
