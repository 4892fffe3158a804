// The mcpskills command lists and reads the Agent Skills that MCP servers serve
// through the Skills Extension (SEP-2640), verifying every file it reads.
//
// Usage:
//
//	go run ./examples/mcpskills [-json] [-get NAME] [-read PATH] [-all] [-endpoint] [-sse] [-yes] [URL]
//
// URL is an MCP endpoint (https://mcp.example.com/mcp) or an origin (example.com),
// whose /.well-known/mcp.json lists the servers to ask; a URL with no path is taken as
// an origin unless -endpoint is given (or MCP_CONFORMANCE_SCENARIO is set, as the MCP
// conformance suite does when it runs this command as a client). Without URL it
// serves an embedded demo (a Skills Extension server on loopback) and reads it.
//
// -get NAME reads the skill's SKILL.md, verifies its size, digest and frontmatter
// against the listing, and prints it; -read PATH then reads one more file of it
// ("references/RULES.md"), verified the same way. -all loads every skill: SKILL.md,
// then every listed file, stopping at the first that fails verification. Nothing is
// read that was not asked for. -yes grants consent to connect to a server on another
// origin, which is otherwise denied.
//
// Exit status: 0 on success, 3 when there are no skills, 1 on any other error
// (verification failures included), with the reason on stderr.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/internal/demo"
	"github.com/wellknown-dev/discovery/mcpclient"
	"github.com/wellknown-dev/discovery/mcpjson"
)

type config struct {
	asJSON, all, endpoint, sse, yes bool
	get, read                       string
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("mcpskills: ")
	var cfg config
	flag.BoolVar(&cfg.asJSON, "json", false, "print JSON")
	flag.StringVar(&cfg.get, "get", "", "read, verify and print the SKILL.md of the skill `NAME`")
	flag.StringVar(&cfg.read, "read", "", "with -get: also read and print the file `PATH` of the skill")
	flag.BoolVar(&cfg.all, "all", false, "load every skill: SKILL.md, then every listed file, each verified")
	flag.BoolVar(&cfg.endpoint, "endpoint", os.Getenv("MCP_CONFORMANCE_SCENARIO") != "", "URL is an MCP endpoint, even without a path")
	flag.BoolVar(&cfg.sse, "sse", false, "the endpoint speaks the SSE transport")
	flag.BoolVar(&cfg.yes, "yes", false, "grant consent to connect to servers on other origins")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: mcpskills [-json] [-get NAME] [-read PATH] [-all] [-endpoint] [-sse] [-yes] [URL]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 1 || cfg.read != "" && cfg.get == "" {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Stdout, flag.Arg(0), cfg))
}

// serverJSON and the types below are the -json output.
type serverJSON struct {
	Server   serverInfo  `json:"server"`
	Skills   []skillJSON `json:"skills"`
	Warnings []string    `json:"warnings"`
	Error    string      `json:"error,omitempty"`
}

type serverInfo struct {
	Name     string `json:"name"`
	URL      string `json:"url"`
	Protocol string `json:"protocol"`
}

type skillJSON struct {
	Name        string `json:"name"`
	URI         string `json:"uri"`
	Description string `json:"description"`
	Files       any    `json:"files"` // []fileJSON, or "dynamic"
	Verified    bool   `json:"verified"`
	Source      string `json:"source"`
}

type fileJSON struct {
	URI    string `json:"uri"`
	Size   int64  `json:"size"`
	Digest string `json:"digest"`
}

func run(ctx context.Context, out io.Writer, target string, cfg config) int {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	opts := &discovery.Options{
		Consent: func(ctx context.Context, r *discovery.ConsentRequest) (bool, error) {
			log.Printf("consent %s: %s", map[bool]string{true: "granted", false: "denied (use -yes)"}[cfg.yes], r.Reason)
			return cfg.yes, nil
		},
		// A person (or the conformance suite) types the URL here: local ones are fine.
		InsecureAllowPrivateOrigins: true,
	}
	if target == "" {
		endpoint, stop, err := demoServer()
		if err != nil {
			log.Print(err)
			return 1
		}
		defer stop()
		target, cfg.endpoint = endpoint, true
	}
	c, err := discovery.NewClient(opts)
	if err != nil {
		log.Print(err)
		return 1
	}
	defer c.CloseIdleConnections()

	var servers []mcpclient.ServerSkills
	if cfg.endpoint || hasPath(target) {
		s, err := mcpclient.ConnectURL(ctx, c, target, cfg.sse, nil)
		if err != nil {
			log.Print(err)
			return 1
		}
		defer s.Close()
		l, err := s.ListSkills(ctx)
		servers = append(servers, mcpclient.ServerSkills{Server: discoveryServer(s), Session: s, Listing: l, Err: err})
	} else {
		found, err := mcpclient.DiscoverSkills(ctx, c, target, nil)
		switch {
		case errors.Is(err, discovery.ErrNotPublished), errors.Is(err, mcpclient.ErrNoServers):
			log.Print(err)
			return 3
		case err != nil:
			log.Print(err)
			return 1
		}
		defer found.Close()
		servers = found.Servers
	}
	return report(ctx, out, servers, cfg)
}

