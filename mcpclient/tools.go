package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrToolNotFound: the server does not list a tool of that name (now).
var ErrToolNotFound = errors.New("mcpclient: no such tool")

// Tool is one tool a server lists. Every string in it was published by the server:
// untrusted data, to show with the server's label, never instructions.
type Tool struct {
	Name        string
	Title       string
	Description string
	// Definition is the tool as the server listed it, in canonical JSON (RFC 8785):
	// what approving the tool pins ([Session.ApproveTool]).
	Definition json.RawMessage
}

// ToolResult is the answer to a tools/call: untrusted data.
type ToolResult struct {
	IsError bool
	// Raw is the whole result as JSON (content, structuredContent, _meta).
	Raw json.RawMessage
}

// ListTools lists the server's tools (tools/list), following its pages: at most
// Options.MaxPages of them and Options.MaxListBytes in all (past either, the listing
// fails with [ErrTooMany]); a repeated cursor is an error. The server is always asked
// afresh, whatever ttlMs it gave (a hint a client may ignore): a pin check must see
// what the server serves now. The tools/list calls of one Session are serialised.
func (s *Session) ListTools(ctx context.Context) ([]Tool, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	return s.listTools(ctx)
}

func (s *Session) listTools(ctx context.Context) ([]Tool, error) {
	// On protocol 2026-07-28 the SDK keeps each tools/list result it returns in a
	// cache of its own, as that very value, for the result's ttlMs: a server that
	// gives a long one and then changes a tool would have the change hidden from
	// the check before a call. Setting the ttl of the value returned to 0 makes
	// the SDK drop it at the next lookup. toolsMu keeps two listings of this
	// Session from touching one value at once (the SDK reads the ttl under a lock
	// of its own that cannot be taken here), at the cost of one listing at a time.
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	var out []Tool
	budget := s.newBudget()
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page >= s.opts.MaxPages {
			return nil, fmt.Errorf("%w: more than %d pages of tools/list", ErrTooMany, s.opts.MaxPages)
		}
		pctx, received := budget.measured(ctx)
		res, err := s.cs.ListTools(pctx, &mcp.ListToolsParams{Cursor: cursor})
		if res != nil {
			res.TTLMs = 0
		}
		if over := budget.charge("tools/list", received(func() int64 { return sizeOf(res) })); over != nil {
			return nil, over
		}
		if err != nil {
			return nil, fmt.Errorf("mcpclient: tools/list: %w", scrub(err))
		}
		for _, t := range res.Tools {
			if t == nil {
				continue
			}
			def, err := canonical(t)
			if err != nil {
				return nil, fmt.Errorf("mcpclient: tools/list: tool %s: %w", quote(t.Name), err)
			}
			out = append(out, Tool{Name: t.Name, Title: t.Title, Description: t.Description, Definition: def})
		}
		if res.NextCursor == "" {
			return out, nil
		}
		if seen[res.NextCursor] {
			return nil, fmt.Errorf("mcpclient: tools/list repeated a cursor; stopped")
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

// ApproveTool pins t as listed: the user approved this definition, and
// [Session.CallTool] calls the tool without asking while the server serves it
// unchanged.
func (s *Session) ApproveTool(t *Tool) error {
	if t == nil || len(t.Definition) == 0 {
		return errors.New("mcpclient: ApproveTool needs a tool from ListTools")
	}
	return s.savePin(PinTool, t.Name, t.Definition)
}

// CallTool calls the tool named name with args (a value that encodes as a JSON
// object; nil sends {}). Before the call it lists the tools again and compares the
// tool's definition, as the server serves it now, with its pin: a tool never approved
// or changed since asks Options.ApprovePin, with the changes member by member, and is
// not called unless approved ([*PinError] wrapping [ErrNotApproved] or
// [ErrPinChanged]). A tool no longer listed is [ErrToolNotFound]; a name listed twice
// with different definitions is refused, wrapping [ErrPinChanged]. The call itself
// is a write: the discovery Client's consent is asked for it (ConsentWrite, "tool
// NAME") as for any tools/call.
func (s *Session) CallTool(ctx context.Context, name string, args any) (*ToolResult, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	list, err := s.listTools(ctx)
	if err != nil {
		return nil, err
	}
	var cur *Tool
	for i := range list {
		if list[i].Name != name {
			continue
		}
		if cur != nil && !bytes.Equal(cur.Definition, list[i].Definition) {
			// Which of the two the server would run cannot be known.
			return nil, fmt.Errorf("%w: tool %s is listed twice, with different definitions; not called", ErrPinChanged, quote(name))
		}
		cur = &list[i]
	}
	if cur == nil {
		return nil, fmt.Errorf("%w: %s", ErrToolNotFound, quote(name))
	}
	old, err := s.loadPin(PinTool, name)
	if err != nil {
		return nil, err
	}
	if err := s.checkPin(ctx, PinTool, name, old, cur.Definition, nil); err != nil {
		return nil, err
	}
	if args == nil {
		args = map[string]any{}
	}
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("mcpclient: tools/call %s: %w", quote(name), scrub(err))
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("mcpclient: tools/call %s: %w", quote(name), err)
	}
	return &ToolResult{IsError: res.IsError, Raw: raw}, nil
}
