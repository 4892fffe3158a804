// Package demo is the command "wellknown demo": a discovery of the embedded demo
// origin (package internal/demo), printed as discover prints it.
package demo

import (
	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
)

// app is the run's shared state, with this command's methods.
type app struct{ *cmdutil.App }

// New returns the "wellknown demo" command, which runs with c.
func New(c *cmdutil.App) *cobra.Command {
	a := &app{c}
	return a.demoCommand()
}
