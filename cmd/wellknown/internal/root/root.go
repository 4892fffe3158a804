// Package root is the wellknown command tree: the root command, its global flags and
// its subcommands, one package per noun, added explicitly.
package root

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmd/demo"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmd/discover"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmd/lint"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmd/mcp"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmd/scan"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmd/serve"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmd/sign"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmd/skills"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmd/version"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
)

// Run executes the command line args with the process's streams and environment and
// returns the exit status. An interrupt, SIGTERM or SIGHUP cancels the command's
// context: the command stops and cleans up, and Run returns its status.
func Run(args []string, in io.Reader, out, errOut io.Writer, getenv func(string) string) int {
	a := cmdutil.New(in, out, errOut, getenv)
	root := New(a)
	root.SetArgs(args)
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errOut)
	// Ctrl-C, kill (SIGTERM) and a closed terminal (SIGHUP) all cancel the context, so
	// that every command stops cleanly: servers shut down, temporary folders removed.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return cmdutil.ExitOK
	}
	var ee *cmdutil.ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintln(errOut, "wellknown:", discovery.Redact(ee.Err.Error()))
		}
		return ee.Code
	}
	fmt.Fprintln(errOut, "wellknown:", discovery.Redact(err.Error()))
	var ue cmdutil.UsageError
	if errors.As(err, &ue) {
		return cmdutil.ExitUsage
	}
	return cmdutil.ExitFailure
}

//go:generate go test -run ^TestCLIReference$ -update

// New builds the command tree: the root command and, added explicitly, one command
// per noun.
func New(a *cmdutil.App) *cobra.Command {
	root := &cobra.Command{
		Use:           "wellknown",
		Short:         "Discover, check, install and survey what sites publish for AI agents",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().BoolVarP(&a.Yes, "yes", "y", false, "grant every consent request (for scripts); without it and without a terminal, requests are denied")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdutil.UsageError{Err: err} })
	root.Example = `  wellknown demo
  wellknown discover example.com
  wellknown lint public/.well-known
  wellknown mcp servers example.com`
	// An unknown subcommand is a usage error (exit 2), with cobra's suggestions.
	root.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return cmdutil.UsageError{Err: fmt.Errorf("%s (see \"wellknown --help\")", msg)}
	}
	root.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	root.AddCommand(
		demo.New(a),
		discover.New(a),
		lint.New(a),
		mcp.New(a),
		scan.New(a),
		serve.New(a),
		sign.New(a),
		skills.New(a),
		version.New(a),
	)
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "completion":
			c.Example = "  wellknown completion bash > ~/.local/share/bash-completion/completions/wellknown\n  wellknown completion zsh > \"${fpath[1]}/_wellknown\""
			// An unknown shell, or none, is a usage error (exit 2), as for every command.
			c.Args = func(_ *cobra.Command, args []string) error {
				if len(args) > 0 {
					return cmdutil.UsageError{Err: fmt.Errorf("completion: unknown shell %q: want bash, zsh, fish or powershell", cmdutil.Clean(args[0], 80))}
				}
				return nil
			}
			c.RunE = func(*cobra.Command, []string) error {
				return cmdutil.UsageError{Err: errors.New("completion: name a shell: bash, zsh, fish or powershell; see \"wellknown completion --help\"")}
			}
			for _, sh := range c.Commands() {
				if sh.Example == "" {
					sh.Example = "  wellknown completion " + sh.Name() + " --help"
				}
			}
		case "help":
			c.Example = "  wellknown help lint"
		}
	}
	return root
}
