package main

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
)

func init() { register((*app).demoCommand) }

// demoFS holds the documents of the embedded demo origin.
//
//go:embed demo
var demoFS embed.FS

func (a *app) demoCommand() *cobra.Command {
	var f discoverFlags
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Discover an embedded demo origin (no network needed)",
		Long: `Demo starts a demo origin on a loopback TLS server (skills.md, mcp.json and an
Agent Skills index with two skills, embedded in the binary) and discovers it exactly
as "wellknown discover" discovers a real site. Nothing leaves the machine.`,
		Example: `  wellknown demo
  wellknown demo --structured --json
  wellknown demo --model`,
		Args: argsN(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(); err != nil {
				return err
			}
			ts, err := demoServer()
			if err != nil {
				return err
			}
			defer ts.Close()
			c, err := a.client(&discovery.Options{HTTPClient: ts.Client()})
			if err != nil {
				return err
			}
			defer c.CloseIdleConnections()
			return a.discover(cmd.Context(), c, ts.URL, f)
		},
	}
	f.add(cmd)
	return cmd
}

// demoServer serves the embedded demo origin over TLS on loopback: skills.md,
// mcp.json, and a v0.2.0 skills index with a SKILL.md skill and an archive skill.
func demoServer() (*httptest.Server, error) {
	mux, err := demoMux()
	if err != nil {
		return nil, err
	}
	ts := httptest.NewUnstartedServer(mux)
	ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	ts.StartTLS()
	return ts, nil
}

func demoMux() (*http.ServeMux, error) {
	read := func(name string) []byte {
		b, err := demoFS.ReadFile(name)
		if err != nil {
			panic(err) // embedded at build time: cannot fail
		}
		return b
	}
	skillMD := read("demo/skills/invoice-check/SKILL.md")
	archive, err := agentskills.PackTarGz(demoFS, "demo/skills/ledger")
	if err != nil {
		return nil, err
	}
	index, err := json.MarshalIndent(map[string]any{
		"$schema": agentskills.SchemaV020,
		"skills": []map[string]string{
			{"name": "invoice-check", "type": agentskills.TypeSkillMD, "url": "invoice-check/SKILL.md", "digest": agentskills.Digest(skillMD),
				"description": "Check supplier invoices against purchase orders. Use when an invoice arrives."},
			{"name": "ledger", "type": agentskills.TypeArchive, "url": "ledger.tar.gz", "digest": agentskills.Digest(archive),
				"description": "Export ledgers to CSV. Use when a user asks for accounting data."},
		},
	}, "", "  ")
	if err != nil {
		return nil, err
	}
	serve := func(body []byte, ctype string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ctype)
			w.Header().Set("ETag", fmt.Sprintf(`"%x"`, agentskills.Digest(body)[7:23]))
			w.Header().Set("Cache-Control", "max-age=300")
			_, _ = w.Write(body)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("GET "+discovery.SkillsPath, serve(read("demo/skills.md"), "text/markdown; charset=utf-8"))
	mux.Handle("GET "+discovery.MCPPath, serve(read("demo/mcp.json"), "application/json"))
	mux.Handle("GET "+agentskills.IndexPath, serve(index, "application/json"))
	mux.Handle("GET /.well-known/agent-skills/invoice-check/SKILL.md", serve(skillMD, "text/markdown; charset=utf-8"))
	mux.Handle("GET /.well-known/agent-skills/ledger.tar.gz", serve(archive, "application/gzip"))
	return mux, nil
}
