package mcpjson_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/mcpjson"
)

// spellingCase is one way sites write an endpoint, a local server or a tool list,
// with what a careful reader takes from it. The documents are our own, each reduced
// to the one spelling (round 6 of the survey: testdata/survey/notes.md).
type spellingCase struct {
	doc       string
	endpoints []string // URLs of the remote servers
	local     []string // command lines of the local servers
	tools     []string
}

// spellingCases seed FuzzParse too (see seeds).
var spellingCases = []spellingCase{
	// Local servers: a package, an install or run line, a client-config snippet, a
	// deployment's start command...
	{doc: `{"name":"x","package":{"registry":"npm","name":"@a/x-mcp"}}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","package":{"registryType":"pypi","identifier":"x-mcp"}}`, local: []string{"uvx x-mcp"}},
	{doc: `{"name":"x","npm":"@a/x-mcp"}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","npm_package":"@a/x-mcp","transport":"stdio"}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","pypi":"x-mcp"}`, local: []string{"uvx x-mcp"}},
	{doc: `{"name":"x","setup":{"claude_desktop":{"mcpServers":{"x":{"command":"npx","args":["-y","@a/x-mcp"]}}}}}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","client_config":{"mcpServers":{"x":{"command":"uvx","args":["x-mcp"]}}}}`, local: []string{"uvx x-mcp"}},
	{doc: `{"name":"x","local":{"command":"npx","args":["-y","@a/x-mcp"]}}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","docker":{"image":"ghcr.io/a/x-mcp"}}`, local: []string{"docker run -i --rm ghcr.io/a/x-mcp"}},
	{doc: `{"name":"x","connection":{"type":"stdio","command":"npx","args":["-y","@a/x-mcp"]}}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","installation":{"npx":"npx -y @a/x-mcp"}}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","installation":[{"type":"npm","command":"npx -y @a/x-mcp"}]}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","install":[{"client":"claude","command":"claude mcp add x -- npx -y @a/x-mcp"}]}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","quickstart":"npx -y @a/x-mcp"}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","runtime":{"command":"node","args":["dist/index.js"]}}`, local: []string{"node dist/index.js"}},
	{doc: `{"name":"x","distribution":{"npm":"@a/x-mcp"}}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","packages":{"npm":"@a/x-mcp"}}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","install":{"claude_code":"claude mcp add x -- npx -y @a/x-mcp"}}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","install_command":"npx -y @a/x-mcp"}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","transports":{"stdio":"npx -y @a/x-mcp"}}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","mcp":{"command":"npx","args":["-y","@a/x-mcp"]}}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","configuration":{"mcpServers":{"x":{"command":"npx","args":["-y","@a/x-mcp"]}}}}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","deployment":{"start":"node server.mjs"}}`, local: []string{"node server.mjs"}},
	{doc: `{"name":"x","self_hosted":{"command":"docker run -p 8080:8080 a/x"}}`, local: []string{"docker run -p 8080:8080 a/x"}},
	{doc: `{"name":"x","entrypoint":"python -m x_mcp"}`, local: []string{"python -m x_mcp"}},
	{doc: `{"name":"x","installation":{"uvx":"x-mcp"}}`, local: []string{"uvx x-mcp"}},
	{doc: `{"name":"x","clients":{"claude_desktop":{"command":"npx","args":["-y","@a/x-mcp"]}}}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","transport":"stdio","bin":"x-mcp"}`, local: []string{"x-mcp"}},
	{doc: `{"name":"x","install":{"npx":"@a/x-mcp"}}`, local: []string{"npx -y @a/x-mcp"}},
	// ...and what is not one: a build step, a library, a bridge to a listed endpoint, a
	// "docker run" deployment of a server whose stdio command is given.
	{doc: `{"name":"x","deployment":{"command":"vercel deploy --prod"}}`},
	{doc: `{"name":"x","server":{"package":"Acme.Mcp","language":"C#"}}`},
	{doc: `{"name":"x","url":"https://x.dev/mcp","install":{"mcpServers":{"x":{"command":"npx","args":["mcp-remote","https://x.dev/mcp"]}}}}`,
		endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"name":"x","transports":{"stdio":{"command":"npx","args":["-y","x-mcp"]}},"deploy":{"docker":{"run":"docker run -p 3000:3000 x-mcp"}}}`,
		local: []string{"npx -y x-mcp"}},

	// Endpoints: keys spelled with other case or separators, a generic home "url"
	// beside a more specific key, endpoint maps keyed by deployment...
	{doc: `{"server":{"url":"https://x.dev","endpoint":"https://x.dev/mcp"}}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"endpoints":{"primary":"https://x.dev/mcp","health":"https://x.dev/health"}}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"transport":{"type":"streamable-http","uri":"https://x.dev/mcp"}}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"MCP_URL":"https://x.dev/mcp"}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"mcpServerURL":"https://x.dev/mcp"}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"endpoint_url":"https://x.dev/mcp","transport":"http"}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"mcp-endpoint":"https://x.dev/mcp"}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"servers":[{"name":"a","url":"https://x.dev","mcp_url":"https://x.dev/mcp"}]}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"mcpServers":{"a":{"httpUrl":"https://x.dev/mcp"}}}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"mcp_endpoints":{"http":"https://x.dev/mcp"}}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"endpoints":{"mcp":{"streamable_http":"https://x.dev/mcp","sse":"https://x.dev/sse"}}}`,
		endpoints: []string{"https://x.dev/mcp", "https://x.dev/sse"}},
	{doc: `{"hosted":{"url":"https://x.dev/mcp"}}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"remotes":{"streamable-http":"https://x.dev/mcp"}}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"server":{"transport":{"type":"http","url":"https://x.dev/mcp"}}}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"protocol":{"transport":"Streamable HTTP","endpoint":"https://x.dev/mcp"}}`, endpoints: []string{"https://x.dev/mcp"}},
	// ...and what is not one: words and sentences under URL keys, placeholders, a
	// relative path on a server the reader must host, a link list.
	{doc: `{"name":"x","mcp":"supported"}`},
	{doc: `{"name":"x","endpoint":"coming soon"}`},
	{doc: `{"name":"x","serverUrl":"TBD"}`},
	{doc: `{"name":"x","mcp_server":"@acme/x-mcp"}`},
	{doc: `{"name":"x","endpoint":"api.x.dev/mcp"}`},
	{doc: `{"name":"x","servers":[{"name":"a","url":"<DEPLOYMENT_URL>/api/mcp"}]}`},
	{doc: `{"name":"x","transport":{"endpoint":"/mcp"},"hosting":{"hosted":false}}`},
	{doc: `{"name":"x","links":{"mcp":"https://x.dev/mcp","docs":"https://x.dev/docs"}}`},
	{doc: `{"openapi":"3.0.3","info":{"title":"x"},"servers":[{"url":"https://api.x.dev/mcp"}],"paths":{}}`},
	{doc: `{"swagger":"2.0","info":{"title":"x"},"paths":{},"url":"https://mcp.x.dev"}`},
	{doc: `{"name":"x","openapi":"https://x.dev/openapi.json","endpoint":"https://x.dev/mcp"}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"name":"x","url":"https://x-mcp.fly.dev"}`, endpoints: []string{"https://x-mcp.fly.dev"}},
	{doc: `{"name":"x","url":"https://mcp.x.dev","remotes":[{"url":"https://api.x.dev/v1/mcp"}]}`, endpoints: []string{"https://api.x.dev/v1/mcp"}},
	{doc: `{"name":"x","url":"https://x.dev"}`},

	// Round 7: an endpoint key naming a transport beside the one endpoint (one server,
	// two transports); an ai-plugin "api" object whose URL or type names MCP...
	{doc: `{"name":"x","mcpEndpoint":"https://x.dev/api/mcp","sseEndpoint":"https://x.dev/sse"}`,
		endpoints: []string{"https://x.dev/api/mcp", "https://x.dev/sse"}},
	{doc: `{"name":"x","endpoint":"https://x.dev/mcp","SSE_URL":"https://x.dev/sse","transport":"http"}`,
		endpoints: []string{"https://x.dev/mcp", "https://x.dev/sse"}},
	{doc: `{"name":"x","httpEndpoint":"https://x.dev/mcp","mcpSseEndpoint":"https://x.dev/sse"}`,
		endpoints: []string{"https://x.dev/mcp", "https://x.dev/sse"}},
	{doc: `{"name":"x","server":{"url":"https://x.dev/mcp","sse_url":"https://x.dev/sse"}}`,
		endpoints: []string{"https://x.dev/mcp", "https://x.dev/sse"}},
	{doc: `{"servers":[{"name":"a","url":"https://x.dev/mcp","sseUrl":"https://x.dev/sse"}]}`,
		endpoints: []string{"https://x.dev/mcp", "https://x.dev/sse"}},
	{doc: `{"name":"x","endpoint":"https://x.dev/mcp/","endpoint_events":"https://x.dev/mcp/events/"}`, endpoints: []string{"https://x.dev/mcp/"}},
	{doc: `{"name":"x","api":{"type":"http","url":"https://x.dev/api/mcp/server"}}`, endpoints: []string{"https://x.dev/api/mcp/server"}},
	{doc: `{"name":"x","service":{"transport":"sse","url":"https://x.dev/events/sse"}}`, endpoints: []string{"https://x.dev/events/sse"}},
	{doc: `{"name":"x","api":{"type":"openapi","url":"https://x.dev/api/mcp/openapi.yaml"}}`},
	{doc: `{"name":"x","api":{"type":"rest","url":"https://x.dev/api/mcp"}}`},
	{doc: `{"name":"x","api":{"baseUrl":"https://api.x.dev"}}`},
	// ...and what is none: a WebMCP transport (its URL is the page the tools run in), a
	// server the document says is not live yet, the base of an HTTP API...
	{doc: `{"name":"x","transport":"webmcp","url":"https://mcp.x.dev"}`},
	{doc: `{"name":"x","server":{"transport":"browser","url":"https://x.dev/app"}}`},
	{doc: `{"name":"x","transport":{"type":"navigator.modelContext","url":"https://x.dev/"},"tools":["a"]}`, tools: []string{"a"}},
	{doc: `{"name":"x","transports":[{"type":"webmcp","script":"/webmcp.js"},{"type":"streamable-http","url":"https://x.dev/mcp"}]}`,
		endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"name":"x","transports":{"webMCP":{"url":"https://x.dev/"},"sse":{"url":"https://x.dev/sse"}}}`, endpoints: []string{"https://x.dev/sse"}},
	{doc: `{"mcpServers":{"a":{"type":"WebMCP","url":"https://x.dev/"}}}`},
	{doc: `{"remotes":[{"type":"web-mcp","url":"https://x.dev/"}]}`},
	{doc: `{"name":"x","description":"The MCP endpoint is not yet deployed.","endpoint":"https://x.dev/mcp","tools":["a"]}`, tools: []string{"a"}},
	{doc: `{"name":"x","status":"coming soon","endpoint":"https://x.dev/mcp"}`},
	{doc: `{"name":"x","live":false,"endpoint":"https://x.dev/mcp"}`},
	{doc: `{"name":"x","note":"Server coming soon; until then use the REST API.","url":"https://x.dev/mcp","transport":"http"}`},
	{doc: `{"name":"x","description":"The MCP server is planned.","command":"npx","args":["-y","x-mcp"],"endpoint":"https://x.dev/mcp"}`,
		local: []string{"npx -y x-mcp"}},
	{doc: `{"name":"x","description":"MCP server. Alerts are coming soon.","endpoint":"https://x.dev/mcp"}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"name":"x","description":"Hosted MCP server; a local package will be available soon.","endpoint":"https://x.dev/mcp"}`,
		endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"name":"x","url":"https://api.x.dev/api/v2","transport":"http"}`},
	{doc: `{"name":"x","endpoint":"https://x.dev/graphql"}`},
	{doc: `{"name":"x","servers":[{"url":"https://x.dev/api/v1","transport":"http"}]}`},
	{doc: `{"name":"x","mcp_url":"https://x.dev/v1"}`, endpoints: []string{"https://x.dev/v1"}},
	{doc: `{"name":"x","url":"https://mcp.x.dev/v1","transport":"http"}`, endpoints: []string{"https://mcp.x.dev/v1"}},
	{doc: `{"remotes":[{"type":"streamable-http","url":"https://x.dev/v1"}]}`, endpoints: []string{"https://x.dev/v1"}},
	{doc: `{"mcpServers":{"a":{"url":"https://x.dev/api"}}}`, endpoints: []string{"https://x.dev/api"}},
	{doc: `{"name":"x","url":"https://x.dev/api","transport":"sse"}`, endpoints: []string{"https://x.dev/api"}},
	// ...and an install line for a package already listed: the same server, once.
	{doc: `{"name":"x","packages":[{"registryType":"pypi","identifier":"x-mcp"}],"install":{"pip":"pip install x-mcp","uv":"uv pip install x-mcp"}}`,
		local: []string{"uvx x-mcp"}},
	{doc: `{"name":"x","packages":[{"registryType":"npm","identifier":"@a/x-mcp"}],"install":"npm install -g @a/x-mcp"}`,
		local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","command":"npx","args":["-y","@a/x-mcp"],"npm":"npm i -g @a/x-mcp"}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","packages":[{"registryType":"pypi","identifier":"x-mcp"}],"installation":{"pipx":"pipx install x-mcp"}}`,
		local: []string{"uvx x-mcp"}},
	{doc: `{"name":"x","packages":[{"registryType":"pypi","identifier":"x-mcp"}],"install":{"uv":"uv tool install x-mcp"}}`,
		local: []string{"uvx x-mcp"}},

	// Round 8: entries typed as a page, a file or another kind of API; a site's home
	// page or a chat API as a card's one endpoint; Smithery's start command; a client's
	// catalogue of presets...
	{doc: `{"endpoints":[{"url":"https://x.dev/facts","type":"json"},{"url":"https://x.dev/mcp","type":"streamable-http"}]}`,
		endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"servers":[{"name":"docs","url":"https://x.dev/docs","format":"markdown"}]}`},
	{doc: `{"endpoints":[{"url":"https://x.dev/about","mimeType":"text/html"}]}`},
	{doc: `{"endpoints":[{"url":"https://api.x.dev/v2/orders","type":"graphql"}]}`},
	{doc: `{"endpoints":[{"url":"https://x.dev/events","type":"text/event-stream"}]}`, endpoints: []string{"https://x.dev/events"}},
	{doc: `{"serverInfo":{"name":"x"},"transport":{"type":"http","endpoint":"https://acme.dev"}}`},
	{doc: `{"name":"x","url":"https://www.acme.co.uk/","transport":"http"}`},
	{doc: `{"serverInfo":{"name":"x"},"transport":{"type":"http","endpoint":"https://mcp.acme.dev"}}`, endpoints: []string{"https://mcp.acme.dev"}},
	{doc: `{"name":"x","mcp_endpoint":"https://acme.dev"}`, endpoints: []string{"https://acme.dev"}},
	{doc: `{"mcpServers":{"a":{"url":"https://acme.dev"}}}`, endpoints: []string{"https://acme.dev"}},
	{doc: `{"name":"x","transport":{"type":"sse","endpoint":"https://x.dev/api/chat"}}`},
	{doc: `{"name":"x","endpoint":"https://x.dev/v1/chat/completions"}`},
	{doc: `{"servers":[{"name":"a","url":"https://x.dev/chatbot","transport":"http"}]}`},
	{doc: `{"name":"x","endpoint":"https://x.dev/mcp/chat"}`, endpoints: []string{"https://x.dev/mcp/chat"}},
	{doc: `{"name":"x","mcp_url":"https://x.dev/api/chat"}`, endpoints: []string{"https://x.dev/api/chat"}},
	{doc: `{"name":"x","transport":"stdio","startCommand":{"type":"stdio","command":"python","args":["-m","x_mcp"]}}`,
		local: []string{"python -m x_mcp"}},
	{doc: `{"name":"x","start_command":{"command":"npx","args":["-y","@a/x-mcp"]}}`, local: []string{"npx -y @a/x-mcp"}},
	{doc: `{"name":"x","start":{"command":"make serve"}}`},
	{doc: `{"data":[{"id":"a","command":"npx","baseArgs":["-y","@a/x-mcp"],"repo":"https://github.com/a/x"},{"id":"b","command":"uvx","baseArgs":["y-mcp"]}]}`,
		local: []string{"npx -y @a/x-mcp", "uvx y-mcp"}},
	{doc: `{"presets":[{"name":"a","command":"docker","args":["run","-i","--rm","a/x-mcp"]}]}`, local: []string{"docker run -i --rm a/x-mcp"}},
	{doc: `{"data":[{"id":"a","command":"make build"}]}`},
	{doc: `{"items":[{"name":"a","url":"https://x.dev/a"}]}`},

	// Round 9: the root of a site on a static-site host is its home page (an application
	// platform's host root may be the server); a code host's or registry's page is never
	// an endpoint; a disabled entry is not offered; one server run by a command, the same
	// command with options and its install line is one server; a runner of runners.
	{doc: `{"serverInfo":{"name":"x"},"transport":{"type":"http","url":"https://acme.github.io/"}}`},
	{doc: `{"serverInfo":{"name":"x"},"transport":{"type":"http","endpoint":"https://acme-ui.vercel.app"}}`},
	{doc: `{"name":"x","endpoint":"https://acme.pages.dev"}`},
	{doc: `{"name":"x","url":"https://acme-mcp.workers.dev","transport":"streamable-http"}`, endpoints: []string{"https://acme-mcp.workers.dev"}},
	{doc: `{"mcpServers":{"a":{"url":"https://acme.netlify.app"}}}`, endpoints: []string{"https://acme.netlify.app"}},
	{doc: `{"name":"x","transport":{"type":"http","url":"https://github.com/acme/x"}}`},
	{doc: `{"name":"x","transport":{"type":"sse","url":"https://acme.github.io/x/sse"}}`},
	{doc: `{"mcpServers":{"a":{"url":"https://acme.gitlab.io/mcp"}}}`},
	{doc: `{"name":"x","mcp_url":"https://github.com/acme/x-mcp"}`},
	{doc: `{"servers":[{"name":"a","url":"https://pypi.org/project/x-mcp/"},{"name":"b","url":"https://gitlab.com/api/v4/mcp"}]}`,
		endpoints: []string{"https://gitlab.com/api/v4/mcp"}},
	{doc: `{"remotes":[{"type":"streamable-http","url":"https://www.npmjs.com/package/x-mcp"}]}`},
	{doc: `{"name":"x","url":"https://huggingface.co/mcp","transport":"http"}`, endpoints: []string{"https://huggingface.co/mcp"}},
	{doc: `{"mcpServers":{"a":{"command":"npx","args":["-y","a-mcp"],"disabled":true},"b":{"url":"https://x.dev/mcp","enabled":false},"c":{"command":"uvx","args":["c-mcp"],"disabled":false}}}`,
		local: []string{"uvx c-mcp"}},
	{doc: `{"servers":[{"name":"a","enabled":false,"url":"https://x.dev/mcp"},{"name":"b","enabled":true,"url":"https://y.dev/mcp"}]}`,
		endpoints: []string{"https://y.dev/mcp"}},
	{doc: `{"name":"x","transports":[{"type":"stdio","command":"x-srv","args":["mcp"]},{"type":"sse","command":"x-srv","args":["mcp","--transport","sse","--port","8053"]}]}`,
		local: []string{"x-srv mcp"}},
	{doc: `{"name":"x","command":"x-srv","args":["mcp"],"install":{"pipx":"pipx install x-srv"}}`, local: []string{"x-srv mcp"}},
	{doc: `{"mcpServers":{"a":{"command":"x-srv","args":["serve-a"]},"b":{"command":"x-srv","args":["serve-b"]}}}`,
		local: []string{"x-srv serve-a", "x-srv serve-b"}},
	{doc: `{"name":"x","transport":{"type":"stdio"}}`, local: []string{"x"}},
	{doc: `{"name":"x","transport":{"type":"stdio","url":"https://x.dev/mcp"}}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"mcpServers":{"a":{"command":"npx","args":["-y","@smithery/cli","run","@a/one-mcp"]},"b":{"command":"npx","args":["-y","@smithery/cli","run","@a/two-mcp"]}}}`,
		local: []string{"npx -y @smithery/cli run @a/one-mcp", "npx -y @smithery/cli run @a/two-mcp"}},
	{doc: `{"mcpServers":{"a":{"command":"cmd","args":["/c","npx","-y","@a/x-mcp"]}},"packages":[{"registryType":"npm","identifier":"@a/x-mcp"}]}`,
		local: []string{"cmd /c npx -y @a/x-mcp"}},

	// Round 10: the root of any host not named for MCP, as a flat card's one URL under a
	// generic key, is the home page of the site or app there (a list entry, an
	// MCP-named key or a host named for MCP keeps it); an endpoint given inside
	// serverInfo; a URL the card lists as a resource file is that file; a local bridge
	// to an unusable address runs nothing.
	{doc: `{"serverInfo":{"name":"x"},"transport":{"type":"http","endpoint":"https://api.acme.dev"}}`},
	{doc: `{"serverInfo":{"name":"x"},"transport":{"type":"http","url":"https://themes.acme.co.uk/"}}`},
	{doc: `{"serverInfo":{"name":"x Docs"},"endpoint":"https://docs.acme.dev"}`},
	{doc: `{"serverInfo":{"name":"x"},"transport":{"type":"http","endpoint":"https://acme.onrender.com/"}}`},
	{doc: `{"name":"x","url":"https://acme.workers.dev","transport":"streamable-http"}`},
	{doc: `{"servers":[{"name":"a","url":"https://api.acme.dev"}]}`, endpoints: []string{"https://api.acme.dev"}},
	{doc: `{"name":"x","mcp_url":"https://api.acme.dev"}`, endpoints: []string{"https://api.acme.dev"}},
	{doc: `{"serverInfo":{"name":"x","transport":"streamable-http","endpoint":"https://x.dev/mcp"}}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"serverInfo":{"name":"x","serverUrl":"https://x.dev/sse"},"tools":["a"]}`, endpoints: []string{"https://x.dev/sse"}, tools: []string{"a"}},
	{doc: `{"serverInfo":{"name":"x","url":"https://x.dev/about"},"protocolVersion":"2025-06-18"}`},
	{doc: `{"serverInfo":{"name":"x","url":"https://x.dev/mcp","transport":"http"}}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"serverInfo":{"name":"x","endpoint":"https://x.dev/mcp"},"transport":{"type":"http","url":"https://x.dev/api/mcp"}}`,
		endpoints: []string{"https://x.dev/api/mcp"}},
	{doc: `{"transport":{"type":"http","endpoint":"https://x.dev/api/current"},"resources":[{"uri":"https://x.dev/api/current","mimeType":"application/json"}]}`},
	{doc: `{"endpoint":"https://x.dev/data","capabilities":{"resources":[{"url":"https://x.dev/data","type":"csv"}]}}`},
	{doc: `{"endpoint":"https://x.dev/mcp","resources":[{"uri":"https://x.dev/mcp/about","mimeType":"text/html"}]}`, endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"mcpServers":{"a":{"command":"npx","args":["mcp-remote","http://203.0.113.9:8000/sse"]}}}`},
	{doc: `{"mcpServers":{"a":{"command":"npx","args":["mcp-remote","https://x.dev/mcp"]}}}`, local: []string{"npx mcp-remote https://x.dev/mcp"}},
	{doc: `{"serverInfo":{"name":"x"},"capabilities":{"tools":{"listChanged":true,"supported":["a","b"]}}}`, tools: []string{"a", "b"}},
	{doc: `{"capabilities":{"tools":{"enabled":["a"],"supported":true}}}`, tools: []string{"a"}},

	// Tool lists under other keys or grouped.
	{doc: `{"safe_tools":[{"name":"a","path":"/a"}],"publicTools":["b"],"planned_tools":["c"],"relatedTools":["d"],"thirdPartyTools":["e"]}`,
		tools: []string{"b", "a"}},
	{doc: `{"operations":[{"name":"a","scope":"read"},{"name":"b"}]}`, tools: []string{"a", "b"}},
	{doc: `{"operations":[{"name":"GET /a"}]}`},
	{doc: `{"total_tools":12,"tools_count":12}`},
	{doc: `{"tool_list":[{"name":"a"}]}`, tools: []string{"a"}},
	{doc: `{"available_tools":["a","b"]}`, tools: []string{"a", "b"}},
	{doc: `{"tools":[{"function":{"name":"a"}}]}`, tools: []string{"a"}},
	{doc: `{"tools":[{"toolName":"a"}]}`, tools: []string{"a"}},
	{doc: `{"server":{"url":"https://x.dev/mcp","tools":["a","b"]}}`, endpoints: []string{"https://x.dev/mcp"}, tools: []string{"a", "b"}},
	{doc: `{"exposed_tools":[{"name":"a"}]}`, tools: []string{"a"}},
	{doc: `{"toolsets":{"core":["a","b"]}}`, tools: []string{"a", "b"}},
	{doc: `{"server":{"name":"x","capabilities":{"tools":["a"]}}}`, tools: []string{"a"}},
	{doc: `{"categories":[{"id":"c","tools":["a"]}],"tiers":{"free":{"tools":[{"name":"b"}]}}}`, tools: []string{"a", "b"}},
	{doc: `{"_meta":{"io.x/publisher":{"tools":[{"name":"a"}],"tags":["t"]},"tools":["b"]}}`, tools: []string{"b", "a"}},
	{doc: `{"webmcp":{"tools":["a"],"toolsOnPage":["b"],"note":"x"}}`, tools: []string{"a", "b"}},
	// Flags under the protocol's methods on tools ("list", "call") name no tool; a flag
	// keyed by a tool's name does.
	{doc: `{"serverInfo":{"name":"x"},"endpoint":"https://x.dev/mcp","capabilities":{"tools":{"list":true,"call":true},"resources":{"list":true}}}`,
		endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"url":"https://x.dev/mcp","tools":{"search_docs":true,"fetch_page":true}}`,
		endpoints: []string{"https://x.dev/mcp"}, tools: []string{"fetch_page", "search_docs"}},

	// A local bridge (mcp-remote) to a URL the same document lists as a remote server
	// is that server reached another way, not a local one, wherever the two sit.
	{doc: `{"name":"x","servers":[{"name":"x","url":"https://x.dev/mcp","command":"npx","args":["-y","mcp-remote","https://x.dev/mcp"]}]}`,
		endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"name":"x","mcpServers":{"x":{"url":"https://x.dev/mcp","command":"npx","args":["-y","mcp-remote@latest","https://x.dev/mcp"]}}}`,
		endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"mcpServers":{"a":{"command":"npx","args":["mcp-remote","https://x.dev/mcp"]},"b":{"url":"https://x.dev/mcp"}}}`,
		endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"mcpServers":{"a":{"command":"npx","args":["mcp-remote","https://y.dev/mcp"]},"b":{"url":"https://x.dev/mcp"}}}`,
		endpoints: []string{"https://x.dev/mcp"}, local: []string{"npx mcp-remote https://y.dev/mcp"}},
	// A URL under a generic key whose transport names a protocol that is not MCP (a
	// REST or paid JSON route) is no MCP endpoint; one whose path names MCP still is.
	{doc: `{"name":"x","endpoint":{"url":"https://api.x.dev/v1/quote","transport":"rest","price":"0.01 USD"}}`},
	{doc: `{"name":"x","endpoint":"https://api.x.dev/v1/quote","transport":"http-json"}`},
	{doc: `{"name":"x","servers":[{"name":"q","endpoint":"https://api.x.dev/v1/quote","transport":"x402-rest"},{"name":"m","url":"https://x.dev/mcp"}]}`,
		endpoints: []string{"https://x.dev/mcp"}},
	{doc: `{"name":"x","endpoint":"https://x.dev/mcp","transport":"rest"}`, endpoints: []string{"https://x.dev/mcp"}},
	// A URL under a generic key beside the request body of one HTTP route (a paid JSON
	// route's "request_schema") is no MCP endpoint, whatever its transport says; one
	// whose path names MCP still is.
	{doc: `{"name":"x","transport":"https","endpoint":"https://x.dev/api/v1/extract","request_schema":{"type":"object"}}`},
	{doc: `{"name":"x","routes":[{"url":"https://x.dev/api/v1/quote","requestBody":{"type":"object"}}]}`},
	{doc: `{"name":"x","endpoint":"https://x.dev/mcp","request_schema":{"type":"object"}}`, endpoints: []string{"https://x.dev/mcp"}},
}

