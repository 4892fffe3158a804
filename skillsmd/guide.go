package skillsmd

import (
	"bytes"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// kind is what a section is about, for the typed view.
type kind int

const (
	kindOther kind = iota
	kindPreamble
	kindPurpose
	kindAPI
	kindAuth
	kindSafe
	kindRisky
	kindSafety // both: each item is sorted into safe or risky
	kindLimits
	kindMoreInfo
	kindCredits
)

// headingKinds maps normalised headings to kinds. A heading matches a pattern when it
// equals it or starts with it followed by a space ("Safety floor (auto...)" is Safety).
// Order matters: the first match wins ("API keys" is auth, not API).
var headingKinds = []struct {
	pattern string
	kind    kind
}{
	{"auth", kindAuth}, {"authentication", kindAuth}, {"authorization", kindAuth},
	{"api key", kindAuth}, {"api keys", kindAuth}, {"credentials", kindAuth},
	{"safe actions", kindSafe}, {"safe", kindSafe}, {"safe operations", kindSafe},
	{"allowed actions", kindSafe}, {"read only actions", kindSafe},
	{"risky actions", kindRisky}, {"risky", kindRisky}, {"unsafe actions", kindRisky},
	{"requires approval", kindRisky}, {"approval required", kindRisky},
	{"actions requiring approval", kindRisky}, {"dangerous actions", kindRisky},
	{"destructive actions", kindRisky}, {"write actions", kindRisky}, {"ask first", kindRisky},
	{"safety", kindSafety}, {"rules", kindSafety}, {"do not", kindSafety}, {"dont", kindSafety},
	{"don t", kindSafety}, {"guardrails", kindSafety}, {"restrictions", kindSafety},
	{"prohibited", kindSafety}, {"agent rules", kindSafety}, {"usage rules", kindSafety},
	{"limits", kindLimits}, {"limit", kindLimits}, {"rate limits", kindLimits}, {"rate limit", kindLimits},
	{"rate limiting", kindLimits}, {"quotas", kindLimits}, {"quota", kindLimits}, {"usage limits", kindLimits},
	{"api", kindAPI}, {"endpoints", kindAPI}, {"api endpoints", kindAPI}, {"base url", kindAPI},
	{"rest api", kindAPI}, {"http api", kindAPI},
	{"more info", kindMoreInfo}, {"more information", kindMoreInfo}, {"links", kindMoreInfo},
	{"docs", kindMoreInfo}, {"documentation", kindMoreInfo}, {"support", kindMoreInfo},
	{"resources", kindMoreInfo}, {"references", kindMoreInfo}, {"reference", kindMoreInfo},
	{"see also", kindMoreInfo}, {"related", kindMoreInfo}, {"help", kindMoreInfo},
	{"contact", kindMoreInfo}, {"learn more", kindMoreInfo}, {"further reading", kindMoreInfo},
	{"purpose", kindPurpose}, {"about", kindPurpose}, {"overview", kindPurpose},
	{"what is", kindPurpose}, {"introduction", kindPurpose}, {"description", kindPurpose},
	{"credits", kindCredits}, {"credit", kindCredits},
}

// headingsByWord indexes headingKinds by the pattern's first word; each list keeps the
// table's order.
var headingsByWord = func() map[string][]int {
	m := make(map[string][]int)
	for i, hk := range headingKinds {
		w, _, _ := strings.Cut(hk.pattern, " ")
		m[w] = append(m[w], i)
	}
	return m
}()

// classifyNormalized returns the kind a normalised heading names, or kindOther.
func classifyNormalized(h string) kind {
	w, _, _ := strings.Cut(h, " ")
	for _, i := range headingsByWord[w] {
		hk := headingKinds[i]
		if h == hk.pattern || len(h) > len(hk.pattern) && h[len(hk.pattern)] == ' ' && strings.HasPrefix(h, hk.pattern) {
			return hk.kind
		}
	}
	return kindOther
}

// normalizeHeading lower-cases, drops a parenthetical and a leading number, and
// replaces punctuation with single spaces: "2. Rate-Limits (per key)" is "rate limits".
// It builds the result in one allocation (none for an empty result): it runs for every
// heading and every table row.
func normalizeHeading(h string) string {
	if i := strings.IndexByte(h, '('); i > 0 {
		h = h[:i]
	}
	var buf [64]byte
	b := buf[:0]
	space := false
	for _, r := range h {
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
		} else {
			r = unicode.ToLower(r)
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 0x7f && r != '—' && r != '–' {
			if space && len(b) > 0 {
				b = append(b, ' ')
			}
			b = utf8.AppendRune(b, r)
			space = false
			continue
		}
		if r != '\'' && r != '’' {
			space = true
		}
	}
	for len(b) > 0 && b[0] >= '0' && b[0] <= '9' { // "2 rate limits"
		i := bytes.IndexByte(b, ' ')
		if i < 0 {
			break
		}
		b = b[i+1:]
	}
	return string(b)
}

// riskyRule matches safety items that ask for approval or forbid something.
var riskyRule = regexp.MustCompile(`(?i)\b(ask|approv|confirm|consent|permission|do not|don'?t|never|must not|should not|avoid|stop|only (with|after|when|if)|forbidden|prohibit|not allowed|requires? (the )?user|destructive|delete|payment|purchase)`)

// safeRule matches safety items that grant something: reads, or explicit permission.
var safeRule = regexp.MustCompile(`(?i)(^\W*(read|get|list|view|fetch|search|browse|query)\b|\b(safe|allowed|read[- ]only|freely|without asking|no approval)\b)`)

// typedText files a paragraph of the current section into the typed view.
func (p *parser) typedText(t string, n ast.Node) {
	if t == "" {
		return
	}
	d := p.doc
	switch p.kind() {
	case kindPurpose:
		if d.Purpose != "" {
			d.Purpose += " "
		}
		d.Purpose += t
	case kindAPI:
		d.API = append(d.API, t)
	case kindAuth:
		d.Auth = append(d.Auth, t)
	case kindSafe:
		d.SafeActions = append(d.SafeActions, t)
	case kindRisky:
		d.RiskyActions = append(d.RiskyActions, t)
	case kindSafety:
		p.sortSafety(t)
	case kindLimits:
		d.Limits = append(d.Limits, t)
	case kindMoreInfo:
		p.infoLinks(t, n, false)
	case kindCredits:
		p.credit(t, n)
	}
}

// typedItems files list items of the current section into the typed view.
func (p *parser) typedItems(items []item) {
	for _, it := range items {
		switch p.kind() {
		case kindMoreInfo:
			p.infoLinks(it.text, it.node, true)
		case kindPreamble:
			p.infoLinks(it.text, it.node, false) // "Docs: <url>" before the first heading
		default:
			p.typedText(it.text, it.node)
		}
	}
}

// sortSafety files an item of a Safety-like section. The default is risky: a list of
// prohibitions ("Genetic targeting", "Cognitive enhancement in minors") must never pass
// for safe actions. Only items that read as permissions, with no word of caution, are
// safe.
func (p *parser) sortSafety(t string) {
	if safeRule.MatchString(t) && !riskyRule.MatchString(t) {
		p.doc.SafeActions = append(p.doc.SafeActions, t)
	} else {
		p.doc.RiskyActions = append(p.doc.RiskyActions, t)
	}
}

// infoLinks adds the links of one item or paragraph to MoreInfo. The label is the text
// before the first colon ("Docs: ..."), else the link text. With any false, only links
// whose label names a known kind (docs, support...) are kept.
func (p *parser) infoLinks(t string, n ast.Node, any bool) {
	label, rest, hasLabel := strings.Cut(t, ":")
	if !hasLabel || len(label) > 40 || strings.Contains(label, "//") {
		label, rest = "", t
	}
	label = strings.TrimSpace(label)
	urls := p.urlsIn(n)
	if len(urls) == 0 && label != "" {
		// "JSON discovery: /.well-known/mcp.json" names a path without linking it.
		if v := firstField(rest); strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "//") {
			urls = []linkRef{{url: v}}
		}
	}
	for _, u := range urls {
		l := label
		if l == "" {
			l = u.text
		}
		k := infoKind(l, u.url)
		if !any && k == "other" {
			continue
		}
		p.doc.MoreInfo = append(p.doc.MoreInfo, InfoLink{Kind: k, Label: l, URL: u.url})
	}
}

