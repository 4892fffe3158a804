package tools

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/internal/httpx"
	"github.com/wellknown-dev/discovery/internal/mcpstdio"
)

// MCPServer returns an MCP server (the official Go SDK's) that offers the toolset's
// tools, with their input and output schemas and annotations: every tool is
// read-only, touches the open world (it fetches what sites publish), is not
// destructive and is idempotent. A tool that fails answers with a result
// marked IsError, for the model to read and act on, not a protocol error; explain,
// when not nil, writes that text from the error (nil: err.Error()). With
// [ElicitApproval] as the Toolset's Options.Approve, read_skill asks the client's user
// to approve a skill through MCP elicitation.
func (t *Toolset) MCPServer(impl *mcp.Implementation, explain func(error) string) *mcp.Server {
	if explain == nil {
		explain = func(err error) string { return err.Error() }
	}
	server := mcp.NewServer(impl, nil)
	for _, tool := range t.Tools() {
		h := t.Handler(tool.Name)
		server.AddTool(&mcp.Tool{
			Name:         tool.Name,
			Description:  tool.Description,
			InputSchema:  tool.InputSchema,
			OutputSchema: tool.OutputSchema,
			Annotations:  annotations(),
		}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			call := newMCPCall(req)
			res, err := h(withMCPCall(ctx, call), req.Params.Arguments)
			if call.ask != nil {
				// ElicitApproval wants the user asked: the question is the result (the
				// SDK asks clients of older protocol versions itself and calls again).
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{approveKey: call.ask}, RequestState: call.askState}, nil
			}
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: explain(err)}}}, nil
			}
			return &mcp.CallToolResult{
				Content:           []mcp.Content{&mcp.TextContent{Text: res.Text}},
				StructuredContent: res.Structured,
			}, nil
		})
	}
	return server
}

// annotations returns the MCP annotations every tool of the toolset carries: the
// tools only read (a site's documents, the catalog's skills), from sites anywhere on
// the web, so they are read-only, open-world, not destructive and idempotent. Adding
// a site to the catalog (list_skills with an origin) changes what later listings
// show, not what the same call answers again: it is idempotent too.
func annotations() *mcp.ToolAnnotations {
	no, yes := false, true
	return &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &yes, DestructiveHint: &no, IdempotentHint: true}
}

// ServeMCPStdio runs server over in and out until ctx is done or in ends. At the end
// of input it waits for the answer to every request it read (the SDK alone would drop
// them), at most five minutes.
func ServeMCPStdio(ctx context.Context, server *mcp.Server, in io.Reader, out io.Writer) error {
	r, w := mcpstdio.Drain(ctx, in, out)
	return server.Run(ctx, &mcp.IOTransport{Reader: r, Writer: w})
}

// ListenLoopback listens on addr, which must be HOST:PORT with a loopback host
// (127.0.0.1, ::1, localhost): a server of these tools has no authentication, so
// anything that can reach it can use them.
func ListenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%q: want HOST:PORT on loopback, such as 127.0.0.1:8765: %w", addr, err)
	}
	ip := net.ParseIP(host)
	if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("%q refused: only loopback addresses (127.0.0.1, ::1, localhost) may serve; the server has no authentication", addr)
	}
	return net.Listen("tcp", addr)
}

// ServeMCPHTTP serves server over Streamable HTTP at /mcp on ln until ctx is done,
// then shuts down (at most five seconds). Browsers' cross-site requests are refused;
// the SDK also refuses a Host header that is not loopback (DNS rebinding).
func ServeMCPHTTP(ctx context.Context, ln net.Listener, server *mcp.Server) error {
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.NewCrossOriginProtection().Handler(
		mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)))
	if err := httpx.Serve(ctx, ln, &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}); err != nil {
		return err
	}
	return ctx.Err()
}

// MCPSession returns a client session, on the MCP SDK's in-memory transport, to a
// server of the toolset's tools: the same tools, schemas, annotations and results
// [Toolset.MCPServer] serves, for frameworks that consume MCP rather than function
// calls. Nothing listens on a network. Closing the session stops its server; close it
// when done. A tool that fails answers with a result marked IsError, its text the
// error's ([Toolset.CallForModel]).
func (t *Toolset) MCPSession(ctx context.Context) (*mcp.ClientSession, error) {
	server := t.MCPServer(&mcp.Implementation{Name: "discovery-tools", Version: discovery.Version}, nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		return nil, fmt.Errorf("tools: in-memory MCP server: %w", err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "discovery-tools-client", Version: discovery.Version}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		_ = ss.Close()
		return nil, fmt.Errorf("tools: in-memory MCP client: %w", err)
	}
	return cs, nil
}
