// The discover command prints what a web origin publishes for AI agents at
// /.well-known/skills.md and /.well-known/mcp.json.
//
// Usage:
//
//	go run ./examples/discover [-json] [-model] [-structured] [-yes] [ORIGIN]
//
// Without ORIGIN it starts an embedded demo origin (a TLS server on loopback serving
// the documents in testdata/) and discovers it, so it needs no network. -structured
// fetches mcp.json as well; -json prints one JSON object; -model prints skills.md the
// way an agent should hand it to a model (fenced and labelled as untrusted); -yes
// grants every consent request (cross-origin redirects), which is otherwise denied.
//
// Exit status: 0 on success (also when only one document is published), 3 when the
// origin publishes neither document, 1 on any other error.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/internal/demo"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("discover: ")
	asJSON := flag.Bool("json", false, "print one JSON object")
	model := flag.Bool("model", false, "print skills.md rendered for a model's context")
	structured := flag.Bool("structured", false, "fetch mcp.json as well as skills.md")
	yes := flag.Bool("yes", false, "grant consent requests (cross-origin redirects)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: discover [-json] [-model] [-structured] [-yes] [ORIGIN]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Stdout, flag.Arg(0), mode(*asJSON, *model), *structured, *yes))
}

// output is what run prints.
type output int

const (
	text output = iota
	jsonOut
	modelOut
)

func mode(asJSON, model bool) output {
	switch {
	case asJSON:
		return jsonOut
	case model:
		return modelOut
	}
	return text
}

// run discovers origin (the embedded demo when empty) and returns the exit status.
func run(ctx context.Context, out io.Writer, origin string, how output, structured, yes bool) int {
	// A person types the origin here, so a local one (http://localhost:8080) is fine.
	opts := &discovery.Options{Consent: consent(yes), InsecureAllowPrivateOrigins: true}
	if origin == "" {
		ts, err := demo.NewServer()
		if err != nil {
			log.Print(err)
			return 1
		}
		defer ts.Close()
		origin, opts.HTTPClient = ts.URL, ts.Client()
	}
	c, err := discovery.NewClient(opts)
	if err != nil {
		log.Print(err)
		return 1
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	call := c.Discover
	if structured {
		call = c.Structured
	}
	d, err := call(ctx, origin)
	switch {
	case errors.Is(err, discovery.ErrNotPublished):
		log.Print(err)
		return 3
	case err != nil:
		log.Print(err)
		return 1
	}
	switch how {
	case modelOut:
		fmt.Fprint(out, d.ForModel(nil)) // fenced, labelled untrusted, redacted, within budget
		return 0
	case jsonOut:
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report(d)); err != nil {
			log.Print(err)
			return 1
		}
		return 0
	}
	printText(out, d)
	return 0
}

// consent denies every request, or grants it with -yes; either way it says so on stderr.
func consent(yes bool) discovery.ConsentFunc {
	return func(ctx context.Context, req *discovery.ConsentRequest) (bool, error) {
		verdict := "denied (use -yes to allow)"
		if yes {
			verdict = "granted"
		}
		log.Printf("consent %s: %s", verdict, req.Reason)
		return yes, nil
	}
}

type jsonReport struct {
	Origin   string      `json:"origin"`
	Skills   *jsonSkills `json:"skills"`
	MCP      *jsonMCP    `json:"mcp"`
	Fetches  []jsonFetch `json:"fetches"`
	Warnings []string    `json:"warnings"`
}

type jsonSkills struct {
	Title    string        `json:"title"`
	Sections []jsonSection `json:"sections"`
	BaseURL  string        `json:"base_url"`
}

type jsonSection struct {
	Heading string `json:"heading"`
}

type jsonMCP struct {
	Shape       string       `json:"shape"`
	SpecVersion string       `json:"spec_version"`
	Status      string       `json:"status"`
	Servers     []jsonServer `json:"servers"`
	Tools       []jsonTool   `json:"tools"`
}

type jsonServer struct {
	Name      string `json:"name"`
	URL       string `json:"url"`
	Transport string `json:"transport"`
}

type jsonTool struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

