package skillsmd

import (
	"bytes"
	"math/bits"
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
	kindSafety // both: each item is sorted into safe or risky, risky by default
	kindRules  // general rules: an item is safe or risky only when it reads as one
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
	{"auth", kindAuth}, {"authentication", kindAuth}, {"authorization", kindAuth}, {"authenticate", kindAuth},
	{"api key", kindAuth}, {"api keys", kindAuth}, {"credentials", kindAuth},
	{"safe actions", kindSafe}, {"safe", kindSafe}, {"safe operations", kindSafe},
	{"allowed actions", kindSafe}, {"read only actions", kindSafe},
	{"risky actions", kindRisky}, {"risky", kindRisky}, {"unsafe actions", kindRisky},
	{"requires approval", kindRisky}, {"approval required", kindRisky},
	{"actions requiring approval", kindRisky}, {"dangerous actions", kindRisky},
	{"destructive actions", kindRisky}, {"write actions", kindRisky}, {"ask first", kindRisky},
	{"requires confirmation", kindRisky}, {"require confirmation", kindRisky}, {"confirmation required", kindRisky},
	{"needs confirmation", kindRisky}, {"needs approval", kindRisky}, {"require approval", kindRisky},
	{"actions that need approval", kindRisky}, {"actions that require approval", kindRisky},
	{"actions that need confirmation", kindRisky}, {"actions that require confirmation", kindRisky},
	{"actions needing approval", kindRisky}, {"actions requiring confirmation", kindRisky},
	{"dangerous", kindRisky}, {"danger zone", kindRisky}, {"destructive", kindRisky},
	{"irreversible actions", kindRisky}, {"sensitive actions", kindRisky},
	{"never", kindSafety}, {"caution", kindSafety},
	{"safety", kindSafety}, {"rules", kindRules}, {"do not", kindSafety}, {"dont", kindSafety},
	{"don t", kindSafety}, {"guardrails", kindRules}, {"restrictions", kindSafety},
	{"prohibited", kindSafety}, {"agent rules", kindRules}, {"usage rules", kindRules},
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

// headingWordLens marks, for each letter, the lengths of the first words of
// headingKinds that start with it (bit n for length n): most headings ("Endpoint
// group 3") are ruled out by it without a map lookup.
var headingWordLens = func() (t [26]uint32) {
	for w := range headingsByWord {
		t[w[0]-'a'] |= 1 << len(w)
	}
	return t
}()

// classifyNormalized returns the kind a normalised heading names, or kindOther.
func classifyNormalized(h string) kind {
	if h != "" && h[0] >= utf8.RuneSelf {
		return classifyCJK(h)
	}
	w, _, _ := strings.Cut(h, " ")
	if w == "" || !isLowerASCII(w[0]) || len(w) >= 32 || headingWordLens[w[0]-'a']&(1<<len(w)) == 0 {
		return prohibitionHeading(h)
	}
	for _, i := range headingsByWord[w] {
		hk := headingKinds[i]
		if h == hk.pattern || len(h) > len(hk.pattern) && h[len(hk.pattern)] == ' ' && strings.HasPrefix(h, hk.pattern) {
			return hk.kind
		}
	}
	return prohibitionHeading(h)
}

// prohibitionPhrases, found anywhere in a normalised heading, title a list of what an
// agent must not do: "What agents CANNOT do", "What agents must not invent", "Things
// you must never do". A heading saying what a tool does not do ("What this skill
// does not do") is a description, not one.
var prohibitionPhrases = [...]string{"cannot do", "can t do", "must not", "must never", "never do", "not allowed",
	"do nots"}

// prohibitionHeading returns kindRisky for a heading titling prohibitions, kindSafety
// for one mixing both ("Do's and Don'ts"), else kindOther.
func prohibitionHeading(h string) kind {
	for _, w := range prohibitionPhrases {
		if strings.Contains(h, w) && (len(h) == len(w) || hasWord(h, w)) {
			return kindRisky
		}
	}
	if hasWord(h, "donts") || hasWord(h, "don ts") {
		return kindSafety
	}
	return kindOther
}

// cjkAuthWords are headings (or their first word, as CJK writes no space) that
// name authentication in Chinese, Japanese and Korean: "认证", "鉴权", "認證", "인증".
var cjkAuthWords = [...]string{"认证", "鉴权", "身份验证", "身份认证", "認證", "驗證", "認証", "인증"}

// classifyCJK returns the kind of a normalised heading that starts with a non-ASCII
// letter: only authentication is recognised ("认证方式", "鉴权").
func classifyCJK(h string) kind {
	for _, w := range cjkAuthWords {
		if strings.HasPrefix(h, w) {
			return kindAuth
		}
	}
	return kindOther
}

func isLowerASCII(c byte) bool { return 'a' <= c && c <= 'z' }

// normalizeHeading lower-cases, drops a parenthetical and a leading number, and
// replaces punctuation with single spaces: "2. Rate-Limits (per key)" is "rate limits".
// It builds the result in one allocation (none for an empty result).
func normalizeHeading(h string) string {
	var buf [64]byte
	return string(appendNormalized(buf[:0], h))
}

// normalize is normalizeHeading without an allocation, for lookups: the result is a
// view of a buffer the next call reuses. It runs for every heading and table row.
func (p *parser) normalize(h string) string {
	p.norm = appendNormalized(p.norm[:0], h)
	return unsafeString(p.norm)
}

// appendNormalized appends normalizeHeading(h) to b, which must be empty (the
// leading number is cut from the front of b).
func appendNormalized(b []byte, h string) []byte {
	if i := strings.IndexByte(h, '('); i > 0 {
		h = h[:i]
	}
	space := false
	for i := 0; i < len(h); {
		if c := h[i]; c < utf8.RuneSelf { // ASCII, one table lookup
			i++
			switch k := asciiNorm[c]; k {
			case 0: // punctuation or a blank
				space = true
			case '\'':
			default:
				if space && len(b) > 0 {
					b = append(b, ' ')
				}
				b = append(b, k)
				space = false
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(h[i:])
		i += n
		r = unicode.ToLower(r) // which may give an ASCII letter ('K', the Kelvin sign)
		if r > 0x7f && headingSymbol(r) {
			space = true // "🔐 Authentication", "⚠️ Rate limits": an emoji is decoration
			continue
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
		b = b[:copy(b, b[i+1:])] // in place, so that a reused buffer keeps its start
	}
	return b
}

// headingSymbol reports a non-ASCII rune that decorates a heading rather than naming
// it: a symbol (emoji, arrows, check marks), an emoji variation selector or joiner,
// or a keycap mark. appendNormalized reads it as a separator.
func headingSymbol(r rune) bool {
	switch {
	case r >= 0xfe00 && r <= 0xfe0f, r == 0x200d, r == 0x20e3:
		return true
	}
	return unicode.In(r, unicode.So, unicode.Sk)
}

// asciiNorm maps an ASCII byte to what appendNormalized keeps of it: a lower-case
// letter or digit, 0 for a separator, or the apostrophe, which it drops.
var asciiNorm = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			t[c] = byte(c)
		case 'A' <= c && c <= 'Z':
			t[c] = byte(c) + 'a' - 'A'
		case c == '\'':
			t[c] = '\''
		}
	}
	return t
}()

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
		p.api = append(p.api, t)
	case kindAuth:
		p.auth = append(p.auth, t)
		p.noteAuth(t, fromAuthSection)
	case kindSafe:
		p.safe = append(p.safe, t)
	case kindRisky:
		p.risky = append(p.risky, t)
	case kindSafety, kindRules:
		p.sortSafety(t)
	case kindLimits:
		p.limits = append(p.limits, t)
	case kindMoreInfo:
		p.infoLinks(t, n, false)
	case kindCredits:
		p.credit(t, n)
	}
}

