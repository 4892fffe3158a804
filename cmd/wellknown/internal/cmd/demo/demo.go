package demo

import (
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmd/discover"
	demosite "github.com/wellknown-dev/discovery/internal/demo"

	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
)

func (a *app) demoCommand() *cobra.Command {
	var f discover.Flags
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Discover an embedded demo origin (no network needed)",
		Long: `Demo starts a demo origin on a loopback TLS server (skills.md, mcp.json and an
Agent Skills index with two skills, embedded in the binary) and discovers it exactly
as "wellknown discover" discovers a real site. Nothing leaves the machine.`,
		Example: `  wellknown demo
  wellknown demo --structured --json
  wellknown demo --model`,
		Args: cmdutil.ArgsN(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.Check(); err != nil {
				return err
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
	return cmd
}
