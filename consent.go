package discovery

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// ConsentAction names an action that needs the user's consent. The zero value is not a
// valid action.
type ConsentAction int

const (
	// ConsentRedirect: a discovery fetch was redirected to another origin. Granting it
	// lets the Client follow that one hop.
	ConsentRedirect ConsentAction = iota + 1
	// ConsentConnect: connect to an MCP server or tool that the discovery document lists
	// on another origin: the user decides before the agent talks to another party.
	ConsentConnect
	// ConsentCrossOrigin: an agent API call through [Client.Guard] to an origin
	// other than the discovery origin.
	ConsentCrossOrigin
	// ConsentWrite: an agent API call with a method other than GET, HEAD or OPTIONS,
	// or one that can write whatever its method (an upgrade, CONNECT, a method
	// override): the agent prefers read-only actions unless the user asks for a write.
	ConsentWrite
	// ConsentArtifact: download a skill artifact (SKILL.md, archive, file) that a
	// site's skills index lists on another origin.
	ConsentArtifact
)

// String returns a stable, lower-case name for the action, such as "write".
func (a ConsentAction) String() string {
	switch a {
	case ConsentRedirect:
		return "redirect"
	case ConsentConnect:
		return "connect"
	case ConsentCrossOrigin:
		return "cross-origin"
	case ConsentWrite:
		return "write"
	case ConsentArtifact:
		return "artifact"
	}
	return fmt.Sprintf("ConsentAction(%d)", int(a))
}

// ConsentRequest describes an action the Client or the policy guard is about to take.
// Every string in it is redacted (no userinfo or fragment, no query but as below) and
// bounded (URL at most [MaxConsentURL] bytes, Reason at most [MaxConsentReason]).
// Reason may quote text from a published document: that text is untrusted and for
// display only. The URL of an agent's own call ([ConsentCrossOrigin], [ConsentWrite])
// keeps its query so that the person sees what they approve, with the value of each
// parameter whose name suggests a credential shown as "…"; other values (an e-mail
// address, a search) are shown as sent: log such a request's URL with care. Events and
// errors about it carry the parameter names only.
type ConsentRequest struct {
	Action ConsentAction
	Origin Origin // the discovery origin: the site the user asked about
	URL    string // the target of the action, redacted and shortened
	Method string // the HTTP method, such as "GET" or "POST"
	Reason string // a sentence for the user, such as "redirect from https://a.example to https://b.example"
	// Subject names what the action is about, when known: the MCP server for a
	// connection, the tool for a tools/call write, the skill for an artifact. It may
	// quote a published document: untrusted, for display only, at most
	// MaxConsentSubject bytes.
	Subject string
	// Credentials is true when the request would carry the caller's credentials to
	// another origin: a header or query parameter whose name suggests one
	// (Authorization, Cookie, Proxy-Authorization, X-Api-Key, Cf-Access-Jwt-Assertion,
	// X-Session-Id, ?access_token=, ?api_key=, ?sig=, or the header mcp.json names for
	// the key), or a value that looks like one whatever its name (a JSON Web Token, a
	// bearer token, a key of a known format, an opaque token in a custom header).
	// Granting such a request lets them go; refusing it refuses the whole call (an
	// error wrapping ErrConsentDenied): nothing is sent. Credentials that a
	// GuardOptions.Base transport adds are invisible to the guard.
	Credentials bool

	// longSubject and longURL identify the whole Subject and URL when the ones shown
	// were shortened, so that RememberConsent never lets one answer stand for two
	// subjects (or two write URLs) that share their first MaxConsentSubject bytes.
	longSubject, longURL string
	// hiddenQuery identifies the query when URL shows some of its values as "…" (see
	// secrets.ConsentURL): a remembered answer for "?access=read" is none for "?access=admin".
	hiddenQuery string
	// once marks a request whose Subject holds AmbiguousSubject: it cannot be told
	// apart from another, so RememberConsent keeps no answer for it.
	once bool
}

