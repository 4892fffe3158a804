package mcpclient

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk's ClientSession keeps, on protocol 2026-07-28, every resources/read
// result in a per-session cache keyed by URI (its SEP-2549 TTL cache). An entry is
// dropped only when the same URI is asked for again after its ttlMs ran out (ttlMs 0
// included), or when the server sends notifications/resources/updated for it; a
// session that reads many distinct files therefore keeps every one of them, whole,
// until it is closed. The cache cannot be turned off or cleared from outside, a
// standard method cannot be sent through the SDK's custom-method API, and
// negotiating 2025-11-25 (where the cache is not used) would give up the newer
// protocol for every call of the session.
//
// So the session keeps the cache empty, with two steps around each read:
//   - the sending middleware noResourceCache sets the ttlMs of every resources/read
//     result to 0 before the SDK stores it: a stored copy is never served (each
//     read goes to the server, and is verified against the entry the caller holds),
//     and the next lookup of its URI drops it;
//   - readResource then makes that lookup at once, a local call marked forget
//     that the middleware answers with errForgotten without sending anything.
//
// The cache thus holds at most the results of reads still in flight: memory does
// not grow with what a long-lived session has read.

// forgetKey marks, in a call's context, the lookup that drops a cached result.
type forgetKey struct{}

// errForgotten is the answer noResourceCache gives a forget lookup.
var errForgotten = errors.New("mcpclient: resource dropped from the SDK cache")

// noResourceCache is the sending middleware described above.
func noResourceCache(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "resources/read" {
			return next(ctx, method, req)
		}
		if ctx.Value(forgetKey{}) != nil {
			return nil, errForgotten // never sent: the lookup before it dropped the entry
		}
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.ReadResourceResult); ok && r != nil {
			r.TTLMs = 0
		}
		return res, err
	}
}

// readResource reads one resource with resources/read and leaves no copy of it in
// the SDK's cache.
func (s *Session) readResource(ctx context.Context, uri string) (*mcp.ReadResourceResult, error) {
	res, err := s.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err == nil {
		// The lookup drops the entry just stored (its ttlMs is 0); it is answered by
		// noResourceCache, so whatever ctx has become, nothing is sent.
		fctx := context.WithValue(context.WithoutCancel(ctx), forgetKey{}, true)
		_, _ = s.cs.ReadResource(fctx, &mcp.ReadResourceParams{URI: uri})
	}
	return res, err
}
