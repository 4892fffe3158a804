// Package mcpstdio keeps an MCP server over stdio from dropping answers at end of
// input.
//
// MCP over stdio ends when stdin does. The SDK closes the connection as soon as its
// reader sees end of input, which drops the answers to requests it has read but not yet
// answered: `printf '<initialize>\n<initialized>\n<tools/list>\n' | wellknown serve`
// would print only the initialize answer. Drain makes end of input wait until
// every request read has been answered.
package mcpstdio

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// maxDrainWait bounds how long end of input waits for answers still owed: a request
// the server never answers (it should answer every one) cannot keep the process alive.
const maxDrainWait = 5 * time.Minute

// rpcTracker counts the JSON-RPC requests read and not yet answered, by id.
// It is safe for concurrent use.
type rpcTracker struct {
	mu      sync.Mutex     // guards pending and changed
	pending map[string]int // request ids read and not yet answered (a count: ids may repeat)
	changed chan struct{}  // closed and replaced when pending shrinks
}

func newRPCTracker() *rpcTracker {
	return &rpcTracker{pending: map[string]int{}, changed: make(chan struct{})}
}

// rpcMessage is the part of a JSON-RPC message the tracker reads.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// messages decodes one line: a message or a batch of them.
func messages(line []byte) []rpcMessage {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if line[0] == '[' {
		var batch []rpcMessage
		if json.Unmarshal(line, &batch) != nil {
			return nil
		}
		return batch
	}
	var m rpcMessage
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	return []rpcMessage{m}
}

// idKey is a request id in a comparable form; "" for a notification.
func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if len(id) == 0 || json.Compact(&b, id) != nil || b.String() == "null" {
		return ""
	}
	return b.String()
}

// read notes the requests in a line read from input.
func (t *rpcTracker) read(line []byte) {
	for _, m := range messages(line) {
		if k := idKey(m.ID); k != "" && m.Method != "" {
			t.mu.Lock()
			t.pending[k]++
			t.mu.Unlock()
		}
	}
}

// wrote notes the answers in a line written to output.
func (t *rpcTracker) wrote(line []byte) {
	for _, m := range messages(line) {
		k := idKey(m.ID)
		if k == "" || m.Method != "" {
			continue
		}
		t.mu.Lock()
		if t.pending[k] > 0 {
			t.pending[k]--
			if t.pending[k] == 0 {
				delete(t.pending, k)
			}
			close(t.changed)
			t.changed = make(chan struct{})
		}
		t.mu.Unlock()
	}
}

// wait returns when every request read has been answered, ctx is done, or maxDrainWait
// has passed.
func (t *rpcTracker) wait(ctx context.Context) {
	timer := time.NewTimer(maxDrainWait)
	defer timer.Stop()
	for {
		t.mu.Lock()
		n, ch := len(t.pending), t.changed
		t.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		case <-timer.C:
			return
		}
	}
}

// lines splits a stream into lines for a tracker function.
type lines struct {
	buf  []byte
	each func([]byte)
}

func (l *lines) add(p []byte) {
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		l.each(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
	if len(l.buf) > 64<<20 { // a runaway line: not a message the SDK would take either
		l.buf = nil
	}
}

func (l *lines) flush() {
	if len(l.buf) > 0 {
		l.each(l.buf)
		l.buf = nil
	}
}

// drainReader is stdin, whose end of input waits for the answers still owed.
type drainReader struct {
	ctx context.Context
	r   io.Reader
	t   *rpcTracker
	in  lines
}

func (d *drainReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	d.in.add(p[:n])
	if err == io.EOF {
		if n > 0 {
			return n, nil // let the SDK take these bytes first; EOF comes on the next Read
		}
		d.in.flush()
		d.t.wait(d.ctx)
	}
	return n, err
}

func (*drainReader) Close() error { return nil }

// drainWriter is stdout, noting the answers written.
type drainWriter struct {
	mu  sync.Mutex // guards out
	w   io.Writer
	out lines
}

func (d *drainWriter) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	d.mu.Lock()
	d.out.add(p[:n])
	d.mu.Unlock()
	return n, err
}

func (*drainWriter) Close() error { return nil }

// Drain wraps in and out for the SDK's IOTransport so that end of input waits,
// up to maxDrainWait or until ctx is done, for the answer to every request read.
func Drain(ctx context.Context, in io.Reader, out io.Writer) (io.ReadCloser, io.WriteCloser) {
	t := newRPCTracker()
	r := &drainReader{ctx: ctx, r: in, t: t}
	r.in.each = t.read
	w := &drainWriter{w: out}
	w.out.each = t.wrote
	return r, w
}
