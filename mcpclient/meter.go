package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// responseCap is the http.RoundTripper the go-sdk transports of a session send
// through. It bounds what the server may send in answer to one call by
// Options.MaxResponseBytes, whatever the media type of the answer: a JSON body, and
// equally a text/event-stream, where a server may send any number of notifications
// (each under the SDK's per-event limit) before the result, or never send the result
// at all; otherwise only Options.Timeout would bound such a stream.
//
// Bytes are counted per call: every response body read for one JSON-RPC call (the
// answer to its POST, and any GET that resumes that answer's stream) counts against
// the call's callMeter, which the sending middleware puts in the call's context. A
// body read outside any call (the long-lived GET stream of the SSE transport, which
// carries the answers of every call) is bounded between calls: it may carry at most
// the limit between two completed calls, so a server cannot flood it while the agent
// waits for an answer.
//
// Exceeding the limit fails the read, which fails the call (or, for a long-lived
// stream, the session); the middleware turns the failure into an error wrapping
// [ErrTooMany] that names the URL and the limit.
type responseCap struct {
	base http.RoundTripper
	max  int64

	calls atomic.Int64 // calls completed: a long-lived stream counts afresh after each

	mu        sync.Mutex
	streamErr error // guarded by mu: why a long-lived stream was cut, for the calls it fails
}

// RoundTrip implements http.RoundTripper.
func (c *responseCap) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(req)
	if err != nil || resp == nil || resp.Body == nil {
		return resp, err
	}
	b := &meteredBody{rc: resp.Body, cap: c, meter: meterOf(req.Context()), url: secrets.RedactURL(req.URL.String())}
	if b.meter == nil {
		b.calls = c.calls.Load()
	}
	resp.Body = b
	if sink := sinkOf(req.Context()); sink != nil {
		resp.Body = readBody(sink, resp) // the answer to a resources/read, decoded once (see readbody.go)
	}
	return resp, nil
}

// middleware is the sending middleware of the session's client: it gives each call a
// callMeter (unless the caller gave one, to learn what the call received) and reports
// a response over the limit as the call's error.
func (c *responseCap) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		m := meterOf(ctx)
		if m == nil {
			m = &callMeter{}
			ctx = context.WithValue(ctx, meterKey{}, m)
		}
		res, err := next(ctx, method, req)
		if !strings.HasPrefix(method, "notifications/") {
			c.calls.Add(1)
		}
		if err == nil {
			// The answer was whole within the limit; what the SDK drains of the body
			// after it may go over, but the result is good.
			return res, nil
		}
		if over := m.overflow(); over != nil {
			return nil, fmt.Errorf("%w (%s)", over, method)
		}
		c.mu.Lock()
		over := c.streamErr
		c.mu.Unlock()
		if over != nil {
			return nil, fmt.Errorf("%w (%s; the session's event stream was cut)", over, method)
		}
		return nil, err
	}
}

// tooLarge is the error of a response over the limit.
func (c *responseCap) tooLarge(url string) error {
	return fmt.Errorf("%w: the response from %s is over Options.MaxResponseBytes (%d bytes)", ErrTooMany, url, c.max)
}

// callMeter counts the response bytes received for one call. It travels in the call's
// context from the sending middleware to responseCap: a per-call value the SDK's
// transports pass through untouched, not configuration.
type callMeter struct {
	received atomic.Int64
	// limit, when positive and under Options.MaxResponseBytes, is a tighter bound set
	// by the caller (what is left of a listing's budget), and limitName names it.
	limit     int64
	limitName string

	mu  sync.Mutex
	err error // guarded by mu: the first response over the limit
}

type meterKey struct{}

func meterOf(ctx context.Context) *callMeter {
	m, _ := ctx.Value(meterKey{}).(*callMeter)
	return m
}

// withMeter returns ctx with a fresh callMeter, for a caller that wants to know how
// many bytes one call received; limit > 0 bounds them more tightly than
// Options.MaxResponseBytes, and name says what that bound is.
func withMeter(ctx context.Context, limit int64, name string) (context.Context, *callMeter) {
	m := &callMeter{limit: limit, limitName: name}
	return context.WithValue(ctx, meterKey{}, m), m
}

// Received returns the response bytes counted so far.
func (m *callMeter) Received() int64 { return m.received.Load() }

func (m *callMeter) overflow() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

func (m *callMeter) fail(err error) {
	m.mu.Lock()
	if m.err == nil {
		m.err = err
	}
	m.mu.Unlock()
}

// meteredBody counts what is read from one response body against the limit of its
// call (meter) or, outside any call, against the limit between completed calls.
// Once over, every read fails with the same error: the SDK drains a body before
// closing it, and the drain must stop too.
type meteredBody struct {
	rc    io.ReadCloser
	cap   *responseCap
	meter *callMeter // nil: a long-lived stream outside any call
	url   string

	calls int64 // long-lived stream: cap.calls when n was last reset
	n     int64 // long-lived stream: bytes since then
	err   error // sticky: the limit was exceeded
}

// Read implements io.Reader.
func (b *meteredBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	left := b.limit() - b.used()
	if left < 0 { // another body of the same call went over
		return 0, b.over()
	}
	if int64(len(p)) > left+1 {
		p = p[:left+1] // one byte past the limit tells it was exceeded
	}
	n, err := b.rc.Read(p)
	// The guard below caps a body that is not an event stream at the same limit,
	// failing with discovery.ErrTooLarge: that is this limit too.
	if b.add(int64(n)) > b.limit() || errors.Is(err, discovery.ErrTooLarge) {
		return 0, b.over()
	}
	return n, err
}

// limit returns the bound this body reads under.
func (b *meteredBody) limit() int64 {
	if b.meter != nil && b.meter.limit > 0 && b.meter.limit < b.cap.max {
		return b.meter.limit
	}
	return b.cap.max
}

// over records that the limit was exceeded and returns the error.
func (b *meteredBody) over() error {
	if b.limit() < b.cap.max {
		b.err = fmt.Errorf("%w: the response from %s is over what is left of %s (%d bytes)", ErrTooMany, b.url, b.meter.limitName, b.meter.limit)
	} else {
		b.err = b.cap.tooLarge(b.url)
	}
	if b.meter != nil {
		b.meter.fail(b.err)
	} else {
		b.cap.mu.Lock()
		b.cap.streamErr = b.err
		b.cap.mu.Unlock()
	}
	return b.err
}

// used returns the bytes already counted against the limit this body reads under.
func (b *meteredBody) used() int64 {
	if b.meter != nil {
		return b.meter.received.Load()
	}
	if c := b.cap.calls.Load(); c != b.calls {
		b.calls, b.n = c, 0 // a call completed since: the stream counts afresh
	}
	return b.n
}

// add counts n bytes and returns the total the limit applies to.
func (b *meteredBody) add(n int64) int64 {
	if b.meter != nil {
		return b.meter.received.Add(n)
	}
	b.n += n
	return b.n
}

// Close implements io.Closer.
func (b *meteredBody) Close() error { return b.rc.Close() }
