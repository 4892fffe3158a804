package skillsmd_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/skillsmd"
)

// baseShapes gives each base/auth fixture (one per way real documents state them;
// see testdata/skillsmd-shapes.md at the module root) the API base a careful reader
// extracts, whether auth is stated, and the warning expected when there is no base.
var baseShapes = []struct {
	file, title, h2, base string
	auth                  bool
	warning               string
}{
	{"base-label-lines.md", "Parcel Tracker", "Reading", "https://parcels.example.net/api", true, ""},
	{"base-summary-labels.md", "Fetcher - HTTP client for agents", "Endpoints", "https://api.fetcher.example", false, ""},
	{"base-frontmatter-nested.md", "Chat Room", "Send a message", "https://chat.example.org/api/v1", false, ""},
	{"base-frontmatter-top.md", "Notes", "", "https://notes.example.com/v2", true, ""},
	{"base-heading.md", "Ride Demo", "Base URL|Authentication", "https://rides.example.app", true, ""},
	{"base-heading-paragraph.md", "Credit Agent", "Description|Base URL|Auth", "http://localhost:3000", true, ""},
	{"base-heading-list.md", "Bounty Listings", "Base URL|Quick Start", "https://listings.example.org", false, ""},
	{"base-table.md", "Deals", "Tools|Settings", "https://deals.example.com/api/v1", true, ""},
	{"base-api-label.md", "Five to Six", "Entry Points", "https://five.example.io/api/v1", false, ""},
	{"base-path-only.md", "Inventory", "Overview", "/v0", true, ""},
	{"base-example-url.md", "Bounty Board", "Create account", "https://board.example.com", false, ""},
	{"base-two-labels.md", "Forum", "Rules", "https://forum.example.red/forum/api", false, ""},
	{"base-placeholder.md", "Town Game", "Register", "", false, skillsmd.WarnBasePlaceholder},
	{"base2-endpoints.md", "Parcel Lockers", "Reserve|Read|Files", "https://lockers.example.net/api/v1", false, ""},
	{"base2-endpoints-curl.md", "Quote Board", "Post a quote|Read quotes", "https://quotes.example.org/board", false, ""},
	{"base2-label-wins.md", "Town Hall", "Vote", "https://town.example.com/api/hall", false, ""},
	{"base2-placeholder-host.md", "Night Bar", "Enter", "", false, skillsmd.WarnBasePlaceholder},
	{"base2-frontmatter-unclosed.md", "Town Door Playbook", "Base Address|Rules|Errors", "http://localhost:4300", false, ""},
	{"base2-frontmatter-unopened.md", "Town Vote Protocol", "Register", "https://vote.example.org/api/vote", false, ""},
	{"base3-label-table.md", "Harbor Desk", "For Bots|Status", "https://api.harbor.example.org", false, ""},
	{"base3-same-origin.md", "Debate Club", "Getting Started|Rounds", "/", false, ""},
	{"base3-setext-sentence.md", "Lantern Fair", "Stalls", "https://lanterns.example.com/api", false, ""},
	{"base4-preamble-same-origin.md", "Kettle Club agent guide", "Join|Read", "/", false, ""},
	{"base4-title-after-h2.md", "Kite Shop - Agent Guide", "Files Available|Overview|API Endpoints", "https://kites.example.org/api", false, ""},
	{"base4-env-table.md", "Tide Data", "Access", "https://tides.example.net", true, ""},
	{"base4-curl-method.md", "Arcade Publisher", "Publish", "https://publish.arcade.example.com/api", false, skillsmd.WarnBaseInferred},
	{"base4-api-prefix-shared.md", "Clip Bridge", "Tools|Files", "https://clips.example.io/api", false, skillsmd.WarnBaseInferred},
	{"base4-single-mcp.md", "Lamp Shop - Agent Skill", "Connect|Tools", "https://api.lampshop.example.org/mcp", false, skillsmd.WarnBaseInferred},
	// Round 5: label statements side by side on one line, separated by " | ".
	{"base5-pipe-labels.md", "Pin Board Skill", "Loop|Endpoints", "https://pins.example.org/v1", true, ""},
	// Round 6: the one A2A / JSON-RPC endpoint is the base, not its "/api" prefix.
	{"base6-single-rpc.md", "Harbor Berths — A2A Agent Guide", "How to call a skill|Quick start", "https://berths.example.net/api/a2a", false, skillsmd.WarnBaseInferred},
	// Round 6: a lead-in line naming the base ("API base for agents:"), its value in the next block.
	{"base6-lead-in.md", "Genome Builder", "Build|Uploads", "https://builder.example.org", false, ""},
	// Round 6: endpoints written after a template variable the document assigns a URL.
	{"base6-template-var.md", "Soul Forge Skill", "Variables|Register|Submit", "https://forge.example.com", true, skillsmd.WarnBaseInferred},
	// Round 6: an MCP label beside the base label; the base label wins, MCP is listed.
	{"base6-mcp-label.md", "Lamp Desk", "Connect an MCP client|Local testing", "https://desk.example.org/api", false, ""},
	// Round 6: "Auth:" starting a sentence after others on one line.
	{"auth6-after-sentence.md", "Tide Tables for Agents", "Read", "https://tides.example.org/v1", true, ""},
	// Round 6: the auth header named only in the auth section's code examples.
	{"auth6-code-header.md", "Hoop Picks for Agents", "Authentication|Picks", "https://picks.example.com/api/v1", true, ""},
	// Round 6 (found in the held-out batch): an endpoints table with an Auth column.
	{"auth6-table-column.md", "Stall Market Agent Skill", "Configuration|Endpoints", "https://stalls.example.com/api/v1", true, ""},
	// Round 6 (held-out batch): a sentence naming the auth header and scheme.
	{"auth6-prose-header.md", "Chorus — Decisions for Agents", "Quickstart|Routes", "https://chorus.example.org/api/v1", true, skillsmd.WarnBaseInferred},
	// Round 6 (held-out batch): a shell block that lost its opening fence; its closing
	// fence must not swallow the sections after it.
	{"base6-stray-fence.md", "Beacon Install Guide", "Install|Repair|Troubleshooting|Quick Reference", "", false, skillsmd.WarnStrayFence},
	// Round 6 (held-out batch): an MCP client configuration naming an mcp. host.
	{"base6-mcp-config.md", "Ledger Desk", "MCP|HTTP|Links", "https://api.ledger.example.net/v1", true, skillsmd.WarnBaseInferred},
	// Round 8 (held-out batch): an ATX heading without its space ("##Booking").
	{"heading8-unspaced.md", "Kite Club", "致每一位会员|Booking", "https://kites.example.org/api", false, skillsmd.WarnBaseInferred},
	// Round 8: headings led by an emoji ("## 🔐 Authentication") keep their kind.
	{"auth8-emoji-heading.md", "Lantern Rentals", "📚 API Reference|🔐 Authentication|⚠️ Rate Limits", "https://lanterns.example.net/api/v1", true, ""},
	// Round 8: Chinese auth headings ("鉴权", "认证方式"); the base is stated in
	// Chinese prose only.
	{"auth8-cjk-heading.md", "茶馆点单助手", "鉴权|接口|2. 认证方式", "", true, skillsmd.WarnNoAPI},
	// Round 8: auth stated as not needed, in prose ("No auth required.").
	{"auth8-no-auth.md", "Quay Tides", "Reading|Errors", "https://tides.example.org/api/v1", true, ""},
	// Round 8: the credential header named with the word "header".
	{"auth8-header-word.md", "Seed Exchange", "Setup|Flow", "https://seeds.example.com/api", true, ""},
	// Round 8: an MCP-only service: the one MCP endpoint, named by a frontmatter key,
	// a label and a client block, is the base; a docs page about MCP is not listed.
	{"base8-mcp-only.md", "Reef Codex Skill", "Connect|Tools|Links", "https://mcp.reef.example.org/codex/mcp", false, skillsmd.WarnBaseInferred},
	// Round 8: the MCP endpoint only in a sentence about connecting to it.
	{"base8-mcp-prose.md", "Relay Desk", "How it works|Tools", "https://relay.example.net/mcp", true, skillsmd.WarnBaseInferred},
	// Round 8: endpoints after a shell default, "${DESK_URL:-https://...}/v1/x".
	{"base8-shell-default.md", "Tide Miner", "Environment|Mining", "https://desk.example.com", true, skillsmd.WarnBaseInferred},
	// Round 8: the one endpoint given by a "URL:" item under an endpoint heading.
	{"base8-endpoint-label.md", "Lumen Inference", "Canonical endpoint|OpenAPI|Links", "https://infer.example.net/v1", false, skillsmd.WarnBaseInferred},
	// Round 8: most endpoints after an unassigned template host ("{DESK}/api/x"): the
	// one written in full (another service) is not the base.
	{"base8-unresolved-template.md", "Crew Roster", "Pair|Run a task|Receipts", "", false, skillsmd.WarnBasePlaceholder},
	// Round 9 (held-out batch): Hugo's TOML frontmatter ("+++"), whose "# comment"
	// lines are not headings.
	{"heading9-toml-frontmatter.md", "Quay Ledger for Agents", "Base URL|Arrivals", "https://quay.example.org/api/v1", false, ""},
	// Round 9: <h1> and <h2> elements; none in a comment or a <pre>.
	{"heading9-html-tags.md", "Kiln Booking", "Connect|Slots & Fees|Rules", "https://kiln.example.net/api", false, ""},
	// Round 9: "## Heading" lines an HTML block swallowed ("<br>" then "## Register").
	{"heading9-html-swallowed.md", "Loom Exchange", "Register|Listings", "https://loom.example.com/api/v1", false, skillsmd.WarnBaseInferred},
	// Round 9 (held-out batch): a base URL on a host that is a placeholder
	// ("your-tidefeed-domain", no dot), in a label and in the endpoints.
	{"base9-placeholder-host.md", "Tide Feed", "Readings", "", false, skillsmd.WarnBasePlaceholder},
	// Round 9 (held-out batch): one endpoint after a method; its folder is its resource.
	{"base9-single-endpoint.md", "Flurry Desk Agent Skill", "Endpoints|Register Agent", "https://api.desk.example.io", false, skillsmd.WarnBaseInferred},
	// Round 9 (held-out batch): a base heading whose sentence names the base path.
	{"base9-heading-sentence.md", "Gull Post", "Base URL|Posting", "/api/v1", false, ""},
	// Round 9 (held-out batch): a Chinese label with "(Base URL)" and a full-width colon.
	{"base9-cjk-label.md", "邮局 — AI Agent 操作指南", "第一步：登录", "https://mail.example.net", false, ""},
	// Round 9 (held-out batch): a header introduced by a sentence, shown in the next block.
	{"auth9-header-lead-in.md", "Kettle Posts", "Publish|Read", "https://kettle.example.com/api", true, ""},
	// Round 9 (held-out batch): an MCP server named by its path in a sentence.
	{"base9-mcp-path.md", "Loom Board for Agents", "What this is|Files|Settings", "", false, skillsmd.WarnNoAPI},
	// Round 10 (held-out batch): table rows naming a service's APIs ("| Live API | URL |").
	{"base10-api-rows.md", "Acme Pot", "Quick Reference|Play", "https://pot.example.com/api/pot", false, ""},
	// Round 10 (held-out batch): a base label on each of three services' sections.
	{"base10-ambiguous.md", "Acme Platform", "Social|Prices|Launches", "", false, skillsmd.WarnBaseAmbiguous},
	// Round 10 (held-out batch): a variable described as the API base, its value an example.
	{"base10-example-label.md", "Acme Pools", "Configuration|Jobs", "https://api.pools.example.com", false, ""},
	// Round 10 (held-out batch): the MCP path beside a URL of another scheme.
	{"base10-mcp-path-scheme.md", "Acme Diary", "Log a meal", "", false, skillsmd.WarnNoAPI},
	// Issue 21: the base stated per environment, the production one taken: a bold
	// "Production URL:" label, table rows (Local, Staging, Production), bold bullets
	// (Testnet, Mainnet); and a "Base URL:" item whose nested item holds the value.
	{"base21-production-url.md", "Tide Almanac", "Getting started", "https://api.almanac.example.org/v2", false, ""},
	{"base21-env-rows.md", "Kite Registry", "Environments|Register", "https://kites.example.com/api", false, ""},
	{"base21-env-bullets.md", "Shell Bank", "Networks|Transfer", "https://shells.example.io/api", false, ""},
	{"base21-nested-base-item.md", "Lantern Index", "Setup|Search", "https://lanterns.example.net/api/v1", false, ""},
	// Issue 21: the guide's prose says the API is the origin's "/api"; the localhost URL
	// an install script assigns to the variable its examples use does not outrank it.
	{"base21-install-localhost.md", "Quill Notes", "Install the helper|Notes", "/api", false, ""},
	// Issue 21: auth shown only in a request example ("curl -H 'Authorization: Bearer
	// …'") is stated; in a nested "Auth mode:" item too; a page's UI text is not.
	{"auth21-curl-bearer.md", "Kettle Orders", "Orders", "https://kettle.example.com/api", true, skillsmd.WarnBaseInferred},
	{"auth21-nested-mode.md", "Pier Slots", "Configuration|Book", "https://piers.example.net/api", true, ""},
	{"auth21-ui-example.md", "Board Game Night", "Plan|Example page", "https://games.example.com/api", false, ""},
	// Issue 21: request-signing headers named in prose state auth, though no key is named.
	{"auth21-signing-headers.md", "Relay Vault", "Requests", "https://vault.example.org/api", true, ""},
	// Round 11: a label with a qualifier in brackets ("API (Worker):"); an
	// environment-variable table whose description cell names the server ("Server URL")
	// with its default, and the API key's row, which states auth when nothing else
	// does; a frontmatter "site_root" the guide's paths hang from.
	{"base-label-qualifier.md", "Kiln Scores", "Scores", "https://kiln-worker.example.net", true, ""},
	{"base-env-table-server.md", "Drawer", "Setup|Environment variables|Errors", "https://api.drawer.example.org", true, ""},
	{"base-frontmatter-site-root.md", "Reading guide", "1. Check freshness|2. Read a harbor", "https://tides.example.org", false, ""},
	// Round 11: a sentence outside any auth section names the credential the API takes
	// with what to do with it ("authenticates with a bearer token", "需要 apiKey"); it
	// states auth when nothing else does. Tokens that are assets ("token swaps") are not
	// credentials.
	{"auth-credential-sentence.md", "Tide Signals", "Reading|Constraints", "https://signals.example.org/api", true, ""},
	{"auth-credential-sentence-cjk.md", "潮汐数据 API", "规则|接口", "https://tides.example.cn/api", true, ""},
	{"auth-credential-token-words.md", "Swap Desk", "Swaps", "https://swaps.example.org/api", false, ""},
	// The sign-in flow that gives the credential ("open it in their browser to complete
	// authentication") states auth as well.
	{"auth-login-flow.md", "Loom CLI Skill", "Setup|Commands", "https://api.loom-cli.example.org", true, ""},
}

