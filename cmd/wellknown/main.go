// Command wellknown discovers, checks, installs and surveys what web origins publish for
// AI agents at /.well-known/: skills.md, mcp.json, Agent Skills indexes and SKILL.md.
//
// Install:
//
//	go install github.com/wellknown-dev/discovery/cmd/wellknown@latest
//
// Run "wellknown --help" for the commands, "wellknown demo" for a discovery of an
// embedded demo origin (no network needed). The commands live in internal/cmd, one
// package per noun, and the command tree in internal/root.
package main

import (
	"os"

	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/root"
)

func main() {
	os.Exit(root.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
