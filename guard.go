package discovery

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/wellknown-dev/discovery/internal/netguard"
	"github.com/wellknown-dev/discovery/internal/secrets"
	"github.com/wellknown-dev/discovery/mcpjson"
)

// Guard returns the policy guard: an [http.RoundTripper] that enforces the discovery
// policy of d's origin on the agent's own API calls, then sends them through
// opts.Base (nil: the Client's own transport, with its TLS roots, proxy and dialer, and
// one connection pool per policy class shared by every guard of the Client; an
// *http.Transport is cloned once per call of Guard, so call it once and reuse the
// result). d may come from [Client.Discover] or be made by the caller
// (&Discovery{Origin: o}) for an origin that publishes nothing: the origin must pass
// the checks of Discover (https, or http on loopback; not private unless
// Options.InsecureAllowPrivateOrigins), and the API-key headers d.MCP names count as
// credentials. opts nil or zero gives the default policy:
//
//   - the URL must be https, or http on a loopback host ([ErrInsecureOrigin]);
//   - no connection may reach a private address unless the discovery origin is one
//     ([ErrPrivateAddress]), checked on the resolved address of every connection;
//   - reads (GET, HEAD, OPTIONS, exactly so spelled) on the discovery origin pass;
//   - a call to another origin asks the ConsentFunc for [ConsentCrossOrigin], saying
//     whether it carries the caller's credentials (see [ConsentRequest.Credentials]);
//   - any other method asks it for [ConsentWrite] (after the cross-origin check, so a
//     cross-origin write asks twice: where, then what);
//   - so does a request that can write whatever its method: CONNECT, an upgrade (an
//     Upgrade header, "upgrade" in Connection, a WebSocket handshake header; the 101
//     that follows hands over a two-way stream), or a method override
//     (X-HTTP-Method-Override, X-HTTP-Method, X-Method-Override, or "_method" in the
//     query or the body);
//   - a 101 Switching Protocols answer to a request that had no ConsentWrite is never
//     handed back: the stream is closed and the call fails with [ErrConsentDenied].
//
// A denial returns an error wrapping [ErrConsentDenied] and sends nothing. Every hop of
// a redirect followed by the caller's http.Client passes through the guard again. This
// is how "prefer read-only actions unless the user asks for a write" and
// "ask before contacting another origin" become enforceable. For APIs where
// every call is a POST (JSON-RPC, GraphQL), set GuardOptions.IsRead.
//
// The guard sees the request as the caller made it: credentials that opts.Base adds
// (an OAuth transport, a signing transport) are invisible to it, and it cannot ask
// before they go to another origin. Add credentials to the request before the guard,
// or keep such a transport outside it.
//
// The guard is safe for concurrent use by multiple goroutines. It does not change
// when d does: it keeps d's origin and API-key headers as they were when Guard was
// called.
func (c *Client) Guard(d *Discovery, opts *GuardOptions) (http.RoundTripper, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	if d == nil || d.Origin.IsZero() {
		return nil, fmt.Errorf("%w: Guard needs a Discovery with an Origin", ErrInvalidOrigin)
	}
	o, err := c.origin(d.Origin.String())
	if err != nil {
		return nil, err
	}
	var opt GuardOptions
	if opts != nil {
		opt = *opts
	}
	opt.Approved = slices.Clone(opt.Approved)
	base := c.agentBase
	if opt.Base != nil {
		base = c.guardTransport(opt.Base)
	}
	consent := opt.Consent
	if consent == nil {
		consent = c.consent
	}
	return &guard{c: c, origin: o, keyHeaders: authHeaders(d), base: base, opts: opt, consent: consent}, nil
}

