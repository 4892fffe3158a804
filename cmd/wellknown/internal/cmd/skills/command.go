// Package skills is the command "wellknown skills": list, get, install, update and
// local, for the Agent Skills an origin publishes.
package skills

import (
	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
)

// app is the run's shared state, with this command's methods.
type app struct{ *cmdutil.App }

// New returns the "wellknown skills" command, which runs with c.
func New(c *cmdutil.App) *cobra.Command {
	a := &app{c}
	return skillsCommand(a)
}
