// Package discover is the command "wellknown discover": what an origin publishes at
// /.well-known/ (skills.md, mcp.json, skills index), as text, JSON or for a model. Its
// report types are shared with demo and mcp.
package discover

import (
	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
)

// app is the run's shared state, with this command's methods.
type app struct{ *cmdutil.App }

// New returns the "wellknown discover" command, which runs with c.
func New(c *cmdutil.App) *cobra.Command {
	a := &app{c}
	return a.discoverCommand()
}
