package discovery

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
)

// Transport returns an [http.RoundTripper] that enforces the discovery policy on the
// agent's own API calls, then sends them through base (nil: the Client's own guarded
// transport; an *http.Transport is cloned once per call of Transport, so call it once
// and reuse the result):
//
//   - the URL must be https, or http on a loopback host ([ErrInsecureOrigin]);
//   - no connection may reach a private address unless the discovery origin is one
//     ([ErrPrivateAddress]), checked on the resolved address of every connection;
//   - reads (GET, HEAD, OPTIONS) on the discovery origin pass;
//   - a call to another origin asks the ConsentFunc for [ConsentCrossOrigin];
//   - any other method asks it for [ConsentWrite] (after the cross-origin check, so a
//     cross-origin write asks twice: where, then what).
//
// A denial returns an error wrapping [ErrConsentDenied] and sends nothing. Every hop of
// a redirect followed by the caller's http.Client passes through the guard again. This
// is how "prefer read-only actions unless the user asks for a write" (SD-C-2) and
// "ask before contacting another origin" (MD-C-12) become enforceable.
func (d *Discovery) Transport(base http.RoundTripper) http.RoundTripper {
	switch {
	case d.client == nil:
		// A Discovery not made by a Client: Authorize refuses every call anyway.
	case base == nil:
		base = d.client.agentBase
	default:
		base = d.client.guard.guardTransport(base)
	}
	if base == nil {
		base = http.DefaultTransport
	}
	return &guard{d: d, base: base}
}

type guard struct {
	d    *Discovery
	base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	req = withoutUserinfo(req)
	// Credentials go to another origin only when the consent request said so and the
	// answer was yes; a no refuses the whole call.
	if err := g.d.authorize(req.Context(), req.Method, req.URL, hasCredentials(req.Header)); err != nil {
		if req.Body != nil {
			req.Body.Close() // a RoundTripper must close the body, even on error
		}
		return nil, err
	}
	ctx := withDialPolicy(req.Context(), g.d.Origin)
	return g.base.RoundTrip(req.WithContext(ctx))
}

// credentialHeaders are the request headers that carry the caller's credentials.
var credentialHeaders = []string{"Authorization", "Cookie", "Proxy-Authorization"}

func hasCredentials(h http.Header) bool {
	for _, k := range credentialHeaders {
		if h.Get(k) != "" {
			return true
		}
	}
	return false
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

// Authorize applies the policy of [Discovery.Transport] to one call of method on u,
// asking the ConsentFunc when needed. It returns nil when the call may go ahead.
func (d *Discovery) Authorize(ctx context.Context, method string, u *url.URL) error {
	return d.authorize(ctx, method, u, false)
}

// authorize is Authorize for a call that does (creds) or does not carry the caller's
// credentials.
func (d *Discovery) authorize(ctx context.Context, method string, u *url.URL, creds bool) error {
	if d == nil || d.Origin.IsZero() || d.client == nil {
		return fmt.Errorf("discovery: Authorize on a Discovery not returned by a Client")
	}
	if u == nil || !u.IsAbs() {
		return fmt.Errorf("%w: request URL is not absolute", ErrInvalidOrigin)
	}
	target, err := originOf(u)
	if err != nil {
		return err
	}
	if method == "" {
		method = http.MethodGet
	}
	if target != d.Origin {
		reason := fmt.Sprintf("%s request to %s, which is not %s", method, target, d.Origin)
		if creds {
			reason += ", carrying your credentials (Authorization or Cookie headers)"
		}
		err := ask(ctx, d.consent, &ConsentRequest{
			Action: ConsentCrossOrigin, Origin: d.Origin, URL: redact(u), Method: method,
			Reason: reason, Credentials: creds,
		}, ErrConsentDenied)
		if err != nil {
			return err
		}
	}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	return ask(ctx, d.consent, &ConsentRequest{
		Action: ConsentWrite, Origin: d.Origin, URL: redact(u), Method: method,
		Reason: fmt.Sprintf("%s request to %s may change data", method, redact(u)), Credentials: creds && target != d.Origin,
	}, ErrConsentDenied)
}

// AuthorizeConnect checks an MCP server or tool URL taken from the discovery document
// before the agent connects to it: the URL must be usable (https, or http on a loopback
// host, no userinfo), and one on another origin needs [ConsentConnect] (MD-C-12). A
// relative URL (which some sites publish) is resolved against the mcp.json URL.
func (d *Discovery) AuthorizeConnect(ctx context.Context, rawURL string) error {
	if d == nil || d.Origin.IsZero() {
		return fmt.Errorf("discovery: AuthorizeConnect on a Discovery not returned by a Client")
	}
	u, err := url.Parse(rawURL)
	if err == nil && !u.IsAbs() && u.Opaque == "" {
		base := &url.URL{Scheme: d.Origin.Scheme, Host: d.Origin.hostPort(), Path: MCPPath}
		u = base.ResolveReference(u)
	}
	if err != nil || !u.IsAbs() {
		return fmt.Errorf("%w: endpoint URL is not absolute", ErrInvalidOrigin)
	}
	if u.User != nil {
		return fmt.Errorf("%w: endpoint URL carries userinfo", ErrInvalidOrigin)
	}
	target, err := originOf(u)
	if err != nil {
		return err
	}
	if target == d.Origin {
		return nil
	}
	return ask(ctx, d.consent, &ConsentRequest{
		Action: ConsentConnect, Origin: d.Origin, URL: redact(u), Method: http.MethodPost,
		Reason: fmt.Sprintf("%s lists an endpoint on another origin, %s", d.Origin, target),
	}, ErrConsentDenied)
}
