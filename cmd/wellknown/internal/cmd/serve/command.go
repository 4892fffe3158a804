// Package serve is the command "wellknown serve": the discovery tools of package tools
// served over MCP (stdio, or Streamable HTTP on loopback).
package serve

import (
	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
)

// app is the run's shared state, with this command's methods.
type app struct{ *cmdutil.App }

// New returns the "wellknown serve" command, which runs with c.
func New(c *cmdutil.App) *cobra.Command {
	a := &app{c}
	return a.serveCommand()
}
