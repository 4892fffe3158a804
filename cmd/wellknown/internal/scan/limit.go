package scan

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
)

// hostLimiter bounds the work in progress per host name: at most n holders at once for
// each host. Entries exist only while held or awaited, so its memory follows the
// concurrency, not the number of hosts seen. The zero value is not usable; it is safe
// for concurrent use.
type hostLimiter struct {
	n     int
	mu    sync.Mutex // guards hosts
	hosts map[string]*hostSlots
}

// hostSlots is one host's semaphore and how many goroutines hold or await it.
type hostSlots struct {
	sem  chan struct{}
	refs int // guarded by hostLimiter.mu
}

func newHostLimiter(n int) *hostLimiter {
	return &hostLimiter{n: n, hosts: make(map[string]*hostSlots)}
}

// acquire waits for one of host's n slots, or for ctx to be done. The release function
// it returns must be called exactly once.
func (l *hostLimiter) acquire(ctx context.Context, host string) (release func(), err error) {
	host = strings.ToLower(host)
	l.mu.Lock()
	s := l.hosts[host]
	if s == nil {
		s = &hostSlots{sem: make(chan struct{}, l.n)}
		l.hosts[host] = s
	}
	s.refs++
	l.mu.Unlock()
	unref := func() {
		l.mu.Lock()
		if s.refs--; s.refs == 0 {
			delete(l.hosts, host)
		}
		l.mu.Unlock()
	}
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		unref()
		return nil, ctx.Err()
	}
	return sync.OnceFunc(func() {
		<-s.sem
		unref()
	}), nil
}

// politeTransport is installed with Options.WrapTransport: every request the Client
// sends, retries and redirect hops included, takes one of its host's slots from the
// request until its body is closed, so that origins sharing a host (ports, schemes)
// never have more than --per-host requests in flight together. It also records each
// response's status in the scanRecorder of the request's context, if any: the Client's
// errors do not say whether a document that is not published answered 404, 410 or an
// HTML page.
type politeTransport struct {
	base  http.RoundTripper
	hosts *hostLimiter
}

// RoundTrip implements http.RoundTripper.
func (t *politeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	release, err := t.hosts.acquire(req.Context(), req.URL.Hostname())
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	resp, err := t.base.RoundTrip(req)
	if rec := recorderFrom(req.Context()); rec != nil && err == nil {
		rec.record(req.URL.Path, resp.StatusCode)
	}
	if err != nil {
		release()
		return nil, err
	}
	resp.Body = &releasingBody{ReadCloser: resp.Body, release: release}
	return resp, nil
}

// CloseIdleConnections forwards to the base transport.
func (t *politeTransport) CloseIdleConnections() {
	if ci, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		ci.CloseIdleConnections()
	}
}

// releasingBody gives the host slot back when the body is closed.
type releasingBody struct {
	io.ReadCloser
	release func() // idempotent
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}

// scanRecorder collects the last status answered for each path of one origin's scan:
// a retried 500 that then succeeds shows 200; a redirect's 301 stays with the path
// that answered it.
// It is safe for concurrent use (skills.md, mcp.json and the index are fetched in
// parallel).
type scanRecorder struct {
	mu     sync.Mutex // guards status
	status map[string]int
}

func (r *scanRecorder) record(path string, code int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status == nil {
		r.status = make(map[string]int, 4)
	}
	r.status[path] = code
}

func (r *scanRecorder) statusOf(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status[path]
}

type recorderKey struct{}

// withRecorder returns ctx carrying rec. It carries no configuration: only the place
// where the transport reports what it saw for one origin.
func withRecorder(ctx context.Context, rec *scanRecorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, rec)
}

func recorderFrom(ctx context.Context) *scanRecorder {
	rec, _ := ctx.Value(recorderKey{}).(*scanRecorder)
	return rec
}
