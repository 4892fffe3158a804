package main

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
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/internal/fence"
)

// app is what every subcommand shares: the process's streams and environment, and the
// global flags. Subcommands read it; only run and the root command's flags write it.
type app struct {
	in     io.Reader
	out    io.Writer // results: text, JSON or JSON Lines
	errOut io.Writer // diagnostics, progress and prompts
	getenv func(string) string

	yes bool // --yes: grant every consent request (for scripts)

	// consent state (see consent): one memory for the whole run.
	consentOnce sync.Once
	consentFn   discovery.ConsentFunc
	askMu       sync.Mutex // one consent question at a time
	inOnce      sync.Once
	inBuf       *bufio.Reader // a.in, buffered on first use

	// terminal state on stderr, shared by the spinner and prompts.
	ttyMu     sync.Mutex
	spinning  bool // a progress spinner owns the current stderr line
	prompting bool // a consent question is on screen: the spinner waits
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
	root.Example = `  wellknown demo
  wellknown discover example.com
  wellknown lint public/.well-known
  wellknown mcp servers example.com`
	// An unknown subcommand is a usage error (exit 2), with cobra's suggestions.
	root.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return usageError{fmt.Errorf("%s (see \"wellknown --help\")", msg)}
	}
	root.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	for _, f := range commands {
		root.AddCommand(f(a))
	}
	root.InitDefaultCompletionCmd()
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "completion":
			c.Example = "  wellknown completion bash > ~/.local/share/bash-completion/completions/wellknown\n  wellknown completion zsh > \"${fpath[1]}/_wellknown\""
			// An unknown shell, or none, is a usage error (exit 2), as for every command.
			c.Args = func(_ *cobra.Command, args []string) error {
				if len(args) > 0 {
					return usageError{fmt.Errorf("completion: unknown shell %q: want bash, zsh, fish or powershell", clean(args[0], 80))}
				}
				return nil
			}
			c.RunE = func(*cobra.Command, []string) error {
				return usageError{errors.New("completion: name a shell: bash, zsh, fish or powershell; see \"wellknown completion --help\"")}
			}
			for _, sh := range c.Commands() {
				if sh.Example == "" {
					sh.Example = "  wellknown completion " + sh.Name() + " --help"
				}
			}
		case "help":
			c.Example = "  wellknown help lint"
		}
	}
	return root
}

// caFileEnv names an extra PEM file of CA certificates that app.client trusts besides
// the system roots. It is for tests (loopback TLS servers with a test CA) and is not
// shown in --help; the README lists it under "For tests".
const caFileEnv = "WELLKNOWN_CA_FILE"

// client returns a discovery Client for origins a person typed: private origins are
// allowed (http://localhost:8080 is fine on a command line) and consent goes through
// a.consent. opts may be nil; it is copied. Fields already set in opts are kept.
func (a *app) client(opts *discovery.Options) (*discovery.Client, error) {
	return a.clientFor(opts, true)
}

// clientFor is client with the choice of private origins: false for origins the
// person did not type (read from files that came with a cloned repository, say),
// unless a flag says the person asked for them.
func (a *app) clientFor(opts *discovery.Options, allowPrivate bool) (*discovery.Client, error) {
	var o discovery.Options
	if opts != nil {
		o = *opts
	}
	o.AllowPrivateOrigins = allowPrivate
	if o.Consent == nil {
		o.Consent = a.consent()
	}
	if o.UserAgent == "" {
		o.UserAgent = "wellknown/" + discovery.Version
	}
	if o.HTTPClient == nil {
		hc, err := a.httpClient()
		if err != nil {
			return nil, err
		}
		o.HTTPClient = hc
	}
	return discovery.NewClient(&o)
}

// httpClient returns nil (the SDK's own transport) unless WELLKNOWN_CA_FILE names a PEM
// file: then a transport that trusts those CAs as well as the system roots.
func (a *app) httpClient() (*http.Client, error) {
	name := a.getenv(caFileEnv)
	if name == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (unset %s or point it at a PEM file)", caFileEnv, err, caFileEnv)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s: %s holds no PEM certificate", caFileEnv, name)
	}
	return &http.Client{Transport: &http.Transport{
		ForceAttemptHTTP2:   true,
		TLSHandshakeTimeout: 10 * time.Second,
		TLSClientConfig:     &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool},
	}}, nil
}

// consent returns the run's ConsentFunc: with --yes every request is granted (and
// said on stderr); on a terminal the person is asked, y/N, and the answer holds for
// the same action and target for the rest of the run; without a terminal every request
// is denied, with a hint on stderr. All calls share one memory.
func (a *app) consent() discovery.ConsentFunc {
	a.consentOnce.Do(func() {
		a.consentFn = discovery.RememberConsent(a.ask, discovery.NewConsentMemory())
	})
	return a.consentFn
}

