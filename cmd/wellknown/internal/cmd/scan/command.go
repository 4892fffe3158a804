// Package scan is the command "wellknown scan": flags, progress and resume around the
// scanner of package cmd/wellknown/internal/scan.
package scan

import (
	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
)

// app is the run's shared state, with this command's methods.
type app struct{ *cmdutil.App }

// New returns the "wellknown scan" command, which runs with c.
func New(c *cmdutil.App) *cobra.Command {
	a := &app{c}
	return a.scanCommand()
}