// credit reads the Credits section: "Spec: URL" and "Spec version: 2026-06-13".
func (p *parser) credit(t string, n ast.Node) {
	label, rest, ok := strings.Cut(t, ":")
	if !ok {
		return
	}
	value := strings.Trim(firstField(rest), "`")
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "spec", "specification", "spec url":
		if urls := p.urlsIn(n); len(urls) > 0 {
			value = urls[0].url
		}
		p.doc.SpecURL = value
		p.doc.MoreInfo = append(p.doc.MoreInfo, InfoLink{Kind: "spec", Label: strings.TrimSpace(label), URL: value})
	case "spec version", "specification version", "version":
		p.doc.SpecVersion = value
	}
}

func firstField(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[0], "`<>")
}

type linkRef struct{ text, url string }

// urlsIn returns the destinations of links, autolinks and bare URLs inside n. The
// slice is reused by the next call.
func (p *parser) urlsIn(n ast.Node) []linkRef {
	if n == nil {
		return nil
	}
	if p.urlWalk == nil {
		p.urlWalk = p.visitURL
	}
	p.urls, p.urlRoot = p.urls[:0], n
	_ = ast.Walk(n, p.urlWalk)
	p.urlRoot = nil
	return p.urls
}

func (p *parser) visitURL(c ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	switch l := c.(type) {
	case *ast.List:
		if c != p.urlRoot {
			return ast.WalkSkipChildren, nil // nested items are items of their own
		}
	case *ast.Link:
		p.urls = append(p.urls, linkRef{strings.TrimSpace(p.inline(l)), string(l.Destination)})
		return ast.WalkSkipChildren, nil
	case *ast.AutoLink:
		p.urls = append(p.urls, linkRef{"", string(l.URL(p.src))})
	case *ast.Text:
		p.bareURLs(l, p.addURL)
	case *ast.CodeSpan:
		// `https://x` in a code span is still the value of "Docs: `https://x`".
		p.scratch = p.appendInline(p.scratch[:0], l)
		if v := bytes.TrimSpace(p.scratch); bytes.HasPrefix(v, []byte("https://")) || bytes.HasPrefix(v, []byte("http://")) {
			p.urls = append(p.urls, linkRef{"", string(v)})
		}
		return ast.WalkSkipChildren, nil
	}
	return ast.WalkContinue, nil
}