// GuardOptions tunes the policy guard of [Client.Guard]. The zero value is the default
// policy.
type GuardOptions struct {
	// Base sends the requests the guard lets through. nil: the Client's own transport.
	// Any other is guarded against private addresses as Options.HTTPClient is.
	// Credentials that Base adds to a request (an OAuth or signing transport) are
	// invisible to the guard, which cannot ask before they go to another origin: they
	// belong outside it, on the request before the guard sees it.
	Base http.RoundTripper

	// IsRead reports whether a request only reads, so that it needs no [ConsentWrite].
	// nil: GET, HEAD and OPTIONS are reads. For JSON-RPC and GraphQL APIs, where every
	// call is a POST, classify by the body; IsRead may read req.Body but must leave it
	// readable (restore it). When in doubt (a body it cannot read exactly), it should
	// say false. The guard never trusts it for anything else: the origin,
	// private-address and credential rules apply to reads too, and a request that can
	// write whatever its method (CONNECT, an upgrade, a method override; see
	// [Client.Guard]) is a write whatever IsRead says.
	IsRead func(req *http.Request) bool

	// Subject names what a request is about (a tool, a server), shown to the user as
	// ConsentRequest.Subject and used by [RememberConsent] to remember an answer "for
	// this subject". nil: nothing (a remembered answer then holds for the same method
	// and URL). A request it cannot name exactly (a malformed or ambiguous body) must
	// get [AmbiguousSubject], alone or within the subject, never a fixed text of its
	// own: such a consent request is for that request only.
	Subject func(req *http.Request) string

	// Consent replaces the Client's ConsentFunc for this guard; a wrapper may answer
	// some requests itself (a session already approved) and pass the rest on. nil: the
	// Client's.
	Consent ConsentFunc

	// Approved lists origins the user already approved for this guard, such as an MCP
	// endpoint after [Client.ConnectEndpoint] asked ConsentConnect: calls to them
	// need no ConsentCrossOrigin (unless they carry credentials). Writes still ask
	// ConsentWrite.
	Approved []Origin

	// MaxResponseBytes caps every response body but event streams: reading past it
	// fails with [ErrTooLarge]. 0: no cap (the caller bounds what it reads).
	MaxResponseBytes int64
}

type guard struct {
	c          *Client
	origin     Origin   // the discovery origin
	keyHeaders []string // the API-key headers the discovery documents name
	base       http.RoundTripper
	opts       GuardOptions
	consent    ConsentFunc
}

// RoundTrip implements http.RoundTripper.
func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	req = withoutUserinfo(req)
	read := netguard.IsSafeMethod(req.Method)
	if g.opts.IsRead != nil {
		read = g.opts.IsRead(req)
	}
	// Whatever IsRead says, a request that can write by another road is a write.
	var why string
	req, why = netguard.WriteSign(req)
	if why != "" {
		read = false
	}
	var subject string
	if g.opts.Subject != nil {
		subject = g.opts.Subject(req)
	}
	// Credentials go to another origin only when the consent request said so and the
	// answer was yes; a no refuses the whole call.
	_, creds := secrets.Credentials(req.Header, req.URL.RawQuery, g.keyHeaders)
	err := g.c.authorize(req.Context(), g.consent, g.origin, call{method: req.Method, u: req.URL, read: read,
		creds: creds, subject: subject, why: why, approved: g.opts.Approved})
	if err != nil {
		if req.Body != nil {
			req.Body.Close() // a RoundTripper must close the body, even on error
		}
		g.refused(req, err)
		return nil, err
	}
	ctx := withDialPolicy(req.Context(), g.origin)
	resp, err := g.base.RoundTrip(req.WithContext(ctx))
	if err != nil && errors.Is(err, ErrPrivateAddress) {
		g.refused(req, err)
	}
	if err == nil && resp.StatusCode == http.StatusSwitchingProtocols && read {
		// A 101 hands the caller a two-way stream that writes to the site: never
		// without ConsentWrite, whatever the request looked like.
		resp.Body.Close()
		err = fmt.Errorf("%w: %s %s switched protocols without consent to write", ErrConsentDenied, req.Method, redact(req.URL))
		g.refused(req, err)
		return nil, err
	}
	if err == nil && g.opts.MaxResponseBytes > 0 && !netguard.IsEventStream(resp) {
		resp.Body = netguard.CapBody(resp.Body, g.opts.MaxResponseBytes, fmt.Errorf("%w (response body)", ErrTooLarge))
	}
	return resp, err
}

