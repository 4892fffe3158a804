package skillsmd

import "fmt"

// Evidence explains how a guide's API base and auth rules were read: every statement
// of the base met, where it stood and why the one taken won, the URLs set aside, and
// where each auth rule came from. It is what "wellknown lint --explain" shows a
// publisher. It is plain data; every string in it comes from the document and is
// untrusted.
type Evidence struct {
	BaseURL string // the Document's BaseURL
	// BaseFrom is the Source of the base taken ("label", "table"... or, when no
	// statement gives one, "variable", "api-rows", "endpoints" or "mcp-endpoint");
	// "" when BaseURL is "".
	BaseFrom string
	Bases    []BaseEvidence // the statements of the base in document order, then the URLs set aside
	Auth     []AuthEvidence // one per rule of Document.Auth, in order, then the rules not taken
}

// BaseEvidence is one candidate for the API base.
type BaseEvidence struct {
	Value string // as written
	// Source is where it stood: "label" ("Base URL: x", also in a list item),
	// "lead-in" (the line or block after a "Base URL" heading or a lead-in such as
	// "API base for agents:", or an item nested under a "Base URL:" item), "table"
	// (a row, such as Production beside Staging), "environment" (a "**Production
	// URL:**" or "Mainnet" bullet), "prose" (a sentence saying the API is this
	// site's /api), "frontmatter", "endpoint" (a request example's URL), or one of
	// the inferences of Evidence.BaseFrom.
	Source string
	Taken  bool   // it is the Document's BaseURL
	Why    string // why it was not taken; "" when Taken
}

// AuthEvidence is one auth rule and where it came from.
type AuthEvidence struct {
	Rule string // as in Document.Auth; never a credential's value
	// Source is "auth-section" (an item or paragraph of the Auth section),
	// "auth-code" (a header a code block of the Auth section, or one a sentence
	// introduces, sends), "label" ("Auth: ..."), "prose" (a sentence naming the
	// header, saying none is needed, or naming the credential the API takes; one
	// that only mentions a key the API hands out is not taken when another says how
	// to authenticate), "table" (an Auth row), "auth-column" (an
	// endpoints table's Auth column), "frontmatter", or "request-example" (a header
	// the guide's request examples send, read only when nothing else states auth).
	Source string
	Taken  bool   // it is in Document.Auth
	Why    string // why it was not taken; "" when Taken
}

// Explain reads data as Parse does and returns the evidence for the API base and the
// auth rules of the Document Parse returns. It is pure, like Parse, and returns the
// same errors. It costs a little more than Parse: call it to explain, not to read.
func Explain(data []byte) (*Evidence, error) {
	ev := &Evidence{}
	if _, err := parse(data, ev); err != nil {
		return nil, err
	}
	return ev, nil
}

// source is where a base or an auth rule was stated.
type source uint8

const (
	fromLabel source = iota + 1
	fromNext
	fromTable
	fromEnvironment
	fromProse
	fromFrontmatter
	fromEndpoint
	fromAuthSection
	fromAuthCode
	fromRequest
	fromAuthColumn
	fromVariable
	fromAPIRows
	fromEndpoints
	fromMCP
)

var sourceNames = [...]string{fromLabel: "label", fromNext: "lead-in", fromTable: "table", fromEnvironment: "environment",
	fromProse: "prose", fromFrontmatter: "frontmatter", fromEndpoint: "endpoint", fromAuthSection: "auth-section",
	fromAuthCode: "auth-code", fromRequest: "request-example", fromAuthColumn: "auth-column", fromVariable: "variable",
	fromAPIRows: "api-rows", fromEndpoints: "endpoints", fromMCP: "mcp-endpoint"}

func (s source) String() string {
	if int(s) < len(sourceNames) && sourceNames[s] != "" {
		return sourceNames[s]
	}
	return fmt.Sprintf("source(%d)", int(s))
}

// maxEvidence bounds each list of an Evidence.
const maxEvidence = 64

