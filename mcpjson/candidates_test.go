package mcpjson_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/mcpjson"
)

// candidateCases are URLs under keys no shape reader lists: the candidate pass takes
// those whose keys, siblings and paths say MCP, and names in a warning those with some
// evidence but not enough. The documents are our own.
var candidateCases = []struct {
	name      string
	doc       string
	endpoints []string // remote servers, sorted
	local     []string
	shape     mcpjson.Shape
	warn      string // a warning that must be given ("" for none required)
}{
	{name: "endpoint profiles",
		doc:       `{"name":"x","endpoints":{"production":{"streamable":{"url":"https://mcp.x.dev/mcp"},"sse":{"url":"https://mcp.x.dev/sse"}},"staging":{"default":{"url":"https://staging.x.dev/mcp"}}}}`,
		endpoints: []string{"https://mcp.x.dev/mcp", "https://mcp.x.dev/sse", "https://staging.x.dev/mcp"}, shape: mcpjson.ShapeScored,
		warn: "read as an MCP endpoint from the evidence"},
	{name: "remote key beside a local package in an entry",
		doc:       `{"name":"x","servers":[{"name":"x","package":{"registry":"npm","name":"@a/x-mcp"},"remote_url":"https://x.dev/mcp"}]}`,
		endpoints: []string{"https://x.dev/mcp"}, local: []string{"npx -y @a/x-mcp"}, shape: mcpjson.ShapeDocsSite},
	{name: "remote key beside a top-level package",
		doc:       `{"name":"x","package":{"registry":"npm","name":"@a/x-mcp"},"hosted_endpoint":"https://x.dev/mcp"}`,
		endpoints: []string{"https://x.dev/mcp"}, local: []string{"npx -y @a/x-mcp"}, shape: mcpjson.ShapeLocal},
	{name: "snake_case server array",
		doc:       `{"mcp_servers":[{"name":"a","server_url":"https://a.dev/mcp"},{"name":"b","url":"https://b.dev/sse","transport":"sse"}]}`,
		endpoints: []string{"https://a.dev/mcp", "https://b.dev/sse"}, shape: mcpjson.ShapeScored},
	{name: "server array of another name",
		doc:       `{"available_servers":[{"name":"a","mcp_endpoint":"https://a.dev/mcp"}]}`,
		endpoints: []string{"https://a.dev/mcp"}, shape: mcpjson.ShapeScored},
	// Some evidence, not enough: named, not taken.
	{name: "weak evidence is a remark",
		doc:   `{"name":"x","environments":{"eu":{"url":"https://eu.x.dev/rpc","auth":{"type":"bearer"}}}}`,
		shape: mcpjson.ShapeUnknown, warn: "may be an MCP endpoint but was not taken"},
	// Hostile or misleading: never a server.
	{name: "plain http on a public host", doc: `{"mcp_servers":[{"name":"a","url":"http://a.dev/mcp"}]}`, shape: mcpjson.ShapeUnknown},
	{name: "documentation", doc: `{"mcp_docs":{"servers":{"url":"https://x.dev/docs/mcp"}},"documentation":{"mcp":"https://x.dev/mcp"}}`, shape: mcpjson.ShapeUnknown},
	{name: "an example", doc: `{"examples":{"mcp_servers":[{"url":"https://x.dev/mcp"}]}}`, shape: mcpjson.ShapeUnknown},
	{name: "source code", doc: `{"mcp_servers":[{"name":"a","url":"https://github.com/a/mcp"}]}`, shape: mcpjson.ShapeUnknown},
	{name: "REST route", doc: `{"mcp_servers":[{"name":"a","url":"https://a.dev/mcp/quote","transport":"rest"}]}`, shape: mcpjson.ShapeUnknown},
	{name: "a command's argument", doc: `{"launch":{"args":["--url","https://x.dev/mcp"]}}`, shape: mcpjson.ShapeUnknown},
	{name: "a placeholder", doc: `{"mcp_servers":[{"name":"a","url":"https://<your-host>/mcp"}]}`, shape: mcpjson.ShapeUnknown},
	{name: "not live", doc: `{"note":"the MCP endpoint is coming soon","mcp_servers":[{"name":"a","url":"https://a.dev/mcp"}]}`},
	{name: "another address of a server taken",
		doc:       `{"name":"x","server":{"transport":"sse","endpoint":"https://q.dev/mcp/sse","messagesEndpoint":"https://q.dev/mcp/messages"}}`,
		endpoints: []string{"https://q.dev/mcp/sse"}, shape: mcpjson.ShapeFlat},
}

