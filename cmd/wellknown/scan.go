package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery"
)

func init() { register((*app).scanCommand) }

// Scan defaults and bounds.
const (
	defaultScanConcurrency = 64
	defaultScanPerHost     = 2
	defaultScanTimeout     = 5 * time.Second
	defaultScanProgress    = 10 * time.Second // a plain progress line this often when stderr is not a terminal
	scanCacheBytes         = 4 << 20          // HTTP cache budget: a scan fetches each URL once, so keep it small
	maxScanLine            = 4 << 10          // longer input lines are reported as not an origin
	maxOriginRequests      = 3                // requests one origin's scan has in flight at most
)

// scanFlags are the flags of wellknown scan.
type scanFlags struct {
	concurrency int
	perHost     int
	timeout     time.Duration
	output      string
	quiet       bool
	publicOnly  bool
	progress    time.Duration // hidden: the plain progress interval (tests shorten it)
}

func (a *app) scanCommand() *cobra.Command {
	f := scanFlags{}
	cmd := &cobra.Command{
		Use:   "scan < origins.txt",
		Short: "Survey many origins: what each publishes at /.well-known/, as JSON Lines",
		Long: `Scan reads origins from standard input, one per line (blank lines and lines
starting with # are skipped, duplicates are scanned once), and writes one JSON object
per origin (JSON Lines, fields in the README): whether it publishes skills.md, mcp.json
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
				return usageError{fmt.Errorf("%s takes no arguments: origins come on standard input, one per line", cmd.CommandPath())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case f.concurrency < 1 || f.concurrency > 4096:
				return usageError{fmt.Errorf("--concurrency must be between 1 and 4096, not %d", f.concurrency)}
			case f.perHost < 1 || f.perHost > 64:
				return usageError{fmt.Errorf("--per-host must be between 1 and 64, not %d", f.perHost)}
			case f.timeout <= 0:
				return usageError{fmt.Errorf("--timeout must be positive, not %s", f.timeout)}
			case f.progress <= 0:
				return usageError{fmt.Errorf("--progress-interval must be positive, not %s", f.progress)}
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
	fl.DurationVar(&f.progress, "progress-interval", defaultScanProgress, "interval of the plain progress line when stderr is not a terminal")
	_ = fl.MarkHidden("progress-interval")
	return cmd
}

// scanJob is one input line to scan.
type scanJob struct {
	input  string    // the line, trimmed and redacted
	origin string    // canonical origin; "" when err is set
	host   string    // the origin's host name: the politeness key
	key    resumeKey // deduplication and resume key (see resultKey)
	err    error     // the line is not an origin
}

// scanner is the state shared by a scan's workers.
type scanner struct {
	client  *discovery.Client // shared by all workers
	timeout time.Duration
}

// scan runs wellknown scan.
func (a *app) scan(ctx context.Context, f scanFlags) error {
	out := a.out
	done := newResumeSet()
	if f.output != "" {
		file, prev, bad, err := openResumable(f.output)
		if err != nil {
			return err
		}
		defer file.Close()
		out, done = file, prev
		if !f.quiet && (done.len() > 0 || bad > 0) {
			msg := fmt.Sprintf("scan: resuming: %s already holds %s", f.output, plural(done.len(), "result"))
			if bad > 0 {
				msg += fmt.Sprintf(" (and %s that are not results, ignored)", plural(bad, "line"))
			}
			a.notef("%s", msg)
		}
	}
	c, err := a.scanClient(f)
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()
	// An origin sends at most 3 requests at once (skills.md and mcp.json, then the index
	// paths, in parallel with them), so with n/3 origins of a host in progress the
	// request limit never makes one origin wait for another's: a site that hangs on one
	// port cannot eat the timeout of its other ports.
	perHostOrigins := max(1, f.perHost/maxOriginRequests)
	s := &scanner{client: c, timeout: f.timeout}

	var st scanStats
	stop := a.scanProgress(&st, f)
	defer stop()
	interrupted := ctx
	ctx, cancel := context.WithCancel(ctx) // also cancelled when results cannot be written
	defer cancel()

	jobs := make(chan scanJob)
	work := make(chan scanJob)
	finished := make(chan string, f.concurrency) // room for each worker's last one
	results := make(chan scanResult, f.concurrency)
	readErr := make(chan error, 1)
	go func() {
		defer close(jobs)
		readErr <- readOrigins(ctx, a.in, done, &st, jobs)
	}()
	// The dispatcher stops on ctx too: the reader may be stuck on a terminal or a pipe.
	go dispatch(ctx, jobs, work, finished, perHostOrigins, 4*f.concurrency)
	var wg sync.WaitGroup
	for range f.concurrency {
		wg.Go(func() {
			for j := range work {
				r := s.scan(ctx, j)
				finished <- j.host
				if ctx.Err() != nil {
					continue // interrupted: not a result; a resumed run scans it again
				}
				results <- r
			}
		})
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	w := bufio.NewWriterSize(out, 64<<10)
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false)
	var werr error
	for r := range results {
		if werr != nil {
			continue // drain, so that the workers end
		}
		line.Reset()
		if werr = enc.Encode(r); werr == nil {
			_, werr = w.Write(line.Bytes())
		}
		if werr == nil && len(results) == 0 {
			werr = w.Flush() // nothing else ready: make what we have durable for a resume
		}
		if werr != nil {
			cancel() // no point scanning what cannot be written
			continue
		}
		st.add(r)
	}
	if werr == nil {
		werr = w.Flush()
	}
	var rerr error
	select {
	case rerr = <-readErr: // the workers ended because the input did
	case <-ctx.Done(): // interrupted: the reader may still be blocked on the input
	}
	stop()
	switch {
	case werr != nil:
		return fmt.Errorf("writing results: %w", werr)
	case interrupted.Err() != nil:
		return &exitError{code: exitFailure, err: fmt.Errorf("scan interrupted after %s%s", plural(int(st.done.Load()), "result"), resumeHint(f))}
	case rerr != nil:
		return fmt.Errorf("reading origins: %w", rerr)
	}
	if !f.quiet {
		a.notef("%s", st.summary())
	}
	return nil
}

func resumeHint(f scanFlags) string {
	if f.output == "" {
		return ""
	}
	return "; run the same command again to resume"
}

// scanClient returns the Client all workers share: no consent (nothing is ever
// granted, so no prompt competes with the origins on stdin), a small HTTP cache, no
// last-good copies (a scan sees each document once; the SDK's in-memory last-good
// store is not bounded), one retry, and the per-host limit on every request.
func (a *app) scanClient(f scanFlags) (*discovery.Client, error) {
	hc, err := a.httpClient()
	if err != nil {
		return nil, err
	}
	requests := newHostLimiter(f.perHost)
	return discovery.NewClient(&discovery.Options{
		HTTPClient:          hc,
		UserAgent:           "wellknown/" + discovery.Version,
		Consent:             discovery.DenyAll,
		Cache:               discovery.NewMemoryCacheSize(scanCacheBytes),
		LastGood:            noLastGood{},
		MaxStale:            -1,
		MaxRetries:          1,
		MaxRetryAfter:       min(f.timeout/4, discovery.DefaultMaxRetryAfter),
		AttemptTimeout:      min(f.timeout, discovery.DefaultAttemptTimeout),
		DocumentTimeout:     f.timeout,
		AllowPrivateOrigins: !f.publicOnly,
		WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
			return &politeTransport{base: rt, hosts: requests}
		},
	})
}

// noLastGood is a LastGoodStore that keeps nothing.
type noLastGood struct{}

func (noLastGood) Load(string) (discovery.LastGood, bool) { return discovery.LastGood{}, false }
func (noLastGood) Store(string, discovery.LastGood)       {}
func (noLastGood) Delete(string)                          {}

// readOrigins sends a job for each origin line of in that is not a comment, a
// duplicate or already in done (which it extends), until in ends or ctx is done.
func readOrigins(ctx context.Context, in io.Reader, done *resumeSet, st *scanStats, jobs chan<- scanJob) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		raw, long, err := readLine(r)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		j := newJob(line, long)
		st.read.Add(1)
		if !done.add(j.key) {
			st.skipped.Add(1)
			continue
		}
		select {
		case jobs <- j:
		case <-ctx.Done():
			return nil
		}
	}
}

// readLine returns the next line of r without its line ending, cut to maxScanLine
// bytes (long reports the cut). It returns io.EOF only when no line is left.
func readLine(r *bufio.Reader) (line string, long bool, err error) {
	var b []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if err != nil {
			if errors.Is(err, io.EOF) && len(b) > 0 {
				return string(b), long, nil
			}
			return "", false, err
		}
		if room := maxScanLine - len(b); len(chunk) > room {
			chunk, long = chunk[:room], true
		}
		b = append(b, chunk...)
		if !isPrefix {
			return string(b), long, nil
		}
	}
}

// newJob makes the job for one input line.
func newJob(line string, long bool) scanJob {
	shown := discovery.Redact(line)
	if long {
		shown = clean(shown, 256)
		return scanJob{input: shown, key: keyOf("input " + shown), err: fmt.Errorf("line longer than %d bytes", maxScanLine)}
	}
	o, err := discovery.ParseOrigin(line)
	if err != nil {
		return scanJob{input: shown, key: keyOf("input " + shown), err: err}
	}
	return scanJob{input: shown, origin: o.String(), host: o.Host, key: keyOf(o.String())}
}

// scan scans one origin: skills.md and mcp.json (Structured) and the skills index
// (ListSkills), in parallel, within s.timeout.
func (s *scanner) scan(ctx context.Context, j scanJob) scanResult {
	r := scanResult{Input: j.input, Origin: j.origin}
	if j.err != nil {
		r.Error = discovery.Redact(j.err.Error())
		r.ScannedAt = time.Now().UTC().Format(time.RFC3339)
		return r
	}
	start := time.Now()
	octx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	rec := &scanRecorder{}
	octx = withRecorder(octx, rec)

	var d *discovery.Discovery
	var ix *discovery.SkillsIndex
	var derr, ierr error
	var wg sync.WaitGroup
	wg.Go(func() { d, derr = s.client.Structured(octx, j.origin) })
	wg.Go(func() { ix, ierr = s.client.ListSkills(octx, j.origin) })
	wg.Wait()
	r.fillDiscovery(d, derr, rec)
	r.fillIndex(ix, ierr, rec)
	// The deadline may have passed before octx's timer marked it (an attempt's own
	// timeout, as long, can end the calls first): look at the clock as well.
	if deadline, _ := octx.Deadline(); ctx.Err() == nil &&
		(errors.Is(octx.Err(), context.DeadlineExceeded) || !time.Now().Before(deadline)) {
		r.Error = fmt.Sprintf("timed out after %s", s.timeout)
	}
	r.DurationMS = time.Since(start).Milliseconds()
	r.ScannedAt = time.Now().UTC().Format(time.RFC3339)
	return r
}

// scanStats counts a scan's progress. Its fields are updated by the reader and the
// writer and read by the progress display.
type scanStats struct {
	start      time.Time
	read       atomic.Int64 // origin lines read (comments and blank lines excluded)
	skipped    atomic.Int64 // already in --output, or duplicates
	done       atomic.Int64 // results written
	failed     atomic.Int64 // results with an error
	publishing atomic.Int64 // results where something is published
}

func (st *scanStats) add(r scanResult) {
	st.done.Add(1)
	if r.Error != "" || r.SkillsMD.Error != "" || r.MCPJSON.Error != "" || r.SkillsIndex.Error != "" {
		st.failed.Add(1)
	}
	if r.SkillsMD.Published || r.MCPJSON.Published || r.SkillsIndex.Published {
		st.publishing.Add(1)
	}
}

// line is the progress text: counts and rate so far.
func (st *scanStats) line() string {
	el := time.Since(st.start)
	done := st.done.Load()
	rate := 0.0
	if el > 0 {
		rate = float64(done) / el.Seconds()
	}
	return fmt.Sprintf("scan: %d done of %d read, %d publishing, %d with errors, %d skipped; %.0f/s",
		done, st.read.Load(), st.publishing.Load(), st.failed.Load(), st.skipped.Load(), rate)
}

// summary is the last progress line.
func (st *scanStats) summary() string {
	return fmt.Sprintf("scan: %s scanned in %s: %d publishing, %d with errors; %d skipped (duplicates or already in the output)",
		plural(int(st.done.Load()), "origin"), time.Since(st.start).Round(10*time.Millisecond), st.publishing.Load(), st.failed.Load(), st.skipped.Load())
}

// scanProgress shows st on stderr until the returned function is called: a live line
// on a terminal, else a plain line every f.progress; nothing with --quiet.
func (a *app) scanProgress(st *scanStats, f scanFlags) (stop func()) {
	st.start = time.Now()
	if f.quiet {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	if a.canRewrite() {
		p := a.progress("scan: starting")
		wg.Go(func() {
			t := time.NewTicker(200 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-quit:
					p.Stop()
					return
				case <-t.C:
					p.Set(st.line())
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
					a.notef("%s", st.line())
				}
			}
		})
	}
	return sync.OnceFunc(func() {
		close(quit)
		wg.Wait()
	})
}