// TestBaseShapes checks every shape fixture and computes the figures measured on
// unseen documents for issue 11 (title, H2 headings, API base), which must be 100%
// over our own fixtures.
func TestBaseShapes(t *testing.T) {
	t.Parallel()
	var titles, h2s, bases int
	for _, tc := range baseShapes {
		d := parse(t, tc.file)
		var h2 []string
		for _, s := range d.Sections {
			if s.Level == 2 {
				h2 = append(h2, s.Heading)
			}
		}
		if d.Title == tc.title {
			titles++
		} else {
			t.Errorf("%s: Title = %q, want %q", tc.file, d.Title, tc.title)
		}
		if strings.Join(h2, "|") == tc.h2 {
			h2s++
		} else {
			t.Errorf("%s: H2 = %q, want %q", tc.file, strings.Join(h2, "|"), tc.h2)
		}
		if d.BaseURL == tc.base {
			bases++
		} else {
			t.Errorf("%s: BaseURL = %q, want %q", tc.file, d.BaseURL, tc.base)
		}
		if (len(d.Auth) > 0) != tc.auth {
			t.Errorf("%s: Auth = %q, want stated: %v", tc.file, d.Auth, tc.auth)
		}
		if tc.base == "" {
			if !strings.Contains(codes(d), tc.warning) || tc.warning == "" {
				t.Errorf("%s: no base and no warning saying why: %q", tc.file, codes(d))
			}
			for _, w := range d.Warnings {
				if strings.Contains(w.Message, "BASE_URL") {
					t.Errorf("%s: warning quotes the document: %v", tc.file, w)
				}
			}
		}
	}
	n := len(baseShapes)
	t.Logf("shape fixtures: title %d/%d, H2 %d/%d, API base %d/%d", titles, n, h2s, n, bases, n)
}

