// Package mcp is the command "wellknown mcp": the MCP servers an origin lists, and the
// skills they serve (servers, skills).
package mcp

import (
	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
)

// app is the run's shared state, with this command's methods.
type app struct{ *cmdutil.App }

// New returns the "wellknown mcp" command, which runs with c.
func New(c *cmdutil.App) *cobra.Command {
	a := &app{c}
	return a.mcpCommand()
}
