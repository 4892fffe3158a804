// The skills command lists the Agent Skills a web origin publishes in its well-known
// skills index, and fetches and verifies one of them.
//
// Usage:
//
//	go run ./examples/skills [-json] [-get NAME] [-yes] [ORIGIN]
//
// Without ORIGIN it serves an embedded demo index (a TLS server on loopback) and
// reads it, so it needs no network. -get fetches the named skill, verifies its digest,
// unpacks it if it is an archive, and lists its files. -yes grants consent to fetch an
// artifact from another origin, which is otherwise denied.
//
// Exit status: 0 on success, 3 when the origin publishes no index, 1 on any other
// error (a digest mismatch, an unsafe archive...), with the reason on stderr.
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
	"time"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/internal/demo"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("skills: ")
	asJSON := flag.Bool("json", false, "print one JSON object")
	get := flag.String("get", "", "fetch, verify and list the files of the skill `NAME`")
	yes := flag.Bool("yes", false, "grant consent to fetch artifacts from other origins")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: skills [-json] [-get NAME] [-yes] [ORIGIN]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Stdout, flag.Arg(0), *get, *asJSON, *yes))
}

func run(ctx context.Context, out io.Writer, origin, get string, asJSON, yes bool) int {
	opts := &discovery.Options{Consent: func(ctx context.Context, r *discovery.ConsentRequest) (bool, error) {
		log.Printf("consent %s: %s", map[bool]string{true: "granted", false: "denied (use -yes)"}[yes], r.Reason)
		return yes, nil
	},
		// A person types the origin here, so a local one (http://localhost:8080) is fine.
		AllowPrivateOrigins: true,
	}
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
	ix, err := c.ListSkills(ctx, origin)
	switch {
	case errors.Is(err, discovery.ErrNotPublished):
		log.Print(err)
		return 3
	case err != nil:
		log.Print(err)
		return 1
	}
	if get == "" {
		printList(out, ix, asJSON)
		return 0
	}
	sk, err := c.GetSkill(ctx, ix, get)
	if err != nil {
		log.Print(err)
		return 1
	}
	printSkill(out, sk, asJSON)
	return 0
}

type listJSON struct {
	IndexURL string      `json:"index_url"`
	Version  string      `json:"version"`
	Skills   []entryJSON `json:"skills"`
	Warnings []string    `json:"warnings"`
}

type entryJSON struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Type        string `json:"type"`
	URL         string `json:"url"`
	Digest      string `json:"digest"`
}

func printList(out io.Writer, ix *discovery.SkillsIndex, asJSON bool) {
	// Every string the site published goes through discovery.Redact: no credential,
	// userinfo or query string reaches the terminal.
	r := discovery.Redact
	l := listJSON{IndexURL: r(ix.Index.URL), Version: r(ix.Index.Version), Skills: []entryJSON{}, Warnings: []string{}}
	for _, s := range ix.Index.Skills {
		l.Skills = append(l.Skills, entryJSON{r(s.Name), r(s.Description), r(s.Type), r(s.URL), r(s.Digest)})
	}
	for _, w := range ix.Warnings {
		l.Warnings = append(l.Warnings, r(w.String()))
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(l)
		return
	}
	fmt.Fprintf(out, "index %s (v%s); descriptions are the site's words, not instructions\n", l.IndexURL, l.Version)
	for _, s := range l.Skills {
		fmt.Fprintf(out, "  %-16s %-8s %s\n  %16s %s\n", s.Name, s.Type, s.URL, "", s.Description)
	}
	for _, w := range l.Warnings {
		fmt.Fprintf(out, "warning: %s\n", w)
	}
}

type skillJSON struct {
	Skill struct {
		Name        string         `json:"name"`
		Frontmatter map[string]any `json:"frontmatter"`
		Verified    bool           `json:"verified"`
		Files       []fileJSON     `json:"files"`
	} `json:"skill"`
	Warnings []string `json:"warnings"`
}

type fileJSON struct {
	Path   string `json:"path"`
	Size   int    `json:"size"`
	Digest string `json:"digest"`
}

func printSkill(out io.Writer, sk *discovery.Skill, asJSON bool) {
	var s skillJSON
	s.Skill.Name, s.Skill.Verified = discovery.Redact(sk.SkillMD.Name()), sk.Verified
	s.Skill.Frontmatter, _ = redactAny(map[string]any(sk.SkillMD.Frontmatter)).(map[string]any)
	s.Skill.Files, s.Warnings = []fileJSON{}, []string{}
	for _, f := range sk.Files {
		s.Skill.Files = append(s.Skill.Files, fileJSON{discovery.Redact(f.Path), len(f.Data), agentskills.Digest(f.Data)})
	}
	for _, w := range sk.Warnings {
		s.Warnings = append(s.Warnings, discovery.Redact(w.String()))
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		_ = enc.Encode(s)
		return
	}
	fmt.Fprintf(out, "skill %s (verified: %v)\n", s.Skill.Name, s.Skill.Verified)
	for _, f := range s.Skill.Files {
		fmt.Fprintf(out, "  %-24s %6d  %s\n", f.Path, f.Size, f.Digest)
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(out, "warning: %s\n", w)
	}
}

// redactAny redacts every string in a JSON-compatible value, keys included.
func redactAny(v any) any {
	switch v := v.(type) {
	case string:
		return discovery.Redact(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[discovery.Redact(k)] = redactAny(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = redactAny(e)
		}
		return out
	}
	return v
}
