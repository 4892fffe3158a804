package serve

import (
	"context"
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
addresses) are refused unless --allow-private. Stdin carries MCP, so nobody can be
asked: consent requests and skill approvals are denied unless --yes, and every
decision is logged to stderr.`,
		Example: `  wellknown serve
  wellknown serve --http 127.0.0.1:8765 --skills ~/.agents/skills
  claude mcp add wellknown -- wellknown serve --yes`,
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
		return tools.ServeMCPStdio(ctx, server, a.In, a.Out) // end of input waits for the answers owed
	}
	a.Notef("serving MCP on http://%s/mcp (Ctrl-C stops)", ln.Addr())
	return tools.ServeMCPHTTP(ctx, ln, server)
}

// servePrivateHint explains a private origin refused by serve's tools.
const servePrivateHint = "wellknown serve refuses private origins unless it is started with --allow-private"

// newMCPServer builds the MCP server of the agent tools: one discovery client, one
// catalog, the tools.
func (a *app) newMCPServer(ctx context.Context, f serveFlags) (*mcp.Server, error) {
	answer := map[bool]string{true: "granted (--yes)", false: "denied (run with --yes to grant)"}
	hc, err := a.HTTPClient()
	if err != nil {
		return nil, err
	}
	client, err := discovery.NewClient(&discovery.Options{
		HTTPClient: hc,
		UserAgent:  "wellknown/" + discovery.Version,
		// The model picks the origins: private ones only when the person said so.
		AllowPrivateOrigins: f.allowPrivate,
		Consent: func(_ context.Context, req *discovery.ConsentRequest) (bool, error) {
			a.Notef("consent to %s: %s", cmdutil.DescribeConsent(req), answer[a.Yes])
			return a.Yes, nil
		},
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
	ts := tools.New(client, cat, &tools.Options{
		Approve: func(_ context.Context, req *tools.ApprovalRequest) (bool, error) {
			a.Notef("approval of skill %s (%s %s, %s): %s", cmdutil.Clean(req.Entry.Name, 128), req.Entry.Kind,
				cmdutil.Clean(req.Entry.From, 512), req.Digest, answer[a.Yes])
			return a.Yes, nil
		},
	})
	for _, o := range f.origins {
		// The host's sites: they outrank any site the model adds through list_skills.
		if err := ts.AddSite(ctx, o); err != nil {
			return nil, fmt.Errorf("--origin %s: %s", o, cmdutil.PrivateHint(err, servePrivateHint))
		}
	}
	for _, w := range cat.Warnings() {
		a.Notef("%s", cmdutil.Clean(fmt.Sprint(w), 1024))
	}
	return ts.MCPServer(&mcp.Implementation{Name: "wellknown", Version: discovery.Version},
		func(err error) string { return cmdutil.PrivateHint(err, servePrivateHint) }), nil
}