// typedItems files list items of the current section into the typed view. Items a
// lead-in paragraph introduced as risky ("Get explicit consent before:") are risky
// actions, whatever the section.
func (p *parser) typedItems(items []item, leadIn bool) {
	for _, it := range items {
		if it.refs.start >= 0 {
			p.known = knownURLs{it.node, it.refs}
		}
		switch p.kind() {
		case kindMoreInfo:
			p.infoLinks(it.text, it.node, true)
		case kindPreamble:
			p.infoLinks(it.text, it.node, false) // "Docs: <url>" before the first heading
		default:
			p.typedText(it.text, it.node)
		}
		if leadIn && p.kind() != kindRisky {
			p.addRisky(it.text)
			continue
		}
		p.proseRisk(it.text, true)
	}
}

// sortSafety files an item of a Safety-like section. In a section titled by a
// prohibition or a warning ("Never", "Do not", "Safety floor", "Caution") the default
// is risky: a list of prohibitions ("Genetic targeting", "Cognitive enhancement in
// minors") must never pass for safe actions. In one of general rules ("Rules",
// "Guardrails") an item is risky only when it reads as a caution ("Never...", "Ask
// before...", "Do not...") or as a risky action (see proseRisk): "Respect rate
// limits" or "Exit codes: 0 ok, 1 failed" are rules, not actions that need the user.
// Only items that read as permissions, with no word of caution, are safe.
func (p *parser) sortSafety(t string) {
	switch {
	case safeRule.MatchString(t) && !riskyRule.MatchString(t):
		p.safe = append(p.safe, t)
	case p.kind() == kindSafety:
		p.risky = append(p.risky, t)
	case rulesRisky.MatchString(t), shortNo(t), riskTrigger(t) && len(riskySentences(t, nil, false)) > 0:
		p.risky = append(p.risky, t)
	}
}

