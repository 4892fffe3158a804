// Command wellknown discovers, checks, installs and surveys what web origins publish for
// AI agents at /.well-known/: skills.md, mcp.json, Agent Skills indexes and SKILL.md.
//
// Install:
//
//	go install github.com/wellknown-dev/discovery/cmd/wellknown@latest
//
// Run "wellknown --help" for the commands, "wellknown demo" for a discovery of an
// embedded demo origin (no network needed).
package main

import (
	"os"

	"github.com/spf13/cobra"
)

// Exit statuses, documented in the README.
const (
	exitOK       = 0 // success
	exitFailure  = 1 // an error, or (lint) problems of severity error found
	exitUsage    = 2 // bad flags or arguments
	exitNotFound = 3 // discover: the origin publishes neither document
)

// commands holds the constructors of the subcommands; each subcommand's file registers
// its own in an init function, so files stay independent.
var commands []func(*app) *cobra.Command

// register adds a subcommand constructor.
func register(f func(*app) *cobra.Command) { commands = append(commands, f) }

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
