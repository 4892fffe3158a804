package mcpjson_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/internal/testparts"
	"github.com/wellknown-dev/discovery/mcpjson"
)

// corpusDir holds documents published by others, read in place and never copied.
const corpusDir = "../../shared/corpus/mcpjson"

// TestCorpus parses every real mcp.json in the shared corpus with an explicit
// expectation for each: the shape, the servers (name=url(transport)) and tool names it
// yields, or the error it gives. A corpus file without an expectation fails.
func TestCorpus(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(corpusDir); err != nil {
		testparts.Skip(t, testparts.Shared, err.Error())
	}
	type want struct {
		shape   mcpjson.Shape
		servers string
		tools   string
		err     string // substring of the error; shape and servers are then unused
		check   func(t *testing.T, d *mcpjson.Document)
	}
	expect := map[string]want{
		"1uke5im5__roller-mcp__public-wellknown-mcp.json": {shape: mcpjson.ShapeFlat,
			servers: "Roller Booking MCP=https://dtpvxwtcedeiqnpvrlxg.supabase.co/functions/v1/roller-mcp/mcp(streamable-http)",
			tools:   "get_products,get_product_availability",
			check: func(t *testing.T, d *mcpjson.Document) {
				if a := d.Servers[0].Auth; a == nil || a.Type != "api-key" || a.Header != "X-API-Key" {
					t.Errorf("Auth = %+v", a)
				}
			}},
		"Aaron-Savron__WebMCP__public-wellknown-mcp.json": {shape: mcpjson.ShapeMCPWrapper,
			servers: "http=https://demo.webmcp.dev/api/mcp(streamable-http) ws=wss://demo.webmcp.dev/api/mcp(websocket)",
			// Both endpoints of the one server offer the same tools.
			tools: strings.Repeat("search_products,get_product,purchase_item,get_order_status,get_store_info,", 2)},
		"AgentBase1__registry__wellknown-mcp.json": {shape: mcpjson.ShapeDocsSite,
			servers: "agentbase-mcp=(stdio)",
			check: func(t *testing.T, d *mcpjson.Document) {
				if s := d.Servers[0]; !s.LocalOnly || s.Command != "agentbase-mcp" {
					t.Errorf("npm package must be local only: %+v", s)
				}
			}},
		"AgoraIO__docs-portal__public-wellknown-mcp.json": {shape: mcpjson.ShapeDocsSite,
			servers: "public=https://mcp.agora.io(streamable-http)"},
		"Alkafache__HaloscanMCPServer__public-wellknown-mcp.json": {shape: mcpjson.ShapeMCPWrapper,
			servers: "Haloscan SEO Tools=https://haloscan.dokify.eu/sse(sse)"},
		"Charlie7532__Charlie7532__public-wellknown-mcp.json": {shape: mcpjson.ShapeFlat,
			servers: "Juan C Botero — Portfolio MCP=https://juancbotero.com/api/public/mcp(streamable-http)",
			tools:   "Find projects,Find technologies,Find categories,Find clients,Find posts"},
		"Codehagen__christerhagen__public-wellknown-mcp.json": {shape: mcpjson.ShapeClientConfig,
			servers: "christerhagen=https://www.christerhagen.com/mcp(streamable-http)"},
		"Frontier-Compute__zcash-mcp__wellknown-mcp.json": {shape: mcpjson.ShapeLocal,
			servers: "@frontiercompute/zcash-mcp=(stdio)",
			tools: "get_balance,send_shielded,decode_memo,attest_event,verify_proof,get_stats,get_block_height," +
				"lookup_transaction,get_anchor_history,get_anchor_status,get_events,get_agent_status,zcash_create_invoice," +
				"zcash_identity_register,zcash_prove_payment,zcash_reputation_score,zcash_watch_payment," +
				"zcash_crosschain_swap,zcash_capability_manifest,zcash_conformance_check,zcash_receipt_template," +
				"zcash_create_wallet,zcash_sign_mpc,zcash_shield,zcash_verify_evm",
			check: func(t *testing.T, d *mcpjson.Document) {
				if n := len(d.Servers[0].Tools); n != 25 || !d.Servers[0].LocalOnly {
					t.Errorf("%d tools, local %v", n, d.Servers[0].LocalOnly)
				}
			}},
		// REST JSON files, no MCP endpoint. A JSON object always parses: unknown shape, no
		// server, and a warning saying so.
		"GeeksCAT__conf-2026-web__public-wellknown-mcp.json": {shape: mcpjson.ShapeUnknown, check: warnsNoServer},
		"HemmaBo-se__hemmabo-mcp-server__wellknown-mcp.json": {shape: mcpjson.ShapeFlat,
			servers: "HemmaBo Federation MCP Server=https://hemmabo-mcp-server.vercel.app/mcp(streamable-http)",
			tools: "hemmabo_search_properties,hemmabo_search_availability,hemmabo_booking_quote,hemmabo_booking_negotiate," +
				"hemmabo_booking_checkout,hemmabo_booking_create,hemmabo_booking_status,hemmabo_booking_cancel," +
				"hemmabo_booking_reschedule,hemmabo_search_similar,hemmabo_compare_properties"},
		"IO31-WEB__cleanpage-mcp__public-wellknown-mcp.json": {shape: mcpjson.ShapeFlat,
			servers: "cleanpage=https://cleanpage-mcp.cleanpage-mcp.workers.dev/mcp(streamable-http)", // not the nested example
			tools:   "clean_page,health,list_capabilities,pricing"},
		"Instabidsai__toolroute__public-wellknown-mcp.json": {shape: mcpjson.ShapeFlat,
			servers: "ToolRoute MCP Server=https://toolroute.ai/mcp(streamable-http)",
			check: func(t *testing.T, d *mcpjson.Document) {
				if a := d.Servers[0].Auth; a == nil || a.Type != "bearer" {
					t.Errorf("Auth = %+v", a)
				}
			}},
		"Lamatic__Lamatic-Docs__public-wellknown-mcp.json": {shape: mcpjson.ShapeClientConfig,
			servers: "Lamatic Docs MCP=https://docmcp.lamatic.ai/api/mcp(streamable-http) Lamatic Graph MCP=(stdio)"},
		// A trailing comma: read as if absent, with a warning (Validate rejects it).
		"LorenData__ecgrid-developer-documentation__wellknown-mcp-doc-example-trailing-comma.json": {
			shape: mcpjson.ShapeSEP1960, servers: "ECGrid MCP Server=https://mcp.ecgrid.io/mcp(streamable-http)",
			check: func(t *testing.T, d *mcpjson.Document) {
				if !hasWarning(d, "", "a trailing comma (at line 15, column 8)") {
					t.Errorf("warnings = %v", d.Warnings)
				}
			}},
		"Lumen-Labs__brainapi-docs__public-wellknown-mcp.json": {shape: mcpjson.ShapeDocsSite,
			servers: "brainapi-docs=https://brain-api.dev/mcp(streamable-http)"},
		"MKWorldWide__AthenaCore__wellknown-mcp.json": {shape: mcpjson.ShapeUnknown, check: warnsNoServer}, // a repo permission manifest
		"MemTensor__MemOS-Docs__public-wellknown-mcp-noext.json": {shape: mcpjson.ShapeInitialize,
			servers: "memos-api-mcp=(stdio)",
			tools: "add_message,search_memory,delete_memory,add_feedback,get_user_profile,create_knowledge_base," +
				"remove_knowledge_base,add_kb_document,get_kb_documents,delete_kb_documents",
			check: func(t *testing.T, d *mcpjson.Document) {
				if s := d.Servers[0]; s.Command != "npx -y @memtensor/memos-api-mcp@latest" {
					t.Errorf("Command = %q", s.Command)
				}
			}},
		"Moddable-Games__moddable-website__wellknown-mcp.json": {shape: mcpjson.ShapeFlat,
			servers: "Moddable.Games MCP Tools=https://tools.moddable.games/mcp(sse)"},
		// Its one "server" URL is a JSON knowledge graph, a document, not an MCP endpoint
		// (round 4: URLs naming a .json file or a /.well-known/ path are pointers).
		"ashwingopalsamy__site__static-wellknown-mcp.json": {shape: mcpjson.ShapeClientConfig, servers: ""},
		"megazear7__heroic-adventures-assistant__static-wellknown-mcp.json": {shape: mcpjson.ShapeFlat,
			servers: "mcp=/sse(sse)", // relative: kept, with a warning
			check: func(t *testing.T, d *mcpjson.Document) {
				if !hasWarning(d, "/sse_endpoint", "relative URL") {
					t.Errorf("warnings = %v", d.Warnings)
				}
			}},
	}
	files, err := filepath.Glob(filepath.Join(corpusDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w, ok := expect[name]
			if !ok {
				t.Fatalf("no expectation for %s: add one", name)
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_ = mcpjson.Validate(data) // must not panic on any real file
			d, err := mcpjson.Parse(data)
			if w.err != "" {
				var se *mcpjson.SyntaxError
				var ve *mcpjson.ValidationError
				if err == nil || !strings.Contains(err.Error(), w.err) || !(errors.As(err, &se) || errors.As(err, &ve)) {
					t.Fatalf("error = %v, want one containing %q", err, w.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if d.Shape != w.shape {
				t.Errorf("Shape = %s, want %s", d.Shape, w.shape)
			}
			if got := servers(d); got != w.servers {
				t.Errorf("servers = %q\nwant      %q", got, w.servers)
			}
			if got := toolNames(d); got != strings.TrimSuffix(w.tools, ",") {
				t.Errorf("tools = %q\nwant    %q", got, w.tools)
			}
			if w.check != nil {
				w.check(t, d)
			}
		})
	}
}

// warnsNoServer checks that a document without a usable server says so at the root.
func warnsNoServer(t *testing.T, d *mcpjson.Document) {
	t.Helper()
	if len(d.Servers) != 0 || !hasWarning(d, "", "nothing to connect to") {
		t.Errorf("servers %v, warnings %v", d.Servers, d.Warnings)
	}
}