// rulesRisky matches a rule that forbids or asks first. Unlike riskyRule it names no
// topic ("delete", "payment", "confirm"): in a list of general rules, "Call status at
// the start to confirm the index is fresh" is no risky action.
var rulesRisky = regexp.MustCompile(`(?i)\b(do not|don'?t|never|must not|should not|forbidden|prohibit|not allowed|requires? (the )?user)\b`)

// shortNo reports a short rule that forbids by naming the thing: "No spam.", "No
// slurs, no harassment, no spam." Not one saying what is not needed ("No auth
// required for reads").
func shortNo(t string) bool {
	if len(t) <= 3 || !strings.EqualFold(t[:3], "no ") || len(strings.Fields(t)) > 8 {
		return false
	}
	var lb [64]byte
	l := lowerASCII(lb[:0], t)
	return !strings.Contains(l, "need") && !strings.Contains(l, "requir")
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
	urls := p.urlsIn(n, label == "") // a link's text is its label only when the item has none
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
		p.moreInfo = append(p.moreInfo, InfoLink{Kind: k, Label: l, URL: u.url})
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
		if urls := p.urlsIn(n, false); len(urls) > 0 {
			value = urls[0].url
		}
		p.doc.SpecURL = value
		p.moreInfo = append(p.moreInfo, InfoLink{Kind: "spec", Label: strings.TrimSpace(label), URL: value})
	case "spec version", "specification version", "version":
		p.doc.SpecVersion = value
	}
}

func firstField(s string) string {
	// strings.Fields(s)[0], without building the other fields.
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		s = s[:i]
	}
	return strings.Trim(s, "`<>")
}

// linkRef is a URL urlsIn finds: a link's destination and text, an autolink, a bare
// URL or a code span that holds only a URL.
type linkRef struct {
	text, url string
	// warned are the warnings (raw HTML) that reading a link's text gave, in
	// Document.Warnings: reading it again gives them again.
	warned span
}

// knownURLs is a node whose URLs the text pass recorded (refs, a span of p.refs), so
// that urlsIn need not walk it again. They are recorded for a paragraph or a list
// item's single text block: what such a node holds is read in full, in the order
// urlsIn walks it, and holds no list that urlsIn would leave out.
type knownURLs struct {
	node ast.Node
	refs span
}

// urlsIn returns the destinations of links, autolinks and bare URLs inside n, with
// the text of each link when withText is set. The slice is reused by the next call
// and must not be changed.
func (p *parser) urlsIn(n ast.Node, withText bool) []linkRef {
	if n == nil {
		return nil
	}
	if n == p.known.node {
		refs := p.refs[p.known.refs.start:p.known.refs.end]
		for _, r := range refs {
			// Reading a link's text again warned again about the raw HTML in it.
			p.doc.Warnings = append(p.doc.Warnings, p.doc.Warnings[r.warned.start:r.warned.end]...)
		}
		return refs
	}
	p.urls = p.urls[:0]
	p.appendURLs(n, true, withText)
	return p.urls
}

