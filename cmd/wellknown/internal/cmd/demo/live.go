package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	demosite "github.com/wellknown-dev/discovery/internal/demo"
	"github.com/wellknown-dev/discovery/internal/httpx"
	"github.com/wellknown-dev/discovery/tools"

	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
)

// liveFlags are the flags of "wellknown demo --serve".
type liveFlags struct {
	serve bool
	addr  string
}

// serveLive keeps the demo origin up on a loopback address until ctx is done, and
// prints the commands to try against it.
func (a *app) serveLive(ctx context.Context, f liveFlags) error {
	ln, err := tools.ListenLoopback(f.addr)
	if err != nil {
		return cmdutil.UsageError{Err: fmt.Errorf("demo --addr %w", err)}
	}
	defer ln.Close()
	origin := "http://" + ln.Addr().String()
	h, err := demosite.LiveHandler(origin)
	if err != nil {
		return err
	}
	// A folder for "skills install" to write into, not the current directory.
	dir, err := os.MkdirTemp("", "wellknown-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Fprint(a.Out, liveCommands(origin, dir))
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	if err := httpx.Serve(ctx, ln, hs); err != nil {
		return err
	}
	a.Notef("demo origin %s stopped; %s removed", origin, dir)
	return nil
}

// liveCommands is what "wellknown demo --serve" prints: the origin, what it serves,
// and one command per line to try against it, each of which works as printed.
func liveCommands(origin, dir string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Demo origin on %s (Ctrl-C stops it; nothing leaves the machine). It serves\n", origin)
	b.WriteString("/.well-known/skills.md, /.well-known/mcp.json, an Agent Skills index with two skills\n")
	b.WriteString("(their digests verify) and, at /mcp, an MCP server with the Skills Extension.\n\n")
	b.WriteString("Try, in another terminal:\n")
	for _, c := range []string{
		"discover " + origin,
		"discover --structured " + origin,
		"skills list " + origin,
		"skills install " + origin + " --dir " + dir,
		// A recorded loopback origin needs --allow-private in skills update.
		"skills update --dir " + dir + " --allow-private",
		"mcp skills " + origin,
		"lint " + origin,
		// serve refuses private origins (the model chooses them) unless --allow-private.
		"serve --origin " + origin + " --allow-private",
	} {
		b.WriteString("  wellknown " + c + "\n")
	}
	fmt.Fprintf(&b, "\n(skills install writes into %s, removed when the demo stops.)\n", dir)
	return b.String()
}

// errLiveFlags is the usage error of --serve with the discovery flags.
var errLiveFlags = errors.New("--serve keeps the demo origin up and prints commands to try: it cannot go with --structured, --json or --model")