func (p *parser) addURL(u string, _ int) { p.urls = append(p.urls, linkRef{"", u}) }

// infoKind sorts a More Info link by its label and URL.
func infoKind(label, u string) string {
	l := strings.ToLower(label)
	path := u
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	path = strings.ToLower(path)
	switch {
	case strings.HasSuffix(path, "/mcp.json") || strings.Contains(l, "mcp") || strings.Contains(l, "json discovery"):
		return "mcp.json"
	case strings.Contains(l, "spec"):
		return "spec"
	case strings.Contains(l, "support") || strings.Contains(l, "help") || strings.Contains(l, "contact") || strings.Contains(l, "issue"):
		return "support"
	case strings.Contains(l, "source") || strings.Contains(l, "repo") || strings.Contains(l, "github") || strings.Contains(l, "code"):
		return "source"
	case strings.Contains(l, "doc") || strings.Contains(l, "reference") || strings.Contains(l, "guide") ||
		strings.Contains(l, "api") || strings.Contains(l, "faq") || strings.Contains(l, "llms") || strings.Contains(l, "openapi"):
		return "docs"
	}
	return "other"
}

// finish derives what needs the whole document: the purpose fallback and the API base.
func (p *parser) finish() {
	p.flushTexts()
	d := p.doc
	if d.Purpose == "" {
		d.Purpose = d.Summary
	}
	p.frontmatterBase()
	d.BaseURL = p.pickBase()
	if d.BaseURL == "" && p.placeholder == 0 {
		// Below every statement: the value of the variable the endpoints start with
		// ("POST {{ACME_API}}/x" with "ACME_API = \"https://...\""), then, last resort,
		// the endpoints' common prefix.
		if v, line := p.templateBase(); v != "" {
			d.BaseURL, p.varLine = v, line
		} else {
			d.BaseURL = p.inferBase()
			p.inferred = d.BaseURL != ""
		}
	}
}

// ResolveBase returns the document's API base as an absolute URL on origin (such as
// "https://example.com"): a path is resolved against the origin root and never walks
// above it. It returns nil when the document states no base.
func (d *Document) ResolveBase(origin string) (*url.URL, error) {
	if d.BaseURL == "" {
		return nil, nil
	}
	return Resolve(origin, d.BaseURL)
}

// Resolve resolves ref (an absolute URL or a path from the document) against origin.
func Resolve(origin, ref string) (*url.URL, error) {
	o, err := url.Parse(origin)
	if err != nil || o.Host == "" {
		return nil, &url.Error{Op: "resolve", URL: "origin", Err: errBadOrigin}
	}
	r, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return nil, err
	}
	base := &url.URL{Scheme: o.Scheme, Host: o.Host, Path: "/"}
	return base.ResolveReference(r), nil
}

// endpointMention finds a line that names an HTTP endpoint ("GET /v1/x").
var endpointMention = regexp.MustCompile(`\b(?:GET|POST|PUT|PATCH|DELETE)\s+(?:https?://\S+|/\S*)`)

// diagnose adds the whole-document warnings: size, credentials, a missing API section.
func (p *parser) diagnose(size int) {
	d := p.doc
	if size > MaxRecommendedSize {
		p.warn(0, WarnTooLong, "document is larger than 64 KiB; the spec asks for a short guide")
	}
	for _, f := range secrets.ScanBytes(p.src) {
		p.warn(p.lineOf(f.Offset), WarnCredential,
			"possible "+f.Kind+" published in the document (value not shown); remove it and rotate the credential")
	}
	if d.BaseURL == "" && p.placeholder > 0 {
		p.warn(p.placeholder, WarnBasePlaceholder, "the API base is written as a placeholder, not a URL or path; resolve the endpoints against the origin")
	}
	if p.inferred {
		p.warn(p.endpointLine, WarnBaseInferred, "the document states no API base; BaseURL is inferred from the endpoint URLs it documents")
	}
	if p.varLine > 0 {
		p.warn(p.varLine, WarnBaseInferred, "the document states no API base; BaseURL is the URL it assigns to the variable its endpoints start with")
	}
	if d.BaseURL == "" && !p.has(kindAPI) {
		if loc := endpointMention.FindIndex(p.src); loc != nil {
			p.warn(p.lineOf(loc[0]), WarnNoAPI, "document names endpoints but has no API section or base URL")
		}
	}
	sortWarnings(d.Warnings)
}

func (p *parser) has(k kind) bool {
	for _, sk := range p.kinds {
		if sk == k {
			return true
		}
	}
	return false
}