// TestSpellings checks each spelling of spellingCases: exactly the endpoints, local
// servers and tools a careful reader sees, and a warning whenever no server is found.
func TestSpellings(t *testing.T) {
	t.Parallel()
	for _, tc := range spellingCases {
		d, err := mcpjson.Parse([]byte(tc.doc))
		if err != nil {
			t.Errorf("%s: %v", tc.doc, err)
			continue
		}
		var urls, cmds []string
		for _, s := range d.Servers {
			if s.LocalOnly {
				cmds = append(cmds, s.Command)
			} else if !slices.Contains(urls, s.URL) {
				urls = append(urls, s.URL)
			}
		}
		slices.Sort(urls)
		want := slices.Clone(tc.endpoints)
		slices.Sort(want)
		if !slices.Equal(urls, want) {
			t.Errorf("%s:\n endpoints %q, want %q", tc.doc, urls, want)
		}
		if !slices.Equal(cmds, tc.local) {
			t.Errorf("%s:\n local %q, want %q", tc.doc, cmds, tc.local)
		}
		if !slices.Equal(d.ToolNames, tc.tools) {
			t.Errorf("%s:\n tools %q, want %q", tc.doc, d.ToolNames, tc.tools)
		}
		if len(d.Servers) == 0 && len(d.Warnings) == 0 {
			t.Errorf("%s: no server and no warning saying why", tc.doc)
		}
		for _, w := range d.Warnings {
			if strings.Contains(w.Message, "\n") {
				t.Errorf("%s: warning spans lines: %q", tc.doc, w.Message)
			}
		}
	}
}
