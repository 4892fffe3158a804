package lint

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/wellknown-dev/discovery/diag"
	"github.com/wellknown-dev/discovery/internal/termtext"
	"github.com/wellknown-dev/discovery/mcpjson"
	"github.com/wellknown-dev/discovery/skillsmd"
)

// Evidence is what a reader decided about one value of a document, and why: an
// mcp.json URL taken as an endpoint or not, a skills.md API base, an auth rule. Its
// JSON field names are stable. Every string in it comes from the document, cleaned
// of control characters.
type Evidence struct {
	Kind  string `json:"kind"`  // "endpoint" (mcp.json), "api-base" or "auth" (skills.md)
	Value string `json:"value"` // the URL, base or auth rule, as published
	Taken bool   `json:"taken"` // the reader uses it: a server, the base, a rule
	// Source is where it stood: for mcp.json "shape" (a known shape's key) or
	// "candidate" (scored by the candidate pass); for skills.md "label", "lead-in",
	// "table", "environment", "prose", "frontmatter", "endpoint", "auth-section",
	// "auth-code", "auth-column", "request-example", or how a base no statement
	// gives was inferred: "variable", "api-rows", "endpoints", "mcp-endpoint".
	Source  string   `json:"source,omitempty"`
	Score   int      `json:"score,omitempty"`   // the candidate pass's score (mcp.json); absent when 0
	Reasons []string `json:"reasons,omitempty"` // the evidence weighed, such as "+3 its key names MCP"
	Why     string   `json:"why,omitempty"`     // why it was not taken
}

// Info codes: what Options.Explain adds.
const (
	codeEndpointTaken    = "endpoint-taken"
	codeEndpointRejected = "endpoint-rejected"
	codeBaseTaken        = "base-taken"
	codeBaseRejected     = "base-rejected"
	codeAuthRule         = "auth-rule"
	codeAuthRejected     = "auth-rejected"
)

// clean makes a string from a document fit to show.
func clean(s string) string { return termtext.Clean(s, 512) }

// explainMCP adds an info problem for each URL the mcp.json reader considered.
func (l *linter) explainMCP(file string, pos *jsonPositions, doc *mcpjson.Document) {
	for _, c := range doc.Candidates {
		ev := &Evidence{Kind: "endpoint", Value: clean(c.URL), Taken: c.Taken, Source: "shape", Score: c.Score, Why: clean(c.Why)}
		if c.Scored {
			ev.Source = "candidate"
		} else {
			ev.Reasons = append(ev.Reasons, "read by the "+string(doc.Shape)+" shape")
		}
		for _, r := range c.Reasons {
			ev.Reasons = append(ev.Reasons, clean(r))
		}
		code, msg := codeEndpointTaken, "MCP endpoint "+ev.Value+" taken"
		if !c.Taken {
			code, msg = codeEndpointRejected, "candidate "+ev.Value+" not taken: "+ev.Why
		}
		if len(ev.Reasons) > 0 {
			msg += " (evidence: " + strings.Join(ev.Reasons, ", ")
			if ev.Source == "candidate" {
				msg += fmt.Sprintf("; score %d", c.Score)
			}
			msg += ")"
		}
		line, col := pos.lineCol(c.Pointer)
		l.add(Problem{File: file, Line: line, Column: col, Pointer: c.Pointer, Severity: diag.Info, Code: code, Message: msg, Evidence: ev})
	}
}

// explainSkillsMD adds an info problem for the API base taken, each candidate set
// aside, and each auth rule, at the line where its text first appears.
func (l *linter) explainSkillsMD(file string, data []byte) {
	ev, err := skillsmd.Explain(data)
	if err != nil {
		return // reported by lintSkillsMD
	}
	at := func(s string) (int, int) {
		i := bytes.Index(data, []byte(s))
		if f := strings.Fields(s); i < 0 && len(f) > 0 {
			// "Authorization: Bearer", "X-Key header": the header's name.
			if w := strings.TrimRight(f[0], ":"); len(w) > 3 {
				i = bytes.Index(data, []byte(w))
			}
		}
		if i < 0 {
			return 0, 0
		}
		return offsetLineCol(data, i)
	}
	for _, b := range ev.Bases {
		e := &Evidence{Kind: "api-base", Value: clean(b.Value), Taken: b.Taken, Source: b.Source, Why: clean(b.Why)}
		code, msg := codeBaseTaken, fmt.Sprintf("API base %s taken from %s", e.Value, sourceName(b.Source))
		if !b.Taken {
			code, msg = codeBaseRejected, fmt.Sprintf("API base candidate %s (%s) not taken: %s", e.Value, sourceName(b.Source), e.Why)
		}
		line, col := at(b.Value)
		l.add(Problem{File: file, Line: line, Column: col, Severity: diag.Info, Code: code, Message: msg, Evidence: e})
	}
	for _, a := range ev.Auth {
		e := &Evidence{Kind: "auth", Value: clean(a.Rule), Taken: a.Taken, Source: a.Source, Why: clean(a.Why)}
		code, msg := codeAuthRule, fmt.Sprintf("auth rule %q from %s", e.Value, sourceName(a.Source))
		if !a.Taken {
			what := "auth header"
			if a.Source == "prose" {
				what = "auth sentence"
			}
			code, msg = codeAuthRejected, fmt.Sprintf("%s %q from %s not taken: %s", what, e.Value, sourceName(a.Source), e.Why)
		}
		line, col := at(a.Rule)
		l.add(Problem{File: file, Line: line, Column: col, Severity: diag.Info, Code: code, Message: msg, Evidence: e})
	}
}

// sourceName says a skills.md evidence source in words.
func sourceName(s string) string {
	if n, ok := map[string]string{
		"label": "a label", "lead-in": "the block after a base heading or lead-in", "table": "a table row",
		"environment": "the production environment's entry", "prose": "a sentence", "frontmatter": "the frontmatter",
		"endpoint": "an endpoint in an example", "auth-section": "the Auth section", "auth-code": "a header a code block of the Auth section sends",
		"auth-column": "an endpoints table's Auth column", "request-example": "a header the request examples send",
		"variable": "the variable the endpoints start with", "api-rows": "a table row naming the API",
		"endpoints": "the endpoints' common prefix", "mcp-endpoint": "the one MCP endpoint",
	}[s]; ok {
		return n
	}
	return s
}
