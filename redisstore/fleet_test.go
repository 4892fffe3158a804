package redisstore

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/internal/testparts"
)

// The fleet test runs processes against a real redis-server: the test binary
// re-executed in TestFleetChild, configured by the file named in fleetChildEnv.
const (
	fleetChildEnv   = "REDISSTORE_FLEET_CHILD"
	fleetProcesses  = 4
	fleetGoroutines = 50
	fleetOrigins    = 20
	// fleetWindow is the origins' max-age. A round takes a second or so, a few on a
	// loaded machine; the window only has to outlast it, and the test sleeps past it
	// between rounds.
	fleetWindow = 15 * time.Second
)

// fleetConfig is what the parent hands its children.
type fleetConfig struct {
	RedisAddr string
	Origins   []string
	CAFile    string
}

// fleetReport is a child's answer to a command, one JSON line after "FLEET ".
type fleetReport struct {
	Calls    int      // Discover calls made in the round
	Failed   int      // calls that returned an error
	Errors   []string // the first few errors
	Degraded int      // EventStoreDegraded events so far
	Warn     int      // Warn records about the store so far
	Waits    int      // EventFleetWait events so far
	Leaks    string   // at quit: goroutines left behind, if any
}

// TestFleet runs 4 processes × 50 goroutines × 20 origins against one redis-server and
// counts what reaches the origins: each skills.md once per freshness window for the
// whole fleet; with Redis stopped, once per process and every call still succeeding;
// with Redis back on the same port, once per window again.
func TestFleet(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the fleet test takes about a minute")
	}
	server, err := exec.LookPath("redis-server")
	if err != nil {
		testparts.Skip(t, testparts.Redis, err.Error())
	}
	dir := t.TempDir()
	redisSrv := startRedis(t, server, dir, freePort(t))

	origins := make([]string, fleetOrigins)
	hits := make([]*atomic.Int64, fleetOrigins)
	var ca []byte
	for i := range origins {
		ts, n := newOrigin(t, int(fleetWindow/time.Second))
		origins[i], hits[i] = ts.URL, n
		ca = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	}
	cfg := fleetConfig{RedisAddr: redisSrv.addr, Origins: origins, CAFile: filepath.Join(dir, "ca.pem")}
	if err := os.WriteFile(cfg.CAFile, ca, 0o600); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(dir, "fleet.json")
	if b, err := json.Marshal(cfg); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(cfgFile, b, 0o600); err != nil {
		t.Fatal(err)
	}

	children := make([]*child, fleetProcesses)
	for i := range children {
		children[i] = startChild(t, cfgFile)
	}
	var last []int64 // origin hits at the end of the previous round
	counts := func() []int64 {
		c := make([]int64, len(hits))
		for i, h := range hits {
			c[i] = h.Load()
		}
		return c
	}
	last = counts()
	round := func(name string, perOrigin int64) []fleetReport {
		t.Helper()
		start := time.Now()
		reports := broadcast(t, children, "run")
		took := time.Since(start).Round(time.Millisecond)
		t.Logf("%s: took %s; reports %+v", name, took, reports)
		note := ""
		if took > fleetWindow/2 {
			note = fmt.Sprintf(" (the round took %s: copies may have gone stale during it, or waiters waited out a lock never released)", took)
		}
		for i, r := range reports {
			if r.Calls != fleetGoroutines*fleetOrigins || r.Failed != 0 {
				t.Errorf("%s: process %d: %d calls, %d failed: %v", name, i, r.Calls, r.Failed, r.Errors)
			}
		}
		now := counts()
		for i := range now {
			if got := now[i] - last[i]; got != perOrigin {
				t.Errorf("%s: origin %d: skills.md requested %d times, want %d%s", name, i, got, perOrigin, note)
			}
		}
		t.Logf("%s: %d origin requests for %d Discover calls", name, sum(now)-sum(last), fleetProcesses*fleetGoroutines*fleetOrigins)
		last = now
		return reports
	}

	round("round 1 (cold)", 1)
	time.Sleep(fleetWindow + 1500*time.Millisecond) // every copy is stale now
	round("round 2 (revalidation)", 1)

	redisSrv.stop(t)
	time.Sleep(fleetWindow + 1500*time.Millisecond)
	reports := round("round 3 (Redis stopped)", fleetProcesses)
	for i, r := range reports {
		if r.Degraded == 0 || r.Warn == 0 {
			t.Errorf("round 3: process %d: %d degraded events, %d Warn records; want some", i, r.Degraded, r.Warn)
		}
	}

	redisSrv.start(t)
	time.Sleep(fleetWindow + 1500*time.Millisecond)
	broadcast(t, children, "ping") // each process's breaker closes as soon as Redis answers
	round("round 4 (Redis back)", 1)

	for i, r := range broadcast(t, children, "quit") {
		if r.Leaks != "" {
			t.Errorf("process %d left goroutines behind:\n%s", i, r.Leaks)
		}
	}
	for i, c := range children {
		if err := c.cmd.Wait(); err != nil {
			t.Errorf("process %d: %v\n%s", i, err, c.stderr.String())
		}
	}
}

