package demo

import (
	"errors"

	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmd/discover"
	demosite "github.com/wellknown-dev/discovery/internal/demo"

	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
)

func (a *app) demoCommand() *cobra.Command {
	var f discover.Flags
	var live liveFlags
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Discover an embedded demo origin (no network needed)",
		Long: `Demo starts a demo origin on a loopback TLS server (skills.md, mcp.json and an
Agent Skills index with two skills, embedded in the binary) and discovers it exactly
as "wellknown discover" discovers a real site. Nothing leaves the machine.

With --serve it keeps the demo origin up on plain HTTP on a loopback address (--addr;
default a free port on 127.0.0.1) until interrupted, and prints the commands to try
against it: discover, skills list, install and update, mcp skills, lint and serve.
Its mcp.json lists its own MCP server, at /mcp, which serves the same skills through
the MCP Skills Extension.`,
		Example: `  wellknown demo
  wellknown demo --structured --json
  wellknown demo --model
  wellknown demo --serve
  wellknown demo --serve --addr 127.0.0.1:8765`,
		Args: cmdutil.ArgsN(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.Check(); err != nil {
				return err
			}
			if live.serve {
				if cmd.Flags().Changed("structured") || cmd.Flags().Changed("json") || cmd.Flags().Changed("model") {
					return cmdutil.UsageError{Err: errLiveFlags}
				}
				return a.serveLive(cmd.Context(), live)
			}
			if cmd.Flags().Changed("addr") {
				return cmdutil.UsageError{Err: errors.New("--addr goes with --serve")}
			}
			ts, err := demosite.NewServer()
			if err != nil {
				return err
			}
			defer ts.Close()
			c, err := a.Client(&discovery.Options{HTTPClient: ts.Client()})
			if err != nil {
				return err
			}
			defer c.CloseIdleConnections()
			return discover.Run(cmd.Context(), a.App, c, ts.URL, f)
		},
	}
	f.Add(cmd)
	cmd.Flags().BoolVar(&live.serve, "serve", false, "keep the demo origin up on loopback until interrupted, and print commands to try against it")
	cmd.Flags().StringVar(&live.addr, "addr", "127.0.0.1:0", "with --serve: the loopback `ADDR` to listen on (HOST:PORT; port 0: a free one)")
	return cmd
}