// TestBaseNotFromCode checks that labels inside code blocks and prose that merely
// mentions an API are not read as the API base.
func TestBaseNotFromCode(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		"# T\n\n## Setup\n\n```bash\nBASE_URL=https://example.com/api\n```\n",
		"# T\n\nThe API docs: https://example.com/docs explain more.\n",
		"# T\n\n- The database: postgres://db.example.com\n",
		"# T\n\n- GET /api/v1/items: list the items.\n",
		// One curl command, not after a method: too little to infer a base from.
		"# T\n\n```\ncurl https://api.example.com/repos/o/r/releases/latest\n```\n",
		// Endpoints split evenly between two hosts.
		"# T\n\n- GET https://a.example.com/api/x\n- GET https://b.example.com/api/y\n",
		// URLs that are not after a method nor in a curl command.
		"# T\n\nSee https://example.com/api/a and https://example.com/api/b.\n",
		// Placeholder hosts.
		"# T\n\n- POST https://YOUR_DOMAIN/api/a\n- POST https://YOUR_DOMAIN/api/b\n",
		// A developer's local server in the examples is not the API.
		"# T\n\n```\ncurl http://localhost:3000/api/a\ncurl -X POST http://localhost:3000/api/b\n```\n",
		"# T\n\n- GET http://127.0.0.1:8080/v1/a\n- GET http://10.0.0.5/v1/b\n",
		// A template variable that starts endpoints but is never assigned a URL, or is
		// assigned two public ones, or an assignment no endpoint uses.
		"# T\n\n```\nPOST {{API}}/v1/a\nGET {{API}}/v1/b\n```\n",
		"# T\n\n```\nAPI=https://a.example.com\nAPI=https://b.example.com\ncurl -X POST $API/v1/a\n```\n",
		"# T\n\n```\nAPI=https://a.example.com\ncurl -X POST $OTHER/v1/a\n```\n",
		// A long sentence ending in a colon is not a lead-in.
		"# T\n\nBefore you read the API base section below, remember that every call costs one credit:\n\n```\nhttps://example.com/api\n```\n",
	} {
		d, err := skillsmd.Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if d.BaseURL != "" {
			t.Errorf("BaseURL = %q from %q", d.BaseURL, doc)
		}
	}
}