// TestCandidates checks the candidate pass on candidateCases.
func TestCandidates(t *testing.T) {
	t.Parallel()
	for _, tc := range candidateCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := mcpjson.Parse([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
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
			if !slices.Equal(urls, tc.endpoints) || !slices.Equal(cmds, tc.local) {
				t.Errorf("endpoints %q, local %q; want %q, %q\n%v", urls, cmds, tc.endpoints, tc.local, d.Warnings)
			}
			if tc.shape != "" && d.Shape != tc.shape {
				t.Errorf("shape %q, want %q", d.Shape, tc.shape)
			}
			if tc.warn != "" && !slices.ContainsFunc(d.Warnings, func(p mcpjson.Problem) bool { return strings.Contains(p.Message, tc.warn) }) {
				t.Errorf("no warning %q in %v", tc.warn, d.Warnings)
			}
			if len(d.Servers) == 0 && len(d.Warnings) == 0 {
				t.Error("no server and no warning saying why")
			}
		})
	}
}

// TestCandidatesExplained checks that Document.Candidates explains every decision:
// each remote server's URL is a candidate taken with its evidence, and each URL of
// candidateCases that is not a server and has a candidate says why it was not taken.
func TestCandidatesExplained(t *testing.T) {
	t.Parallel()
	for _, tc := range candidateCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := mcpjson.Parse([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range d.Servers {
				if s.LocalOnly {
					continue
				}
				if !slices.ContainsFunc(d.Candidates, func(c mcpjson.Candidate) bool {
					return c.URL == s.URL && c.Taken && (len(c.Reasons) > 0 || !c.Scored) && c.Pointer != ""
				}) {
					t.Errorf("server %s has no candidate taken with evidence in %+v", s.URL, d.Candidates)
				}
			}
			for _, c := range d.Candidates {
				if !c.Taken && c.Why == "" {
					t.Errorf("candidate %s not taken, and no reason: %+v", c.URL, c)
				}
				if c.Taken && c.Why != "" {
					t.Errorf("candidate %s taken with a reason against: %+v", c.URL, c)
				}
			}
		})
	}
	// Each rejection names its cause.
	for _, tc := range rejectedCandidates {
		t.Run("rejected/"+tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := mcpjson.Parse([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(d.Candidates, func(c mcpjson.Candidate) bool { return c.URL == tc.url })
			if i < 0 {
				t.Fatalf("no candidate %s in %+v", tc.url, d.Candidates)
			}
			if c := d.Candidates[i]; c.Taken || !strings.Contains(c.Why, tc.why) {
				t.Errorf("candidate %+v; want not taken, why containing %q", c, tc.why)
			}
		})
	}
}

// rejectedCandidates are URLs the reader considers and does not take, each with the
// words its reason must hold.
var rejectedCandidates = []struct {
	name, doc, url, why string
}{
	{"documentation key", `{"name":"x","mcp":"https://x.dev/mcp","documentation":{"mcp":"https://x.dev/docs/mcp"}}`, "https://x.dev/docs/mcp", `the key "documentation"`},
	{"plain http", `{"mcp_servers":[{"name":"a","url":"http://a.dev/mcp"}]}`, "http://a.dev/mcp", "http"},
	{"REST transport", `{"mcp_servers":[{"name":"a","url":"https://a.dev/mcp/quote","transport":"rest"}]}`, "https://a.dev/mcp/quote", `"rest" is not MCP`},
	{"weak evidence", `{"name":"x","environments":{"eu":{"url":"https://eu.x.dev/rpc","auth":{"type":"bearer"}}}}`, "https://eu.x.dev/rpc", "under the 4 needed"},
	{"other address", `{"name":"x","server":{"transport":"sse","endpoint":"https://q.dev/mcp/sse","messagesEndpoint":"https://q.dev/mcp/messages"}}`, "https://q.dev/mcp/messages", "beside an endpoint already taken"},
	{"shape skip", `{"servers":[{"name":"a","url":"https://github.com/a/b"}]}`, "https://github.com/a/b", "code"},
}
