package scan

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/scan"
)

// Scan defaults and bounds.
const (
	defaultScanConcurrency = 64
	defaultScanPerHost     = 2
	defaultScanTimeout     = 5 * time.Second
	defaultScanProgress    = 10 * time.Second // a plain progress line this often when stderr is not a terminal
)

// scanFlags are the flags of wellknown scan.
type scanFlags struct {
	concurrency int
	perHost     int
	timeout     time.Duration
	output      string
	quiet       bool
	publicOnly  bool
	families    bool
	progress    time.Duration // hidden: the plain progress interval (tests shorten it)
}

func (a *app) scanCommand() *cobra.Command {
	f := scanFlags{}
	cmd := &cobra.Command{
		Use:   "scan < origins.txt",
		Short: "Survey many origins: what each publishes at /.well-known/, as JSON Lines",
		Long: `Scan reads origins from standard input, one per line (blank lines and lines
starting with # are skipped, duplicates are scanned once), and writes one JSON object
per origin (JSON Lines, fields in docs/wellknown.md): whether it publishes skills.md, mcp.json
(shape, servers, tools) and an Agent Skills index (version, skills), the HTTP statuses,
errors (redacted) and the time taken. A line that is not an origin gets a result with
an error.

At most --concurrency origins are scanned at once, and at most --per-host requests go
to one host name at once, whatever its ports and schemes, so a list where many origins
share a site does not hammer it (origins of one host are scanned one at a time, or
--per-host/3 at a time). Each origin gets --timeout in all, retries included, counted
from its start: waiting for its host does not count. No consent is ever granted,
--yes included: a redirect to another origin is reported, not followed.

Private origins (localhost, 10.0.0.9, http://127.0.0.1:8080) are scanned, since a
person provides the list. For a list from untrusted sources, pass --public-only: it
refuses origins that are themselves private, as the SDK does by default. Public origins
are never allowed to reach private addresses either way.

With --output FILE, results are appended to FILE, and origins whose result FILE
already holds are skipped: rerun the same command after an interruption to resume. A
last line cut short by a killed run is removed and its origin scanned again.

Progress goes to stderr: a live counter on a terminal, otherwise a plain line every
10 seconds and a summary at the end; --quiet prints neither.`,
		Example: `  wellknown scan < origins.txt > results.jsonl
  wellknown scan --output results.jsonl --concurrency 128 < origins.txt
  jq -r 'select(.skills_md.published) | .origin' results.jsonl`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cmdutil.UsageError{Err: fmt.Errorf("%s takes no arguments: origins come on standard input, one per line", cmd.CommandPath())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case f.concurrency < 1 || f.concurrency > 4096:
				return cmdutil.UsageError{Err: fmt.Errorf("--concurrency must be between 1 and 4096, not %d", f.concurrency)}
			case f.perHost < 1 || f.perHost > 64:
				return cmdutil.UsageError{Err: fmt.Errorf("--per-host must be between 1 and 64, not %d", f.perHost)}
			case f.timeout <= 0:
				return cmdutil.UsageError{Err: fmt.Errorf("--timeout must be positive, not %s", f.timeout)}
			case f.progress <= 0:
				return cmdutil.UsageError{Err: fmt.Errorf("--progress-interval must be positive, not %s", f.progress)}
			}
			return a.scan(cmd.Context(), f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.concurrency, "concurrency", defaultScanConcurrency, "origins scanned at once")
	fl.IntVar(&f.perHost, "per-host", defaultScanPerHost, "requests in flight to one host name at once, over all its origins")
	fl.DurationVar(&f.timeout, "timeout", defaultScanTimeout, "time allowed to each origin, every document and retry included")
	fl.StringVarP(&f.output, "output", "o", "", "append results to `FILE`, skipping origins it already holds (resume)")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print no progress on stderr")
	fl.BoolVar(&f.publicOnly, "public-only", false, "refuse private origins (localhost, private IPs): for lists from untrusted sources")
	fl.BoolVar(&f.families, "families", false, "read every family: the AI Catalog and its MCP Server Cards, and /skill.md (a few more requests per origin); adds families and cards to each result")
	fl.DurationVar(&f.progress, "progress-interval", defaultScanProgress, "interval of the plain progress line when stderr is not a terminal")
	_ = fl.MarkHidden("progress-interval")
	return cmd
}

// scan runs wellknown scan.
func (a *app) scan(ctx context.Context, f scanFlags) error {
	out := a.Out
	done := scan.NewResumeSet()
	if f.output != "" {
		file, prev, bad, err := scan.OpenResumable(f.output)
		if err != nil {
			return err
		}
		defer file.Close()
		out, done = file, prev
		if !f.quiet && (done.Len() > 0 || bad > 0) {
			msg := fmt.Sprintf("scan: resuming: %s already holds %s", f.output, cmdutil.Plural(done.Len(), "result"))
			if bad > 0 {
				msg += fmt.Sprintf(" (and %s that are not results, ignored)", cmdutil.Plural(bad, "line"))
			}
			a.Notef("%s", msg)
		}
	}
	hc, err := a.HTTPClient()
	if err != nil {
		return err
	}
	s, err := scan.New(&scan.Options{
		Concurrency: f.concurrency,
		PerHost:     f.perHost,
		Timeout:     f.timeout,
		PublicOnly:  f.publicOnly,
		Families:    f.families,
		HTTPClient:  hc,
		UserAgent:   "wellknown/" + discovery.Version,
	})
	if err != nil {
		return err
	}
	defer s.CloseIdleConnections()
	var st scan.Stats
	stop := a.scanProgress(&st, f)
	defer stop()
	werr, rerr := s.Run(ctx, a.In, out, done, &st)
	stop()
	switch {
	case werr != nil:
		return fmt.Errorf("writing results: %w", werr)
	case ctx.Err() != nil:
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Err: fmt.Errorf("scan interrupted after %s%s", cmdutil.Plural(int(st.Done.Load()), "result"), resumeHint(f))}
	case rerr != nil:
		return fmt.Errorf("reading origins: %w", rerr)
	}
	if !f.quiet {
		a.Notef("%s", st.Summary())
	}
	return nil
}

func resumeHint(f scanFlags) string {
	if f.output == "" {
		return ""
	}
	return "; run the same command again to resume"
}

// scanProgress shows st on stderr until the returned function is called: a live line
// on a terminal, else a plain line every f.progress; nothing with --quiet.
func (a *app) scanProgress(st *scan.Stats, f scanFlags) (stop func()) {
	st.Start = time.Now()
	if f.quiet {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	if a.CanRewrite() {
		p := a.Progress("scan: starting")
		wg.Go(func() {
			t := time.NewTicker(200 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-quit:
					p.Stop()
					return
				case <-t.C:
					p.Set(st.Line())
				}
			}
		})
	} else {
		wg.Go(func() {
			t := time.NewTicker(f.progress)
			defer t.Stop()
			for {
				select {
				case <-quit:
					return
				case <-t.C:
					a.Notef("%s", st.Line())
				}
			}
		})
	}
	return sync.OnceFunc(func() {
		close(quit)
		wg.Wait()
	})
}
