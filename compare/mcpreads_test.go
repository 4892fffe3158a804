package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPSectionSurvivesEitherSide: docs/comparison.md is written by two runs, the
// install side and the MCP side; each rewrites its own part and keeps the other's,
// and the MCP section stays before the install notes.
func TestMCPSectionSurvivesEitherSide(t *testing.T) {
	t.Parallel()
	install := func(n string) string {
		return "# Title\n\n## Result\n\ninstall table " + n + "\n\n" + mcpAnchor + "\n\nnotes " + n + "\n"
	}
	section := func(n string) string {
		return mcpBegin + "\n## MCP skill reads\n\nmcp table " + n + "\n" + mcpEnd + "\n"
	}
	path := filepath.Join(t.TempDir(), "comparison.md")

	// The MCP side first, into a file the install side wrote.
	doc := spliceMCP(install("1"), section("1"))
	// The MCP side again: its section replaced, once.
	doc = spliceMCP(doc, section("2"))
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	// The install side: its part replaced, the MCP section kept.
	doc = keepMCP(path, install("3"))
	for _, want := range []string{"install table 3", "mcp table 2", "notes 3"} {
		if !strings.Contains(doc, want) {
			t.Errorf("document lacks %q:\n%s", want, doc)
		}
	}
	for _, stale := range []string{"install table 1", "mcp table 1", "notes 1"} {
		if strings.Contains(doc, stale) {
			t.Errorf("document keeps %q:\n%s", stale, doc)
		}
	}
	if strings.Count(doc, mcpBegin) != 1 || strings.Index(doc, "mcp table 2") > strings.Index(doc, mcpAnchor) {
		t.Errorf("the MCP section is not once, before %q:\n%s", mcpAnchor, doc)
	}
	// A file without an MCP section is written as the install side made it.
	if got := keepMCP(filepath.Join(t.TempDir(), "none.md"), install("4")); got != install("4") {
		t.Errorf("keepMCP without a section = %q", got)
	}
}