// TestMCPLabelsAndCodeAuth checks what the shape table does not for the fixtures of
// MCP labels and auth in code (base6-*, auth6-*): the MCP endpoints listed, the auth
// rules read from code, and a lead-in whose value is on the next line of the same
// paragraph.
func TestMCPLabelsAndCodeAuth(t *testing.T) {
	t.Parallel()
	d := parse(t, "base6-mcp-label.md")
	// The label and the frontmatter key name one URL; the client configuration adds the
	// SSE one; the docs page about MCP and the local test server are not endpoints.
	check(t, "MCP", strings.Join(d.MCP, "|"), "https://desk.example.org/mcp|https://desk.example.org/mcp/sse")
	if fm := d.ForModel("https://desk.example.org"); !strings.Contains(fm, "- https://desk.example.org/mcp\n") {
		t.Errorf("ForModel does not list the MCP endpoint:\n%s", fm)
	}
	check(t, "MCP single", strings.Join(parse(t, "base4-single-mcp.md").MCP, "|"), "https://api.lampshop.example.org/mcp")
	check(t, "MCP config", strings.Join(parse(t, "base6-mcp-config.md").MCP, "|"), "https://mcp.ledger.example.net")
	check(t, "Auth column", strings.Join(parse(t, "auth6-table-column.md").Auth, "|"), "Auth (per endpoint): None, Optional, API Key")

	d = parse(t, "auth6-code-header.md")
	check(t, "Auth", strings.Join(d.Auth, "|"), "Register to get a token. Save it: it cannot be recovered.|"+
		"Include your token in all subsequent calls:|X-Pick-Token header|Or, from Python:|Authorization: Bearer")

	checkDocs(t, []docCase{
		// The value on the next line of the label's paragraph.
		{"# T\n\n**Base URL:**\n`https://x.example.com/v2`\n", "https://x.example.com/v2", "", ""},
		{"# T\n\nThe base URL is:\nhttps://x.example.com/v3\n\n- Docs: https://docs.example.com\n", "https://x.example.com/v3", "", ""},
		// Header values never become auth rules, and only auth sections' code is read.
		{"# T\n\n## Auth\n\n```\ncurl -H \"X-Api-Key: sk_live_abc\" https://x.example.com\n```\n", "", "X-Api-Key header", ""},
		{"# T\n\n## Voice\n\n```js\nfetch(u, {headers: {'xi-api-key': k}})\n```\n", "", "", ""},
		// "MCP:" labels in a list and a table; a path is kept as written. The one MCP
		// endpoint of a document that writes no other is also its base
		// (base8-mcp-only.md); a path says no more than the origin, so it is not.
		{"# T\n\n- MCP: `/mcp` (Streamable HTTP)\n", "", "", "/mcp"},
		{"# T\n\n| Name | Value |\n|---|---|\n| Remote MCP | `https://m.example.com/mcp` |\n", "https://m.example.com/mcp", "", "https://m.example.com/mcp"},
		// A local MCP package is not an endpoint.
		{"# T\n\n- MCP server: `npx -y @acme/mcp`\n", "", "", ""},
	})
}