func (p *parser) appendURLs(n ast.Node, root, withText bool) {
	switch l := n.(type) {
	case *ast.List:
		if !root {
			return // nested items are items of their own
		}
	case *ast.Link:
		p.scratch = p.appendInline(p.scratch[:0], l) // also for its warnings, as the text pass gives
		txt := ""
		if withText {
			txt = p.str(bytes.TrimSpace(p.scratch))
		}
		p.urls = append(p.urls, linkRef{text: txt, url: p.str(l.Destination)})
		return
	case *ast.AutoLink:
		p.urls = append(p.urls, linkRef{url: p.str(l.URL(p.src))})
	case *ast.Text:
		p.bareURLs(l, p.addURL)
	case *ast.CodeSpan:
		// `https://x` in a code span is still the value of "Docs: `https://x`".
		p.scratch = p.appendInline(p.scratch[:0], l)
		if u := codeURL(p.scratch); u != nil {
			p.urls = append(p.urls, linkRef{url: p.str(u)})
		}
		return
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		p.appendURLs(c, false, withText)
	}
}

// codeURL returns the text of a code span when it is an http(s) URL, else nil.
func codeURL(code []byte) []byte {
	if v := bytes.TrimSpace(code); bytes.HasPrefix(v, []byte("https://")) || bytes.HasPrefix(v, []byte("http://")) {
		return v
	}
	return nil
}

func (p *parser) addURL(u string, _ int) { p.urls = append(p.urls, linkRef{url: u}) }

// infoKind sorts a More Info link by its label and URL.
func infoKind(label, u string) string {
	path := u
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if i := strings.IndexByte(path, '#'); i >= 0 {
		path = path[:i]
	}
	if hasSuffixFold(path, "/mcp.json") {
		return infoKinds[0]
	}
	var lb [64]byte
	l := lowerASCII(lb[:0], label)
	rank := len(infoKinds) // "other"
	// One pass over the label: at each byte, the words that start with it.
	for i := 0; i < len(l) && rank > 0; i++ {
		for m := infoFirst[l[i]]; m != 0; m &= m - 1 {
			if w := infoWords[bits.TrailingZeros32(m)]; w.rank < rank && strings.HasPrefix(l[i:], w.word) {
				rank = w.rank
			}
		}
	}
	if rank == len(infoKinds) {
		return "other"
	}
	return infoKinds[rank]
}

// infoKinds are the kinds of More Info links, first to last: a label naming words of
// several kinds ("MCP spec") takes the first.
var infoKinds = [...]string{"mcp.json", "spec", "support", "source", "docs"}

// infoWords are the words of a label that name each kind (an index into infoKinds).
var infoWords = [...]infoWord{
	{"mcp", 0}, {"json discovery", 0},
	{"spec", 1},
	{"support", 2}, {"help", 2}, {"contact", 2}, {"issue", 2},
	{"source", 3}, {"repo", 3}, {"github", 3}, {"code", 3},
	{"doc", 4}, {"reference", 4}, {"guide", 4}, {"api", 4}, {"faq", 4}, {"llms", 4}, {"openapi", 4},
}

type infoWord struct {
	word string
	rank int
}

// infoFirst maps a byte to the set of infoWords that start with it (bit i for
// infoWords[i]).
var infoFirst = func() (t [256]uint32) {
	for i, w := range infoWords {
		t[w.word[0]] |= 1 << i
	}
	return t
}()