// refused reports a call the guard refused, as EventGuardRefused.
func (g *guard) refused(req *http.Request, err error) {
	g.c.emit(req.Context(), Event{Kind: EventGuardRefused, Origin: g.origin.String(), URL: redact(req.URL), Err: err})
}

// authHeaders returns the API-key header names d's mcp.json gives in its auth objects
// (auth.header): what the agent sends its key in for this site.
func authHeaders(d *Discovery) []string {
	if d == nil || d.MCP == nil {
		return nil
	}
	var out []string
	add := func(a *mcpjson.Auth) {
		if a != nil && a.Header != "" && !slices.Contains(out, a.Header) && len(out) < 64 {
			out = append(out, a.Header)
		}
	}
	for i := range d.MCP.Servers {
		add(d.MCP.Servers[i].Auth)
	}
	for i := range d.MCP.Tools {
		add(d.MCP.Tools[i].Auth)
	}
	return out
}

// withoutUserinfo returns req without URL userinfo, and without the Authorization
// header net/http derived from it: a URL the agent took from a site must not make it
// send a site-chosen user name and password. req itself is not modified.
func withoutUserinfo(req *http.Request) *http.Request {
	if req.URL == nil || req.URL.User == nil {
		return req
	}
	user := req.URL.User
	r := req.Clone(req.Context())
	r.URL.User = nil
	pass, _ := user.Password()
	derived := "Basic " + base64.StdEncoding.EncodeToString([]byte(user.Username()+":"+pass))
	if r.Header.Get("Authorization") == derived {
		r.Header.Del("Authorization")
	}
	return r
}

// call is one request as the guard judges it.
type call struct {
	method   string
	u        *url.URL
	read     bool     // needs no ConsentWrite
	creds    bool     // carries the caller's credentials
	subject  string   // what it is about, for the prompt
	why      string   // why a request that looks like a read is a write, if it is
	approved []Origin // origins already approved: no ConsentCrossOrigin unless creds
}

// authorize applies the policy of the discovery origin origin to k, asking consent
// when needed.
func (c *Client) authorize(ctx context.Context, consent ConsentFunc, origin Origin, k call) error {
	if ctx == nil {
		return errNilContext
	}
	if k.u == nil || !k.u.IsAbs() {
		return fmt.Errorf("%w: request URL is not absolute", ErrInvalidOrigin)
	}
	target, err := originOf(k.u)
	if err != nil {
		return err
	}
	method := k.method
	if method == "" {
		method = http.MethodGet
	}
	cross := target != origin
	if cross && (k.creds || !slices.Contains(k.approved, target)) {
		reason := fmt.Sprintf("%s request to %s, which is not %s", method, target, origin)
		if k.creds {
			reason += ", carrying your credentials (Authorization, Cookie, API key or token headers, a token in a header or query parameter)"
		}
		shown, hidden := secrets.ConsentURL(k.u)
		err := ask(ctx, c, consent, &ConsentRequest{
			Action: ConsentCrossOrigin, Origin: origin, URL: shown, Method: method,
			Reason: reason, Credentials: k.creds, Subject: k.subject, hiddenQuery: hiddenQuery(k.u, hidden),
		}, ErrConsentDenied)
		if err != nil {
			return err
		}
	}
	if k.read {
		return nil
	}
	reason := fmt.Sprintf("%s request to %s may change data", method, redact(k.u))
	if k.why != "" {
		reason += ": " + k.why
	}
	if k.subject != "" {
		reason = fmt.Sprintf("%s (%s)", reason, k.subject)
	}
	shown, hidden := secrets.ConsentURL(k.u)
	return ask(ctx, c, consent, &ConsentRequest{
		Action: ConsentWrite, Origin: origin, URL: shown, Method: method,
		Reason: reason, Credentials: k.creds && cross, Subject: k.subject, hiddenQuery: hiddenQuery(k.u, hidden),
	}, ErrConsentDenied)
}

