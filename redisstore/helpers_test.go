package redisstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/wellknown-dev/discovery"
)

// counter is a go-redis hook that counts the commands sent, connection set-up left
// out (HELLO, CLIENT SETINFO...).
type counter struct {
	mu   sync.Mutex // guards cmds
	cmds []string
}

func (c *counter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *counter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.add(cmd)
		return next(ctx, cmd)
	}
}

func (c *counter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			c.add(cmd)
		}
		return next(ctx, cmds)
	}
}

func (c *counter) add(cmd redis.Cmder) {
	switch name := strings.ToLower(cmd.Name()); name {
	case "hello", "client", "auth", "select", "readonly", "ping":
	default:
		c.mu.Lock()
		c.cmds = append(c.cmds, name)
		c.mu.Unlock()
	}
}

// take returns the commands counted since the last call, and resets the count.
func (c *counter) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	cmds := c.cmds
	c.cmds = nil
	return cmds
}

// newMini starts an in-process Redis and a go-redis client on it that counts commands.
func newMini(t *testing.T) (*miniredis.Miniredis, redis.UniversalClient, *counter) {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1, ContextTimeoutEnabled: true})
	t.Cleanup(func() { rdb.Close() })
	cnt := &counter{}
	rdb.AddHook(cnt)
	return mr, rdb, cnt
}

// events records the events a Store emits.
type events struct {
	mu  sync.Mutex // guards all
	all []discovery.Event
}

func (e *events) observe(_ context.Context, ev discovery.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
}

func (e *events) count(kind discovery.EventKind) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, ev := range e.all {
		if ev.Kind == kind {
			n++
		}
	}
	return n
}

func (e *events) last(kind discovery.EventKind) (discovery.Event, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := len(e.all) - 1; i >= 0; i-- {
		if e.all[i].Kind == kind {
			return e.all[i], true
		}
	}
	return discovery.Event{}, false
}

// clock is a settable time source for a Store.
type clock struct {
	mu sync.Mutex // guards t
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// t0 is the start of every fake clock: whole seconds, as HTTP dates are.
var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// newStore returns a Store on rdb with a fake clock at t0, recording its events and
// logging into the returned buffer.
func newStore(t *testing.T, rdb redis.UniversalClient, opts *Options) (*Store, *clock, *events, *syncBuffer) {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	ev := &events{}
	logs := &syncBuffer{}
	o.Observe = ev.observe
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Second // parallel tests under the race detector are slow; tests of the timeout set it
	}
	o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, err := New(rdb, &o)
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: t0}
	s.now = clk.now
	return s, clk, ev, logs
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// response returns a serialised 200 response, as httpcache stores it, dated date.
func response(t *testing.T, date time.Time, cacheControl, body string) []byte {
	t.Helper()
	raw := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/markdown\r\nDate: %s\r\nEtag: \"v1\"\r\n", date.UTC().Format(http.TimeFormat))
	if cacheControl != "" {
		raw += "Cache-Control: " + cacheControl + "\r\n"
	}
	raw += fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := httputil.DumpResponse(resp, true)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hangingRedis accepts connections and never answers: a Redis that is up but stuck.
func hangingRedis(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex // guards conns
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}
