//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// scanPorts is how many ports each loopback address serves: origins sharing an
// address share a host name, so the scanner's per-host limit applies across them.
const scanPorts = 4

// scanFleet serves the scan's origins: one listener per port on 0.0.0.0 (answering
// only loopback peers), reached as http://127.a.b.c:port for as many addresses as the
// scan needs (Linux routes all of 127.0.0.0/8 to the loopback interface). It counts
// the requests in flight per host name and keeps the largest count seen.
type scanFleet struct {
	ports    []int
	fixtures map[string][]byte
	mu       sync.Mutex
	inFlight map[string]int
	maxHost  int
	requests atomic.Int64
	srv      *http.Server
}

func startScanFleet() (*scanFleet, error) {
	f := &scanFleet{fixtures: map[string][]byte{}, inFlight: map[string]int{}}
	for _, name := range []string{"skills.md", "mcp.json", "agent-skills-index.json"} {
		b, err := os.ReadFile(filepath.Join("cmd", "wellknown", "testdata", "scan", name))
		if err != nil {
			return nil, err
		}
		f.fixtures[name] = b
	}
	f.srv = &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
	for range scanPorts {
		ln, err := net.Listen("tcp4", "0.0.0.0:0")
		if err != nil {
			return nil, err
		}
		f.ports = append(f.ports, ln.Addr().(*net.TCPAddr).Port)
		go f.srv.Serve(ln)
	}
	return f, nil
}

// origins returns n origins: scanPorts ports on each of n/scanPorts addresses.
func (f *scanFleet) origins(n int) string {
	var b strings.Builder
	for i := range n {
		a := 1<<16 + i/scanPorts // from 127.1.0.0 on
		fmt.Fprintf(&b, "http://127.%d.%d.%d:%d\n", a>>16&255, a>>8&255, a&255, f.ports[i%scanPorts])
	}
	return b.String()
}

// ServeHTTP serves a quarter of the addresses skills.md, mcp.json and an index, a
// quarter skills.md only, a quarter mcp.json only, and the rest nothing (404).
func (f *scanFleet) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ip := net.ParseIP(strings.Split(r.RemoteAddr, ":")[0]); ip == nil || !ip.IsLoopback() {
		http.Error(w, "loopback only", http.StatusForbidden)
		return
	}
	f.requests.Add(1)
	host, _, _ := net.SplitHostPort(r.Host)
	f.mu.Lock()
	f.inFlight[host]++
	f.maxHost = max(f.maxHost, f.inFlight[host])
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		if f.inFlight[host]--; f.inFlight[host] == 0 {
			delete(f.inFlight, host)
		}
		f.mu.Unlock()
	}()
	time.Sleep(time.Millisecond) // a little server time, so that requests overlap
	kind := 0
	if ip := net.ParseIP(host).To4(); ip != nil {
		kind = int(ip[3]) % 4
	}
	send := func(ct, name string) {
		w.Header().Set("Content-Type", ct)
		w.Write(f.fixtures[name])
	}
	switch p := r.URL.Path; {
	case p == "/.well-known/skills.md" && kind <= 1:
		send("text/markdown; charset=utf-8", "skills.md")
	case p == "/.well-known/mcp.json" && (kind == 0 || kind == 2):
		send("application/json", "mcp.json")
	case p == "/.well-known/agent-skills/index.json" && kind == 0:
		send("application/json", "agent-skills-index.json")
	default:
		http.NotFound(w, r)
	}
}

// buildWellknown builds the wellknown binary into dir.
func buildWellknown(dir string) (string, error) {
	bin := filepath.Join(dir, "wellknown")
	out, err := exec.Command("go", "build", "-o", bin, "./cmd/wellknown").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ./cmd/wellknown: %v\n%s", err, out)
	}
	return bin, nil
}

// scanCurves runs the built wellknown scan (its defaults: 64 origins at once, 2
// requests per host) over n loopback origins for each n, and records wall time and
// the peak resident memory of the wellknown process. Every origin must have a result
// without an error, and no host may ever see more requests at once than --per-host.
func scanCurves(counts []int) ([]curve, error) {
	dir, err := os.MkdirTemp("", "perfcurves-scan-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bin, err := buildWellknown(dir)
	if err != nil {
		return nil, err
	}
	f, err := startScanFleet()
	if err != nil {
		return nil, err
	}
	defer f.srv.Close()
	tc := curve{group: scanGroup, name: "time", unit: "origins"}
	var notes []string
	for _, n := range counts {
		f.requests.Store(0)
		f.mu.Lock()
		f.maxHost = 0
		f.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		cmd := exec.CommandContext(ctx, bin, "scan", "--quiet")
		cmd.Stdin = strings.NewReader(f.origins(n))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		if err := cmd.Start(); err != nil {
			cancel()
			return nil, err
		}
		hwm := watchPeak(cmd.Process.Pid)
		err := cmd.Wait()
		el := time.Since(start)
		peak := hwm()
		cancel()
		if err != nil {
			return nil, fmt.Errorf("scan of %d origins: %v\n%s", n, err, stderr.String())
		}
		results, failed := 0, 0
		var errs []string
		sc := bufio.NewScanner(&stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r struct {
				Error string `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				return nil, fmt.Errorf("scan of %d origins: bad line: %v", n, err)
			}
			results++
			if r.Error != "" {
				failed++
				if len(errs) < 3 {
					errs = append(errs, r.Error)
				}
			}
		}
		if results != n || failed > 0 {
			return nil, fmt.Errorf("scan of %d origins: %d results, %d failed: %s", n, results, failed, strings.Join(errs, "; "))
		}
		f.mu.Lock()
		maxHost := f.maxHost
		f.mu.Unlock()
		if maxHost > 2 {
			return nil, fmt.Errorf("scan of %d origins: a host saw %d requests at once, over --per-host 2", n, maxHost)
		}
		tc.points = append(tc.points, point{size: n, ns: float64(el), rss: peak})
		notes = append(notes, fmt.Sprintf("%d origins: %d requests, at most %d at once per host", n, f.requests.Load(), maxHost))
		fmt.Fprintf(os.Stderr, "scan %d origins: %s, peak RSS %.1f MiB, %d requests, max %d per host\n", n, el.Round(time.Millisecond), peak, f.requests.Load(), maxHost)
	}
	tc.note = strings.Join(notes, "; ")
	return []curve{tc}, nil
}

// watchPeak samples the peak resident memory (VmHWM) of process pid every 20 ms until
// the returned function is called, which returns the largest value seen, in MiB. Not
// getrusage's ru_maxrss: Linux carries the parent's peak into a child that os/exec
// starts (the child shares the parent's memory until it runs the program), so a child
// of a large parent reports the parent's peak.
func watchPeak(pid int) (stop func() float64) {
	path := fmt.Sprintf("/proc/%d/status", pid)
	var peak atomic.Int64 // KiB
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if b, err := os.ReadFile(path); err == nil {
				for _, l := range strings.Split(string(b), "\n") {
					if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
						var kib int64
						fmt.Sscanf(strings.TrimSpace(v), "%d", &kib)
						if kib > peak.Load() {
							peak.Store(kib)
						}
					}
				}
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() float64 {
		close(done)
		wg.Wait()
		return float64(peak.Load()) / 1024
	}
}
