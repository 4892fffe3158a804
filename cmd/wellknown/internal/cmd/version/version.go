package version

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
)

// JSON is the --json output of version.
type JSON struct {
	Version   string `json:"version"`    // module version ("(devel)" for a local build)
	SDK       string `json:"sdk"`        // discovery.Version
	Revision  string `json:"revision"`   // vcs.revision, "" when not stamped
	Time      string `json:"time"`       // vcs.time
	Modified  bool   `json:"modified"`   // vcs.modified
	GoVersion string `json:"go_version"` // the Go toolchain that built the binary
}

func (a *app) versionCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print the version, VCS revision and Go version of this binary",
		Example: "  wellknown version\n  wellknown version --json",
		Args:    cmdutil.ArgsN(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			v := buildVersion()
			if asJSON {
				return a.PrintJSON(v)
			}
			fmt.Fprintf(a.Out, "wellknown %s (discovery SDK %s)\n", v.Version, v.SDK)
			if v.Revision != "" {
				mod := ""
				if v.Modified {
					mod = ", modified"
				}
				fmt.Fprintf(a.Out, "revision %s (%s%s)\n", v.Revision, v.Time, mod)
			}
			fmt.Fprintf(a.Out, "built with %s\n", v.GoVersion)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

func buildVersion() JSON {
	v := JSON{Version: "(unknown)", SDK: discovery.Version, GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Version, v.GoVersion = bi.Main.Version, bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}
