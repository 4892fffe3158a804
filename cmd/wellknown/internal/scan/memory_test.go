package scan

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// loopbackFleet serves every origin http://127.a.b.c:port of a scan from one server:
// the scan's transport dials the server whatever address it is asked for, and the
// server answers by Host (a quarter of the addresses publish skills.md, mcp.json and
// an index; a quarter skills.md; a quarter mcp.json; the rest nothing). The documents
// have the few KiB of real ones: whatever a scan kept of each would show in the heap.
func loopbackFleet(t *testing.T) *http.Client {
	t.Helper()
	var sb, mb, ib strings.Builder
	sb.WriteString("# Acme\n\nAgents may read tickets.\n\n## API\n\n- Base URL: /api/v1\n")
	mb.WriteString(`{"servers": [`)
	ib.WriteString(`{"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json", "skills": [`)
	for i := range 12 {
		fmt.Fprintf(&sb, "- Read ticket kind %d: GET /api/v1/tickets/%d/{id} (its history, its assignee and its labels)\n", i, i)
		fmt.Fprintf(&mb, `%s{"name": "tickets-%d", "url": "https://mcp.acme.example/mcp/%d", "transport": "http", "tools": ["get_ticket_%d", "list_tickets_%d"]}`, sep(i), i, i, i, i)
		fmt.Fprintf(&ib, `%s{"name": "triage-%d", "type": "skill-md", "description": "Triage tickets of kind %d: read them, label them, assign them.", "url": "/.well-known/agent-skills/triage-%d/SKILL.md", "digest": "sha256:%s"}`, sep(i), i, i, i, strings.Repeat("0", 64))
	}
	sb.WriteString("\n## Safety\n\n- Ask before closing a ticket.\n")
	mb.WriteString(`]}`)
	ib.WriteString(`]}`)
	skills, mcp, index := sb.String(), mb.String(), ib.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.Host)
		kind := 0
		if ip := net.ParseIP(host).To4(); ip != nil {
			kind = int(ip[3]) % 4
		}
		switch p := r.URL.Path; {
		case p == "/.well-known/skills.md" && kind <= 1:
			w.Header().Set("Content-Type", "text/markdown")
			io.WriteString(w, skills)
		case p == "/.well-known/mcp.json" && (kind == 0 || kind == 2):
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, mcp)
		case p == "/.well-known/agent-skills/index.json" && kind == 0:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, index)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		MaxIdleConns: 100, MaxIdleConnsPerHost: 4, IdleConnTimeout: 90 * time.Second,
	}}
}

func sep(i int) string {
	if i == 0 {
		return ""
	}
	return ", "
}

// origins returns n origins from the address 127.1.0.0 + from on, four ports each.
func origins(from, n int) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		a := 1<<16 + i/4
		fmt.Fprintf(&b, "http://127.%d.%d.%d:%d\n", a>>16&255, a>>8&255, a&255, 8000+i%4)
	}
	return b.String()
}

// heapProbe is the output of a scan: it counts result lines and, when the count
// reaches one of at, measures the heap (the scan is still running then).
type heapProbe struct {
	at    []int
	lines int
	heap  []uint64
}

func (p *heapProbe) Write(b []byte) (int, error) {
	for _, c := range b {
		if c != '\n' {
			continue
		}
		p.lines++
		if len(p.heap) < len(p.at) && p.lines == p.at[len(p.heap)] {
			p.heap = append(p.heap, heapInUse())
		}
	}
	return len(b), nil
}

// TestScanMemoryFlat: the memory of a scan does not grow with the origins it has
// scanned. The heap is measured while the scan runs, after 1,000 and after 3,000
// results, and may grow by no more than a margin over the 2,000 resume keys: a scan
// reads each document once, so nothing it keeps from one origin helps another.
func TestScanMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("3,000 origins: not with -short")
	}
	hc := loopbackFleet(t)
	s, err := New(&Options{Concurrency: 32, PerHost: 2, Timeout: 20 * time.Second, HTTPClient: hc, UserAgent: "scan-test"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 3000
	out := &heapProbe{at: []int{1000, n}}
	var st Stats
	werr, rerr := s.Run(t.Context(), strings.NewReader(origins(0, n)), out, NewResumeSet(), &st)
	// The last measure is taken once the workers are done: without this, the Scanner
	// and its Client could be collected by then, and what they keep would not count.
	runtime.KeepAlive(s)
	if werr != nil || rerr != nil {
		t.Fatal(werr, rerr)
	}
	if got := st.Done.Load(); got != n || st.Failed.Load() != 0 || len(out.heap) != 2 {
		t.Fatalf("%d results of %d, %d failed", got, n, st.Failed.Load())
	}
	grown := int64(out.heap[1]) - int64(out.heap[0])
	t.Logf("heap after 1,000 origins %.1f MiB, after %d %.1f MiB", float64(out.heap[0])/(1<<20), n, float64(out.heap[1])/(1<<20))
	if grown > 2<<20 {
		t.Errorf("the heap grew by %.1f MiB over 2,000 origins: memory follows the origins scanned", float64(grown)/(1<<20))
	}
}