// TestMCPProseAndAuthProse checks what the shape table does not for the fixtures of
// MCP endpoints and auth rules in prose (base8-*, auth8-*, heading8-*): the MCP
// endpoints listed, the auth rules read from prose, the sections a heading without
// its space opens, and the shapes that must stay unread.
func TestMCPProseAndAuthProse(t *testing.T) {
	t.Parallel()
	check(t, "MCP only", strings.Join(parse(t, "base8-mcp-only.md").MCP, "|"), "https://mcp.reef.example.org/codex/mcp")
	check(t, "MCP prose", strings.Join(parse(t, "base8-mcp-prose.md").MCP, "|"), "https://relay.example.net/mcp")
	check(t, "No auth", strings.Join(parse(t, "auth8-no-auth.md").Auth, "|"), "No auth required.|Read without auth or keys.")
	// The verb "Authenticate" as an auth heading (a CLI login flow; no API, so the
	// fixture is not in baseShapes).
	check(t, "Verb heading", strings.Join(parse(t, "auth8-verb-heading.md").Auth, "|"),
		"Run harbor login; it prints a code the user approves in a browser.")
	check(t, "Header word", strings.Join(parse(t, "auth8-header-word.md").Auth, "|"),
		"Auth via x-seed-key header.|GET /agents/me with header x-seed-key: <your_key>.")
	d := parse(t, "heading8-unspaced.md")
	var hs []string
	for _, s := range d.Sections {
		hs = append(hs, s.Heading)
	}
	check(t, "Unspaced headings", strings.Join(hs, "|"), "致每一位会员|Booking|Cancellation")

	checkDocs(t, []docCase{
		// A page about MCP, in prose or under an MCP label, is not an endpoint.
		{"# T\n\nRead the MCP guide at https://x.example.com/docs/mcp first.\n", "", "", ""},
		{"# T\n\n- MCP server: https://x.example.com/guides/mcp\n", "", "", ""},
		{"# T\n\nThe MCP source is at https://github.com/acme/tools/tree/main/mcp.\n", "", "", ""},
		// An MCP endpoint beside REST paths is not the base: the paths are the API.
		{"# T\n\n- MCP: https://x.example.com/mcp\n- GET /api/items\n", "", "", "https://x.example.com/mcp"},
		// A URL in prose that does not name MCP is not an MCP endpoint.
		{"# T\n\nOur server `https://x.example.com/mcp` is new.\n", "", "", ""},
		// Error descriptions and commands are not auth rules.
		{"# T\n\n- `401`: no API key sent.\n", "", "", ""},
		{"# T\n\nRun `curl -H \"x-api-key: k\" https://x.example.com` with header x-api-key.\n", "", "", ""},
		{"# T\n\nThere is no rate limit for API keys on the free plan.\n", "", "", ""},
		// "URL:" outside an endpoint section, and a shell default that is not a URL.
		{"# T\n\n## Links\n\n- URL: https://x.example.com/v1/chat\n", "", "", ""},
		{"# T\n\n```\ncurl \"${HOST:-localhost}/v1/a\"\ncurl \"${HOST:-localhost}/v1/b\"\n```\n", "", "", ""},
		// One "#" is never a heading: "#hashtag" lines stay paragraphs.
		{"# T\n\n#launch\n", "", "", ""},
	})
	if d := parse(t, "heading8-unspaced.md"); len(d.Sections) != 3 {
		t.Errorf("#kites stayed a paragraph? sections %d", len(d.Sections))
	}
}