type jsonFetch struct {
	URL    string `json:"url"`
	Status int    `json:"status"`
	Source string `json:"source"`
}

func report(d *discovery.Discovery) jsonReport {
	r := jsonReport{Origin: d.Origin.String(), Fetches: []jsonFetch{}, Warnings: []string{}}
	if s := d.Guide; s != nil {
		js := &jsonSkills{Title: discovery.Redact(s.Title), BaseURL: discovery.Redact(s.BaseURL), Sections: []jsonSection{}}
		for _, sec := range s.Sections {
			js.Sections = append(js.Sections, jsonSection{Heading: discovery.Redact(sec.Heading)})
		}
		r.Skills = js
	}
	if m := d.MCP; m != nil {
		jm := &jsonMCP{Shape: string(m.Shape), SpecVersion: discovery.Redact(m.SpecVersion), Status: discovery.Redact(m.Status), Servers: []jsonServer{}, Tools: []jsonTool{}}
		for _, s := range m.Servers {
			jm.Servers = append(jm.Servers, jsonServer{Name: discovery.Redact(s.Name), URL: discovery.Redact(s.URL), Transport: discovery.Redact(string(s.Transport))})
		}
		for _, t := range m.Tools {
			jm.Tools = append(jm.Tools, jsonTool{Name: discovery.Redact(t.Name), URL: discovery.Redact(t.URL)})
		}
		r.MCP = jm
	}
	for _, f := range d.Fetches {
		r.Fetches = append(r.Fetches, jsonFetch{URL: discovery.Redact(f.URL), Status: f.StatusCode, Source: f.Source.String()})
	}
	for _, w := range d.Warnings {
		r.Warnings = append(r.Warnings, discovery.Redact(w.String()))
	}
	return r
}

// printText prints d for a person. Every string a site published goes through
// discovery.Redact: no credential, userinfo or query string reaches the terminal.
func printText(out io.Writer, d *discovery.Discovery) {
	r := discovery.Redact
	fmt.Fprintf(out, "origin: %s\n", d.Origin)
	for _, f := range d.Fetches {
		fmt.Fprintf(out, "fetched %s: %d (%s, %d attempts)\n", r(f.URL), f.StatusCode, f.Source, f.Attempts)
	}
	if s := d.Guide; s != nil {
		fmt.Fprintf(out, "\nskills.md (published by %s; untrusted guidance)\n", d.Origin)
		fmt.Fprintf(out, "  title:    %s\n", r(s.Title))
		if s.Summary != "" {
			fmt.Fprintf(out, "  summary:  %s\n", r(s.Summary))
		}
		if s.BaseURL != "" {
			base := s.BaseURL
			if u, err := d.Origin.Resolve(s.BaseURL); err == nil {
				base = u.String()
			}
			fmt.Fprintf(out, "  API base: %s\n", r(base))
		}
		for _, sec := range s.Sections {
			fmt.Fprintf(out, "  ## %s\n", r(sec.Heading))
			if sec.Text != "" {
				fmt.Fprintf(out, "     %s\n", strings.ReplaceAll(r(sec.Text), "\n", "\n     "))
			}
			for _, it := range sec.Items {
				fmt.Fprintf(out, "     - %s\n", r(it))
			}
		}
	}
	if m := d.MCP; m != nil {
		about := []string{"shape " + string(m.Shape)}
		if m.SpecVersion != "" {
			about = append(about, "spec "+r(m.SpecVersion))
		}
		if m.Status != "" {
			about = append(about, r(m.Status))
		}
		fmt.Fprintf(out, "\nmcp.json (%s)\n", strings.Join(about, ", "))
		for _, s := range m.Servers {
			fmt.Fprintf(out, "  server %s: %s (%s)\n", r(s.Name), r(s.URL), r(string(s.Transport)))
		}
		for _, t := range m.Tools {
			fmt.Fprintf(out, "  tool %s: %s %s\n", r(t.Name), r(t.URL), r(fmt.Sprint(t.Methods)))
		}
	}
	for _, w := range d.Warnings {
		fmt.Fprintf(out, "warning: %s\n", r(w.String()))
	}
}
