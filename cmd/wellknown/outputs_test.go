package main

// The tests of this package drive the built binary and decode what it prints into the
// commands' own output types; these names keep them short.

import (
	"io"
	"os"

	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmd/discover"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmd/mcp"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmd/skills"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmd/version"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/root"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/scan"
	"github.com/wellknown-dev/discovery/internal/skillrules"
	"github.com/wellknown-dev/discovery/lint"
)

const (
	caFileEnv    = cmdutil.CAFileEnv
	exitFailure  = cmdutil.ExitFailure
	exitUsage    = cmdutil.ExitUsage
	exitNotFound = cmdutil.ExitNotFound

	statusInstalled       = skills.StatusInstalled
	statusReplaced        = skills.StatusReplaced
	statusUpdated         = skills.StatusUpdated
	statusUnchanged       = skills.StatusUnchanged
	statusRemovedUpstream = skills.StatusRemovedUpstream
	statusRefused         = skills.StatusRefused
	statusFailed          = skills.StatusFailed
	statusPending         = skills.StatusPending
	recordFile            = skillrules.RecordFile
)

type (
	discoveryJSON  = discover.DiscoveryJSON
	serverJSON     = discover.ServerJSON
	lintFile       = lint.File
	mcpServersJSON = mcp.ServersJSON
	mcpSkillsJSON  = mcp.SkillsJSON
	scanResult     = scan.Result
	skillResult    = skills.Result
	skillsListJSON = skills.ListJSON
	skillsGetJSON  = skills.GetJSON
	localSkillJSON = skills.LocalSkillJSON
	fileJSON       = skills.FileJSON
	diagnosticJSON = skills.DiagnosticJSON
	versionJSON    = version.JSON
)

const (
	kindSkillsMD = lint.KindSkillsMD
	kindMCPJSON  = lint.KindMCPJSON
	kindSkillMD  = lint.KindSkillMD
	kindIndex    = lint.KindIndex
)

// run runs wellknown in the test process, as main does.
func run(args []string, in io.Reader, out, errOut io.Writer) int {
	return root.Run(args, in, out, errOut, os.Getenv)
}

var (
	readRecord   = skills.ReadRecord
	stripEscapes = cmdutil.StripEscapes
)

// sarifLog is the part of a SARIF log the tests read.
type sarifLog struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Rules []struct {
					ID string `json:"id"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex int    `json:"ruleIndex"`
		} `json:"results"`
	} `json:"runs"`
}
