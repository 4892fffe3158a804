// Package lint is the "wellknown lint" command: flags, output and exit status around
// package lint of the module, which does the checking.
package lint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
	"github.com/wellknown-dev/discovery/lint"
	"github.com/wellknown-dev/discovery/trust"
)

func (a *app) lintCommand() *cobra.Command {
	var strict, explain bool
	var format, rootsFile string
	var budget time.Duration
	cmd := &cobra.Command{
		Use:   "lint [--strict] [--explain] [--format text|json|github|sarif] PATH|URL...",
		Short: "Check skills.md, mcp.json, SKILL.md, skill folders, skills indexes, AI Catalogs and Server Cards",
		Long: `Lint checks documents before they are published, or as a site serves them.

The kind of each PATH is told by its name and content: skills.md, mcp.json (checked
strictly against the JSON Schema of its spec_version), SKILL.md or a folder holding
one, and a skills index (index.json). A folder without a SKILL.md is searched for
those documents, also under .well-known/. A skills index is checked deeply: every
artifact it lists next to it is read, its size and digest verified, each SKILL.md
linted and its name compared with the index entry; the trust manifest beside it
(index.json.trust.json) must sign the index as it is and, with --trust-roots,
verify. An AI Catalog (ai-catalog.json,
*.ai-catalog.json, or a document with specVersion and entries) and an MCP Server
Card (server-card.json, *.server-card.json, or a document whose $schema is the
card's) are checked strictly against their schemas, with the cards a catalog holds
inline; a trust manifest beside an entry is reported as signed or not and, with
--trust-roots FILE (a JSON array of roots, as in docs/trust.md), verified.

What a client or "skills install" would refuse is an error: a document over the
clients' size limits, a published credential, an invalid or mismatched skill name, a
name listed twice, a link in a skill folder.

A URL is fetched through the discovery client, with its HTTPS, private-address and
consent rules: a URL of a document, or an origin (https://example.com) for all it
publishes, /.well-known/ai-catalog.json included. A catalog or card fetched is also
checked for how it is served: its media type (application/ai-catalog+json,
application/mcp-server-card+json), CORS (Access-Control-Allow-Origin), ETag and
Cache-Control, as warnings. The cards and nested catalogs a fetched catalog lists by
URL are fetched and checked too (at most 16, nested catalogs one level deep, a cycle
once; on another origin only with --yes).

The whole run has --budget (default 2m): a document or artifact not read when it
runs out is reported by name as an error (code budget), so a site that answers
slowly cannot hold lint for hours.

With --explain, lint also shows what the readers decided, as lines of severity
info that never make it fail: for mcp.json, each URL taken as an MCP endpoint with
the evidence for it (its keys, siblings, URL and score) and each candidate URL not
taken with why (a score under the threshold, plain http, a docs or repository key,
a transport that is not MCP...); for skills.md, the API base taken and where it was
stated (a label, a table, a nested list, a sentence, a request example), the
candidates set aside and why, and where each auth rule came from. In json and
sarif output each carries an "evidence" object.

Problems are printed as "file:line:col: severity: message [code]" (text), one JSON
object (json), GitHub workflow annotations (github) or SARIF 2.1.0 (sarif). Exit
status 0 when clean (warnings alone are clean unless --strict), 1 when problems of
severity error were found, 2 on usage errors.`,
		Example: `  wellknown lint public/.well-known/skills.md public/.well-known/mcp.json
  wellknown lint --strict skills/invoice-check
  wellknown lint --explain public/.well-known/mcp.json
  wellknown lint --format github public/.well-known
  wellknown lint --format sarif https://example.com > lint.sarif`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmdutil.UsageError{Err: errors.New("lint: name at least one PATH or URL; see \"wellknown lint --help\"")}
			}
			switch format {
			case "text", "json", "github", "sarif":
			default:
				return cmdutil.UsageError{Err: fmt.Errorf("lint: --format %q: want text, json, github or sarif", format)}
			}
			if err := cmdutil.CheckBudget(budget); err != nil {
				return err
			}
			for _, arg := range args {
				if isURL(arg) {
					continue
				}
				if _, err := os.Stat(arg); err != nil {
					return cmdutil.UsageError{Err: fmt.Errorf("lint: %s: no such file or folder (give a path to a document, a skill folder, or an https URL)", arg)}
				}
			}
			opts := &lint.Options{
				FollowCrossOriginRedirects: a.Yes || a.IsTerminal(a.In) && a.IsTerminal(a.ErrOut),
				UserAgent:                  "wellknown/" + discovery.Version,
				Explain:                    explain,
				FetchCrossOrigin:           a.Yes,
			}
			if rootsFile != "" {
				roots, err := readRoots(rootsFile)
				if err != nil {
					return cmdutil.UsageError{Err: err}
				}
				opts.TrustRoots = roots
			}
			if slices.ContainsFunc(args, isURL) {
				c, err := a.Client(nil)
				if err != nil {
					return err
				}
				opts.Client = c
			}
			ctx, cancel := cmdutil.WithBudget(cmd.Context(), budget)
			defer cancel()
			l := lint.New(opts)
			p := a.Progress("linting")
			for _, arg := range args {
				p.Set("linting " + arg)
				if err := l.Lint(ctx, arg); err != nil {
					p.Stop()
					var te *lint.TargetError
					if errors.As(err, &te) {
						return cmdutil.UsageError{Err: err}
					}
					return err
				}
			}
			p.Stop()
			rep := l.Report()
			if err := a.write(rep, format); err != nil {
				return err
			}
			errs, warns := rep.Count()
			if errs > 0 || strict && warns > 0 {
				return &cmdutil.ExitError{Code: cmdutil.ExitFailure}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "fail (exit 1) on warnings too")
	cmd.Flags().BoolVar(&explain, "explain", false, "also show, as info lines, the evidence for each endpoint, API base and auth rule the readers took, and why each candidate was not taken")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json, github or sarif")
	cmd.Flags().StringVar(&rootsFile, "trust-roots", "", "verify the trust manifests of AI Catalog entries against the roots in this JSON file (an array of {publisher, identity, origin, jwks, jwksUrl})")
	cmdutil.AddBudgetFlag(cmd, &budget)
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json", "github", "sarif"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// write prints rep in format: text (problems on stdout, a summary line on stderr),
// json, github or sarif.
func (a *app) write(rep *lint.Report, format string) error {
	switch format {
	case "json":
		return rep.WriteJSON(a.Out)
	case "github":
		return rep.WriteGitHub(a.Out)
	case "sarif":
		return rep.WriteSARIF(a.Out)
	}
	if err := rep.WriteText(a.Out, a.Color()); err != nil {
		return err
	}
	// One line on stderr in every case, so that a clean run says it checked something.
	errs, warns := rep.Count()
	if errs+warns == 0 {
		fmt.Fprintf(a.ErrOut, "%s checked: no problems\n", cmdutil.Plural(len(rep.Files), "file"))
		return nil
	}
	fmt.Fprintf(a.ErrOut, "%s checked: %s, %s\n", cmdutil.Plural(len(rep.Files), "file"), cmdutil.Plural(errs, "error"), cmdutil.Plural(warns, "warning"))
	return nil
}

// maxRootsBytes caps the --trust-roots file.
const maxRootsBytes = 1 << 20

// readRoots reads the --trust-roots file: a JSON array of trust.Root.
func readRoots(name string) ([]trust.Root, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("lint: --trust-roots: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRootsBytes+1))
	if err != nil {
		return nil, fmt.Errorf("lint: --trust-roots: %w", err)
	}
	if len(data) > maxRootsBytes {
		return nil, fmt.Errorf("lint: --trust-roots: %s is larger than %d bytes", name, maxRootsBytes)
	}
	var roots []trust.Root
	if err := json.Unmarshal(data, &roots); err != nil {
		return nil, fmt.Errorf("lint: --trust-roots: %s is not a JSON array of trust roots: %w", name, err)
	}
	return roots, nil
}

// isURL reports whether a lint argument is a URL rather than a path.
func isURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

// app is the run's shared state, with this command's methods.
type app struct{ *cmdutil.App }

// New returns the "wellknown lint" command, which runs with c.
func New(c *cmdutil.App) *cobra.Command {
	a := &app{c}
	return a.lintCommand()
}
