// Package cmdutil is what every wellknown command shares: the process's streams and
// environment (App), the discovery Client a command uses, consent on the terminal,
// progress, colour, cleaning of published text for printing, exit statuses and the
// --budget of commands that walk an index.
package cmdutil

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/internal/termtext"
)

// App is what every subcommand shares: the process's streams and environment, and the
// global flags. Subcommands read it; only the root command and its flags write it.
// Create it with New.
type App struct {
	In     io.Reader
	Out    io.Writer // results: text, JSON or JSON Lines
	ErrOut io.Writer // diagnostics, progress and prompts
	Getenv func(string) string

	Yes bool // --yes: grant every consent request (for scripts)

	// consent state (see consent): one memory for the whole run.
	consentOnce sync.Once
	consentFn   discovery.ConsentFunc
	askMu       sync.Mutex // one consent question at a time
	inOnce      sync.Once
	inBuf       *bufio.Reader // a.In, buffered on first use

	// terminal state on stderr, shared by the spinner and prompts.
	ttyMu     sync.Mutex
	spinning  bool // a progress spinner owns the current stderr line
	prompting bool // a consent question is on screen: the spinner waits
}

// Exit statuses, documented in docs/wellknown.md.
const (
	ExitOK       = 0 // success
	ExitFailure  = 1 // an error, or (lint) problems of severity error found
	ExitUsage    = 2 // bad flags or arguments
	ExitNotFound = 3 // discover: the origin publishes neither document
)

// UsageError marks an error in flags or arguments: exit status 2.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// ExitError carries an exit status chosen by a subcommand, with an optional message.
type ExitError struct {
	Code int
	Err  error // nil: nothing more to print
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}
func (e *ExitError) Unwrap() error { return e.Err }

// New returns the App of one run with the given streams, reading the environment
// through getenv (os.Getenv in the binary).
func New(in io.Reader, out, errOut io.Writer, getenv func(string) string) *App {
	return &App{In: in, Out: out, ErrOut: errOut, Getenv: getenv}
}

// CAFileEnv names an extra PEM file of CA certificates that App.Client trusts besides
// the system roots. It is for tests (loopback TLS servers with a test CA) and is not
// shown in --help; docs/wellknown.md lists it under "For tests".
const CAFileEnv = "WELLKNOWN_CA_FILE"

// Client returns a discovery Client for origins a person typed: private origins are
// allowed (http://localhost:8080 is fine on a command line) and consent goes through
// a.consent. opts may be nil; it is copied. Fields already set in opts are kept.
func (a *App) Client(opts *discovery.Options) (*discovery.Client, error) {
	return a.ClientFor(opts, true)
}

// ClientFor is Client with the choice of private origins: false for origins the
// person did not type (read from files that came with a cloned repository, say),
// unless a flag says the person asked for them.
func (a *App) ClientFor(opts *discovery.Options, allowPrivate bool) (*discovery.Client, error) {
	o, err := a.Options(opts, allowPrivate)
	if err != nil {
		return nil, err
	}
	return discovery.NewClient(o)
}

// Options returns the Options ClientFor would build a Client with, for code that
// makes its Client itself (skillbundle.Write). opts may be nil; it is copied.
func (a *App) Options(opts *discovery.Options, allowPrivate bool) (*discovery.Options, error) {
	var o discovery.Options
	if opts != nil {
		o = *opts
	}
	o.InsecureAllowPrivateOrigins = allowPrivate
	if o.Consent == nil {
		o.Consent = a.Consent()
	}
	if o.UserAgent == "" {
		o.UserAgent = "wellknown/" + discovery.Version
	}
	if o.HTTPClient == nil {
		hc, err := a.HTTPClient()
		if err != nil {
			return nil, err
		}
		o.HTTPClient = hc
	}
	return &o, nil
}

// HTTPClient returns nil (the SDK's own transport) unless WELLKNOWN_CA_FILE names a PEM
// file: then a transport that trusts those CAs as well as the system roots.
func (a *App) HTTPClient() (*http.Client, error) {
	name := a.Getenv(CAFileEnv)
	if name == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (unset %s or point it at a PEM file)", CAFileEnv, err, CAFileEnv)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s: %s holds no PEM certificate", CAFileEnv, name)
	}
	return &http.Client{Transport: &http.Transport{
		ForceAttemptHTTP2:   true,
		TLSHandshakeTimeout: 10 * time.Second,
		TLSClientConfig:     &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool},
	}}, nil
}

// Consent returns the run's ConsentFunc: with --yes every request is granted (and
// said on stderr); on a terminal the person is asked, y/N, and the answer holds for
// the same action and target for the rest of the run; without a terminal every request
// is denied, with a hint on stderr. All calls share one memory.
func (a *App) Consent() discovery.ConsentFunc {
	a.consentOnce.Do(func() {
		a.consentFn = discovery.RememberConsent(a.ask, discovery.NewConsentMemory())
	})
	return a.consentFn
}