// TestHeadingsAndTOMLFrontmatter checks what the shape table does not for the
// fixtures of headings as readers see them and TOML frontmatter (the *9-* fixtures):
// the heading levels and text a reader sees (HTML elements, quotes, list items,
// escapes), the TOML frontmatter, the MCP endpoints listed, the auth rules read, and
// the shapes that must stay unread.
func TestHeadingsAndTOMLFrontmatter(t *testing.T) {
	t.Parallel()
	headings := func(d *skillsmd.Document) string {
		var hs []string
		for _, s := range d.Sections {
			hs = append(hs, fmt.Sprintf("%d %s", s.Level, s.Heading))
		}
		return strings.Join(hs, "|")
	}
	d := parse(t, "heading9-escapes.md")
	check(t, "Escaped title", d.Title, "Lantern Q&A - Agent Guide")
	check(t, "Escaped headings", headings(d), "2 1. Install|2 Rate_limits & quotas|2 What's new")
	check(t, "Code keeps its backslash", strings.Join(d.Sections[1].Items, "|"), "30 calls a minute; \\_ in code stays as written.")
	check(t, "HTML headings", headings(parse(t, "heading9-html-tags.md")), "2 Connect|2 Slots & Fees|2 Rules")
	check(t, "Nested headings", headings(parse(t, "heading9-nested.md")), "2 Note|2 Step one|2 Step two|2 Limits")
	check(t, "Nested text", parse(t, "heading9-nested.md").Sections[0].Text, "The orchard closes at noon.")
	d = parse(t, "heading9-toml-frontmatter.md")
	if d.Frontmatter["title"] != "Agents" || fmt.Sprint(d.Frontmatter["links"]) != "[map[name:Docs url:https://quay.example.org/docs]]" {
		t.Errorf("TOML frontmatter = %v", d.Frontmatter)
	}
	check(t, "MCP path", strings.Join(parse(t, "base9-mcp-path.md").MCP, "|"), "/api/mcp")
	check(t, "Header lead-in", strings.Join(parse(t, "auth9-header-lead-in.md").Auth, "|"), "X-Kettle-Key header")
	d = parse(t, "base9-docs-label.md")
	if d.BaseURL != "" || len(d.Warnings) != 0 {
		t.Errorf("a docs page labelled API: BaseURL %q, warnings %q", d.BaseURL, codes(d))
	}

	for _, tc := range []struct{ doc, headings, base, auth, mcp string }{
		// Headings a reader does not see: in <pre>, in a comment, one "#" in a block.
		{"# T\n\n<pre>\n<h2>x</h2>\n## y\n</pre>\n", "", "", "", ""},
		{"# T\n\n<div>\n<!-- <h2>x</h2>\n## y -->\n</div>\n", "", "", "", ""},
		{"# T\n\n<div>\n# hashtag\n</div>\n", "", "", "", ""},
		// A TOML block without its closing line is not a frontmatter.
		{"+++\ntitle = 1\n\n## Open\n", "2 Open", "", "", ""},
		// Placeholder hosts, in a label and in endpoints.
		{"# T\n\n- Base URL: https://yourdomain.com/api\n", "", "", "", ""},
		{"# T\n\n- POST https://your-app.example.net/v1/a\n- GET https://your-app.example.net/v1/b\n", "", "", "", ""},
		// One endpoint: an "api" folder is kept, a resource folder is not.
		{"# T\n\n- POST https://x.example.com/api/agents/register\n", "", "https://x.example.com/api", "", ""},
		{"# T\n\n- POST https://x.example.com/agents/register\n", "", "https://x.example.com", "", ""},
		// A full-width colon after a base label.
		{"# T\n\nBase URL：https://x.example.com/v2\n", "", "https://x.example.com/v2", "", ""},
		// A base heading's sentence naming only a document is not a base.
		{"# T\n\n## Base URL\n\nSee /skill.md for the base.\n", "2 Base URL", "", "", ""},
		// A sentence leaving auth open is no rule; a header lead-in without a header.
		{"# T\n\nWhether you need an API key or no auth depends on your plan.\n", "", "", "", ""},
		{"# T\n\nThe response has this header:\n\n```\nContent-Type: application/json\n```\n", "", "", "", ""},
		// MCP: a page, a document and a credential are not endpoints.
		{"# T\n\nThe MCP guide is at `/docs/mcp`.\n", "", "", "", ""},
		{"# T\n\n| Key | Use |\n|---|---|\n| ACME_MCP_TOKEN | POST /mcp/tools/call |\n", "", "", "", ""},
	} {
		d, err := skillsmd.Parse([]byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		if h := headings(d); h != tc.headings && !(tc.headings == "" && strings.HasPrefix(h, "0 ") && !strings.Contains(h, "|")) {
			t.Errorf("%q: headings %q, want %q", tc.doc, h, tc.headings)
		}
		checkDoc(t, d, docCase{tc.doc, tc.base, tc.auth, tc.mcp})
	}
}

// TestRiskyHeadings: the ways guides title what needs the user first ("Never do this",
// "Requires confirmation", "Caution"...) file their items as risky actions (a new
// user's finding: they stayed generic sections, the first cut under a tight budget).
func TestRiskyHeadings(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"Never do this", "Never", "Requires confirmation", "Actions that need approval",
		"Caution", "Danger zone", "Destructive operations", "Needs approval"} {
		d, err := skillsmd.Parse([]byte("# T\n\n## " + h + "\n\n- DELETE /api/v2/account closes the account\n"))
		if err != nil {
			t.Fatal(err)
		}
		if len(d.RiskyActions) != 1 || d.RiskyActions[0] != "DELETE /api/v2/account closes the account" {
			t.Errorf("%q: RiskyActions %q", h, d.RiskyActions)
		}
	}
}

