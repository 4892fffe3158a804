package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// attemptTransport is the bottom layer of a fetch: it counts the round trips on the
// wire and bounds each one, body included, by the attempt timeout (or by the round's
// deadline, when that comes first). The attempt timeout lives here rather than in
// http.Client.Timeout, which costs a goroutine and a timer per request.
type attemptTransport struct {
	st      *state
	base    http.RoundTripper
	timeout time.Duration
}

// errAttemptTimeout is the cause of a request that outlived Options.AttemptTimeout,
// errDocumentTimeout of one cut by Options.DocumentTimeout (never retried).
var (
	errAttemptTimeout  = errors.New("discovery: attempt timed out (Options.AttemptTimeout)")
	errDocumentTimeout = errors.New("discovery: document timed out (Options.DocumentTimeout): " + context.DeadlineExceeded.Error())
)

// RoundTrip implements http.RoundTripper.
func (t *attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	st := t.st
	st.requests.Add(1)
	deadline, cause := time.Now().Add(t.timeout), errAttemptTimeout
	if !st.deadline.IsZero() && st.deadline.Before(deadline) {
		deadline, cause = st.deadline, errDocumentTimeout
	}
	ctx, cancel := context.WithDeadlineCause(req.Context(), deadline, cause)
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil || resp == nil {
		cancel()
		if err != nil && errors.Is(context.Cause(ctx), errDocumentTimeout) && req.Context().Err() == nil {
			err = fmt.Errorf("%w: %v", errDocumentTimeout, err)
		} else if err != nil && errors.Is(context.Cause(ctx), errAttemptTimeout) && req.Context().Err() == nil {
			// %v, not %w: a connection cancelled by the attempt's deadline can report
			// context.Canceled, which must not read as the caller giving up (no retry).
			err = fmt.Errorf("%w (%s): %v", errAttemptTimeout, t.timeout, err)
		}
		return resp, err
	}
	st.status.Store(int32(resp.StatusCode))
	resp.Body = &cancelBody{ReadCloser: resp.Body, ctx: ctx, cancel: cancel, timeout: t.timeout}
	return resp, nil
}

// CloseIdleConnections closes idle connections of the base transport (retryablehttp
// calls it when it gives up).
func (t *attemptTransport) CloseIdleConnections() { closeIdle(t.base) }

// cancelBody ends a request's context when its body is read to the end or closed.
type cancelBody struct {
	io.ReadCloser
	ctx     context.Context
	cancel  context.CancelFunc
	timeout time.Duration
	ended   bool // read to its end: nothing to drain
}

// Read reads the body; at EOF the request's context ends. A body cut short because
// the context ended is an error, even where the connection's end reads as EOF (a
// response without a length, cut when the transport closes the connection).
func (b *cancelBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && b.ctx.Err() != nil {
		if errors.Is(context.Cause(b.ctx), errAttemptTimeout) {
			return n, fmt.Errorf("%w (%s) while reading the body", errAttemptTimeout, b.timeout)
		}
		return n, fmt.Errorf("discovery: reading the body: %w", context.Cause(b.ctx))
	}
	if err == io.EOF {
		b.ended = true
		b.cancel()
	}
	return n, err
}

// Bounds of the read of an unwanted body's rest (see cancelBody.Close).
const (
	drainBytes = 4 << 10
	drainWait  = 250 * time.Millisecond
)

// Close reads what is left of the body, up to drainBytes and for at most drainWait,
// closes it and ends the request's context. A response read to its end gives its
// connection back to the pool; closed unread (a 404's page, an HTML page nobody
// wanted), the connection is torn down: every such answer costs a new one, and
// net/http keeps each request's wait for an idle connection of its host until one
// comes back, which for a host whose answers all go unread is never (a scan of many
// origins answering 404 grew with them). The rest is read here, below the HTTP cache,
// so that the cache never sees it: what was not wanted is not stored.
func (b *cancelBody) Close() error {
	if !b.ended && b.ctx.Err() == nil { // a body read to its end (the usual case) costs nothing more
		stop := time.AfterFunc(drainWait, b.cancel) // a trickling body is not worth its connection
		io.Copy(io.Discard, io.LimitReader(b.ReadCloser, drainBytes))
		stop.Stop()
	}
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
