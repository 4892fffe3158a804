package tools

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery/catalog"
	"github.com/wellknown-dev/discovery/internal/elicit"
)

// approveKey is the name of the one field of the approval form, and the id of the
// question in a multi round-trip answer.
const approveKey = "approve"

// mcpCallKey is the context key under which [Toolset.MCPServer] hands a tool call's
// MCP round ([mcpCall]) to [ElicitApproval].
type mcpCallKey struct{}

// mcpCall is what one MCP tool call tells ElicitApproval: whether its client can be
// asked, and the answer it brings back when this is a retry. ElicitApproval records
// the question it wants asked in ask; the MCP server then returns it to the client as
// an input request (SEP-2322; the SDK asks clients of older protocol versions itself,
// with an elicitation request, and calls the tool again with the answer). It is used
// by one tool call, on one goroutine.
type mcpCall struct {
	canAsk    bool                 // the client declared the elicitation capability (form mode)
	responses mcp.InputResponseMap // the answers of a retried call; nil on a first call
	state     string               // the request state the retried call echoes

	ask      *mcp.ElicitParams // the question ElicitApproval wants asked, or nil
	askState string            // the request state that binds the answer to the question
}

// withMCPCall returns ctx carrying call.
func withMCPCall(ctx context.Context, call *mcpCall) context.Context {
	return context.WithValue(ctx, mcpCallKey{}, call)
}

// newMCPCall describes the tool call req for ElicitApproval.
func newMCPCall(req *mcp.CallToolRequest) *mcpCall {
	return &mcpCall{responses: req.Params.InputResponses, state: req.Params.RequestState, canAsk: elicit.CanAsk(req.ClientCapabilities())}
}

// errAsking is what ElicitApproval returns on a call's first round, when the question
// is recorded for the MCP server to send: the call's result is the question, not this
// error.
var errAsking = errors.New("tools: the user is being asked through the MCP client")

// ElicitApproval is an [ApprovalFunc] for a Toolset served over MCP by
// [Toolset.MCPServer]: it asks the user, through the MCP client that called read_skill,
// with an elicitation (a form with one yes/no field) that says which skill the model
// wants to read, where it comes from and the digest the approval binds to. Published
// text in the question (the skill's name, description and source) is inside a fence,
// marked as untrusted.
//
// It returns true when the user accepts and ticks the box; an error wrapping
// [ErrApprovalDeclined] when the user declines, dismisses the question or accepts
// without ticking it; and an error wrapping [ErrCannotAsk] when the call did not come
// through Toolset.MCPServer or the client did not declare the elicitation capability.
// The question is asked in the way the client's protocol version allows: clients of
// protocol 2026-07-28 and later get it as an input request of the call's result
// (SEP-2322) and call again with the answer, which is bound to the question it
// answers; older clients get an elicitation request during the call.
//
// Use it as [Options.Approve], or call it from an ApprovalFunc of your own (which may
// grant some approvals first). It is safe for concurrent use.
func ElicitApproval(ctx context.Context, req *ApprovalRequest) (bool, error) {
	call, _ := ctx.Value(mcpCallKey{}).(*mcpCall)
	switch {
	case call == nil:
		return false, fmt.Errorf("%w: the call did not come through an MCP session", ErrCannotAsk)
	case !call.canAsk:
		return false, fmt.Errorf("%w: the MCP client did not declare the elicitation capability", ErrCannotAsk)
	}
	state := approvalState(req)
	if call.responses == nil {
		call.ask, call.askState = approvalQuestion(req), state
		return false, errAsking
	}
	if !hmac.Equal([]byte(call.state), []byte(state)) {
		// The answer is about another question: another skill, or this one before its
		// content changed while the user was asked.
		return false, errors.New("tools: the skill changed while the user was asked, or the answer is not about it: call read_skill again")
	}
	res, ok := call.responses[approveKey].(*mcp.ElicitResult)
	if !ok || res == nil {
		return false, errors.New("tools: the MCP client answered without the user's approval decision")
	}
	switch {
	case elicit.Yes(res, approveKey):
		return true, nil
	case res.Action == "cancel":
		return false, fmt.Errorf("%w: the user dismissed the question", ErrApprovalDeclined)
	}
	return false, fmt.Errorf("%w: the user declined", ErrApprovalDeclined)
}

// stateKey keys the request states of this process's approval questions, so that an
// answer is accepted only for a question this process asked.
var stateKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // never fails (crypto/rand documents it)
	return k
})

// approvalState binds an answer to the question about req: the skill's name, kind and
// source, and the digest the approval is for.
func approvalState(req *ApprovalRequest) string {
	m := hmac.New(sha256.New, stateKey())
	for _, s := range []string{req.Entry.Name, req.Entry.Kind.String(), req.Entry.From, req.Digest} {
		m.Write([]byte(s))
		m.Write([]byte{0})
	}
	return "approve-skill:" + hex.EncodeToString(m.Sum(nil))
}

// approvalQuestion is the elicitation about req: our words outside the fence, what
// was published inside it.
func approvalQuestion(req *ApprovalRequest) *mcp.ElicitParams {
	e := &req.Entry
	var b strings.Builder
	fmt.Fprintf(&b, "The AI model asks to read a skill published by %s. Approve it only if you trust its source.\n", source(e))
	fmt.Fprintf(&b, "The approval is for this exact content, digest %s: if the skill changes, you will be asked again.\n", clean(req.Digest, 80))
	published := fmt.Sprintf("Skill: %s\nFrom: %s\nDescription: %s\n",
		clean(e.Name, maxField), fromLabel(e), clean(e.Description, maxDescription))
	b.WriteString(newFence("skill", "", "The skill's name, source and description, as published.").wrap(published))
	return elicit.YesNo(b.String(), approveKey, "Let the model read this skill", "approve this content of the skill")
}

// source says, in this package's words, who published a skill: a site (its origin,
// as this package parsed it), an MCP server or a folder on this machine. The MCP
// server's name and the skill's name, which were published, are in the fence.
func source(e *catalog.Entry) string {
	switch e.Kind {
	case catalog.Web:
		return "the site " + clean(e.From, maxField)
	case catalog.MCP:
		return "an MCP server (named in the box below)"
	}
	return "a skill folder on this machine"
}