// ask is the AskFunc behind consent.
func (a *App) ask(ctx context.Context, req *discovery.ConsentRequest) (discovery.ConsentAnswer, error) {
	what := DescribeConsent(req)
	switch {
	case a.Yes:
		a.Notef("consent granted (--yes): %s", what)
		return discovery.ConsentAnswer{Allow: true, Scope: discovery.ForSubject}, nil
	case !a.IsTerminal(a.In) || !a.IsTerminal(a.ErrOut):
		a.Notef("consent denied: %s (no terminal to ask on; pass --yes to allow)", what)
		return discovery.ConsentAnswer{Allow: false, Scope: discovery.ForSubject}, nil
	}
	yes, err := a.Confirm(ctx, a.Paint(ColorBold, "wellknown wants to:")+" "+what+"\nAllow?")
	if err != nil {
		return discovery.ConsentAnswer{}, err
	}
	// A redirect is a question about the other origin, not about one of its paths: the
	// answer holds for every redirect between the same two origins in this run (a
	// document and its index redirect together, with the same reason).
	scope := discovery.ForSubject
	if req.Action == discovery.ConsentRedirect {
		scope = discovery.ForOrigin
	}
	if !yes {
		fmt.Fprintln(a.ErrOut, "denied")
	}
	return discovery.ConsentAnswer{Allow: yes, Scope: scope}, nil
}

// DescribeConsent is one line for a person: the action, its target and the reason,
// with every published string cleaned (the SDK redacts them; Redact again strips any
// terminal control sequence).
func DescribeConsent(req *discovery.ConsentRequest) string {
	s := fmt.Sprintf("%s %s %s", req.Action, req.Method, req.URL)
	if req.Subject != "" {
		s += " (" + req.Subject + ")"
	}
	if req.Reason != "" {
		s += ": " + req.Reason
	}
	if req.Credentials {
		s += " [sends your credentials]"
	}
	return Clean(s, 1024)
}

// readLine reads one line from a.In, or returns ctx's error when ctx ends first.
func (a *App) readLine(ctx context.Context) (string, error) {
	a.inOnce.Do(func() { a.inBuf = bufio.NewReader(a.In) })
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		line, err := a.inBuf.ReadString('\n')
		if err == io.EOF && line != "" {
			err = nil
		}
		ch <- result{line, err}
	}()
	select {
	case r := <-ch:
		if r.err == io.EOF {
			return "", nil // end of input: no answer is no
		}
		return r.line, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Notef prints a diagnostic line on stderr, prefixed "wellknown: ".
func (a *App) Notef(format string, args ...any) {
	a.ttyMu.Lock()
	defer a.ttyMu.Unlock()
	if a.spinning {
		fmt.Fprint(a.ErrOut, "\r\033[K")
	}
	fmt.Fprintf(a.ErrOut, "wellknown: "+format+"\n", args...)
}

// IsTerminal reports whether f (a stream such as a.Out) is an *os.File, or anything
// with an Fd method, open on a terminal.
func (a *App) IsTerminal(f any) bool {
	fd, ok := f.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(fd.Fd()))
}

// CanRewrite reports whether stderr is a terminal that understands "\r\033[K" (a
// spinner's redraw): not with TERM=dumb, which has no cursor control.
func (a *App) CanRewrite() bool {
	return a.Getenv("TERM") != "dumb" && a.IsTerminal(a.ErrOut)
}

// Color reports whether output on stdout may use ANSI colour: only on a terminal, and
// never when NO_COLOR is set to anything (https://no-color.org) or TERM is "dumb".
func (a *App) Color() bool {
	return a.Getenv("NO_COLOR") == "" && a.Getenv("TERM") != "dumb" && a.IsTerminal(a.Out)
}

// colorErr is color for stderr.
func (a *App) colorErr() bool {
	return a.Getenv("NO_COLOR") == "" && a.Getenv("TERM") != "dumb" && a.IsTerminal(a.ErrOut)
}

// ANSI styles for paint.
const (
	ColorBold   = "1"
	ColorRed    = "31"
	ColorGreen  = "32"
	ColorYellow = "33"
	ColorCyan   = "36"
	ColorDim    = "2"
)

// Paint wraps s in the ANSI style when stderr may use colour (prompts, notes).
func (a *App) Paint(style, s string) string {
	if !a.colorErr() {
		return s
	}
	return "\033[" + style + "m" + s + "\033[0m"
}

// Style wraps s in the ANSI style when stdout may use colour (results).
func (a *App) Style(style, s string) string {
	if !a.Color() {
		return s
	}
	return "\033[" + style + "m" + s + "\033[0m"
}