// AmbiguousSubject is the Subject, or the part of one, that names a request whose
// subject cannot be told exactly: a malformed or ambiguous JSON-RPC message, a body too
// large to read. A GuardOptions.Subject hook returns it for such a request. A consent
// request whose Subject holds it is for that request only: [RememberConsent] answers
// it from no per-subject memory and remembers no answer given for it, so a "yes,
// always" to one ambiguous call is no yes to the next.
const AmbiguousSubject = "a malformed or ambiguous request"

// Bounds of what a consent prompt shows: a site controls the URLs it redirects to or
// lists, and a 60 KB path must not fill the user's screen.
const (
	MaxConsentURL     = 256
	MaxConsentReason  = 512
	MaxConsentSubject = 128
)

// ConsentFunc reports whether the Client may perform req.Action.
//
// It is called before the action, never while the Client holds a lock, and may be called
// from several goroutines at once: it must be safe for concurrent use. A person may take
// their time: the time spent answering never counts against AttemptTimeout,
// DocumentTimeout or SkillTimeout; only ctx (the caller's context) bounds it, so return
// as soon as ctx is done. To remember answers for a scope, see [RememberConsent]. Returning false denies the action, and the
// caller's error wraps [ErrConsentDenied] (or [ErrCrossOrigin] for a redirect). Returning
// an error aborts the call with that error wrapped. req must not be retained or modified.
//
// A nil ConsentFunc in [Options] behaves as [DenyAll]: consent fails closed.
type ConsentFunc func(ctx context.Context, req *ConsentRequest) (bool, error)

// DenyAll is the default [ConsentFunc]: it denies every action.
func DenyAll(ctx context.Context, req *ConsentRequest) (bool, error) { return false, nil }

// AllowAll is a [ConsentFunc] that grants every action. It is for tests and trusted
// automation only: an agent acting for a user should ask the user.
func AllowAll(ctx context.Context, req *ConsentRequest) (bool, error) { return true, nil }

// errConsentHook marks an error returned by a ConsentFunc, so that no retry or last
// good copy hides it.
var errConsentHook = errors.New("discovery: consent callback failed")

// ask runs the consent function and turns its answer into an error: nil when granted,
// one wrapping deny when refused, and one wrapping the hook's error when it failed.
// c, when not nil, receives the consent events.
func ask(ctx context.Context, c *Client, f ConsentFunc, req *ConsentRequest, deny error) error {
	if f == nil {
		f = DenyAll
	}
	target, subject := req.URL, secrets.Scrub(req.Subject)
	if strings.Contains(req.Subject, AmbiguousSubject) {
		req.once = true // before shortening, which may cut the marker off
	}
	req.URL = shorten(target, MaxConsentURL)
	req.Reason = shorten(secrets.Scrub(req.Reason), MaxConsentReason)
	req.Subject = shorten(subject, MaxConsentSubject)
	if req.URL != target {
		req.longURL = identity(target)
	}
	if req.Subject != subject {
		req.longSubject = identity(subject)
	}
	// The prompt of an agent's call shows its query (secrets.ConsentURL); events and errors,
	// which reach logs, traces and the model, keep the parameter names only.
	shown := queryNamesOnly(req.URL)
	var start time.Time
	if c != nil {
		start = time.Now()
		c.emit(ctx, Event{Kind: EventConsentAsked, Origin: req.Origin.String(), URL: shown, Action: req.Action})
	}
	ok, err := f(ctx, req)
	if c != nil {
		c.emit(ctx, Event{Kind: EventConsentAnswered, Origin: req.Origin.String(), URL: shown, Action: req.Action,
			Granted: ok && err == nil, Err: err, Duration: time.Since(start)})
	}
	switch {
	case err != nil:
		return fmt.Errorf("%w for %s %s: %w", errConsentHook, req.Action, shown, err)
	case !ok:
		return fmt.Errorf("%w: %s %s (%s)", deny, req.Method, shown, req.Action)
	}
	return nil
}

