// The mcpserver command serves the discovery tools of package tools (discover_site,
// list_skills, read_skill, read_skill_file, list_mcp_servers) from an MCP server, so
// that any MCP host can give them to its model.
//
// Usage:
//
//	go run ./examples/mcpserver [-http 127.0.0.1:PORT] [-skills DIR]... [-origin ORIGIN]... [-yes]
//
// It speaks MCP over stdio by default; with -http it serves Streamable HTTP at
// http://ADDR/mcp instead, on a loopback address only (anything else is refused: the
// server has no authentication). -skills adds local skill folders (repeatable, or a
// comma-separated list) to the catalog the skill tools read; -origin adds a site's
// well-known skills index (repeatable).
//
// The model chooses the origins the tools discover, so private origins (localhost,
// private addresses) are refused unless -allow-private is given (a person testing a
// local site). Consent (redirects to and servers on other origins) is denied by default.
// Before read_skill returns a skill, the user is asked to approve it through the MCP
// host (elicitation), when the host supports it; otherwise the model is told it cannot
// be approved here. -yes grants them all. Every decision is logged to stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/catalog"
	"github.com/wellknown-dev/discovery/tools"
)

// config is what the flags say.
type config struct {
	httpAddr string   // "": stdio
	skills   []string // local skill roots
	origins  []string // sites whose skills index is added at start
	yes      bool     // grant consent and approvals
	private  bool     // -allow-private: private origins may be discovered

	httpClient *http.Client // tests: the TLS roots of a test server; nil in the command
}

// listFlag collects a repeatable flag whose values may also be comma-separated.
type listFlag struct{ v *[]string }

func (l listFlag) String() string {
	if l.v == nil {
		return ""
	}
	return strings.Join(*l.v, ",")
}

func (l listFlag) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l.v = append(*l.v, part)
		}
	}
	return nil
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("mcpserver: ")
	var cfg config
	flag.StringVar(&cfg.httpAddr, "http", "", "serve Streamable HTTP on the loopback `ADDR` (127.0.0.1:PORT) instead of stdio")
	flag.Var(listFlag{&cfg.skills}, "skills", "add the local skills folder `DIR` (repeatable, or a comma list)")
	flag.Var(listFlag{&cfg.origins}, "origin", "add the well-known skills index of `ORIGIN` at start (repeatable)")
	flag.BoolVar(&cfg.yes, "yes", false, "grant consent (other origins) and approve every skill the model reads")
	flag.BoolVar(&cfg.private, "allow-private", false, "let the tools discover private origins (localhost, private addresses): for a local test site")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: mcpserver [-http 127.0.0.1:PORT] [-skills DIR]... [-origin ORIGIN]... [-allow-private] [-yes]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, cfg, os.Stdin, os.Stdout, os.Stderr); err != nil && !errors.Is(err, context.Canceled) {
		log.Fatal(err)
	}
}

// run serves the tools over stdio (in, out) or, with cfg.httpAddr, over HTTP until
// ctx is done. Logs go to logw.
func run(ctx context.Context, cfg config, in io.ReadCloser, out io.WriteCloser, logw io.Writer) error {
	var ln net.Listener
	if cfg.httpAddr != "" {
		var err error
		// Listen first: a refused address fails before any site is contacted.
		if ln, err = tools.ListenLoopback(cfg.httpAddr); err != nil {
			return fmt.Errorf("-http %w", err)
		}
		defer ln.Close()
	}
	server, err := newServer(ctx, cfg, logw)
	if err != nil {
		return err
	}
	if ln == nil {
		return tools.ServeMCPStdio(ctx, server, in, out) // end of input waits for the answers owed
	}
	fmt.Fprintf(logw, "mcpserver: serving MCP on http://%s/mcp\n", ln.Addr())
	return tools.ServeMCPHTTP(ctx, ln, server)
}

// newServer builds the MCP server: one discovery client, one catalog, the tools.
func newServer(ctx context.Context, cfg config, logw io.Writer) (*mcp.Server, error) {
	logger := log.New(logw, "mcpserver: ", 0)
	answer := map[bool]string{true: "granted (-yes)", false: "denied (run with -yes to grant)"}
	client, err := discovery.NewClient(&discovery.Options{
		HTTPClient: cfg.httpClient,
		// The model picks the origins: private ones only when the person said so.
		InsecureAllowPrivateOrigins: cfg.private,
		Consent: func(_ context.Context, req *discovery.ConsentRequest) (bool, error) {
			logger.Printf("consent to %s %s: %s", req.Action, req.Reason, answer[cfg.yes])
			return cfg.yes, nil
		},
	})
	if err != nil {
		return nil, err
	}
	cat := catalog.New(&catalog.Options{Approvals: catalog.NewMemoryApprovals()})
	if len(cfg.skills) > 0 {
		if err := cat.AddLocal(ctx, agentskills.LocalOptions{Roots: cfg.skills}); err != nil {
			return nil, fmt.Errorf("-skills: %w", err)
		}
	}
	ts := tools.New(client, cat, &tools.Options{
		Approve: func(ctx context.Context, req *tools.ApprovalRequest) (bool, error) {
			skill := fmt.Sprintf("approval of skill %q (%s %s, %s)", req.Entry.Name, req.Entry.Kind, discovery.Redact(req.Entry.From), req.Digest)
			if cfg.yes {
				logger.Printf("%s: %s", skill, answer[true])
				return true, nil
			}
			// Ask the user through the MCP host (elicitation), when it can ask.
			ok, err := tools.ElicitApproval(ctx, req)
			switch {
			case ok:
				logger.Printf("%s: granted by the user", skill)
			case errors.Is(err, tools.ErrApprovalDeclined):
				logger.Printf("%s: refused by the user", skill)
			case errors.Is(err, tools.ErrCannotAsk):
				logger.Printf("%s: %s (the MCP host cannot ask the user)", skill, answer[false])
			}
			return ok, err
		},
	})
	for _, o := range cfg.origins {
		// The host's sites: they outrank any site the model adds through list_skills.
		if err := ts.AddSite(ctx, o); err != nil {
			return nil, fmt.Errorf("-origin %s: %w", o, err)
		}
	}
	for _, w := range cat.Warnings() {
		logger.Print(w)
	}

	return ts.MCPServer(&mcp.Implementation{Name: "discovery-tools", Version: discovery.Version}, nil), nil
}
