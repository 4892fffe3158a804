// Package version is the command "wellknown version": the version, VCS revision and Go
// version of the binary.
package version

import (
	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
)

// app is the run's shared state, with this command's methods.
type app struct{ *cmdutil.App }

// New returns the "wellknown version" command, which runs with c.
func New(c *cmdutil.App) *cobra.Command {
	a := &app{c}
	return a.versionCommand()
}
