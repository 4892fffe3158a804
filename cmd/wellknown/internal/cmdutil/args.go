package cmdutil

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// ArgsN is cobra.ExactArgs with a usage error that names the arguments: names is
// what the command wants ("ORIGIN", "no arguments").
func ArgsN(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		path := CommandPath(cmd)
		var msg string
		switch {
		case n == 0:
			msg = fmt.Sprintf("%s takes no arguments (got %s)", path, strconv.Quote(Clean(args[0], 80)))
		case len(args) < n:
			msg = fmt.Sprintf("%s: missing %s", path, names)
		default:
			msg = fmt.Sprintf("%s: want %s, got %s (unexpected %s)", path, names, Plural(len(args), "argument"), strconv.Quote(Clean(args[n], 80)))
		}
		return UsageError{fmt.Errorf("%s; see \"wellknown %s --help\"", msg, path)}
	}
}

// CommandPath is cmd's path without the root's name ("skills install"): messages are
// printed after "wellknown: ".
func CommandPath(cmd *cobra.Command) string {
	p := cmd.CommandPath()
	if r := cmd.Root(); r != nil {
		p = strings.TrimPrefix(strings.TrimPrefix(p, r.Name()), " ")
	}
	return p
}
