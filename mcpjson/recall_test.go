package mcpjson_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/mcpjson"
)

// shapeCase is what a careful human reader extracts from one fixture of
// testdata/wild-*.json and wild2-*.json: endpoint URLs, local command lines and tool names.
type shapeCase struct {
	endpoints []string
	local     []string
	tools     []string
}

// wildCases are the expectations for the fixtures that reproduce the shapes seen in
// the survey (testdata/survey/notes.md, /testdata/mcpjson-shapes.md).
var wildCases = map[string]shapeCase{
	"wild-registry": {endpoints: []string{"https://notes.acme.dev/mcp"},
		local: []string{"npx -y @acme/notes-mcp@2.0.1", "uvx acme-notes==2.0.1", "docker run -i --rm ghcr.io/acme/notes:2.0.1"}},
	"wild-mcp-server-transports": {endpoints: []string{"https://mcp.acme.dev", "https://mcp.acme.dev/sse"}},
	"wild-server-url":            {endpoints: []string{"https://atlas.acme.dev/mcp"}, local: []string{"uvx atlas-mcp"}},
	"wild-mcpurl":                {endpoints: []string{"https://calc.acme.dev/mcp"}, tools: []string{"add", "sub"}},
	"wild-endpoints-map":         {endpoints: []string{"https://mcp.store.dev/mcp", "https://mcp.store.dev/sse"}, local: []string{"store-mcp"}},
	"wild-endpoints-array": {endpoints: []string{"https://pocket.acme.dev/mcp/v1", "http://localhost:25585/mcp/v1"},
		local: []string{"pocket-cli mcp"}, tools: []string{"list_instances", "start_instance"}},
	"wild-wrapper-servers-map": {endpoints: []string{"https://search.acme.dev/mcp"}, local: []string{"npx -y @acme/files-mcp"}},
	"wild-commands":            {local: []string{"python3 agent/mcp_server.py"}, tools: []string{"dorado.verify", "dorado.board"}},
	"wild-ide-config":          {local: []string{"node ${workspaceFolder}/build/index.js", "bash -lc 'cd ~/srv && ./run.sh'"}},
	"wild-run-line":            {local: []string{"npx -y @acme/toolbox-mcp"}, tools: []string{"json_format", "base64"}},
	"wild-tools-grouped": {endpoints: []string{"https://ledger.acme.dev/api/mcp"},
		tools: []string{"get_balances", "search_transactions", "record_transaction"}},
	"wild-tools-no-endpoint": {tools: []string{"get_packages", "book_consultation"}},
	"wild-tools-dynamic":     {endpoints: []string{"https://dyn.acme.dev/mcp"}, tools: []string{"ping"}},
	"wild-no-server":         {},
	"wild-not-provided":      {},
	"wild-empty-servers":     {},
	"wild-stub":              {},
	"wild-unusable":          {endpoints: []string{"https://real.acme.dev/mcp"}},
	"wild-companion": {endpoints: []string{"https://docs.acme.dev/mcp"}, local: []string{"python -m deals_mcp"},
		tools: []string{"search_deals", "deal_of_the_day", "search_docs"}},
	"wild-entry-url-and-stdio": {endpoints: []string{"https://council.acme.dev/mcp"}, local: []string{"npx -y gspc-mcp@0.2.1"},
		tools: []string{"board_totals"}},
	"wild-endpoint-object": {endpoints: []string{"https://docs.acme.dev/api/mcp"}, tools: []string{"search_docs"}},
	"wild-transport-keyed": {endpoints: []string{"https://dex.acme.dev/api/mcp"}, local: []string{"node mcp-server/build/index.js"},
		tools: []string{"dex_health", "dex_quote"}},
	"wild-flat-url-tools": {endpoints: []string{"https://frameworks-mcp.acme.app"}, tools: []string{"analyze", "calculate_risk"}},
	"wild-rest-tools":     {tools: []string{"selic"}},
	"wild-mcp-string":     {endpoints: []string{"https://control.acme.dev/api/v1/mcp"}},
	"wild-connection":     {endpoints: []string{"https://api.market.acme.dev/mcp"}, tools: []string{"discover_apis"}},
	"wild-stdio-list":     {local: []string{"prompts"}, tools: []string{"list_prompts", "get_prompt"}},
	"wild-local-install": {endpoints: []string{"https://mcp.conveyancer.acme.dev/mcp"},
		local: []string{"npm install -g @acme/conveyancer"}},
	// Round 2 of the survey.
	"wild2-bare-mcp-url":       {endpoints: []string{"https://signals-mcp-1234.run.acme.dev/sse"}},
	"wild2-connections-map":    {endpoints: []string{"https://folio.acme.dev/api/v1/mcp/sse"}, tools: []string{"get_projects"}},
	"wild2-config-command":     {local: []string{"npx -y ctx-health"}, tools: []string{"check_health"}},
	"wild2-home-url":           {},
	"wild2-command-in-url-key": {local: []string{"npx reviews-mcp"}, tools: []string{"search_reviews", "submit_review"}},
	"wild2-endpoints-alt-mcp": {endpoints: []string{"https://folio.acme.dev/api/mcp", "https://folio-mirror.acme.app/api/mcp"},
		tools: []string{"get_profile"}},
	"wild2-transports-stdio-list": {local: []string{"car-mcp-server"}},
	"wild2-single-tool":           {tools: []string{"hire_a_human"}},
	"wild2-query-mcp-url":         {endpoints: []string{"https://guide.acme.dev/api.php?action=mcp"}},
	"wild2-install-per-transport": {local: []string{"python server.py"}, // the pypi package is the same server
		tools: []string{"query_sales", "run_forecast", "cancel_task"}},
	// Round 3 of the survey.
	"wild3-methods-tools":   {endpoints: []string{"https://guide.acme.dev/api/public?action=mcp"}, tools: []string{"search_places", "get_place"}},
	"wild3-jsonrpc-methods": {endpoints: []string{"https://rpc.acme.dev/mcp"}},
	"wild3-usage-command":   {local: []string{"npx -y law-data-mcp"}, tools: []string{"search_laws", "get_changes"}},
	"wild3-testnet-url": {endpoints: []string{"https://gate.acme.dev/mcp", "https://gate.acme.dev/mcp/testnet"},
		tools: []string{"preview_gate"}},
	"wild3-install-http": {endpoints: []string{"https://api.iban.acme.dev/mcp"}, local: []string{"npx -y iban-check-mcp"},
		tools: []string{"validate_iban"}},
	"wild3-skipped-entry-tools": {tools: []string{"execute"}},
	// Round 4: the known misses of round 3's held-out set, as classes.
	"wild4-server-endpoint-transport": {endpoints: []string{"https://quotes.acme.dev/mcp/sse"}, tools: []string{"get_quote", "list_trades"}},
	"wild4-entry-install-remote":      {endpoints: []string{"https://scan.acme.dev/mcp"}, local: []string{"npx -y scan-mcp"}},
	"wild4-features-tool":             {local: []string{"uvx net-admin-mcp"}, tools: []string{"list_clients", "list_devices", "get_rules", "add_rule"}},
	"wild4-package-page-url":          {local: []string{"agenda-mcp"}, tools: []string{"summarize_agenda"}},
	"wild4-not-mcp-rest":              {tools: []string{"ask_shop"}},
	// Round 4, classes found in the new survey round.
	"wild5-gateway": {endpoints: []string{"https://rules.acme.dev/mcp/gdpr-check", "https://rules.acme.dev/mcp/gateway"},
		local: []string{"gdpr-check-mcp"}},
	"wild5-path-nested-tools": {endpoints: []string{"/functions/v1/mcp"}, tools: []string{"get_districts", "estimate_rent"}},
	"wild5-endpoints-tools":   {tools: []string{"search_posts", "get_series"}},
	"wild5-template":          {tools: []string{"scan_path", "total"}},
	"wild5-claude-add":        {local: []string{"node ./dist/mcp.js"}},
	"wild5-claude-add-remote": {endpoints: []string{"https://words.acme.dev/mcp"}},
	// Round 5, classes found in the new survey round.
	"wild6-named-server-object": {endpoints: []string{"https://ledger.acme.dev/mcp"}, local: []string{"npx @acme/ledger-helper"},
		tools: []string{"find_invoice", "list_payees"}},
	"wild6-package-twice":      {local: []string{"npx -y @acme/notes-cli mcp"}},
	"wild6-transport-base-url": {tools: []string{"list_quests", "submit_bid"}},
	// Round 6, classes found in the design half of the new survey round.
	"wild7-tool-groups": {endpoints: []string{"https://mcp.acme.dev/sse"}, local: []string{"acme-msg-mcp"},
		tools: []string{"send_message", "send_template", "lookup_customer"}},
	"wild7-entry-tiers":       {endpoints: []string{"https://archive.acme.dev/api/mcp"}, tools: []string{"search_archive", "get_record"}},
	"wild7-entry-home-url":    {endpoints: []string{"https://node-7.acme.dev/sse", "https://docs.acme.dev/mcp"}},
	"wild7-protocol-object":   {endpoints: []string{"/mcp"}, tools: []string{"gateway_query", "gateway_dry_run"}},
	"wild7-protocol-endpoint": {endpoints: []string{"https://calc.acme.dev/api/mcp"}, tools: []string{"get_ltv", "project_revenue"}},
	"wild7-self-hosted":       {local: []string{"node server/server.mjs"}, tools: []string{"list_labs", "run_lab"}},
	"wild7-key-spelling": {endpoints: []string{"https://search.acme.dev/mcp", "https://search.acme.dev/mcp/v2"},
		tools: []string{"search_web", "fetch_page"}},
	"wild7-endpoints-named": {endpoints: []string{"https://api.acme.dev/v2/mcp", "https://api.acme.dev/v2/sse"},
		tools: []string{"get_balance", "list_entries"}},
	"wild7-package-object": {local: []string{"npx -y @acme/recipes-mcp"}, tools: []string{"recipe_search", "meal_plan_get"}},
	"wild7-setup-snippet":  {endpoints: []string{"https://notes.acme.dev/mcp"}, local: []string{"npx -y @acme/notes-mcp"}},
	"wild7-stdio-line-map": {endpoints: []string{"https://maps.acme.dev/mcp"}, local: []string{"npx -y @acme/maps-mcp"}},
	"wild7-prose-url":      {tools: []string{"find_product", "track_order"}},
	// Round 6, classes found in the held-out half.
	"wild7-openapi":      {},
	"wild7-meta-tools":   {endpoints: []string{"https://app.acme.dev/v1/mcp"}, tools: []string{"pricing_plans", "supported_hardware"}},
	"wild7-webmcp-tools": {endpoints: []string{"https://menu.acme.dev/api/mcp"}, tools: []string{"get_menu", "find_dish", "prepare_booking"}},
	"wild7-mcp-host-url": {endpoints: []string{"https://mcp.acmefund.dev"}},
	// Round 7: classes found in the held-out survey round.
	"wild8-flat-sse-key":     {endpoints: []string{"https://stats.acme.dev/api/mcp", "https://stats.acme.dev/sse"}},
	"wild8-api-object":       {endpoints: []string{"https://cards.acme.dev/api/mcp/server"}, tools: []string{"search_cards", "get_wants"}},
	"wild8-webmcp-transport": {tools: []string{"open_page", "contact_support"}},
	"wild8-not-live":         {tools: []string{"quote_fee"}},
	"wild8-api-base":         {tools: []string{"resolve_failure", "report_fix"}},
	"wild8-install-line-twice": {endpoints: []string{"https://mcp.quotes.acme.dev/mcp"}, local: []string{"uvx acme-quotes"},
		tools: []string{"get_quote", "list_markets"}},
	// Round 8: classes found in the held-out survey round (fixtures wild9-*: the
	// wild8- names are round 7's).
	"wild9-document-entries":    {endpoints: []string{"https://mcp.acme-consult.dev/mcp"}, tools: []string{"book_call"}},
	"wild9-site-home-transport": {tools: []string{"get_portfolio", "request_booking"}},
	"wild9-chat-api":            {tools: []string{"quote_plan", "handoff_human"}},
	"wild9-start-command":       {local: []string{"python -m ticket_triage_mcp"}, tools: []string{"triage_ticket", "get_ticket"}},
	"wild9-preset-catalogue":    {local: []string{"npx -y @acme/files-mcp", "uvx acme-fetch-mcp"}},
	"wild9-tool-list-keys":      {tools: []string{"get_health", "list_docs", "workspace_status", "campaign_create"}},
	"wildj-editor-config":       {endpoints: []string{"https://mcp.example.com/mcp"}, local: []string{"npx -y @example/acme-mcp@2.1.0"}},
	// Round 9: classes found in the held-out survey round (fixtures wild10-*).
	"wild10-static-host-root": {},
	"wild10-code-host-page":   {endpoints: []string{"https://mcp.example.com/mcp"}},
	"wild10-disabled-entries": {endpoints: []string{"https://notes.example.com/mcp"},
		local: []string{"npx -y @example/files-mcp ${PROJECT_ROOT}"}},
	"wild10-same-server-twice": {local: []string{"acme-orchestrator mcp"}, tools: []string{"orchestrate_run", "orchestrate_status"}},
	"wild10-stdio-object":      {local: []string{"acme-registry"}, tools: []string{"registry-search", "registry-get", "registry-doctor"}},
	"wild10-runner-of-runners": {local: []string{"cmd /c npx -y @smithery/cli@latest run @example/docs-mcp --key <YOUR_KEY>",
		"cmd /c npx -y @example/files-mcp", "npx -y @smithery/cli@latest run @example/thinking-mcp"}},
	// Round 10: classes found in the held-out survey round (fixtures wild11-*).
	"wild11-host-root":             {},
	"wild11-serverinfo-endpoint":   {endpoints: []string{"https://contracts.example.com/mcp"}, tools: []string{"search_contracts", "analyze_agency"}},
	"wild11-resource-endpoint":     {},
	"wild11-tools-supported":       {endpoints: []string{"https://api.example.com/mcp"}, tools: []string{"site_audit", "contact_request"}},
	"wild11-bridge-unusable":       {local: []string{"npx -y @acme/notes-mcp"}},
	"wild21-bridge-and-rest-route": {endpoints: []string{"https://quotes.acme.dev/mcp"}},
	"wild21-endpoint-profiles":     {endpoints: []string{"https://mcp.tally.dev/mcp", "https://mcp.tally.dev/sse", "https://staging.tally.dev/mcp"}},
	"wild21-package-beside-remote": {endpoints: []string{"https://ledger.acme.dev/mcp"}, local: []string{"npx -y @acme/ledger-mcp"}},
	"wild21-snake-server-array":    {endpoints: []string{"https://ledger.acme.dev/mcp", "https://ledger.acme.dev/sse"}},
	// Round 11 of the survey.
	"wild-tools-method-flags":        {endpoints: []string{"https://tides.harbor.example.org/mcp"}},
	"wild-paid-route-request-schema": {},
}

