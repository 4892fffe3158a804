// Package scan surveys many origins for "wellknown scan": what each publishes at
// /.well-known/ (skills.md, mcp.json, an Agent Skills index), one Result per origin,
// written as JSON Lines. At most Options.Concurrency origins are scanned at once and
// at most Options.PerHost requests go to one host name at once, whatever its ports and
// schemes. The input is read as it comes, so memory follows the concurrency, not the
// length of the list; the set of lines seen keeps a fixed-size key per line.
//
// It is internal: its only interface is the command's JSON Lines, documented in the
// docs/wellknown.md; a Go program surveying origins calls Client.Structured and ListSkills itself.
package scan

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

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
)

// Bounds of a scan.
const (
	cacheBytes        = 4 << 20 // HTTP cache budget: a scan fetches each URL once, so keep it small
	maxScanLine       = 4 << 10 // longer input lines are reported as not an origin
	maxOriginRequests = 3       // requests one origin's scan has in flight at most
)

// Options configures a Scanner. Every field must be set but HTTPClient.
type Options struct {
	Concurrency int           // origins scanned at once
	PerHost     int           // requests in flight to one host name at once, over all its origins
	Timeout     time.Duration // time allowed to each origin, every document and retry included
	PublicOnly  bool          // refuse private origins (localhost, private IPs)
	HTTPClient  *http.Client  // base transport; nil: the SDK's own
	UserAgent   string
	// Families reads every family (Client.DiscoverAll): the AI Catalog with its nested
	// catalogs and cards (within the SDK's bounds; nothing on another origin, as the
	// scan grants no consent) and /skill.md as well, at a few more requests per origin.
	Families bool
}

// scanJob is one input line to scan.
type scanJob struct {
	input  string    // the line, trimmed and redacted
	origin string    // canonical origin; "" when err is set
	host   string    // the origin's host name: the politeness key
	key    resumeKey // deduplication and resume key (see resultKey)
	err    error     // the line is not an origin
}

// Scanner scans origins: the Client and limits shared by a scan's workers. Create it
// with New.
type Scanner struct {
	client      *discovery.Client // shared by all workers
	timeout     time.Duration
	concurrency int
	perHost     int
	families    bool
}

// New returns a Scanner: its Client has no consent (nothing is ever granted, so no
// prompt competes with the origins on stdin), a small HTTP cache, no last-good copies
// (a scan sees each document once; the SDK's in-memory last-good store is not
// bounded), one retry, and the per-host limit on every request.
func New(opts *Options) (*Scanner, error) {
	f := *opts
	requests := newHostLimiter(f.PerHost)
	c, err := discovery.NewClient(&discovery.Options{
		HTTPClient:                  f.HTTPClient,
		UserAgent:                   f.UserAgent,
		Consent:                     discovery.DenyAll,
		Cache:                       discovery.NewMemoryCache(cacheBytes),
		LastGood:                    noLastGood{},
		MaxStale:                    -1,
		MaxRetries:                  1,
		MaxRetryAfter:               min(f.Timeout/4, discovery.DefaultMaxRetryAfter),
		AttemptTimeout:              min(f.Timeout, discovery.DefaultAttemptTimeout),
		DocumentTimeout:             f.Timeout,
		InsecureAllowPrivateOrigins: !f.PublicOnly,
		WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
			return &politeTransport{base: rt, hosts: requests}
		},
	})
	if err != nil {
		return nil, err
	}
	return &Scanner{client: c, timeout: f.Timeout, concurrency: f.Concurrency, perHost: f.PerHost, families: f.Families}, nil
}

// CloseIdleConnections closes the idle connections of the Scanner's Client.
func (s *Scanner) CloseIdleConnections() { s.client.CloseIdleConnections() }

// Run scans the origins read from in, one per line (blank lines and lines starting
// with # are skipped, and lines in done, which it extends), and writes one Result per
// origin to out as JSON Lines, counting them in st. It returns when in ends, when ctx
// is done (the results of origins in progress are then dropped: a resumed run scans
// them again), or when out fails (writeErr); readErr is the input's error.
func (s *Scanner) Run(ctx context.Context, in io.Reader, out io.Writer, done *ResumeSet, st *Stats) (writeErr, readErr error) {
	// An origin sends at most 3 requests at once (skills.md and mcp.json, then the index
	// paths, in parallel with them), so with n/3 origins of a host in progress the
	// request limit never makes one origin wait for another's: a site that hangs on one
	// port cannot eat the timeout of its other ports.
	perHostOrigins := max(1, s.perHost/maxOriginRequests)
	ctx, cancel := context.WithCancel(ctx) // also cancelled when results cannot be written
	defer cancel()

	jobs := make(chan scanJob)
	work := make(chan scanJob)
	finished := make(chan string, s.concurrency) // room for each worker's last one
	results := make(chan Result, s.concurrency)
	readErrc := make(chan error, 1)
	go func() {
		defer close(jobs)
		readErrc <- readOrigins(ctx, in, done, st, jobs)
	}()
	// The dispatcher stops on ctx too: the reader may be stuck on a terminal or a pipe.
	go dispatch(ctx, jobs, work, finished, perHostOrigins, 4*s.concurrency)
	var wg sync.WaitGroup
	for range s.concurrency {
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
	case rerr = <-readErrc: // the workers ended because the input did
	case <-ctx.Done(): // interrupted: the reader may still be blocked on the input
	}
	return werr, rerr
}

