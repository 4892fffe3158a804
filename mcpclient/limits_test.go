package mcpclient_test

// A Session's calls and listings are bounded in time and memory, whatever the server
// sends.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/mcpclient"
)

// TestSessionCallsAreBounded: a small input never costs unbounded time. Options.Timeout
// bounds every call of a Session, not only connecting: a server that accepts a
// skills/list, resources/read or skills/get and never answers must not hold the call
// for as long as the caller's context allows (forever for a context without a
// deadline).
func TestSessionCallsAreBounded(t *testing.T) {
	t.Parallel()
	srv := &skillServer{skills: threeSkills(), declare: true}
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.server() }, nil)
	var stall atomic.Bool
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if stall.Load() && r.Method == http.MethodPost {
			_, _ = io.Copy(io.Discard, r.Body) // so that the server sees the client go
			select {                           // accept the call, never answer
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(release) }) // runs before ts.Close
	// The session's Timeout (3 s) is far shorter than the caller's deadline (2 min):
	// a call that fails while the caller's context is still live was ended by the
	// session's own bound. No wall-clock figure is asserted.
	s := connect(t, ts, &mcpclient.Options{Timeout: 3 * time.Second})
	l, err := s.ListSkills(t.Context())
	if err != nil || len(l.Skills) == 0 {
		t.Fatalf("listing = %v, %v", l, err)
	}
	sk := &l.Skills[0]
	stall.Store(true)
	for name, call := range map[string]func(ctx context.Context) error{
		"ListSkills": func(ctx context.Context) error { _, err := s.ListSkills(ctx); return err },
		"GetSkill":   func(ctx context.Context) error { _, err := s.GetSkill(ctx, sk.URI); return err },
		"ReadFile":   func(ctx context.Context) error { _, err := s.ReadFile(ctx, sk, "SKILL.md"); return err },
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		err := call(ctx)
		callerDone := ctx.Err()
		cancel()
		if err == nil || callerDone != nil {
			t.Errorf("%s against a server that never answers: %v (caller's context: %v); want an error from the session's Timeout", name, err, callerDone)
		}
	}
}

// TestLegacyListingIsBounded: a small input never costs unbounded memory. The draft
// readers of a server without the Skills Extension have skills/list's bounds: a listing
// reads at most Options.MaxListBytes of FastMCP manifests in total, skips a skill over
// the file and byte limits as skills/list does, and bounds its warnings (one per
// malformed hash would be unbounded).
func TestLegacyListingIsBounded(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "fastmcp-like", Version: "1"}, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}}})
	manifest := func(name string, files, size int, hash string) string {
		var b strings.Builder
		fmt.Fprintf(&b, `{"skill": %q, "files": [`, name)
		for i := range files {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"path": "f%d.md", "size": %d, "hash": %q}`, i, size, hash)
		}
		b.WriteString("]}")
		return b.String()
	}
	good := agentskills.Digest([]byte("x"))
	add := func(name, body string) {
		uri := "skill://" + name + "/_manifest"
		srv.AddResource(&mcp.Resource{URI: uri, Name: name}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: body}}}, nil
		})
	}
	add("many-files", manifest("many-files", 2000, 1, good))      // over MaxSkillFiles (512)
	add("huge-files", manifest("huge-files", 3, 10<<20, good))    // 30 MiB listed: over MaxSkillBytes
	add("bad-hashes", manifest("bad-hashes", 400, 1, "md5:0123")) // 400 warnings
	add("fine", manifest("fine", 2, 1, good))                     // kept
	for i := range 40 {                                           // 40 × ~20 KiB: past MaxListBytes below
		name := fmt.Sprintf("zz-filler-%02d", i) // listed after the others
		add(name, manifest(name, 200, 1, good))
	}
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	s := connect(t, ts, &mcpclient.Options{MaxListBytes: 512 << 10})
	l, err := s.ListSkills(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, sk := range l.Skills {
		if n := len(sk.Files()); n > agentskills.MaxResources {
			t.Errorf("skill %s kept with %d files, over the limit of %d", sk.Name, n, agentskills.MaxResources)
		}
		var total int64
		for _, f := range sk.Files() {
			total += f.Size
		}
		if total > agentskills.MaxResourceBytes {
			t.Errorf("skill %s kept with %d bytes listed, over the limit", sk.Name, total)
		}
	}
	if n := len(l.Warnings); n > 64 {
		t.Errorf("%d warnings: one per malformed hash", n)
	}
	if n := len(l.Skills); n > 24 {
		t.Errorf("%d skills read from manifests past MaxListBytes (512 KiB; 40 fillers of ~20 KiB)", n)
	}
	found := false
	for _, sk := range l.Skills {
		found = found || sk.Name == "fine"
	}
	if !found {
		t.Errorf("the skill within every limit was dropped: %v", l.Skills)
	}
}