// ConnectEndpoint checks an MCP server that d's discovery document lists (or any
// endpoint: mcpjson.Server{URL: u}) before the agent connects to it, and returns its
// endpoint: the URL resolved against d.MCPURL, where mcp.json was served from after
// redirects (else the origin's well-known path). It refuses a server with no URL
// ([ErrInvalidOrigin]), a local command or package ([ErrLocalOnly]: nothing is ever
// spawned), and a URL that is not https (or http on loopback) or carries userinfo. A
// server on another origin than d's, subdomains included, needs [ConsentConnect]
// (another party), asked once here with the server's name as the Subject. Connect through
// the guard of [Client.Guard] with the endpoint's origin in GuardOptions.Approved.
func (c *Client) ConnectEndpoint(ctx context.Context, d *Discovery, srv mcpjson.Server) (*url.URL, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	if d == nil || d.Origin.IsZero() {
		return nil, fmt.Errorf("%w: ConnectEndpoint needs a Discovery with an Origin", ErrInvalidOrigin)
	}
	if ctx == nil {
		return nil, errNilContext
	}
	switch {
	case srv.LocalOnly:
		return nil, fmt.Errorf("%w: %s", ErrLocalOnly, secrets.Quote(srv.Name, 64))
	case strings.TrimSpace(srv.URL) == "":
		return nil, fmt.Errorf("%w: server %s lists no URL", ErrInvalidOrigin, secrets.Quote(srv.Name, 64))
	}
	u, err := resolveEndpoint(mcpBase(d), srv.URL)
	if err != nil {
		return nil, err
	}
	if err := c.authorizeConnect(ctx, d.Origin, u, srv.Name); err != nil {
		return nil, err
	}
	return u, nil
}

// resolveEndpoint resolves ref against base and checks it is a usable endpoint.
func resolveEndpoint(base, ref string) (*url.URL, error) {
	b, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("%w: base URL does not parse", ErrInvalidOrigin)
	}
	r, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return nil, fmt.Errorf("%w: endpoint URL does not parse", ErrInvalidOrigin)
	}
	u := b.ResolveReference(r)
	if !u.IsAbs() {
		return nil, fmt.Errorf("%w: endpoint URL is not absolute", ErrInvalidOrigin)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: endpoint URL carries userinfo", ErrInvalidOrigin)
	}
	return u, nil
}

// authorizeConnect asks ConsentConnect for an endpoint on another origin than origin.
func (c *Client) authorizeConnect(ctx context.Context, origin Origin, u *url.URL, subject string) error {
	target, err := originOf(u)
	if err != nil {
		return err
	}
	if target == origin {
		return nil
	}
	return ask(ctx, c, c.consent, &ConsentRequest{
		Action: ConsentConnect, Origin: origin, URL: redact(u), Method: http.MethodPost, Subject: subject,
		Reason: fmt.Sprintf("%s lists an MCP endpoint on another origin, %s", origin, target),
	}, ErrConsentDenied)
}

// mcpBase is what relative MCP endpoints resolve against: d.MCPURL, where mcp.json was
// served from after redirects, else the origin's well-known path.
func mcpBase(d *Discovery) string {
	if d.MCPURL != "" {
		return d.MCPURL
	}
	return d.Origin.String() + MCPPath
}

// documentBase returns the URL a document was served from as Discovery.MCPURL holds
// it: without userinfo, query or fragment, the path as served.
func documentBase(final string) string {
	u, err := url.Parse(final)
	if err != nil || final == "" {
		return ""
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}