// ask is the AskFunc behind consent.
func (a *app) ask(ctx context.Context, req *discovery.ConsentRequest) (discovery.ConsentAnswer, error) {
	what := describeConsent(req)
	switch {
	case a.yes:
		a.notef("consent granted (--yes): %s", what)
		return discovery.ConsentAnswer{Allow: true, Scope: discovery.ForSubject}, nil
	case !a.isTerminal(a.in) || !a.isTerminal(a.errOut):
		a.notef("consent denied: %s (no terminal to ask on; pass --yes to allow)", what)
		return discovery.ConsentAnswer{Allow: false, Scope: discovery.ForSubject}, nil
	}
	a.askMu.Lock() // one question at a time
	defer a.askMu.Unlock()
	a.ttyMu.Lock()
	a.prompting = true
	if a.canRewrite() {
		fmt.Fprint(a.errOut, "\r\033[K")
	}
	fmt.Fprintf(a.errOut, "%s %s\nAllow? [y/N] ", a.paint(colorBold, "wellknown wants to:"), what)
	a.ttyMu.Unlock()
	defer func() {
		a.ttyMu.Lock()
		a.prompting = false
		a.ttyMu.Unlock()
	}()
	line, err := a.readLine(ctx)
	if err != nil {
		return discovery.ConsentAnswer{}, err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return discovery.ConsentAnswer{Allow: true, Scope: discovery.ForSubject}, nil
	}
	fmt.Fprintln(a.errOut, "denied")
	return discovery.ConsentAnswer{Allow: false, Scope: discovery.ForSubject}, nil
}

// describeConsent is one line for a person: the action, its target and the reason,
// with every published string cleaned (the SDK redacts them; Redact again strips any
// terminal control sequence).
func describeConsent(req *discovery.ConsentRequest) string {
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
	return clean(s, 1024)
}

// readLine reads one line from a.in, or returns ctx's error when ctx ends first.
func (a *app) readLine(ctx context.Context) (string, error) {
	a.inOnce.Do(func() { a.inBuf = bufio.NewReader(a.in) })
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

// notef prints a diagnostic line on stderr, prefixed "wellknown: ".
func (a *app) notef(format string, args ...any) {
	a.ttyMu.Lock()
	defer a.ttyMu.Unlock()
	if a.spinning {
		fmt.Fprint(a.errOut, "\r\033[K")
	}
	fmt.Fprintf(a.errOut, "wellknown: "+format+"\n", args...)
}

// isTerminal reports whether f (a stream such as a.out) is an *os.File, or anything
// with an Fd method, open on a terminal.
func (a *app) isTerminal(f any) bool {
	fd, ok := f.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(fd.Fd()))
}

// canRewrite reports whether stderr is a terminal that understands "\r\033[K" (a
// spinner's redraw): not with TERM=dumb, which has no cursor control.
func (a *app) canRewrite() bool {
	return a.getenv("TERM") != "dumb" && a.isTerminal(a.errOut)
}

// color reports whether output on stdout may use ANSI colour: only on a terminal, and
// never when NO_COLOR is set to anything (https://no-color.org) or TERM is "dumb".
func (a *app) color() bool {
	return a.getenv("NO_COLOR") == "" && a.getenv("TERM") != "dumb" && a.isTerminal(a.out)
}

// colorErr is color for stderr.
func (a *app) colorErr() bool {
	return a.getenv("NO_COLOR") == "" && a.getenv("TERM") != "dumb" && a.isTerminal(a.errOut)
}

// ANSI styles for paint.
const (
	colorBold   = "1"
	colorRed    = "31"
	colorGreen  = "32"
	colorYellow = "33"
	colorCyan   = "36"
	colorDim    = "2"
)

// paint wraps s in the ANSI style when stderr may use colour (prompts, notes).
func (a *app) paint(style, s string) string {
	if !a.colorErr() {
		return s
	}
	return "\033[" + style + "m" + s + "\033[0m"
}

// style wraps s in the ANSI style when stdout may use colour (results).
func (a *app) style(style, s string) string {
	if !a.color() {
		return s
	}
	return "\033[" + style + "m" + s + "\033[0m"
}

// printJSON writes v to stdout as indented JSON followed by a newline, with no HTML
// escaping ("<" stays "<").
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// clean makes text a site published safe to print on one line of a terminal: control
// and escape sequences, bidi and format characters removed, line breaks folded,
// credentials and URL queries redacted, and the length capped at limit bytes.
func clean(s string, limit int) string { return fence.Clean(stripEscapes(s), "", limit) }

// cleanText is clean for multi-line text: line breaks are kept, every other control
// character (ESC included) removed, credentials and URL queries redacted.
func cleanText(s string) string { return discovery.Redact(stripEscapes(s)) }