// noLastGood is a LastGoodStore that keeps nothing.
type noLastGood struct{}

func (noLastGood) Load(string) (discovery.LastGood, bool) { return discovery.LastGood{}, false }
func (noLastGood) Store(string, discovery.LastGood)       {}
func (noLastGood) Delete(string)                          {}

// readOrigins sends a job for each origin line of in that is not a comment, a
// duplicate or already in done (which it extends), until in ends or ctx is done.
func readOrigins(ctx context.Context, in io.Reader, done *ResumeSet, st *Stats, jobs chan<- scanJob) error {
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
		st.Read.Add(1)
		if !done.add(j.key) {
			st.Skipped.Add(1)
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
		shown = cmdutil.Clean(shown, 256)
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
func (s *Scanner) scan(ctx context.Context, j scanJob) Result {
	r := Result{Input: j.input, Origin: j.origin}
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
	if s.families {
		o := s.all(octx, j.origin)
		d, derr, ix, ierr = o.d, o.derr, o.ix, o.ierr
	} else {
		wg.Go(func() { d, derr = s.client.Structured(octx, j.origin) })
		wg.Go(func() { ix, ierr = s.client.ListSkills(octx, j.origin) })
		wg.Wait()
	}
	r.fillFamilies(d)
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

// Stats counts a scan's progress. Its fields are updated by the reader and the
// writer and read by the progress display.
type Stats struct {
	Start      time.Time    // when the scan started, for the rate
	Read       atomic.Int64 // origin lines read (comments and blank lines excluded)
	Skipped    atomic.Int64 // already in --output, or duplicates
	Done       atomic.Int64 // results written
	Failed     atomic.Int64 // results with an error
	Publishing atomic.Int64 // results where something is published
}

func (st *Stats) add(r Result) {
	st.Done.Add(1)
	if r.Error != "" || r.SkillsMD.Error != "" || r.MCPJSON.Error != "" || r.SkillsIndex.Error != "" {
		st.Failed.Add(1)
	}
	if r.SkillsMD.Published || r.MCPJSON.Published || r.SkillsIndex.Published {
		st.Publishing.Add(1)
	}
}

// Line is the progress text: counts and rate so far.
func (st *Stats) Line() string {
	el := time.Since(st.Start)
	done := st.Done.Load()
	rate := 0.0
	if el > 0 {
		rate = float64(done) / el.Seconds()
	}
	return fmt.Sprintf("scan: %d done of %d read, %d publishing, %d with errors, %d skipped; %.0f/s",
		done, st.Read.Load(), st.Publishing.Load(), st.Failed.Load(), st.Skipped.Load(), rate)
}

// Summary is the last progress line.
func (st *Stats) Summary() string {
	return fmt.Sprintf("scan: %s scanned in %s: %d publishing, %d with errors; %d skipped (duplicates or already in the output)",
		cmdutil.Plural(int(st.Done.Load()), "origin"), time.Since(st.Start).Round(10*time.Millisecond), st.Publishing.Load(), st.Failed.Load(), st.Skipped.Load())
}

// allOutcome is what one DiscoverAll call says of the documents and of the index.
type allOutcome struct {
	d          *discovery.Discovery
	ix         *discovery.SkillsIndex
	derr, ierr error
}

// all reads every family of origin with one DiscoverAll call, which reads the skills
// index too: the index's outcome is taken from it (a failure other than "not
// published" is then one of the discovery's warnings).
func (s *Scanner) all(ctx context.Context, origin string) allOutcome {
	d, err := s.client.DiscoverAll(ctx, origin)
	if d != nil && d.All != nil && d.All.Skills != nil {
		return allOutcome{d: d, derr: err, ix: d.All.Skills}
	}
	ierr := fmt.Errorf("%w: %s (%s and %s)", discovery.ErrNotPublished, origin, agentskills.IndexPath, agentskills.LegacyIndexPath)
	if err != nil && !errors.Is(err, discovery.ErrNotPublished) {
		ierr = err
	}
	return allOutcome{d: d, derr: err, ierr: ierr}
}
