package serve

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
	"github.com/wellknown-dev/discovery/internal/elicit"
)

// consentKey is the context key under which a tool call's MCP session reaches the
// discovery client's consent hook (the hook runs inside the tool call).
type consentKey struct{}

// withCallSession is a receiving middleware of the MCP server: it hands each tool
// call's session to the consent hook through the call's context.
func withCallSession(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && method == "tools/call" {
			ctx = context.WithValue(ctx, consentKey{}, ss)
		}
		return next(ctx, method, req)
	}
}

// consentField is the one field of the consent form.
const consentField = "allow"

// errConsentCannotAsk is a consent request that cannot reach the user: no tool call,
// a client without form elicitation, or one of protocol 2026-07-28 and later (which
// forbids asking during a call; the question would have to be the call's result).
var errConsentCannotAsk = errors.New("the MCP client cannot ask the user during this call; start wellknown serve with --yes to grant such requests (only for origins you trust)")

// consent is serve's ConsentFunc: it asks (ask) once for every redirect between the
// same two origins for as long as serve runs, and every time for any other request
// (a yes to one session's write or credentials is never another session's).
func (a *app) consent() discovery.ConsentFunc {
	return discovery.RememberConsent(a.ask, discovery.NewConsentMemory())
}

// ask decides a discovery client's consent request (such as a redirect to another
// origin) for serve: granted with --yes; otherwise the user is asked through the MCP
// client that made the tool call, with an elicitation, when the client can be asked
// during the call. Every decision is logged to stderr.
func (a *app) ask(ctx context.Context, req *discovery.ConsentRequest) (discovery.ConsentAnswer, error) {
	what := "consent to " + cmdutil.DescribeConsent(req)
	if a.Yes {
		a.Notef("%s: granted (--yes)", what)
		return discovery.ConsentAnswer{Allow: true, Scope: answerScope(req)}, nil
	}
	ss, _ := ctx.Value(consentKey{}).(*mcp.ServerSession)
	if !canElicitDuringCall(ss) {
		a.Notef("%s: denied: the MCP client cannot ask the user; run with --yes to grant", what)
		return discovery.ConsentAnswer{}, errConsentCannotAsk
	}
	res, err := ss.Elicit(ctx, consentQuestion(req))
	switch {
	case err != nil:
		a.Notef("%s: denied: asking the user through the MCP client failed: %s", what, cmdutil.Clean(err.Error(), 512))
		return discovery.ConsentAnswer{}, fmt.Errorf("asking the user through the MCP client failed: %w", err)
	case elicit.Yes(res, consentField):
		a.Notef("%s: granted by the user (MCP elicitation)", what)
		return discovery.ConsentAnswer{Allow: true, Scope: answerScope(req)}, nil
	}
	// A refusal is a plain denial (no error): the discovery client reports it as the
	// request refused, such as a redirect to another origin.
	a.Notef("%s: refused by the user (MCP elicitation)", what)
	return discovery.ConsentAnswer{Allow: false, Scope: answerScope(req)}, nil
}

// answerScope is how long serve keeps an answer: a redirect's for the pair of origins
// (RememberConsent widens ForSubject so), anything else for this request only.
func answerScope(req *discovery.ConsentRequest) discovery.Scope {
	if req.Action == discovery.ConsentRedirect {
		return discovery.ForSubject
	}
	return discovery.Once
}

// canElicitDuringCall reports whether ss's client can be sent an elicitation request
// during a tool call: it can be asked a yes/no question (elicit.CanAsk), on a protocol
// version before 2026-07-28.
func canElicitDuringCall(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion < "2026-07-28" && elicit.CanAsk(p.Capabilities)
}

// consentQuestion is the elicitation about req: what the model's tool call would do
// and why, in the discovery client's words (already redacted and shortened).
func consentQuestion(req *discovery.ConsentRequest) *mcp.ElicitParams {
	msg := fmt.Sprintf("A tool call of the AI model (wellknown serve) needs your consent: %s. Allow it only if you trust where it goes.",
		cmdutil.Clean(cmdutil.DescribeConsent(req), 1024))
	return elicit.YesNo(msg, consentField, "Allow this", "allow")
}