// setAside records, when explaining, a URL met as a candidate for the base and not
// kept, with why.
func (p *parser) setAside(v string, from source, why string) {
	if p.explain && len(p.asides) < maxEvidence {
		p.asides = append(p.asides, BaseEvidence{Value: v, Source: from.String(), Why: why})
	}
}

// noteAuth records, when explaining, where an auth rule came from.
func (p *parser) noteAuth(rule string, from source) {
	if p.explain && len(p.authEv) < 2*maxEvidence {
		p.authEv = append(p.authEv, AuthEvidence{Rule: rule, Source: from.String()})
	}
}

// explainTo fills ev from what the parser read: called by read once the Document
// is complete.
func (p *parser) explainTo(ev *Evidence) {
	d := p.doc
	ev.BaseURL = d.BaseURL
	best := -1
	for i, c := range p.bases {
		if best < 0 || c.better(p.bases[best]) {
			best = i
		}
	}
	for i, c := range p.bases {
		if len(ev.Bases) >= maxEvidence {
			break
		}
		e := BaseEvidence{Value: c.value, Source: c.from.String()}
		switch b := p.bases[max(best, 0)]; {
		case p.ambiguous:
			e.Why = "the stated bases name several hosts, one per service: none is the document's own"
		case i == best && c.value == d.BaseURL:
			e.Taken = true
			ev.BaseFrom = e.Source
		case c.value == b.value:
			e.Why = "the base taken, stated again"
		case c.tier != b.tier:
			e.Why = "outranked by " + b.value + ", stated in a stronger place (" + tierName(b.tier) + ", not " + tierName(c.tier) + ")"
		case c.strength != b.strength:
			e.Why = "outranked by " + b.value + ", stated with a stronger label"
		default:
			e.Why = "outranked by " + b.value + ", stated earlier with an equal label"
		}
		ev.Bases = append(ev.Bases, e)
	}
	if ev.BaseFrom == "" && d.BaseURL != "" {
		from := fromEndpoints
		switch {
		case p.varLine > 0:
			from = fromVariable
		case p.fromRows:
			from = fromAPIRows
		case p.mcpBase:
			from = fromMCP
		}
		ev.BaseFrom = from.String()
		ev.Bases = append(ev.Bases, BaseEvidence{Value: d.BaseURL, Source: ev.BaseFrom, Taken: true})
	}
	ev.Bases = append(ev.Bases, p.asides...)
	for _, r := range d.Auth {
		ev.Auth = append(ev.Auth, AuthEvidence{Rule: r, Source: p.authSource(r, d.Auth), Taken: true})
	}
	for _, a := range p.authEv {
		if a.Source == fromRequest.String() && !contains(d.Auth, a.Rule) && len(ev.Auth) < 2*maxEvidence {
			a.Why = "the guide states its auth rules elsewhere: the headers its request examples send are read only when it states none"
			ev.Auth = append(ev.Auth, a)
		}
	}
	if len(p.credAuth) > 0 && contains(d.Auth, p.credAuth[0]) {
		for _, s := range p.credDropped {
			ev.Auth = append(ev.Auth, AuthEvidence{Rule: s, Source: fromProse.String(),
				Why: "it only mentions a key the API hands out; \"" + p.credAuth[0] + "\" says how to authenticate"})
		}
	}
}

// authSource is where the rule r of auth came from: a statement before a request
// example, which counts only when nothing states auth.
func (p *parser) authSource(r string, auth []string) string {
	req := ""
	for _, a := range p.authEv {
		if a.Rule != r {
			continue
		}
		if a.Source != fromRequest.String() {
			return a.Source
		}
		req = a.Source
	}
	return req
}

// tierName names the place of a base statement (baseCandidate.tier).
func tierName(tier int) string {
	switch tier {
	case 0:
		return "the API section or a base heading"
	case 1:
		return "the frontmatter, summary or preamble"
	}
	return "another section"
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
