package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/catalog"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
	"github.com/wellknown-dev/discovery/tools"
)

type serveFlags struct {
	httpAddr     string
	skills       []string
	origins      []string
	allowPrivate bool
}

func (a *app) serveCommand() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve [--http ADDR]",
		Short: "Serve the agent discovery tools over MCP (stdio, or Streamable HTTP on loopback)",
		Long: `Serve runs an MCP server with the discovery tools of package tools (discover_site,
list_skills, read_skill, read_skill_file, list_mcp_servers), so that any MCP host can
give them to its model.

It speaks MCP over stdio by default. With --http ADDR it serves Streamable HTTP at
http://ADDR/mcp instead, on a loopback address only (the server has no
authentication). The model chooses the origins: private ones (localhost, private
addresses) are refused unless --allow-private.

A skill needs the user's approval before the model may read it. When the MCP host
supports elicitation, read_skill asks the user there, naming the skill, its source
and the digest of the content approved (a later change is asked about again); a
refusal is final for that call. When the host does not, the model is told that the
skill cannot be approved in this session, and how to approve it. With --yes every
skill is approved: use it only for origins you trust. Consent requests of a tool
call (such as a redirect to another origin) are asked through the MCP host too, during
the call, when it supports elicitation and speaks a protocol version before
2026-07-28; otherwise they are denied unless --yes (stdin carries MCP, not answers).
Every decision is logged to stderr.

Started by hand on a terminal, it says that it waits for an MCP client, and ignores
lines typed that are not MCP messages; Ctrl-D or Ctrl-C stops it.`,
		Example: `  wellknown serve
  wellknown serve --http 127.0.0.1:8765 --skills ~/.agents/skills
  claude mcp add wellknown -- wellknown serve --yes

  # Hosts configured with JSON (Claude Desktop, Cursor and others; VS Code's
  # mcp.json names the key "servers"):
  {"mcpServers": {"wellknown": {"command": "wellknown", "args": ["serve", "--origin", "https://example.com"]}}}`,
		Args: cmdutil.ArgsN(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := a.serve(cmd.Context(), f)
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		},
	}
	cmd.Flags().StringVar(&f.httpAddr, "http", "", "serve Streamable HTTP on the loopback `ADDR` (127.0.0.1:PORT) instead of stdio")
	cmd.Flags().StringSliceVar(&f.skills, "skills", nil, "add the local skills folder `DIR` to the catalog (repeatable)")
	cmd.Flags().StringSliceVar(&f.origins, "origin", nil, "add the skills index of `ORIGIN` to the catalog at start (repeatable)")
	cmd.Flags().BoolVar(&f.allowPrivate, "allow-private", false, "let the tools discover private origins (localhost, private addresses): for a local test site")
	return cmd
}

func (a *app) serve(ctx context.Context, f serveFlags) error {
	var ln net.Listener
	if f.httpAddr != "" {
		var err error
		if ln, err = tools.ListenLoopback(f.httpAddr); err != nil {
			return cmdutil.UsageError{Err: fmt.Errorf("serve --http %w", err)}
		}
		defer ln.Close()
	}
	server, err := a.newMCPServer(ctx, f)
	if err != nil {
		return err
	}
	if ln == nil {
		in := a.In
		if a.IsTerminal(a.In) {
			// Started by hand: say what this is, and keep going when a person types.
			a.Notef("%s", waitingNote)
			in = newTerminalInput(a.In, func() { a.Notef("%s", typedNote) })
		}
		err := tools.ServeMCPStdio(ctx, server, in, a.Out) // end of input waits for the answers owed
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("serve: stdin is not MCP (%w): this command reads JSON-RPC messages, one per line, "+
				"from an MCP host that starts it; see wellknown serve --help", err)
		}
		return err
	}
	a.Notef("serving MCP on http://%s/mcp (Ctrl-C stops)", ln.Addr())
	return tools.ServeMCPHTTP(ctx, ln, server)
}

// servePrivateHint explains a private origin refused by serve's tools.
const servePrivateHint = "wellknown serve refuses private origins unless it is started with --allow-private"

// newMCPServer builds the MCP server of the agent tools: one discovery client, one
// catalog, the tools.
func (a *app) newMCPServer(ctx context.Context, f serveFlags) (*mcp.Server, error) {
	hc, err := a.HTTPClient()
	if err != nil {
		return nil, err
	}
	client, err := discovery.NewClient(&discovery.Options{
		HTTPClient: hc,
		UserAgent:  "wellknown/" + discovery.Version,
		// The model picks the origins: private ones only when the person said so.
		InsecureAllowPrivateOrigins: f.allowPrivate,
		Consent:                     a.consent(),
	})
	if err != nil {
		return nil, err
	}
	cat := catalog.New(&catalog.Options{Approvals: catalog.NewMemoryApprovals()})
	if len(f.skills) > 0 {
		if err := cat.AddLocal(ctx, agentskills.LocalOptions{Roots: f.skills}); err != nil {
			return nil, fmt.Errorf("--skills: %w", err)
		}
	}
	ts := tools.New(client, cat, &tools.Options{Approve: a.approve})
	for _, o := range f.origins {
		// The host's sites: they outrank any site the model adds through list_skills.
		if err := ts.AddSite(ctx, o); err != nil {
			return nil, fmt.Errorf("--origin %s: %s", o, cmdutil.PrivateHint(err, servePrivateHint))
		}
	}
	for _, w := range cat.Warnings() {
		a.Notef("%s", cmdutil.Clean(fmt.Sprint(w), 1024))
	}
	server := ts.MCPServer(&mcp.Implementation{Name: "wellknown", Version: discovery.Version}, explain)
	server.AddReceivingMiddleware(withCallSession)
	return server, nil
}

// approve decides whether the model may read a skill: granted with --yes; otherwise
// the user is asked through the MCP client (elicitation), when it can ask. Every
// decision is logged to stderr.
func (a *app) approve(ctx context.Context, req *tools.ApprovalRequest) (bool, error) {
	skill := fmt.Sprintf("approval of skill %s (%s %s, %s)", cmdutil.Clean(req.Entry.Name, 128), req.Entry.Kind,
		cmdutil.Clean(req.Entry.From, 512), req.Digest)
	if a.Yes {
		a.Notef("%s: granted (--yes)", skill)
		return true, nil
	}
	ok, err := tools.ElicitApproval(ctx, req)
	switch {
	case ok:
		a.Notef("%s: granted by the user (MCP elicitation)", skill)
	case errors.Is(err, tools.ErrApprovalDeclined):
		a.Notef("%s: refused by the user (MCP elicitation)", skill)
	case errors.Is(err, tools.ErrCannotAsk):
		a.Notef("%s: denied: the MCP client cannot ask the user (elicitation); run with --yes to grant", skill)
	default:
		a.Notef("%s: asking the user through the MCP client", skill)
	}
	return ok, err
}

// serveApproveHint tells the model, and through it the user, how a skill can be
// approved when the MCP client cannot ask.
const serveApproveHint = "How to approve skills: use an MCP host that supports elicitation (it then asks you), " +
	"or start wellknown serve with --yes (only for origins you trust: every skill is then approved)."

// explain writes a failed tool call's text for the model: the error, with a hint
// when a private origin was refused or a skill cannot be approved in this session.
func explain(err error) string {
	msg := cmdutil.PrivateHint(err, servePrivateHint)
	if errors.Is(err, tools.ErrCannotAsk) {
		msg += "\n" + serveApproveHint
	}
	return msg
}