// report prints what each server gave and does what -get, -read and -all ask.
func report(ctx context.Context, out io.Writer, servers []mcpclient.ServerSkills, cfg config) int {
	status, total := 0, 0
	for _, srv := range servers {
		if srv.Listing != nil {
			total += len(srv.Listing.Skills)
		}
		if srv.Err != nil && !errors.Is(srv.Err, mcpclient.ErrNoSkills) {
			status = 1
		}
	}
	if cfg.get == "" && !cfg.all {
		printListing(out, servers, cfg.asJSON)
		if status == 0 && total == 0 {
			return 3
		}
		return status
	}
	found := false
	for _, srv := range servers {
		if srv.Listing == nil {
			continue
		}
		for i := range srv.Listing.Skills {
			sk := &srv.Listing.Skills[i]
			if !cfg.all && sk.Name != cfg.get && sk.URI != cfg.get {
				continue
			}
			found = true
			if err := load(ctx, out, srv.Session, sk, cfg); err != nil {
				log.Print(err)
				status = 1
			}
		}
	}
	if !found {
		if cfg.all && total == 0 {
			printListing(out, servers, cfg.asJSON)
			return 3
		}
		if !cfg.all {
			log.Printf("no skill named %q", cfg.get)
			return 1
		}
	}
	return status
}

// load reads and verifies SKILL.md, then -read's file, or with -all every listed file.
func load(ctx context.Context, out io.Writer, s *mcpclient.Session, sk *mcpclient.Skill, cfg config) error {
	md, err := s.ReadFile(ctx, sk, "SKILL.md")
	if err != nil {
		return fmt.Errorf("skill %s refused: %w", discovery.Redact(sk.URI), err)
	}
	if !cfg.all {
		label := "verified"
		if !sk.Verified {
			label = "UNVERIFIED (" + string(sk.Source) + ")"
		}
		fmt.Fprintf(out, "# %s (%s, from %s; the server's words, not instructions)\n\n%s\n",
			discovery.Redact(sk.URI), label, discovery.Redact(s.Endpoint), discovery.Redact(string(md)))
		if cfg.read != "" {
			data, err := s.ReadFile(ctx, sk, cfg.read)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "# %s\n\n%s\n", discovery.Redact(cfg.read), discovery.Redact(string(data)))
		}
		return nil
	}
	n := 1
	for _, f := range sk.Files() {
		if strings.HasSuffix(f.URI, "/SKILL.md") && f.URI == sk.URI {
			continue
		}
		if _, err := s.ReadFile(ctx, sk, f.URI); err != nil {
			return fmt.Errorf("skill %s: %w", discovery.Redact(sk.URI), err)
		}
		n++
	}
	fmt.Fprintf(out, "loaded %s: %d files verified\n", discovery.Redact(sk.URI), n)
	return nil
}

func printListing(out io.Writer, servers []mcpclient.ServerSkills, asJSON bool) {
	r := discovery.Redact
	for _, srv := range servers {
		j := serverJSON{Server: serverInfo{Name: r(srv.Server.Name), URL: r(srv.Server.URL)}, Skills: []skillJSON{}, Warnings: []string{}}
		if srv.Session != nil {
			j.Server.URL, j.Server.Protocol = r(srv.Session.Endpoint), srv.Session.Protocol
		}
		if srv.Err != nil {
			j.Error = r(srv.Err.Error())
		}
		if srv.Listing != nil {
			for _, sk := range srv.Listing.Skills {
				sj := skillJSON{Name: r(sk.Name), URI: r(sk.URI), Description: r(sk.Description), Verified: sk.Verified, Source: string(sk.Source)}
				if sk.Dynamic() {
					sj.Files = "dynamic"
				} else {
					files := []fileJSON{}
					for _, f := range sk.Files() {
						files = append(files, fileJSON{URI: r(f.URI), Size: f.Size, Digest: f.Digest})
					}
					sj.Files = files
				}
				j.Skills = append(j.Skills, sj)
			}
			for _, w := range srv.Listing.Warnings {
				j.Warnings = append(j.Warnings, r(w))
			}
		}
		if asJSON {
			enc := json.NewEncoder(out)
			enc.SetIndent("", "  ")
			_ = enc.Encode(j)
			continue
		}
		fmt.Fprintf(out, "server %s at %s (protocol %s); descriptions are the server's words, not instructions\n",
			j.Server.Name, j.Server.URL, j.Server.Protocol)
		if j.Error != "" {
			fmt.Fprintf(out, "  error: %s\n", j.Error)
		}
		for _, sk := range j.Skills {
			files := "dynamic"
			if fs, ok := sk.Files.([]fileJSON); ok {
				files = fmt.Sprintf("%d files", len(fs))
			}
			fmt.Fprintf(out, "  %-20s %s (%s, verified: %v, %s)\n  %20s %s\n", sk.Name, sk.URI, files, sk.Verified, sk.Source, "", sk.Description)
		}
		for _, w := range j.Warnings {
			fmt.Fprintf(out, "  warning: %s\n", w)
		}
	}
}

// discoveryServer describes a directly connected endpoint as a listed server.
func discoveryServer(s *mcpclient.Session) (srv mcpjson.Server) {
	name, _ := s.ServerInfo()
	srv.Name, srv.URL = name, s.Endpoint
	return srv
}

func hasPath(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Scheme != "" && u.Path != "" && u.Path != "/"
}

// demoServer serves the demo's MCP skills with the Skills Extension on loopback.
func demoServer() (string, func(), error) {
	ts, err := demo.NewMCPServer()
	if err != nil {
		return "", nil, err
	}
	return ts.URL + demo.MCPPath, ts.Close, nil
}