// TestUnspacedTitle: "#Acme Shop" opening a document with no title is its title, with
// a warning; one "#" anywhere else, or before a single word, stays text.
func TestUnspacedTitle(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ doc, title string }{
		{"#Acme Shop\n\nSells widgets.\n\n## API\n\n- GET /widgets\n", "Acme Shop"},
		{"---\nname: acme\n---\n#Acme Shop\n\nSells widgets.\n", "Acme Shop"},
		{"# Real Title\n\n#launch day is today\n", "Real Title"},
		{"Intro text.\n\n#Acme Shop\n", ""},
		{"#hashtag\n\nText.\n", ""},
	} {
		d, err := skillsmd.Parse([]byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		warned := slices.ContainsFunc(d.Warnings, func(w skillsmd.Warning) bool { return w.Code == skillsmd.WarnHeadingSpace })
		if d.Title != tc.title || warned != (tc.title == "Acme Shop") {
			t.Errorf("%q: Title %q, warned %v", tc.doc, d.Title, warned)
		}
	}
}

// TestRiskyActionsWhereverStated checks the risky-action fixtures risky10-*: a
// prohibition or an approval wherever a guide states it, the items a lead-in
// introduces, prohibition headings, and general rules that are no risky actions.
func TestRiskyActionsWhereverStated(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, risky string }{
		{"risky10-prose.md", "NEVER send your API key to any domain other than ledger.example.com.|" +
			"Keep the key in a secret manager; never commit or echo it.|" +
			"🔒 Security: Only send your key to https://ledger.example.com — never anywhere else!|" +
			"If the receipt is unreadable, do not guess the amount.|Confirm with the user before expenses over $500.|" +
			"Don't post into a closed period.|Before you start approving reports autonomously, get permission from your human!|" +
			"Ask before an unrequested deletion.|A result from preview means the inputs are usable, not that the user asked " +
			"for it: a human must approve every refund before it is sent.|Use --confirm to post a batch; the typed confirmation is required."},
		{"risky10-rules.md", "Never book more than two rooms at once.|Do not share another member's calendar.|No spam.|" +
			"Cancel another member's booking|Change a room's capacity"},
		{"risky10-leadin.md", "Launching a new token|Buying tokens with the user's balance|sharing a wallet address|" +
			"moving funds to a main network"},
		{"risky10-cjk.md", "不支持技能目录的宿主可以显式读取本文件，但不得宣称已自动安装。|未授权时，把端口和影响给用户确认后再执行。|不要借机改熔丝或批量擦除。"},
	} {
		d := parse(t, tc.file)
		if got := strings.Join(d.RiskyActions, "|"); got != tc.risky {
			t.Errorf("%s: RiskyActions\n got %q\nwant %q", tc.file, got, tc.risky)
		}
	}
	// What reads as no risky action: a description, a question, advice to remember,
	// a login step, a state in a list of outcomes, a header name, a signature, a rule
	// of a "Rules" list, a status heading.
	for _, doc := range []string{
		"# T\n\nThe relay never parses what it carries and never learns a room secret.\n",
		"# T\n\nDon't have an account yet? Register first.\n",
		"# T\n\nDon't forget to save your key. Never worry about rate limits.\n",
		"# T\n\n## Login\n\nRun acme login; it prints a code the user approves in a browser.\n",
		"# T\n\n## Outcomes\n\n- Approval required — go to step 5.\n- No approval needed for reads.\n",
		"# T\n\nClients can use Authorization: Bearer <token>. If you can't sign EIP-3009 authorizations, ask your human to post.\n",
		"# T\n\n## Rules\n\n- Respect rate limits.\n- Call status at the start to confirm the index is fresh.\n- No auth needed for reads.\n",
		"# T\n\n## Troubleshooting\n\n### 403 Forbidden\n\nYou are not a member.\n",
		"# T\n\n## What this tool does not do\n\n- it does not post for you\n",
		"# T\n\n| Path | Note |\n|---|---|\n| USB | Do not flash it |\n\n```\n# never run this twice\n```\n",
	} {
		d, err := skillsmd.Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if len(d.RiskyActions) != 0 {
			t.Errorf("%q: RiskyActions %q", doc, d.RiskyActions)
		}
	}
}