// PrintJSON writes v to stdout as indented JSON followed by a newline, with no HTML
// escaping ("<" stays "<").
func (a *App) PrintJSON(v any) error {
	enc := json.NewEncoder(a.Out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Clean makes text a site published safe to print on one line of a terminal (see
// termtext.Clean).
func Clean(s string, limit int) string { return termtext.Clean(s, limit) }

// CleanText is Clean for multi-line text (see termtext.CleanText).
func CleanText(s string) string { return termtext.CleanText(s) }

// StripEscapes removes every terminal escape sequence from s (see
// termtext.StripEscapes).
func StripEscapes(s string) string { return termtext.StripEscapes(s) }

// DefaultBudget is the time in all a command that walks an index (lint, skills
// install and update, mcp skills) has by default: every artifact is bounded on its
// own, but a site that trickles each one could otherwise hold the command for hours.
const DefaultBudget = 2 * time.Minute

// AddBudgetFlag adds --budget to cmd, read into d.
func AddBudgetFlag(cmd *cobra.Command, d *time.Duration) {
	cmd.Flags().DurationVar(d, "budget", DefaultBudget, "time allowed to the whole command, every document and artifact included; what is not done in time is reported by name")
}

// CheckBudget refuses a --budget that is not positive.
func CheckBudget(d time.Duration) error {
	if d <= 0 {
		return UsageError{fmt.Errorf("--budget must be positive, not %s", d)}
	}
	return nil
}

// budgetError is the cause of a command's context when its --budget ran out.
type budgetError struct{ budget time.Duration }

func (e *budgetError) Error() string {
	return fmt.Sprintf("the --budget of %s ran out first (raise --budget to allow more time)", e.budget)
}

// WithBudget returns ctx bounded by the command's --budget: when it runs out, the
// context's cause is a *budgetError (see budgetSpent).
func WithBudget(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, &budgetError{d})
}

// BudgetSpent reports whether ctx ended because its --budget ran out (not because
// the run was interrupted).
func BudgetSpent(ctx context.Context) bool {
	var be *budgetError
	return ctx.Err() != nil && errors.As(context.Cause(ctx), &be)
}

// NotInTime says that the budget of ctx ran out before something was done, and what
// to do about it.
func NotInTime(ctx context.Context, what string) string {
	return fmt.Sprintf("not %s: %v", what, context.Cause(ctx))
}

// Plural is "1 file", "2 files": n and the noun, with an s unless n is 1.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// PrivateHint rewrites the SDK's advice on a refused private origin ("set
// Options.InsecureAllowPrivateOrigins", an option a command-line user cannot set) into hint,
// the command's own words: its flag, or why it refuses.
func PrivateHint(err error, hint string) string {
	msg := err.Error()
	var pe *discovery.PrivateAddressError
	if !errors.As(err, &pe) || !pe.Origin {
		return msg
	}
	const sdk = "set Options.InsecureAllowPrivateOrigins when a person, not a model, chose it (local development)"
	if strings.Contains(msg, sdk) {
		return strings.Replace(msg, sdk, hint, 1)
	}
	return msg + " (" + hint + ")"
}

// Spinner is a spinner on stderr for work that can take more than a second. It
// shows only when stderr is a terminal; otherwise its methods do nothing. Stop it
// before printing results. A consent prompt pauses it.
type Spinner struct {
	a    *App
	mu   sync.Mutex
	msg  string
	done chan struct{}
	wg   sync.WaitGroup
}

// Progress starts a spinner showing msg. Call Stop when the work ends.
func (a *App) Progress(msg string) *Spinner {
	p := &Spinner{a: a, msg: Clean(msg, 200), done: make(chan struct{})}
	if !a.CanRewrite() {
		return p
	}
	a.ttyMu.Lock()
	a.spinning = true
	a.ttyMu.Unlock()
	p.wg.Add(1)
	go p.spin()
	return p
}

func (p *Spinner) spin() {
	defer p.wg.Done()
	frames := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	t := time.NewTicker(120 * time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		p.mu.Lock()
		msg := p.msg
		p.mu.Unlock()
		p.a.ttyMu.Lock()
		if !p.a.prompting {
			fmt.Fprintf(p.a.ErrOut, "\r\033[K%s %s", frames[i%len(frames)], msg)
		}
		p.a.ttyMu.Unlock()
		select {
		case <-p.done:
			return
		case <-t.C:
		}
	}
}

// Set changes the message shown.
func (p *Spinner) Set(msg string) {
	p.mu.Lock()
	p.msg = Clean(msg, 200)
	p.mu.Unlock()
}

// Stop removes the spinner. It may be called more than once.
func (p *Spinner) Stop() {
	p.mu.Lock()
	select {
	case <-p.done:
		p.mu.Unlock()
		return
	default:
		close(p.done)
	}
	p.mu.Unlock()
	p.wg.Wait()
	p.a.ttyMu.Lock()
	defer p.a.ttyMu.Unlock()
	if p.a.spinning {
		p.a.spinning = false
		fmt.Fprint(p.a.ErrOut, "\r\033[K")
	}
}
