package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
)

// listBudget is the byte budget of one listing (one ListSkills or ReadDirectory):
// every answer the listing receives, on every path (skills/list pages;
// skill://index.json, FastMCP manifests and resources/list pages for the drafts;
// resources/directory/read pages), is charged to it, and the listing stops once more
// than Options.MaxListBytes have been received in all. Each call of the listing is
// also bounded by what is left of the budget, so no answer is read far past it. What is charged
// is what was received, the whole answer as sent, not the part of it a Skill keeps: a
// page of one huge description the listing drops costs as much as it weighs.
//
// A listBudget is used by one goroutine; its zero value has no room.
type listBudget struct {
	max  int64
	used int64
}

func (s *Session) newBudget() *listBudget { return &listBudget{max: s.opts.MaxListBytes} }

// charge counts n bytes received for what (a method or a URI, for the message); past
// the budget it returns an error wrapping [ErrTooMany].
func (b *listBudget) charge(what string, n int64) error {
	b.used += max(n, 0)
	if b.used > b.max {
		return fmt.Errorf("%w: %s: the listing received more than %d bytes in all (Options.MaxListBytes)", ErrTooMany, what, b.max)
	}
	return nil
}

// measured returns ctx set up for one call of the listing: the answer may not be
// larger than what is left of the budget (reading stops one byte past it), and the
// function returned reports the bytes received once the call returned. decoded gives
// the size of the result as decoded, used when the transport counted nothing for the
// call: the SSE transport carries every answer on one long-lived stream, counted as a
// whole, not per call.
func (b *listBudget) measured(ctx context.Context) (context.Context, func(decoded func() int64) int64) {
	ctx, m := withMeter(ctx, max(b.max-b.used, 1), "Options.MaxListBytes")
	return ctx, func(decoded func() int64) int64 {
		if n := m.Received(); n > 0 {
			return n
		}
		return decoded()
	}
}

// sizeOf returns the size of v encoded as JSON, 0 if it does not encode: the fallback
// measure of a typed result (see measured).
func sizeOf(v any) int64 {
	data, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return int64(len(data))
}