// docCase is a document and what Parse must read from it: the base, the auth rules and
// the MCP endpoints, each list joined with "|".
type docCase struct{ doc, base, auth, mcp string }

// checkDocs parses each case's document and checks it (checkDoc).
func checkDocs(t *testing.T, cases []docCase) {
	t.Helper()
	for _, tc := range cases {
		d, err := skillsmd.Parse([]byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		checkDoc(t, d, tc)
	}
}

// checkDoc checks what d read against tc.
func checkDoc(t *testing.T, d *skillsmd.Document, tc docCase) {
	t.Helper()
	if d.BaseURL != tc.base || strings.Join(d.Auth, "|") != tc.auth || strings.Join(d.MCP, "|") != tc.mcp {
		t.Errorf("%q: BaseURL %q, Auth %q, MCP %q; want %q, %q, %q", tc.doc, d.BaseURL, d.Auth, d.MCP, tc.base, tc.auth, tc.mcp)
	}
}

// TestNotesToTheAuthorAreNoRules: "Do not put secrets in this file." is addressed to
// whoever edits the guide; a model shown it first among the risky actions learns
// nothing. A rule with other objects stays a rule.
func TestNotesToTheAuthorAreNoRules(t *testing.T) {
	t.Parallel()
	d, err := skillsmd.Parse([]byte("# T\n\n## Auth\n\n- Send a bearer token.\n- Do not put secrets, tokens or passwords in this file.\n" +
		"- Do not put tokens in prompts, logs, or this file.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(d.RiskyActions, "|"); got != "Do not put tokens in prompts, logs, or this file." {
		t.Errorf("RiskyActions %q", got)
	}
}