// queryNamesOnly returns the URL u of a consent request with each query value
// replaced by "…" ("?q=…&page=…").
func queryNamesOnly(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		return u[:i] + secrets.QueryNames(u[i:])
	}
	return u
}

// shorten cuts s to at most n bytes, on a rune boundary, ending in "…" when cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ellipsis = "…"
	cut := n - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

// Scope is how long a remembered consent answer holds ([RememberConsent]).
type Scope int

const (
	// Once: the answer is for this request only; nothing is remembered.
	Once Scope = iota
	// ForSubject: the same action, on the same origin and target origin, about the same
	// subject (the same tool, server or skill; without one, the same method and URL),
	// for as long as the ConsentMemory lasts.
	ForSubject
	// ForOrigin: the same action on the same origin and target origin, whatever the
	// subject.
	ForOrigin
)

// String returns "once", "subject" or "origin".
func (s Scope) String() string {
	switch s {
	case Once:
		return "once"
	case ForSubject:
		return "subject"
	case ForOrigin:
		return "origin"
	}
	return fmt.Sprintf("Scope(%d)", int(s))
}

// ConsentAnswer is a person's answer and how long it holds.
type ConsentAnswer struct {
	Allow bool
	Scope Scope
}

// AskFunc asks a person and returns the answer with its scope. It is the hook
// RememberConsent wraps; the same rules as for ConsentFunc apply.
type AskFunc func(ctx context.Context, req *ConsentRequest) (ConsentAnswer, error)

// ConsentMemory keeps remembered answers. NewConsentMemory returns one in memory;
// implementations must be safe for concurrent use.
type ConsentMemory interface {
	// Recall returns the answer remembered under key.
	Recall(key string) (ConsentAnswer, bool)
	// Remember stores an answer under key.
	Remember(key string, a ConsentAnswer)
}

// NewConsentMemory returns a ConsentMemory that lasts as long as the process (a
// session). Answers() lists what it holds, so a host can show and revoke them.
func NewConsentMemory() *MemoryConsent { return &MemoryConsent{m: map[string]ConsentAnswer{}} }

// MemoryConsent is the in-memory ConsentMemory.
type MemoryConsent struct {
	mu sync.Mutex
	m  map[string]ConsentAnswer
}

// Recall returns the answer remembered under key.
func (m *MemoryConsent) Recall(key string) (ConsentAnswer, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.m[key]
	return a, ok
}

// Remember stores an answer under key.
func (m *MemoryConsent) Remember(key string, a ConsentAnswer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[key] = a
}

// Forget drops every remembered answer.
func (m *MemoryConsent) Forget() {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.m)
}

// Answers returns the remembered answers by key ("connect https://a.example →
// https://b.example [subject tool x]"), for a host to show.
func (m *MemoryConsent) Answers() map[string]ConsentAnswer {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.m)
}