func sum(v []int64) int64 {
	var n int64
	for _, x := range v {
		n += x
	}
	return n
}

// redisServer is a redis-server process on a fixed loopback port.
type redisServer struct {
	bin, dir, addr string
	port           int
	cmd            *exec.Cmd
}

func startRedis(t *testing.T, bin, dir string, port int) *redisServer {
	t.Helper()
	r := &redisServer{bin: bin, dir: dir, port: port, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
	r.start(t)
	t.Cleanup(func() { r.stop(t) })
	return r
}

// start runs redis-server and waits until it answers PING.
func (r *redisServer) start(t *testing.T) {
	t.Helper()
	r.cmd = exec.Command(r.bin, "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", r.dir)
	r.cmd.Stdout, r.cmd.Stderr = io.Discard, io.Discard
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: r.addr, MaxRetries: -1})
	defer rdb.Close()
	for range 200 {
		if rdb.Ping(t.Context()).Err() == nil {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("redis-server on %s did not answer PING", r.addr)
}

// stop ends redis-server and waits for it.
func (r *redisServer) stop(t *testing.T) {
	t.Helper()
	if r.cmd == nil {
		return
	}
	r.cmd.Process.Kill()
	r.cmd.Wait()
	r.cmd = nil
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// child is one process of the fleet.
type child struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Scanner
	stderr *syncBuffer
}

func startChild(t *testing.T, cfgFile string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFleetChild$", "-test.count=1", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), fleetChildEnv+"="+cfgFile)
	c := &child{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = c.stderr
	var err error
	if c.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.out = bufio.NewScanner(stdout)
	c.out.Buffer(nil, 1<<20)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.in.Close()
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return c
}

// broadcast sends cmd to every child at once and returns their reports.
func broadcast(t *testing.T, children []*child, cmd string) []fleetReport {
	t.Helper()
	reports := make([]fleetReport, len(children))
	errs := make([]error, len(children))
	var wg sync.WaitGroup
	for i, c := range children {
		wg.Go(func() {
			if _, err := fmt.Fprintln(c.in, cmd); err != nil {
				errs[i] = err
				return
			}
			for c.out.Scan() {
				if line, ok := strings.CutPrefix(c.out.Text(), "FLEET "); ok {
					errs[i] = json.Unmarshal([]byte(line), &reports[i])
					return
				}
			}
			errs[i] = fmt.Errorf("no report: %v", c.out.Err())
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("%s: process %d: %v\n%s", cmd, i, err, children[i].stderr.String())
		}
	}
	return reports
}

// TestFleetChild is one process of TestFleet; it skips unless TestFleet started it.
// It reads commands on stdin: run (a round of Discover calls), ping (until the Store
// reaches Redis), quit (close everything and look for goroutines left behind), and
// answers each with a report line.
func TestFleetChild(t *testing.T) {
	cfgFile := os.Getenv(fleetChildEnv)
	if cfgFile == "" {
		t.Skip("a process of TestFleet")
	}
	leakOpt := goleak.IgnoreCurrent()
	var cfg fleetConfig
	b, err := os.ReadFile(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(cfg.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(ca) {
		t.Fatal("no certificate in the CA file")
	}

	var degraded, waits atomic.Int64
	observe := func(_ context.Context, e discovery.Event) {
		switch e.Kind {
		case discovery.EventStoreDegraded:
			degraded.Add(1)
		case discovery.EventFleetWait:
			waits.Add(1)
		}
	}
	warns := &warnCounter{next: slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}), n: &atomic.Int64{}}
	logger := slog.New(warns)

	rdb := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: []string{cfg.RedisAddr}, ContextTimeoutEnabled: true})
	// A generous Timeout: four processes under the race detector on a small machine
	// must not count as a slow Redis. Round 3 shows a stopped one costs no timeout.
	// The test origins are loopback servers that every process of this one machine sees.
	store, err := New(rdb, &Options{Timeout: 5 * time.Second, Logger: logger, Observe: observe, SharePrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	transport := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}
	c, err := discovery.NewClient(&discovery.Options{
		HTTPClient:                  &http.Client{Transport: transport},
		InsecureAllowPrivateOrigins: true,
		Cache:                       store.Cache(),
		LastGood:                    store.LastGood(),
		FleetLock:                   store.FleetLock(),
		FleetWait:                   5 * time.Second, // generous: the holder's fetch takes milliseconds
		Logger:                      logger,
		Observe:                     observe,
	})
	if err != nil {
		t.Fatal(err)
	}
	report := func(r fleetReport) {
		r.Degraded, r.Waits, r.Warn = int(degraded.Load()), int(waits.Load()), int(warns.n.Load())
		b, _ := json.Marshal(r)
		fmt.Printf("FLEET %s\n", b)
	}

	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch in.Text() {
		case "run":
			var r fleetReport
			var mu sync.Mutex // guards r
			var wg sync.WaitGroup
			for g := range fleetGoroutines {
				wg.Go(func() {
					for i := range cfg.Origins {
						origin := cfg.Origins[(g+i)%len(cfg.Origins)]
						d, err := c.Discover(t.Context(), origin)
						if err == nil && d.Guide == nil {
							err = errors.New("no skills.md")
						}
						mu.Lock()
						r.Calls++
						if err != nil {
							r.Failed++
							if len(r.Errors) < 5 {
								r.Errors = append(r.Errors, err.Error())
							}
						}
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			report(r)
		case "ping":
			var r fleetReport
			for i := 0; store.Ping(t.Context()) != nil; i++ {
				if i == 200 {
					r.Failed, r.Errors = 1, []string{"Redis did not answer PING"}
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			report(r)
		case "quit":
			c.CloseIdleConnections()
			transport.CloseIdleConnections()
			rdb.Close()
			var r fleetReport
			// The Client's fetch workers end after a second idle: look for up to ~10 s.
			err := goleak.Find(leakOpt)
			for i := 0; err != nil && i < 20; i++ {
				time.Sleep(500 * time.Millisecond)
				err = goleak.Find(leakOpt)
			}
			if err != nil {
				r.Leaks = err.Error()
			}
			report(r)
			return
		}
	}
}

// warnCounter counts the Warn records about the shared store and passes every record on.
type warnCounter struct {
	next slog.Handler
	n    *atomic.Int64
}

func (w *warnCounter) Enabled(ctx context.Context, l slog.Level) bool { return w.next.Enabled(ctx, l) }

func (w *warnCounter) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelWarn {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "event" && a.Value.String() == string(discovery.EventStoreDegraded) {
				w.n.Add(1)
				return false
			}
			return true
		})
	}
	return w.next.Handle(ctx, r)
}

func (w *warnCounter) WithAttrs(as []slog.Attr) slog.Handler {
	return &warnCounter{next: w.next.WithAttrs(as), n: w.n}
}

func (w *warnCounter) WithGroup(name string) slog.Handler {
	return &warnCounter{next: w.next.WithGroup(name), n: w.n}
}