// TestShapeRecall measures, over the wild-* fixtures, the share of endpoints, local
// servers and tool names a careful reader sees that Parse finds (targets: 95%, 90%
// and 90%), that no fixture fails, and that nothing else becomes a server.
func TestShapeRecall(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/wild*-*.json")
	if len(files) != len(wildCases) {
		t.Errorf("%d wild fixtures, %d expectations", len(files), len(wildCases))
	}
	var ep, epGot, loc, locGot, tl, tlGot int
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		want, ok := wildCases[name]
		if !ok {
			t.Errorf("%s: no expectation", name)
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := mcpjson.Parse(data)
		if err != nil {
			t.Errorf("%s: Parse failed on a JSON object: %v", name, err)
			continue
		}
		urls, cmds := map[string]bool{}, map[string]bool{}
		for _, s := range d.Servers {
			if s.LocalOnly {
				cmds[s.Command] = true
			} else {
				urls[s.URL] = true
			}
		}
		tools := map[string]bool{}
		for _, n := range d.ToolNames {
			tools[n] = true
		}
		count := func(want []string, got map[string]bool, what string) int {
			n := 0
			for _, w := range want {
				if got[w] {
					n++
				} else {
					t.Errorf("%s: %s %q missed", name, what, w)
				}
			}
			return n
		}
		ep, epGot = ep+len(want.endpoints), epGot+count(want.endpoints, urls, "endpoint")
		loc, locGot = loc+len(want.local), locGot+count(want.local, cmds, "local server")
		tl, tlGot = tl+len(want.tools), tlGot+count(want.tools, tools, "tool")
		if len(urls) > len(want.endpoints) {
			t.Errorf("%s: %d endpoints, a reader sees %d: %v", name, len(urls), len(want.endpoints), urls)
		}
		if len(cmds) > len(want.local) {
			t.Errorf("%s: %d local servers, a reader sees %d: %v", name, len(cmds), len(want.local), cmds)
		}
		if len(d.Servers) == 0 && len(d.Warnings) == 0 {
			t.Errorf("%s: no server and no warning saying why", name)
		}
	}
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
	t.Logf("endpoints %d/%d (%.0f%%), local %d/%d (%.0f%%), tools %d/%d (%.0f%%)",
		epGot, ep, pct(epGot, ep), locGot, loc, pct(locGot, loc), tlGot, tl, pct(tlGot, tl))
	if pct(epGot, ep) < 95 || pct(locGot, loc) < 90 || pct(tlGot, tl) < 90 {
		t.Errorf("recall under target")
	}
}