// RememberConsent returns a ConsentFunc that asks ask only when no remembered answer
// covers the request, and remembers each answer for the scope the person chose. A
// request that would send credentials to another origin is never answered from memory
// unless the remembered answer was given for a request that did too; a yes given for
// one with credentials covers the same request without them. A redirect
// (ConsentRedirect) answered for its subject is remembered for the pair of origins:
// the person is asked once for every redirect between them. Writes (ConsentWrite)
// are remembered per subject at most (a ForOrigin answer is kept as ForSubject): an
// answer for one tool never covers another. A request whose Subject holds
// [AmbiguousSubject] is asked every time, whatever the scope of the answer, unless an
// answer for the whole origin (not a write) covers it; its own answer is kept for
// nothing beyond that request.
func RememberConsent(ask AskFunc, memory ConsentMemory) ConsentFunc {
	turn := make(chan struct{}, 1) // one question at a time
	return func(ctx context.Context, req *ConsentRequest) (bool, error) {
		once := req.once || strings.Contains(req.Subject, AmbiguousSubject)
		if allow, ok := recallConsent(memory, req, once); ok {
			return allow, nil
		}
		// Requests that arrive together (a document and an index behind the same
		// redirect) wait for the first answer and are answered from it, not asked twice.
		select {
		case turn <- struct{}{}:
		case <-ctx.Done():
			return false, context.Cause(ctx)
		}
		defer func() { <-turn }()
		if allow, ok := recallConsent(memory, req, once); ok {
			return allow, nil
		}
		a, err := ask(ctx, req)
		if err != nil {
			return false, err
		}
		keys := consentKeys(req)
		switch {
		case once:
			// This request only: it cannot be told apart from the next ambiguous one.
		case a.Scope == ForOrigin && req.Action != ConsentWrite, a.Scope == ForSubject && req.Action == ConsentRedirect:
			a.Scope = ForOrigin // a redirect is a question about the other origin, not one of its paths
			memory.Remember(keys[1], a)
		case a.Scope == ForSubject || a.Scope == ForOrigin:
			// A write is remembered per subject at most, and Answers says so.
			a.Scope = ForSubject
			memory.Remember(keys[0], a)
		}
		return a.Allow, nil
	}
}

// recallConsent returns the remembered answer that covers req, if any; once: req has
// no subject to be recalled by, only an answer for the whole origin covers it.
func recallConsent(memory ConsentMemory, req *ConsentRequest, once bool) (allow, ok bool) {
	keys := consentKeys(req)
	if once {
		keys = keys[1:]
	}
	for _, k := range keys {
		if a, ok := memory.Recall(k); ok {
			return a.Allow, true
		}
	}
	if req.Credentials {
		return false, false
	}
	// A yes for the same request with credentials covers it without them.
	withCreds := *req
	withCreds.Credentials = true
	credKeys := consentKeys(&withCreds)
	if once {
		credKeys = credKeys[1:]
	}
	for _, k := range credKeys {
		if a, ok := memory.Recall(k); ok && a.Allow {
			return true, true
		}
	}
	return false, false
}

// consentKeys returns the keys a request is remembered under: per subject first, then
// per origin.
func consentKeys(req *ConsentRequest) []string {
	target := req.URL
	if u, err := url.Parse(req.URL); err == nil {
		if o, err := splitOrigin(u); err == nil {
			target = o.String()
		}
	}
	base := fmt.Sprintf("%s %s → %s", req.Action, req.Origin, target)
	if req.Credentials {
		base += " [credentials]"
	}
	subject := req.Subject + req.longSubject
	if subject == "" {
		subject = req.Method + " " + req.URL + req.longURL + req.hiddenQuery // without a named subject, the subject is this request
	}
	return []string{base + " [subject " + subject + "]", base}
}

// hiddenQuery returns, when hidden, a keyed digest of u's query: it tells apart in a
// remembered answer's key two requests whose prompts show the same "…", without
// putting a digest of a credential where a dictionary could be run against it (the
// key is random per process, so such answers last as long as the process).
func hiddenQuery(u *url.URL, hidden bool) string {
	if !hidden || u == nil {
		return ""
	}
	m := hmac.New(sha256.New, queryKey())
	m.Write([]byte(u.RawQuery))
	return " ?#" + hex.EncodeToString(m.Sum(nil)[:12])
}

// queryKey is the process's random key for hiddenQuery.
var queryKey = sync.OnceValue(func() []byte { return []byte(rand.Text()) })

// identity is a short digest of a subject or URL too long to show whole: appended to
// its shortened form in a remembered answer's key, it tells apart two that share the
// part shown.
func identity(s string) string {
	sum := sha256.Sum256([]byte(s))
	return " #" + hex.EncodeToString(sum[:12])
}
