package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery"
)

// app is what every subcommand shares: the process's streams and environment, and the
// global flags. Subcommands read it; only run and the root command's flags write it.
type app struct {
	in     io.Reader
	out    io.Writer // results: text, JSON or JSON Lines
	errOut io.Writer // diagnostics, progress and prompts
	getenv func(string) string

	yes bool // --yes: grant every consent request (for scripts)
}

// usageError marks an error in flags or arguments: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitError carries an exit status chosen by a subcommand, with an optional message.
type exitError struct {
	code int
	err  error // nil: nothing more to print
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// run executes the command line args and returns the exit status.
func run(args []string, in io.Reader, out, errOut io.Writer) int {
	a := &app{in: in, out: out, errOut: errOut, getenv: os.Getenv}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errOut)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(errOut, "wellknown:", discovery.Redact(ee.err.Error()))
		}
		return ee.code
	}
	fmt.Fprintln(errOut, "wellknown:", discovery.Redact(err.Error()))
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFailure
}

// rootCommand builds the command tree from the registered subcommands.
func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "wellknown",
		Short:         "Discover, check, install and survey what sites publish for AI agents",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().BoolVarP(&a.yes, "yes", "y", false, "grant every consent request (for scripts); without it and without a terminal, requests are denied")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	for _, f := range commands {
		root.AddCommand(f(a))
	}
	return root
}