// hasSuffixFold reports strings.HasSuffix(strings.ToLower(s), suffix) for a
// lower-case ASCII suffix, lowering only the end of s when that end is ASCII.
func hasSuffixFold(s, suffix string) bool {
	if len(s) < len(suffix) {
		return strings.HasSuffix(strings.ToLower(s), suffix) // lowering may lengthen s
	}
	end := s[len(s)-len(suffix):]
	for i := 0; i < len(end); i++ {
		c := end[i]
		if c >= utf8.RuneSelf {
			return strings.HasSuffix(strings.ToLower(s), suffix)
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != suffix[i] {
			return false
		}
	}
	return true
}

// lowerASCII returns strings.ToLower(s) for checks that do not keep it: an ASCII s
// that fits b is lowered into b (on the caller's stack) and viewed, not allocated.
// Other text takes strings.ToLower, whose Unicode mappings can yield ASCII letters.
func lowerASCII(b []byte, s string) string {
	if len(s) > cap(b) {
		return strings.ToLower(s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return strings.ToLower(s)
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return unsafeString(b)
}

// finish derives what needs the whole document: the purpose fallback and the API base.
func (p *parser) finish() {
	p.flushTexts()
	d := p.doc
	if d.Purpose == "" {
		d.Purpose = d.Summary
	}
	p.frontmatterBase()
	if p.ambiguousBases() {
		p.ambiguous = true // several services, each with its base: none is the document's
	} else {
		d.BaseURL = p.pickBase()
	}
	if d.BaseURL == "" && p.placeholder == 0 && !p.ambiguous {
		// Below every statement: the value of the variable the endpoints start with
		// ("POST {{ACME_API}}/x" with "ACME_API = \"https://...\""), then, last resort,
		// the endpoints' common prefix.
		if v, line := p.templateBase(); v != "" {
			d.BaseURL, p.varLine = v, line
		} else if line := p.unresolvedTemplate(); line > 0 {
			// Most endpoints start with a variable the document never assigns
			// ("{DESKTOP}/api/x"): the few written in full are not the base.
			p.notePlaceholder(line)
		} else if v := p.apiRowsBase(); v != "" {
			d.BaseURL, p.fromRows = v, true // "| Orchestrator API | https://x/api/proxy |"
		} else {
			d.BaseURL = p.inferBase()
			p.inferred = d.BaseURL != ""
			if d.BaseURL == "" {
				d.BaseURL = p.mcpOnlyBase()
				p.mcpBase = d.BaseURL != ""
			}
		}
	}
	p.flushLists()
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

// firstEndpointMention returns the offset of the first mention of an HTTP endpoint
// in src ("GET /v1/x"), or -1: the first match of the regular expression
//
//	\b(?:GET|POST|PUT|PATCH|DELETE)\s+(?:https?://\S+|/\S*)
//
// found without running it (it has no literal prefix, so Go's regexp would step
// through the whole document, which took longer than parsing it): the methods are
// found with a fast byte search, and each occurrence is tested as the regexp would
// test it, at a word boundary, followed by blanks and a path or an http(s) URL.
func firstEndpointMention(src []byte) int {
	first := -1
	for _, m := range [...]string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		for off := 0; ; {
			i := bytes.Index(src[off:], []byte(m))
			if i < 0 || first >= 0 && off+i >= first {
				break
			}
			at := off + i
			if (at == 0 || !isREWordByte(src[at-1])) && endpointAfter(src[at+len(m):]) {
				first = at
				break
			}
			off = at + 1
		}
	}
	return first
}

// endpointAfter reports whether s starts as endpointMention's match goes on after the
// method: \s+ then a '/', or "http://" or "https://" and a byte that is not \s.
func endpointAfter(s []byte) bool {
	j := 0
	for j < len(s) && isRESpace(s[j]) {
		j++
	}
	if j == 0 {
		return false
	}
	s = s[j:]
	if len(s) > 0 && s[0] == '/' {
		return true
	}
	for _, scheme := range [...]string{"http://", "https://"} {
		if bytes.HasPrefix(s, []byte(scheme)) && len(s) > len(scheme) && !isRESpace(s[len(scheme)]) {
			return true
		}
	}
	return false
}

// isRESpace reports the bytes of \s in Go's regexp syntax.
func isRESpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// isREWordByte reports the bytes of \w in Go's regexp syntax (ASCII only).
func isREWordByte(c byte) bool { return isWordByte(c) || c == '_' }

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
	if p.mcpBase {
		p.warn(0, WarnBaseInferred, "the document states no API base; BaseURL is the one MCP endpoint it names, and it writes no other")
	}
	if p.varLine > 0 {
		p.warn(p.varLine, WarnBaseInferred, "the document states no API base; BaseURL is the URL it assigns to the variable its endpoints start with")
	}
	if p.fromRows {
		p.warn(0, WarnBaseInferred, "the document states no API base; BaseURL is the URL of the API a table row names (\"| Orchestrator API | URL |\")")
	}
	if p.ambiguous {
		p.warn(0, WarnBaseAmbiguous, "the document states API bases on several hosts, one per service; none is its own, so BaseURL is empty")
	}
	if d.BaseURL == "" && !p.has(kindAPI) {
		if at := firstEndpointMention(p.src); at >= 0 {
			p.warn(p.lineOf(at), WarnNoAPI, "document names endpoints but has no API section or base URL")
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