// TestParseOptions checks the rules that need the document's URL.
func TestParseOptions(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"servers": [
		{"name": "self", "url": "https://acme.dev/.well-known/mcp.json"},
		{"name": "loop", "url": "http://localhost:8000/sse"},
		{"name": "lan", "url": "https://192.168.1.20/mcp"},
		{"name": "example", "url": "https://mcp.example.com/mcp"},
		{"name": "real", "url": "https://mcp.acme.dev/mcp"}]}`)
	d, err := mcpjson.ParseWithOptions(doc, mcpjson.Options{URL: "https://acme.dev/.well-known/mcp.json"})
	if err != nil {
		t.Fatal(err)
	}
	if got := servers(d); got != "real=https://mcp.acme.dev/mcp()" {
		t.Errorf("servers = %q", got)
	}
	for i, why := range []string{"itself", "loopback or private", "loopback or private", "reserved example domain"} {
		if !hasWarning(d, fmt.Sprintf("/servers/%d/url", i), why) {
			t.Errorf("no warning %q for /servers/%d: %v", why, i, d.Warnings)
		}
	}
	// Without the document URL, loopback and example endpoints are kept (local testing);
	// a /.well-known/ document is never an endpoint, known URL or not.
	d, err = mcpjson.Parse(doc)
	if err != nil || len(d.Servers) != 4 {
		t.Errorf("Parse: %d servers, %v", len(d.Servers), err)
	}
	// A local document may list local endpoints.
	d, err = mcpjson.ParseWithOptions(doc, mcpjson.Options{URL: "http://localhost:3000/.well-known/mcp.json"})
	if err != nil || len(d.Servers) != 4 {
		t.Errorf("local document: %d servers, %v", len(d.Servers), err)
	}
	// The root of the document's own host is the site's home page, not a card's
	// endpoint; unknown the document's URL, a subdomain's root is the home page of the
	// site there (survey round 10), unless the host is named for MCP.
	card := []byte(`{"serverInfo": {"name": "x"}, "transport": {"type": "http", "endpoint": "https://docs.acme.dev/"}}`)
	d, err = mcpjson.ParseWithOptions(card, mcpjson.Options{URL: "https://docs.acme.dev/.well-known/mcp.json"})
	if err != nil || len(d.Servers) != 0 || !hasWarning(d, "/transport/endpoint", "home page") {
		t.Errorf("own root: %v, %v, %v", d.Servers, d.Warnings, err)
	}
	if d, err = mcpjson.Parse(card); err != nil || len(d.Servers) != 0 || !hasWarning(d, "/transport/endpoint", "root of its host") {
		t.Errorf("subdomain root without the document URL: %v, %v, %v", d.Servers, d.Warnings, err)
	}
	mcpCard := []byte(`{"serverInfo": {"name": "x"}, "transport": {"type": "http", "endpoint": "https://mcp.acme.dev/"}}`)
	if d, err = mcpjson.Parse(mcpCard); err != nil || len(d.Servers) != 1 {
		t.Errorf("MCP host root: %v, %v", d.Servers, err)
	}
	// A local bridge to the publisher's own machine, in a public document, runs nothing.
	bridge := []byte(`{"mcpServers": {"m": {"command": "npx", "args": ["mcp-remote", "http://localhost:10001/sse"]}}}`)
	d, err = mcpjson.ParseWithOptions(bridge, mcpjson.Options{URL: "https://acme.dev/.well-known/mcp.json"})
	if err != nil || len(d.Servers) != 0 || !hasWarning(d, "/mcpServers/m", "local bridge") {
		t.Errorf("bridge to loopback: %v, %v, %v", d.Servers, d.Warnings, err)
	}
	if d, err = mcpjson.Parse(bridge); err != nil || len(d.Servers) != 1 || !d.Servers[0].LocalOnly {
		t.Errorf("bridge to loopback without the document URL: %v, %v", d.Servers, err)
	}
	// Non-object JSON is still an error; every object parses.
	for _, s := range []string{`[]`, `"x"`, `3`} {
		if _, err := mcpjson.Parse([]byte(s)); err == nil {
			t.Errorf("Parse(%s) succeeded", s)
		}
	}
	for _, s := range []string{`{}`, `{"tools": 3}`, `{"mcpServers": []}`, `{"servers": {"a": 1}}`, `{"transport": {"stdio": 1}}`} {
		if d, err := mcpjson.Parse([]byte(s)); err != nil {
			t.Errorf("Parse(%s) = %v, %v", s, d, err)
		}
	}
}