// escapeSequence matches a whole terminal escape sequence, so that removing the ESC
// alone does not leave its text behind ("]8;;https://evil.test" of a hyperlink,
// "[2J" of a screen clear): CSI (ESC [ or U+009B, parameters, final byte), OSC, DCS,
// SOS, PM and APC strings (ESC ] P X ^ _ or their C1 forms, up to BEL or ST, or the
// end of the text when unterminated), and the two-byte ESC sequences.
var escapeSequence = regexp.MustCompile(`(?:\x1b\[|\x{9b})[0-?]*[ -/]*[@-~]?` +
	`|(?:\x1b[\]PX^_]|[\x{9d}\x{90}\x{98}\x{9e}\x{9f}])(?s:.*?)(?:\x07|\x1b\\|\x{9c}|$)` +
	`|\x1b[ -/]*[0-~]?`)

// stripEscapes removes every terminal escape sequence from s (see escapeSequence).
func stripEscapes(s string) string {
	if !strings.ContainsAny(s, "\x1b\u009b\u009d\u0090\u0098\u009e\u009f") {
		return s
	}
	return escapeSequence.ReplaceAllString(s, "")
}

// defaultBudget is the time in all a command that walks an index (lint, skills
// install and update, mcp skills) has by default: every artifact is bounded on its
// own, but a site that trickles each one could otherwise hold the command for hours.
const defaultBudget = 2 * time.Minute

// addBudgetFlag adds --budget to cmd, read into d.
func addBudgetFlag(cmd *cobra.Command, d *time.Duration) {
	cmd.Flags().DurationVar(d, "budget", defaultBudget, "time allowed to the whole command, every document and artifact included; what is not done in time is reported by name")
}

// checkBudget refuses a --budget that is not positive.
func checkBudget(d time.Duration) error {
	if d <= 0 {
		return usageError{fmt.Errorf("--budget must be positive, not %s", d)}
	}
	return nil
}

// budgetError is the cause of a command's context when its --budget ran out.
type budgetError struct{ budget time.Duration }

func (e *budgetError) Error() string { return fmt.Sprintf("the --budget of %s ran out", e.budget) }

// withBudget returns ctx bounded by the command's --budget: when it runs out, the
// context's cause is a *budgetError (see budgetSpent).
func withBudget(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, &budgetError{d})
}

// budgetSpent reports whether ctx ended because its --budget ran out (not because
// the run was interrupted).
func budgetSpent(ctx context.Context) bool {
	var be *budgetError
	return ctx.Err() != nil && errors.As(context.Cause(ctx), &be)
}

// notInTime says that the budget of ctx ran out before something was done, and what
// to do about it.
func notInTime(ctx context.Context, what string) string {
	return fmt.Sprintf("not %s: %v first (raise --budget to allow more time)", what, context.Cause(ctx))
}

// plural is "1 file", "2 files": n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// privateHint rewrites the SDK's advice on a refused private origin ("set
// Options.AllowPrivateOrigins", an option a command-line user cannot set) into hint,
// the command's own words: its flag, or why it refuses.
func privateHint(err error, hint string) string {
	msg := err.Error()
	var pe *discovery.PrivateAddressError
	if !errors.As(err, &pe) || !pe.Origin {
		return msg
	}
	const sdk = "set Options.AllowPrivateOrigins when a person, not a model, chose it (local development)"
	if strings.Contains(msg, sdk) {
		return strings.Replace(msg, sdk, hint, 1)
	}
	return msg + " (" + hint + ")"
}

// progress is a spinner on stderr for work that can take more than a second. It
// shows only when stderr is a terminal; otherwise its methods do nothing. Stop it
// before printing results. A consent prompt pauses it.
type progress struct {
	a    *app
	mu   sync.Mutex
	msg  string
	done chan struct{}
	wg   sync.WaitGroup
}

// progress starts a spinner showing msg. Call Stop when the work ends.
func (a *app) progress(msg string) *progress {
	p := &progress{a: a, msg: clean(msg, 200), done: make(chan struct{})}
	if !a.canRewrite() {
		return p
	}
	a.ttyMu.Lock()
	a.spinning = true
	a.ttyMu.Unlock()
	p.wg.Add(1)
	go p.spin()
	return p
}

func (p *progress) spin() {
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
			fmt.Fprintf(p.a.errOut, "\r\033[K%s %s", frames[i%len(frames)], msg)
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
func (p *progress) Set(msg string) {
	p.mu.Lock()
	p.msg = clean(msg, 200)
	p.mu.Unlock()
}

// Stop removes the spinner. It may be called more than once.
func (p *progress) Stop() {
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
		fmt.Fprint(p.a.errOut, "\r\033[K")
	}
}
