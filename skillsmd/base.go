package skillsmd

import (
	"net/url"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/yuin/goldmark/ast"

	"github.com/wellknown-dev/discovery/internal/lazyre"
)

// The API base and the auth rules are stated in many ways in real documents: a
// labelled bullet ("- Base URL: x"), a bold label line inside a paragraph ("**API
// Base:** `x`", often several labels on consecutive lines of one paragraph), a table
// row ("| Base URL | x |"), a frontmatter key ("api_base: x", also under "metadata:"
// and one namespace below it), a heading ("## Base URL") whose next block is the
// value, or only a path ("Base path: `/v0`"). The parser collects every statement it
// meets while it walks the blocks it already parsed, and finish picks one. Code blocks
// are not read for labels: an example's variables are not the document's statement.

// baseCandidate is one statement of the API base.
type baseCandidate struct {
	value    string
	tier     int // 0: an API section or a base heading; 1: frontmatter, summary or preamble; 2: elsewhere
	strength int // 3: "API base", "api_url"...; 2: "Base URL", "Base path", a base heading or table row; 1: a bare "API:" label
	order    int // document order
	from     source
}

// better reports whether c should be preferred to o.
func (c baseCandidate) better(o baseCandidate) bool {
	if c.tier != o.tier {
		return c.tier < o.tier
	}
	if c.strength != o.strength {
		return c.strength > o.strength
	}
	return c.order < o.order
}

// baseLabel is a label that states the API base, found by baseLabels: l[start:end]
// is the match (a byte before the label, the label, ":" or "=" and the blanks
// around it), and l[label:labelEnd] the label.
type baseLabel struct{ start, end, label, labelEnd int }

// baseLabels appends to dst the labels in l that state the API base: "API base", "API
// Base URL", "api_base", "apiBase", "Base URL", "baseUrl", "Base path", "API URL",
// "API root", "API endpoint", and the weak "API" and "Base", each followed by ":" or
// "=". They are the matches of the regular expression
//
//	(?i)(?:^|[^\w./-])["']?(api[ _-]?base(?:[ _-]?(?:url|uri|path)s?)?|base[ _-]?(?:url|uri|path|endpoint)s?|api[ _-]?(?:url|root|endpoint|host)|api|base)["']?\s*[:=]\s*
//
// as FindAllStringSubmatchIndex gives them, the label being the group. The matcher
// is written out: Go's regexp, cold in the CPU cache after goldmark has run, took
// longer on one label line than the rest of the line's reading.
func baseLabels(l string, dst []baseLabel) []baseLabel {
	for from := 0; from < len(l); {
		m, ok := nextBaseLabel(l, from)
		if !ok {
			break
		}
		dst = append(dst, m)
		from = m.end
	}
	return dst
}

// nextBaseLabel returns the first base label in l that starts at or after from: at
// the start of l, or after a rune that cannot end a word or a path.
func nextBaseLabel(l string, from int) (baseLabel, bool) {
	for s := from; s < len(l); {
		if s == 0 { // the "^" branch, tried first
			if m, ok := baseLabelAt(l, 0); ok {
				return m, true
			}
		}
		r, n := utf8.DecodeRuneInString(l[s:])
		if labelBoundary(r) {
			if m, ok := baseLabelAt(l, s+n); ok {
				m.start = s
				return m, true
			}
		}
		s += n
	}
	return baseLabel{}, false
}

// labelBoundary reports a rune of [^\w./-] under (?i): \w is ASCII, and the class
// is case-folded, which adds 'ſ' (folds to s) and the Kelvin sign (to k).
func labelBoundary(r rune) bool {
	return !(r < utf8.RuneSelf && (isWordByte(byte(r)) || strings.IndexByte("_./-", byte(r)) >= 0) || r == 'ſ' || r == '\u212a')
}

// baseLabelAt matches the rest of a base label at i, after its boundary: the label
// alternatives are tried in the pattern's order, each with its optional parts first
// (greedy), as a backtracking matcher would, and the first that is followed by
// ":" or "=" wins.
func baseLabelAt(l string, i int) (baseLabel, bool) {
	g := i
	if g < len(l) && (l[g] == '"' || l[g] == '\'') {
		g++ // a label never starts with a quote: not taking it cannot match
	}
	var ends [48]int // the label's possible ends, first choice first
	n := 0
	add := func(e int) {
		if e >= 0 {
			ends[n] = e
			n++
		}
	}
	api, base := foldAt(l, g, "api"), foldAt(l, g, "base")
	if api >= 0 { // api[ _-]?base(?:[ _-]?(?:url|uri|path)s?)?
		for _, s1 := range labelSeps(l, api) {
			b := foldAt(l, s1, "base")
			if b < 0 {
				continue
			}
			for _, s2 := range labelSeps(l, b) {
				for _, w := range [...]string{"url", "uri", "path"} {
					if e := foldAt(l, s2, w); e >= 0 {
						add(foldAt(l, e, "s"))
						add(e)
					}
				}
			}
			add(b)
		}
	}
	if base >= 0 { // base[ _-]?(?:url|uri|path|endpoint)s?
		for _, s1 := range labelSeps(l, base) {
			for _, w := range [...]string{"url", "uri", "path", "endpoint"} {
				if e := foldAt(l, s1, w); e >= 0 {
					add(foldAt(l, e, "s"))
					add(e)
				}
			}
		}
	}
	if api >= 0 { // api[ _-]?(?:url|root|endpoint|host)
		for _, s1 := range labelSeps(l, api) {
			for _, w := range [...]string{"url", "root", "endpoint", "host"} {
				add(foldAt(l, s1, w))
			}
		}
	}
	add(api)  // api
	add(base) // base
	for _, e := range ends[:n] {
		if end, ok := labelAssign(l, e); ok {
			return baseLabel{start: i, end: end, label: g, labelEnd: e}, true
		}
	}
	return baseLabel{}, false
}

// labelSeps returns where a label goes on after an optional separator at j ([ _-]?):
// past it first, if there is one.
func labelSeps(l string, j int) []int {
	if j < len(l) && (l[j] == ' ' || l[j] == '_' || l[j] == '-') {
		return []int{j + 1, j}
	}
	return []int{j}
}

// foldAt returns the end of word (lower-case ASCII) at l[j:] under (?i), or -1: 's'
// also matches 'ſ', the only non-ASCII rune that folds to a letter of the labels.
func foldAt(l string, j int, word string) int {
	if j < 0 {
		return -1
	}
	for k := 0; k < len(word); k++ {
		switch {
		case j < len(l) && l[j]|0x20 == word[k]: // the word is letters only
			j++
		case word[k] == 's' && strings.HasPrefix(l[j:], "ſ"):
			j += len("ſ")
		default:
			return -1
		}
	}
	return j
}

// labelAssign matches ["']?\s*[:=]\s* at j and returns its end. A label closing a
// bracket and a full-width colon, as Chinese and Japanese documents write them
// ("站点地址（Base URL）：https://x", "Base URL：x"), assign as well, and so does an
// example in brackets after the label ("`ACME_API_URL` — the API base (e.g.
// `https://api.acme.example`)"), the way a variable's description gives its value.
func labelAssign(l string, j int) (int, bool) {
	if r := l[j:]; strings.HasPrefix(r, " (e.g. ") || strings.HasPrefix(r, " (e.g., ") || strings.HasPrefix(r, " (for example ") {
		return j + strings.IndexByte(r[1:], ' ') + 1, true
	}
	if k := qualifierEnd(l[j:]); k > 0 {
		j += k // "API (Worker): https://x", "Base URL (production): x"
	}
	if j < len(l) && (l[j] == '"' || l[j] == '\'') {
		j++ // taking the quote is the only way: a quote is neither blank nor ':' or '='
	} else if j < len(l) && l[j] == ')' {
		j++
	} else if strings.HasPrefix(l[j:], fullwidthClose) {
		j += len(fullwidthClose)
	}
	for j < len(l) && isRESpace(l[j]) {
		j++
	}
	switch {
	case strings.HasPrefix(l[j:], fullwidthColon):
		j += len(fullwidthColon) - 1
	case j == len(l) || l[j] != ':' && l[j] != '=':
		return 0, false
	}
	for j++; j < len(l) && isRESpace(l[j]); j++ {
	}
	return j, true
}

// qualifierEnd returns the length of a short qualifier in brackets that a label
// carries before its colon (" (Worker)" in "API (Worker): https://x", "(production)"
// in "Base URL (production): x"), or 0: at most 32 bytes, no nested bracket, and a
// colon right after it.
func qualifierEnd(r string) int {
	i := 0
	if i < len(r) && r[i] == ' ' {
		i++
	}
	if i >= len(r) || r[i] != '(' {
		return 0
	}
	end := strings.IndexByte(r[i:], ')')
	if end < 2 || end > 32 || strings.ContainsAny(r[i+1:i+end], "(\n:") {
		return 0
	}
	k := i + end + 1
	if k < len(r) && r[k] == ':' || strings.HasPrefix(r[k:], fullwidthColon) {
		return k
	}
	return 0
}

// The full-width colon and closing parenthesis of CJK text.
const (
	fullwidthColon = "\uff1a"
	fullwidthClose = "\uff09"
)

// authLabelRe finds labels that state an auth rule at the start of a line.
var authLabelRe = lazyre.New(`(?i)^(?:[\w-]+\s+){0,2}?(auth|authentication|authorization|auth method|auth type|api keys?|credentials)\s*:\s*(\S.*)$`)

// labelStrength rates a base label found by baseLabels (lower-cased): 3 for
// "api base"-like labels, 2 for "base url"-like ones and "base", 1 for "api".
func labelStrength(label string) int {
	l := keyFolder.Replace(strings.ToLower(label))
	switch {
	case l == "api":
		return 1
	case l == "base" || strings.HasPrefix(l, "base"):
		return 2
	}
	return 3
}

// weakLabel reports labels that only count at the start of a line ("API: x", "Base:
// x"), not in the middle of prose.
func weakLabel(label string) bool {
	var b [16]byte
	l := lowerASCII(b[:0], label)
	return l == "api" || l == "base"
}

// baseHeadings are normalised headings whose next block is the API base.
var baseHeadings = map[string]int{
	"base url": 2, "base path": 2, "base uri": 2, "base": 2, "base address": 2, "api base": 3, "api base url": 3,
	"api url": 3, "api root": 3, "api endpoint": 3, "api base path": 3,
}

// baseHeadingStarts are the first words of the baseHeadings.
var baseHeadingStarts = func() (ws []string) {
	for h := range baseHeadings {
		if w, _, _ := strings.Cut(h, " "); !slices.Contains(ws, w) {
			ws = append(ws, w)
		}
	}
	return ws
}()

// baseRowLabels are normalised first cells of a table row whose other cells state
// the API base.
var baseRowLabels = map[string]int{
	"base url": 2, "base path": 2, "base uri": 2, "base": 2, "api base": 3, "api base url": 3,
	"api url": 3, "api root": 3, "api endpoint": 3, "api base path": 3,
	"api": 1, "rest api": 1, "http api": 1,
}

// authRowLabels are normalised first cells of a table row that states auth.
var authRowLabels = map[string]bool{
	"auth": true, "authentication": true, "authorization": true, "api key": true, "api keys": true, "credentials": true,
}

// baseKeys are frontmatter keys (lower-cased, without "_", "-" and spaces) that state
// the API base, read at the top level, under "metadata", and one map below that
// ("metadata: {moltbot: {api_base: ...}}").
var baseKeys = map[string]int{
	"apibase": 3, "apibaseurl": 3, "apiurl": 3, "apiroot": 3, "apiendpoint": 3,
	"baseurl": 2, "basepath": 2, "baseuri": 2,
	"siteroot": 1, // "site_root: https://x": the root the guide's paths hang from
}

// addBase records a candidate. A page to read ("API: https://x/docs/api", a source
// file on a code host) is not a base, whatever labels it.
func (p *parser) addBase(v string, tier, strength int, from source) {
	if pageURL(v) {
		p.setAside(v, from, "a page to read (documentation, a source file), not an API base")
		return
	}
	p.bases = append(p.bases, baseCandidate{value: v, tier: tier, strength: strength, order: len(p.bases), from: from})
}

// notePlaceholder remembers the first line where the base is a placeholder.
func (p *parser) notePlaceholder(line int) {
	if p.placeholder == 0 {
		p.placeholder = max(line, 1)
	}
}

// tier returns the candidate tier of the current section.
func (p *parser) tier() int {
	switch p.kind() {
	case kindAPI:
		return 0
	case kindPreamble:
		return 1
	}
	return 2
}

// scanLine looks for base and auth labels in one line of plain text. line returns
// the line number, computed only when a placeholder is met.
func (p *parser) scanLine(l string, tier int, authToo bool, line func() int) {
	example := exampleHint(l)
	if !hasLabelHint(l) && !example {
		return // a label with an example value in brackets has no ':' or '=' (see labelAssign)
	}
	if i := strings.Index(l, " | "); i > 0 && strings.TrimSpace(l[:i]) != "" && !strings.HasPrefix(strings.TrimSpace(l), "|") {
		// "Base: x | Auth: Bearer y | Header: z": label statements side by side on one
		// line, each read as if it started a line of its own.
		for _, seg := range strings.Split(l, " | ") {
			p.scanLine(seg, tier, authToo, line)
		}
		return
	}
	if labelFollows(l, "mcp") {
		p.mcpLabels(l)
	}
	if labelFollows(l, "base") || labelFollows(l, "api") || example && labelFollowsAny(l, "base") {
		p.scanBaseLabels(l, tier, line)
	}
	if !authToo || p.kind() == kindAuth {
		return
	}
	if labelFollows(l, "auth") || labelFollows(l, "api key") || labelFollows(l, "credential") {
		p.scanAuthLabel(l)
	}
}

// scanBaseLabels reads the base labels of a line ("Base URL: …", "API base: …").
func (p *parser) scanBaseLabels(l string, tier int, line func() int) {
	if s := baseLeadIn(l); s > 0 {
		// "API base for agents:" alone: the next line or block (a fence, a list)
		// holds the value.
		p.baseNext, p.baseLeft, p.leadIn = s, 1, true
	}
	var found [4]baseLabel
	for _, m := range baseLabels(l, found[:0]) {
		label := l[m.label:m.labelEnd]
		if weakLabel(label) && !labelAtStart(l[:m.label]) {
			continue
		}
		v, placeholder := baseValue(l[m.end:])
		switch {
		case v != "":
			p.addBase(v, tier, labelStrength(label), fromLabel)
		case placeholder:
			p.notePlaceholder(line())
		case sameOriginProse(l[m.end:]):
			p.addBase("/", tier, labelStrength(label), fromLabel)
		case !weakLabel(label) && strings.TrimSpace(l[m.end:]) == "":
			// "**API Base URLs:**" alone: the next line or block (a table, a list)
			// holds the value.
			p.baseNext, p.baseLeft, p.leadIn = labelStrength(label), 1, true
		}
	}
}

// scanAuthLabel reads an auth label statement in a line ("Auth: Bearer …"), or a
// sentence naming the auth header.
func (p *parser) scanAuthLabel(l string) {
	t := strings.TrimSpace(l)
	if m := authLabelRe().FindStringSubmatch(t); m != nil && !isHeaderExample(m[2]) {
		p.addAuth(t, fromLabel)
		return
	}
	// "Transport JSON-RPC. CORS is open. Auth: none (anonymous).": a label that
	// starts a sentence after others on the same line or list item.
	for rest := t; ; {
		i := strings.Index(rest, ". ")
		if i < 0 {
			break
		}
		rest = strings.TrimLeft(rest[i+2:], " ")
		if m := authLabelRe().FindStringSubmatch(rest); m != nil && !isHeaderExample(m[2]) {
			p.addAuth(rest, fromLabel)
			return
		}
	}
	// "All endpoints use Authorization: Bearer YOUR_API_KEY except register.": a
	// sentence that names the auth header and its scheme, or an X- key header.
	if strings.Contains(t, "curl ") || strings.Contains(t, "-H ") {
		return // a command, not a sentence: code examples are not statements
	}
	if m := authHeaderRe().FindStringSubmatch(t); m != nil && (m[2] != "" || !strings.EqualFold(m[1], "authorization")) {
		p.addAuth(t, fromProse)
	}
}

// authProse reads a paragraph or list item outside an auth section for sentences
// that state the auth rule in words: that none is needed ("No auth required.",
// "Read without auth or keys.", "No signup call, no credentials."), or the header
// that carries the credential, named with the word "header" ("Auth via
// `x-secret-key` header", "with header `x-api-key: <key>`"). Each such sentence
// becomes an auth rule. Commands and error descriptions ("401: no API key") are not
// statements of the rule.
func (p *parser) authProse(t string) {
	if len(t) < 8 || p.kind() == kindAuth {
		return
	}
	no, auth, header, xh, cred := authHints(t)
	no = no && auth
	header = header && (auth || xh)
	// "Every request is signed: send `X-Relay-Signature` and `X-Relay-Timestamp`":
	// request-signing headers are how to authenticate, though no key is named.
	signed := xh && signingHeaderRe().MatchString(t)
	// "The API authenticates with a bearer token", "Exchange the claim code for an
	// API key", "需要 apiKey": the credential the API takes, named with what to do
	// with it. Such a sentence states auth only when nothing else does (flushLists).
	cred = (cred || auth) && p.credRoom() && credentialRe().MatchString(t)
	if !no && !header && !signed && !cred {
		return // the common case: one pass over the text
	}
	for rest := t; rest != ""; {
		s := rest
		if i := sentenceEnd(rest); i >= 0 {
			s, rest = rest[:i], rest[i:]
			rest = strings.TrimLeft(rest, ".;—– \n")
		} else {
			rest = ""
		}
		s = strings.TrimSpace(s)
		if len(s) < 6 || len(s) > maxAuthSentence || strings.Contains(s, "curl ") || strings.Contains(s, "-H ") ||
			strings.Contains(s, "401") || strings.Contains(s, "403") {
			continue
		}
		if no && noAuthRe().MatchString(s) && !conditional(s) || header && authHeaderWordRe().MatchString(s) ||
			signed && signingHeaderRe().MatchString(s) {
			p.addAuth(strings.TrimRight(s, " .")+".", fromProse)
		} else if cred && p.credRoom() && credentialRe().MatchString(s) && !conditional(s) {
			p.addCred(strings.TrimRight(s, " .") + ".")
		}
	}
}

// headerLeadIn reports a paragraph whose last line introduces a request header shown
// in the next block, outside any auth section: "All write calls need this header:",
// "所有写接口都需要 Header：". The code block that follows is read for auth headers
// (authHeaders), as an auth section's code is: the header's name and scheme, never
// its value.
func headerLeadIn(t string) bool {
	if n := len(t); n < 8 || t[n-1] != ':' && !strings.HasSuffix(t, fullwidthColon) {
		return false // the common case
	}
	last := t[strings.LastIndexByte(t, '\n')+1:]
	if len(last) > maxAuthSentence {
		return false
	}
	for i := 0; i+len("header") <= len(last); i++ {
		if (last[i]|0x20 == 'h') && labelAt2(last[i:], "header") {
			return true
		}
	}
	return strings.Contains(last, "请求头") || strings.Contains(last, "ヘッダ")
}

// conditional reports a sentence that leaves the rule open: "Whether endpoints require
// an API key, JWT, or no authentication depends on the deployment".
func conditional(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "whether") || strings.Contains(l, "depends on") || strings.Contains(l, "depending on")
}

// maxAuthSentence bounds the length of a sentence authProse keeps as a rule.
const maxAuthSentence = 240

// sentenceEnd returns where the first sentence of s ends: at ". ", "; ", " — ",
// " – " or a newline, or -1.
func sentenceEnd(s string) int {
	end := -1
	for _, sep := range [...]string{". ", "; ", " — ", " – ", "\n"} {
		if i := strings.Index(s, sep); i >= 0 && (end < 0 || i < end) {
			end = i
		}
	}
	return end
}

// noAuthRe finds a sentence saying that no auth is needed: "no auth", "without an
// API key", "requires no authentication", "No Clarity API key ... is required".
var noAuthRe = lazyre.New(`(?i)\b(?:no|without)\s+(?:(?:an?|the|any|[\w-]+)\s+){0,2}?(?:auth(?:entication|orization)?|api[ -]?keys?|credentials?|login)\b`)

// authHeaderWordRe finds a credential header named with the word "header":
// "x-secret-key header", "header x-api-key", "the Authorization header".
var authHeaderWordRe = lazyre.New(`(?i)\bheader\s+["'(]?(?:authorization|api-key|x-[a-z0-9-]*(?:key|token|auth|secret|session)[a-z0-9-]*)\b|\b(?:authorization|api-key|x-[a-z0-9-]*(?:key|token|auth|secret|session)[a-z0-9-]*)["')]?\s+header\b`)

// signingHeaderRe finds a request-signing header's name: "X-Relay-Signature",
// "x-sign", "X-Hub-Signature-256"; not "X-Design-Version".
var signingHeaderRe = lazyre.New(`(?i)(?:^|[^\w-])x-(?:[a-z0-9]+-)*(?:signature|signing|signed|sign)(?:-[a-z0-9]+)*\b`)

// credentialRe finds a sentence that names the credential the API takes with what to
// do with it: authenticate, authorize, require, send, pass or include it, or
// exchange something for it ("authenticates with a bearer token", "requires an API
// key", "Exchanges the claim code for a long-lived API key"), or the same in Chinese
// ("需要 apiKey", "携带令牌"), or the sign-in flow that gives the credential ("open it
// in the browser to complete authentication", "the OAuth flow"), or the scheme a
// request is made with ("POST /submissions with bearer auth", "using OAuth", "token
// authentication"). A token counted or swapped ("token swaps") is no credential.
var credentialRe = lazyre.New(`(?i)(?:\b(?:with|using|via)\s+(?:an?\s+|the\s+|your\s+)?(?:bearer|oauth)\b|\b(?:bearer|token|jwt|api[ -]?key)[ -]auth(?:entication|orization)?\b)|(?:\b(?:complet\w*|finish\w*)\s+(?:the\s+)?(?:authentication|authorization|sign[- ]in)\b|\boauth(?:\s*2(?:\.\d)?)?\s+(?:flow|authorization|sign[- ]in)\b)|(?:\b(?:authenticat\w*|authoriz\w*|requires?|required|needs?|send|sends|pass|passes|include|includes|exchang\w*)\b[^.;:!?\n]{0,60}?\b(?:api[ -]?keys?|apikey|bearer(?:\s+tokens?)?|access[ -]tokens?|api[ -]tokens?|auth(?:entication)?[ -]tokens?|session[ -]tokens?|jwts?|oauth)\b)|(?:需要|须|必须|携带|提供|使用)[^。；\n]{0,20}?(?:api ?key|apikey|api 密钥|密钥|令牌|token)`)

// authHints is authProse's single pass: no reports "no " or "without", auth
// "auth", "api key", "api-key", "credential" or "login", header "header", xh an
// "x-" header name, and cred a credential's name ("api key", "apikey", "bearer",
// "jwt", "oauth", "token", or 密钥, 令牌), all ignoring case.
func authHints(t string) (no, auth, header, xh, cred bool) {
	for i := 0; i+2 < len(t); i++ {
		if !authFirst[t[i]] {
			continue // most bytes: one lookup
		}
		switch t[i] | 0x20 {
		case 'n':
			if !no && t[i+1]|0x20 == 'o' && t[i+2] == ' ' && (i == 0 || !isWordByte(t[i-1])) {
				no = true
			}
		case 'w':
			no = no || labelAt2(t[i:], "without")
		case 'a':
			if labelAt2(t[i:], "api key") || labelAt2(t[i:], "api-key") {
				auth, cred = true, true
			}
			auth = auth || labelAt2(t[i:], "auth")
			cred = cred || labelAt2(t[i:], "apikey")
		case 'b', 'j', 'o', 't', 0xE4, 0xE5:
			cred = cred || credentialWordAt(t[i:])
		case 'c':
			auth = auth || labelAt2(t[i:], "credential")
		case 'l':
			auth = auth || labelAt2(t[i:], "login")
		case 'h':
			header = header || labelAt2(t[i:], "header")
		case 'x':
			xh = xh || t[i+1] == '-' && (i == 0 || !isWordByte(t[i-1]))
		}
	}
	return no, auth, header, xh, cred
}

// credentialWords are the names of a credential authHints looks for besides "api
// key": lower-case ASCII, matched ignoring case, and 密钥 (key) and 令牌 (token).
var credentialWords = [...]string{"bearer", "jwt", "oauth", "token", "密钥", "令牌"}

// credentialWordAt reports whether s starts with one of the credentialWords.
func credentialWordAt(s string) bool {
	for _, w := range credentialWords {
		if w[0] < utf8.RuneSelf && labelAt2(s, w) || strings.HasPrefix(s, w) {
			return true
		}
	}
	return false
}

// authFirst marks the first letters of the words authHints looks for, in either case.
var authFirst = func() (t [256]bool) {
	for _, c := range "nwaclhxbjotNWACLHXBJOT" {
		t[c] = true
	}
	t[0xE5], t[0xE4] = true, true // the lead bytes of 密 and 令
	return t
}()

// labelAt2 reports whether s starts with word (lower-case ASCII letters, blanks and
// "-"), ignoring case.
func labelAt2(s, word string) bool {
	if len(s) < len(word) {
		return false
	}
	for j := 0; j < len(word); j++ {
		if s[j]|0x20 != word[j] {
			return false
		}
	}
	return true
}

// baseLeadIn rates a short line that names the API base in a few words and ends with
// a colon, its value in the next block: "API base for agents:", "The base URL is:",
// "Base URL for all requests:". It returns the label's strength, or 0. A line whose
// colon comes right after the label ("Base URL:") is a label baseLabels finds.
func baseLeadIn(l string) int {
	t := strings.TrimSpace(l)
	if len(t) > 64 || !strings.HasSuffix(t, ":") || strings.Count(t, ":") != 1 || len(strings.Fields(t)) > 8 {
		return 0
	}
	t = strings.ToLower(strings.TrimRight(t, ": "))
	for _, w := range baseLeadWords {
		if i := strings.Index(t, w.phrase); i >= 0 && i+len(w.phrase) < len(t) {
			return w.strength // the label's own colon case is left to baseLabels
		}
	}
	return 0
}

var baseLeadWords = [...]struct {
	phrase   string
	strength int
}{
	{"api base", 3}, {"api_base", 3}, {"api url", 3}, {"api root", 3}, {"api endpoint", 3},
	{"base url", 2}, {"base_url", 2}, {"base path", 2}, {"base uri", 2},
}

// labelFollows is a fast check that word (lower-case ASCII) occurs in s, ignoring
// case, followed within a few letters, spaces, quotes, "_" or "-" by ":" or "=":
// "API Base:", "api_base =", "Authentication:". Most lines that name an API
// ("GET /api/v1/x") fail it without running a regular expression.
func labelFollows(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if labelAt(s[i:], word) {
			return true
		}
	}
	return false
}

// labelAt reports whether s starts with word, followed as labelFollows says.
func labelAt(s, word string) bool {
	if len(s) < len(word) {
		return false
	}
	for j := 0; j < len(word); j++ {
		if s[j]|0x20 != word[j] {
			return false
		}
	}
	for k, n := len(word), 0; k < len(s) && n < 16; k, n = k+1, n+1 {
		c := s[k]
		if c == ':' || c == '=' || c == 0xef && (strings.HasPrefix(s[k:], fullwidthColon) || strings.HasPrefix(s[k:], fullwidthClose)) {
			return true
		}
		if !(c|0x20 >= 'a' && c|0x20 <= 'z' || c == ' ' || c == '_' || c == '-' || c == '"' || c == '\'' || c == '*' || c == '`' || c == ')' || c == '(') {
			break
		}
	}
	return false
}

// authHeaderRe finds an auth header in a code example: "Authorization: Bearer x",
// "X-Agent-Token: x", "-H 'X-API-Key: x'", "{'Authorization': f'Bearer {t}'}". The
// header name is one that carries credentials: Authorization, or an X- header naming
// a key, token, signature or secret, or Api-Key.
var authHeaderRe = lazyre.New(`(?i)(?:^|[\s"'{(,])["']?(authorization|x-[a-z0-9-]*(?:key|token|auth|sign|secret|session)[a-z0-9-]*|api-key)["']?\s*:\s*(?:f?["'` + "`" + `])?\s*(?:(bearer|basic|token|digest|key)\b)?`)

// maxAuthHeaderLines bounds the lines of one code block read for auth headers.
const maxAuthHeaderLines = 64

// authHeaders reads a code block of an auth section for the headers that carry the
// credential, as a careful reader does when the section's prose only says "include
// your token": each becomes an auth rule naming the header and its scheme
// ("X-Agent-Token header", "Authorization: Bearer"), never the value.
func (p *parser) authHeaders(code string, from source) {
	if !strings.Contains(code, ":") {
		return
	}
	for n, rest := 0, code; rest != "" && n < maxAuthHeaderLines; n++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if !strings.ContainsAny(line, "aAxX") || strings.IndexByte(line, ':') < 0 {
			continue
		}
		for _, m := range authHeaderRe().FindAllStringSubmatch(line, 4) {
			if m[2] != "" {
				p.addAuth(m[1]+": "+m[2], from)
			} else {
				p.addAuth(m[1]+" header", from)
			}
		}
	}
}

// maxExampleAuth bounds the auth headers request examples contribute.
const maxExampleAuth = 4

// requestAuth reads a request example outside the auth section for the credential
// headers it sends ("curl -H 'Authorization: Bearer $TOKEN'", "X-Api-Key: …"), never
// their values. They state auth only when nothing else in the guide does (see
// flushLists).
func (p *parser) requestAuth(code string) {
	if len(p.exampleAuth) >= maxExampleAuth || !strings.Contains(code, ":") {
		return
	}
	stated := p.auth
	p.auth = p.exampleAuth
	p.authHeaders(code, fromRequest)
	p.exampleAuth, p.auth = p.auth, stated
	if len(p.exampleAuth) > maxExampleAuth {
		p.exampleAuth = p.exampleAuth[:maxExampleAuth]
	}
}

// isHeaderExample reports an auth value that is only a header name with nothing
// after it, such as a stray "Authorization:" column title.
func isHeaderExample(v string) bool { return strings.TrimSpace(v) == "" }

// addAuth adds an auth rule once.
func (p *parser) addAuth(t string, from source) {
	for _, a := range p.auth {
		if a == t {
			return
		}
	}
	p.auth = append(p.auth, t)
	p.noteAuth(t, from)
}

// labelAtStart reports whether the text before a weak label is at most two words
// with no punctuation: "API:", "- Customer API:", "REST API:".
func labelAtStart(prefix string) bool {
	prefix = strings.TrimLeft(prefix, " \t-+>#|\"'")
	if strings.ContainsAny(prefix, ":.,;()=") {
		return false
	}
	return len(strings.Fields(prefix)) <= 2
}

// baseValue reads the value after a base label: its first field when that is a URL
// or a path, else the first http(s) URL later on the line ("Set X (e.g.
// https://x.example)"). placeholder reports a value that is a template such as
// "{BASE_URL}", "<api_base>" or "https://<your-deployment>.example".
func baseValue(rest string) (v string, placeholder bool) {
	f := cutCJKPunct(firstField(rest))
	f = strings.Trim(f, "`\"'*[]")
	f = strings.TrimRight(f, ".,;:)")
	if plausibleBase(f) {
		return f, false
	}
	if isPlaceholder(f) || placeholderURL(f) {
		return "", true
	}
	if i := strings.Index(rest, "http"); i >= 0 {
		u := rest[i:]
		if j := strings.IndexAny(u, " \t`\"'<>()[]"); j >= 0 {
			u = u[:j]
		}
		u = strings.TrimRight(u, ".,;:*")
		if (strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")) && plausibleBase(u) {
			return u, false
		}
	}
	return "", false
}

// cutCJKPunct cuts s at its first CJK or full-width punctuation mark, which ends a
// value in Chinese and Japanese text without a blank: "https://x.example（见下文）".
func cutCJKPunct(s string) string {
	for i, r := range s {
		if r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xff65 {
			return s[:i]
		}
	}
	return s
}

// isPlaceholder reports a template rather than a value: braces, angle brackets, a
// shell variable, or an upper-case identifier such as API_BASE.
func isPlaceholder(v string) bool {
	if v == "" {
		return false
	}
	if strings.ContainsAny(v, "{}<>") || strings.HasPrefix(v, "$") {
		return true
	}
	upper := len(v) >= 3
	for _, r := range v {
		if !(r >= 'A' && r <= 'Z' || r == '_' || r >= '0' && r <= '9') {
			upper = false
			break
		}
	}
	return upper && strings.Contains(v, "_")
}

// scanParagraph reads the source lines of a paragraph (or of the paragraphs of a
// blockquote) for labels: consecutive label lines of one paragraph ("**Docs:** x",
// "**API Base:** y") are separate statements, although the plain text joins them.
func (p *parser) scanParagraph(n ast.Node, text string, tier int, authToo bool) {
	if !hasLabelHint(text) && !exampleHint(text) && !statesProduction(text) {
		return // the plain text holds every label the source lines do
	}
	p.scanLines(n, tier, authToo)
}

// scanLines reads the source lines of a paragraph, or of a blockquote's paragraphs.
func (p *parser) scanLines(n ast.Node, tier int, authToo bool) {
	switch b := n.(type) {
	case *ast.Paragraph, *ast.Heading:
		lines := b.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			raw := seg.Value(p.src)
			if p.leadIn {
				// "**Base URL:**" or "API base for agents:" ended the previous line of
				// this paragraph: this line holds the value.
				p.leadIn = false
				if p.baseNext > 0 {
					p.baseFromNext([]string{stripMarkup(strings.TrimSpace(string(raw)))}, func() int { return p.lineOf(seg.Start) })
				}
			}
			if !hasLabelHint(unsafeString(raw)) && !exampleHint(unsafeString(raw)) {
				if productionWords[firstWordLower(unsafeString(raw))] {
					p.scanProductionLabel(stripMarkup(string(raw)), tier)
				}
				continue
			}
			l := stripMarkup(string(raw))
			p.scanLine(l, tier, authToo, func() int { return p.lineOf(seg.Start) })
		}
		p.leadIn = false
	case *ast.Blockquote:
		for c := b.FirstChild(); c != nil; c = c.NextSibling() {
			p.scanLines(c, tier, authToo)
		}
	}
}

// exampleHint reports a line that may give a label's value as an example in brackets:
// "the API base (e.g. `https://x`)" (see labelAssign).
func exampleHint(l string) bool {
	for i := strings.IndexByte(l, '('); i >= 0; {
		if i > 0 && l[i-1] == ' ' && (strings.HasPrefix(l[i+1:], "e.g") || strings.HasPrefix(l[i+1:], "for example")) {
			return true
		}
		j := strings.IndexByte(l[i+1:], '(')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// hasLabelHint is a fast single pass for lines that may hold a base or auth label:
// "api", "auth", "base" or "credential" followed by ":" or "=" (see labelFollows).
func hasLabelHint(l string) bool {
	colon, eq := strings.IndexByte(l, ':'), strings.IndexByte(l, '=') // the next of each at or after i, or -1
	next := nextLabelEnd(colon, eq)
	if next < 0 {
		// The common case, checked at memory speed; then a full-width colon
		// ("Base URL：x"), in the few lines with none of those.
		if colon = strings.Index(l, fullwidthColon); colon < 0 {
			return false
		}
		next = colon
	}
	// A label ends at most 15 bytes before its ':' or '=' and is at most 10 bytes
	// long ("credential"): a word 25 bytes or more before the next one is skipped.
	for i := max(next-25, 0); i+3 <= len(l); i++ {
		if i > next {
			if colon >= 0 && colon < i {
				colon = indexByteFrom(l, i, ':')
			}
			if eq >= 0 && eq < i {
				eq = indexByteFrom(l, i, '=')
			}
			if next = nextLabelEnd(colon, eq); next < 0 {
				return false
			}
			i = max(i, next-25)
		}
		if !labelFirst[l[i]] {
			continue // most bytes: one lookup
		}
		var word string
		switch l[i] | 0x20 {
		case 'a':
			switch l[i+1] | 0x20 {
			case 'p':
				word = "api"
			case 'u':
				word = "auth"
			}
		case 'b':
			word = "base"
		case 'c':
			word = "credential"
		case 'm':
			word = "mcp"
		}
		// A label found further on is found when i gets there: only the word at i is read.
		if word != "" && labelAt(l[i:], word) {
			return true
		}
	}
	return false
}

// labelFirst marks the first letters of the words hasLabelHint and labelWord look
// for ("api", "auth", "base", "credential", "mcp"), in either case.
var labelFirst = func() (t [256]bool) {
	for _, c := range "abcmABCM" {
		t[c] = true
	}
	return t
}()

// nextLabelEnd returns the smaller of two indexes, -1 meaning none.
func nextLabelEnd(colon, eq int) int {
	if colon < 0 || eq >= 0 && eq < colon {
		return eq
	}
	return colon
}

// indexByteFrom returns the index of the first c in l at or after from, or -1.
func indexByteFrom(l string, from int, c byte) int {
	if i := strings.IndexByte(l[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// labelWord is a fast check that a table's first cell may name the base or auth:
// it contains "api", "base", "auth" or "cred", in any case.
func labelWord(l string) bool {
	for i := 0; i+3 <= len(l); i++ {
		if !labelFirst[l[i]] {
			continue // most bytes: one lookup
		}
		a := l[i] | 0x20
		b, c := l[i+1]|0x20, l[i+2]|0x20
		switch {
		case a == 'a' && (b == 'p' && c == 'i' || b == 'u' && c == 't'),
			a == 'b' && b == 'a' && c == 's',
			a == 'c' && b == 'r' && c == 'e',
			a == 'm' && b == 'c' && c == 'p':
			return true
		}
	}
	return false
}

// stripMarkup drops the emphasis and code markers of a source line, so that
// "**API Base:** `https://x`" reads "API Base: https://x".
func stripMarkup(l string) string {
	if !strings.ContainsAny(l, "*`") {
		return l
	}
	return markupStripper.Replace(l)
}

var markupStripper = strings.NewReplacer("*", "", "`", "")

// keyFolder removes the separators of a label or key: "API_Base-URL" -> "APIBaseURL".
var keyFolder = strings.NewReplacer("_", "", "-", "", " ", "")

// unsafeString views b as a string without copying, for read-only checks.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// baseHeading notes a heading (normalised) that names the API base: one of the
// next blocks of its section holds the value.
func (p *parser) baseHeading(norm string) {
	p.baseNext, p.baseLeft = 0, 0
	if w, _, _ := strings.Cut(norm, " "); !slices.Contains(baseHeadingStarts, w) {
		return // most headings, without a map lookup
	}
	if s, ok := baseHeadings[norm]; ok {
		p.baseNext, p.baseLeft = s, baseBlocks
	}
}

// baseBlocks is how many blocks after a base heading are read for its value: the
// URL may follow a sentence ("Set your base URL first:").
const baseBlocks = 3

// baseFromNext reads a block after a base heading: a line that is only a URL or a
// path, or a labelled one ("- Production: https://x"), the first one found.
func (p *parser) baseFromNext(lines []string, line func() int) {
	s := p.baseNext
	for _, l := range lines {
		f := strings.Fields(l)
		v := ""
		switch {
		case len(f) == 1:
			v = strings.TrimRight(strings.Trim(f[0], "`<>\"'*"), ".,;")
			if isPlaceholder(v) {
				p.notePlaceholder(line())
				continue
			}
		case len(f) > 1 && strings.HasSuffix(f[0], ":") && len(f[0]) <= 24:
			v, _ = baseValue(strings.Join(f[1:], " "))
		}
		if v == "" && sameOriginProse(l) {
			v = "/" // "Use this server's root URL": the origin serving the document
		}
		if v == "" && len(f) > 1 && len(l) <= maxBaseSentence {
			v = baseInSentence(f) // "All endpoints are at `/api/v1`. Example: ..."
		}
		if v != "" && plausibleBase(v) {
			p.addBase(v, 0, s, fromNext)
			p.baseNext, p.baseLeft = 0, 0
			return
		}
	}
	if p.baseLeft--; p.baseLeft <= 0 {
		p.baseNext = 0
	}
}

// maxBaseSentence bounds the length of a sentence under a base heading that
// baseInSentence reads.
const maxBaseSentence = 240

// baseInSentence returns the first URL or absolute path in the words of a sentence
// under a base heading ("All endpoints are at /api/v1."), or "": not a page to read
// nor a document's name ("/skill.md").
func baseInSentence(words []string) string {
	for _, w := range words {
		w = strings.TrimRight(strings.Trim(w, "`<>\"'*()[]"), ".,;:")
		if !strings.HasPrefix(w, "/") && !strings.HasPrefix(w, "https://") && !strings.HasPrefix(w, "http://") {
			continue
		}
		if plausibleBase(w) && !pageURL(w) && !isDocumentName(lastSegment(w)) {
			return w
		}
	}
	return ""
}

// sameOriginProse reports prose that states the base is the origin serving the
// document: "same origin as this page", "use this server's root URL".
func sameOriginProse(l string) bool {
	if len(l) < 8 {
		return false
	}
	l = strings.ToLower(l)
	for _, s := range sameOriginPhrases {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

var sameOriginPhrases = [...]string{
	"same origin", "same domain", "same host", "this server's root", "this server’s root", "root url of this",
	"this origin", "current origin", "current domain", "current host",
	"origin hosting this", "origin serving this", "host serving this", "domain hosting this", "domain serving this",
	"site hosting this", "origin of this document", "origin of this file", "origin of this page",
	"this document's origin", "this document’s origin", "where this file is served", "where this document is served",
	"origin you fetched", "domain you fetched", "host you fetched",
}

// baseWords name the API base in prose ("use ... as BASE_URL", "the API base is ...").
var baseWords = [...]string{"base_url", "base url", "baseurl", "api base", "api_base", "base path", "base uri"}

// sameOriginBase reads a base stated only in prose, outside any base heading or label:
// a sentence that names the base and says it is the origin serving the document ("Use
// the origin hosting this document as BASE_URL"). The base is then "/", with the
// weakest strength: any label, row, heading or frontmatter key outranks it. Only
// paragraphs holding "base" are read further, so the check costs one scan.
func (p *parser) sameOriginBase(t string, tier int) {
	if len(t) < 16 || !strings.Contains(t, "ase") && !strings.Contains(t, "ASE") || !labelFollowsAny(t, "base") {
		return
	}
	for rest := t; rest != ""; {
		var s string
		if i := strings.IndexAny(rest, ".\n"); i >= 0 {
			s, rest = rest[:i], rest[i+1:]
		} else {
			s, rest = rest, ""
		}
		l := strings.ToLower(s)
		named := false
		for _, w := range baseWords {
			if strings.Contains(l, w) {
				named = true
				break
			}
		}
		if named && sameOriginProse(s) {
			p.addBase("/", tier, 1, fromProse)
			return
		}
	}
}

// labelFollowsAny reports whether word (lower-case ASCII) occurs in s, ignoring case.
func labelFollowsAny(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		j := 0
		for j < len(word) && (s[i+j]|0x20) == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// baseFromTable reads a table after a base heading or an empty base label: the first
// URL of its body rows ("| Mainnet | https://x |").
func (p *parser) baseFromTable(text string) {
	_, body, _ := strings.Cut(text, "\n") // the header row names the columns
	for rest := body; rest != ""; {
		var row string
		row, rest, _ = strings.Cut(rest, "\n")
		if v, _ := rowValue(row, true); v != "" && !strings.HasPrefix(v, "/") {
			p.addBase(v, 0, p.baseNext, fromNext)
			break
		}
	}
	p.baseNext, p.baseLeft = 0, 0
}

// tableRows reads the rows of a table (as rendered by tableText) for a first cell
// that names the API base or auth.
func (p *parser) tableRows(text string, n ast.Node) {
	tier := p.tier()
	p.authColumn(text)
	for rest := text; rest != ""; {
		var row string
		row, rest, _ = strings.Cut(rest, "\n")
		label, cells, ok := strings.Cut(row, " | ")
		if ok && productionLabel(label) {
			// "| Production | https://x |" beside Staging and Local rows.
			if v, _ := rowValue(cells, true); v != "" {
				p.addBase(v, tier, 2, fromTable)
			}
			continue
		}
		if ok && envVarName(label) && p.envRow(label, cells, tier) {
			continue
		}
		if !ok || len(label) > 40 || !labelWord(label) {
			continue
		}
		if p.mcpRow(label, cells) {
			continue
		}
		l := p.normalize(label)
		s, ok := baseRowLabels[l]
		if !ok && envBaseName(label) {
			s, ok = 2, true // "| `FT_HACK_API` | `https://x` |": the variable that holds the base
		}
		if ok {
			v, placeholder := rowValue(cells, s > 1)
			switch {
			case v != "":
				p.addBase(v, tier, s, fromTable)
			case placeholder:
				p.notePlaceholder(p.lineOfNode(n))
			}
			continue
		}
		if namedAPILabel(l) {
			// "| Orchestrator API | https://x/api/proxy |": a service's API named in a
			// table of resources. Read only when no label states the base (apiRowsBase).
			if v, _ := rowValue(cells, false); v != "" && strings.HasPrefix(v, "http") && !pageURL(v) &&
				len(p.apiRows) < maxVars {
				p.apiRows = append(p.apiRows, v)
			}
			continue
		}
		if authRowLabels[l] && p.kind() != kindAuth {
			if v := strings.TrimSpace(strings.ReplaceAll(cells, " | ", " ")); v != "" && v != "-" && v != "—" {
				p.addAuth(strings.TrimSpace(label)+": "+v, fromTable)
			}
		}
	}
}

// maxAuthValues bounds the distinct values an auth column contributes.
const maxAuthValues = 8

// authColumn reads a table whose header names an auth column ("| Method | Endpoint |
// Auth | Description |"): the endpoints' auth rule is stated per row, so the
// distinct values of that column ("None, API Key, Optional") become one auth rule.
func (p *parser) authColumn(text string) {
	header, body, ok := strings.Cut(text, "\n")
	if !ok || !labelWord(header) {
		return // the common case: no column names auth
	}
	col := -1
	cells := strings.Split(header, " | ")
	for i, c := range cells {
		if l := p.normalize(c); authRowLabels[l] || l == "auth required" || l == "requires auth" {
			col = i
			break
		}
	}
	if col < 0 || len(cells) < 2 {
		return
	}
	var vals []string
	for rest := body; rest != "" && len(vals) < maxAuthValues; {
		var row string
		row, rest, _ = strings.Cut(rest, "\n")
		rc := strings.Split(row, " | ")
		if col >= len(rc) {
			continue
		}
		v := strings.TrimSpace(rc[col])
		if v == "" || v == "-" || v == "—" || len(v) > 40 || slices.Contains(vals, v) {
			continue
		}
		vals = append(vals, v)
	}
	if len(vals) > 0 {
		p.addAuth(strings.TrimSpace(cells[col])+" (per endpoint): "+strings.Join(vals, ", "), fromAuthColumn)
	}
}

// namedAPILabel reports a normalised first cell that names one API of a service in a
// word or two: "orchestrator api", "live api", "pnl api" (not "api", a base row).
func namedAPILabel(l string) bool {
	name, ok := strings.CutSuffix(l, " api")
	return ok && name != "" && strings.Count(name, " ") <= 1 && name != "rest" && name != "http" && name != "base" &&
		name != "web" && name != "openapi"
}

// apiRowsBase returns the base the table rows naming an API give (see namedAPILabel)
// when they all point to one origin: the one URL, or the longest run of path segments
// their URLs share ("Live API | x/api/pot/live", "Activity API | x/api/pot/activity"
// give x/api/pot). Rows on different origins name different services: "".
func (p *parser) apiRowsBase() string {
	if len(p.apiRows) == 0 {
		return ""
	}
	origin := urlOrigin(p.apiRows[0])
	var prefix []string
	for i, v := range p.apiRows {
		if urlOrigin(v) != origin {
			return ""
		}
		segs := strings.Split(strings.Trim(strings.TrimPrefix(v, origin), "/"), "/")
		if i == 0 {
			prefix = segs
			continue
		}
		n := 0
		for n < len(prefix) && n < len(segs) && prefix[n] == segs[n] {
			n++
		}
		prefix = prefix[:n]
	}
	for i, s := range prefix {
		if !cleanSegment(s) {
			prefix = prefix[:i]
			break
		}
	}
	if len(prefix) == 0 || prefix[0] == "" {
		return origin
	}
	return origin + "/" + strings.Join(prefix, "/")
}

// urlOrigin returns the scheme and host of an absolute URL ("https://x.example").
func urlOrigin(v string) string {
	scheme, rest, ok := strings.Cut(v, "://")
	if !ok {
		return ""
	}
	host, _, _ := strings.Cut(rest, "/")
	host, _, _ = strings.Cut(host, "?")
	return scheme + "://" + strings.ToLower(host)
}

// maxBaseHosts is the most hosts the stated bases of a document may name: a guide to
// a platform that states a base for each of three or more services ("Base URL" under
// each of its sections) states none for the whole.
const maxBaseHosts = 2

// ambiguousBases reports stated bases on more than maxBaseHosts hosts.
func (p *parser) ambiguousBases() bool {
	var hosts []string
	for _, c := range p.bases {
		if o := urlOrigin(c.value); o != "" && !slices.Contains(hosts, o) {
			hosts = append(hosts, o)
		}
	}
	return len(hosts) > maxBaseHosts
}

// rowValue returns the first URL in the cells, or (when paths is true, or for a bare
// "API" row) the first absolute path.
func rowValue(cells string, _ bool) (v string, placeholder bool) {
	for _, f := range strings.Fields(strings.ReplaceAll(cells, " | ", " ")) {
		f = strings.TrimRight(strings.Trim(f, "`\"'*[]()<>"), ".,;:")
		if plausibleBase(f) {
			return f, false
		}
		if isPlaceholder(f) && strings.Contains(strings.ToLower(f), "base") {
			placeholder = true
		}
	}
	return "", placeholder
}

// frontmatterBase reads base keys from the frontmatter: top level, "metadata", and
// one map below "metadata".
func (p *parser) frontmatterBase() {
	fm := p.doc.Frontmatter
	if fm == nil {
		return
	}
	p.baseKeysIn(fm)
	meta, _ := fm["metadata"].(map[string]any)
	if meta == nil {
		return
	}
	p.baseKeysIn(meta)
	for _, v := range meta {
		if ns, ok := v.(map[string]any); ok {
			p.baseKeysIn(ns)
		}
	}
}

// baseKeysIn adds the base and auth keys of one frontmatter map, in key order so
// the result does not depend on map iteration.
func (p *parser) baseKeysIn(m map[string]any) {
	var found []baseCandidate
	var mcp []string
	defer func() { // in value order, so the result does not depend on map iteration
		sort.Strings(mcp)
		for _, u := range mcp {
			p.addMCP(u)
		}
	}()
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			continue
		}
		nk := keyFolder.Replace(strings.ToLower(k))
		if nk == "auth" || nk == "authentication" {
			if t := strings.TrimSpace(s); t != "" {
				p.addAuth(k+": "+t, fromFrontmatter)
			}
			continue
		}
		if mcpKeys[nk] {
			mcp = append(mcp, strings.TrimSpace(s))
			continue
		}
		st, ok := baseKeys[nk]
		if !ok {
			continue
		}
		s = strings.TrimSpace(s)
		switch {
		case plausibleBase(s):
			found = append(found, baseCandidate{value: s, strength: st, order: len(found)})
		case isPlaceholder(s):
			p.notePlaceholder(1)
		}
	}
	// Deterministic order: strongest first, then by value.
	for len(found) > 0 {
		best := 0
		for i, c := range found {
			if c.strength > found[best].strength || c.strength == found[best].strength && c.value < found[best].value {
				best = i
			}
		}
		p.addBase(found[best].value, 1, found[best].strength, fromFrontmatter)
		found = append(found[:best], found[best+1:]...)
	}
}

// pickBase returns the best candidate, or "".
func (p *parser) pickBase() string {
	if len(p.bases) == 0 {
		return ""
	}
	best := p.bases[0]
	for _, c := range p.bases[1:] {
		if c.better(best) {
			best = c
		}
	}
	return best.value
}

// plausibleBase accepts an absolute http(s) URL without userinfo, or an absolute path.
func plausibleBase(v string) bool {
	if strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "//") {
		return !strings.ContainsAny(v, "{}<>")
	}
	if !strings.HasPrefix(v, "https://") && !strings.HasPrefix(v, "http://") {
		return false
	}
	u, err := url.Parse(v)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.User == nil &&
		!strings.ContainsAny(v, "{}<>") && !placeholderHost(u.Host)
}

// placeholderURL reports an absolute http(s) URL whose host is a placeholder.
func placeholderURL(v string) bool {
	_, rest, ok := strings.Cut(v, "://")
	if !ok || !strings.HasPrefix(v, "http") {
		return false
	}
	host, _, _ := strings.Cut(rest, "/")
	return host != "" && placeholderHost(host)
}

// placeholderHost reports a host that stands for the reader's own deployment: a name
// without a dot that is not localhost ("your-agentfeed-domain", "YOUR_HOST", "host"),
// or a first label starting with "your-", "your_" or "yourdomain"-like words
// ("your-app.vercel.app", "yourdomain.com"). Such a URL names no server anyone can reach.
func placeholderHost(h string) bool {
	if strings.HasPrefix(h, "[") {
		return false // an IPv6 literal
	}
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		h = h[:i]
	}
	if !strings.Contains(h, ".") {
		return h != "" && !strings.EqualFold(h, "localhost")
	}
	first, _, _ := strings.Cut(strings.ToLower(h), ".")
	if strings.HasPrefix(first, "your-") || strings.HasPrefix(first, "your_") {
		return true
	}
	for _, w := range [...]string{"yourdomain", "yoursite", "yourapp", "yourhost", "yourserver", "yourproject", "yourcompany", "yourname"} {
		if strings.HasPrefix(first, w) {
			return true
		}
	}
	return false
}

// envRow reads a row of an environment-variable table by its description cell
// ("| `DRIVE9_SERVER` | Server URL | `https://api.x` |"): a variable holding the
// server the guide's calls go to states the base by its value or default; one
// holding the API's credential ("| `DRIVE9_API_KEY` | API key |") states auth when
// nothing else does (flushLists). It reports whether the row said either.
func (p *parser) envRow(label, cells string, tier int) bool {
	desc, _, _ := strings.Cut(cells, " | ")
	switch d := p.normalize(desc); {
	case envBaseDescriptions[d]:
		if v, _ := rowValue(cells, true); v != "" {
			p.addBase(v, tier, 2, fromEnvironment)
			return true
		}
	case envCredentialDescriptions[d]:
		if p.credRoom() && p.kind() != kindAuth {
			p.addCred(strings.TrimSpace(desc) + " (" + strings.Trim(strings.TrimSpace(label), "`") + ")")
		}
		return true
	}
	return false
}

// envBaseDescriptions are the normalised descriptions of an environment variable
// that holds the address of the server the guide's calls go to.
var envBaseDescriptions = map[string]bool{"server url": true, "api url": true, "base url": true, "api base": true,
	"api base url": true, "api endpoint": true, "api server": true, "server address": true, "api server url": true}

// envCredentialDescriptions are the normalised descriptions of an environment
// variable that holds the credential the API takes.
var envCredentialDescriptions = map[string]bool{"api key": true, "api token": true, "access token": true,
	"bearer token": true, "auth token": true, "api secret": true}

// envVarName reports a table cell that is an environment variable's name: upper-case
// letters, digits and "_", with at least one "_" ("DRIVE9_SERVER"). Backticks are
// ignored.
func envVarName(cell string) bool {
	c := strings.Trim(strings.TrimSpace(cell), "`")
	if len(c) < 4 || len(c) > 40 || !strings.Contains(c, "_") {
		return false
	}
	for i := 0; i < len(c); i++ {
		if !(c[i] >= 'A' && c[i] <= 'Z' || c[i] >= '0' && c[i] <= '9' || c[i] == '_') {
			return false
		}
	}
	return true
}

// envBaseName reports a table cell that is an environment variable naming the API
// base: upper-case letters, digits and "_" ending in "_API", "_API_URL", "_BASE_URL",
// "_API_BASE" or "_API_BASE_URL" ("FT_HACK_API", "ACME_BASE_URL"). Backticks are
// ignored. The row's value must still be a URL or path.
func envBaseName(cell string) bool {
	c := strings.Trim(strings.TrimSpace(cell), "`")
	if len(c) < 4 || len(c) > 40 {
		return false
	}
	for i := 0; i < len(c); i++ {
		if !(c[i] >= 'A' && c[i] <= 'Z' || c[i] >= '0' && c[i] <= '9' || c[i] == '_') {
			return false
		}
	}
	for _, suf := range [...]string{"_API", "_API_URL", "_BASE_URL", "_API_BASE", "_API_BASE_URL", "_API_ROOT"} {
		if strings.HasSuffix(c, suf) {
			return true
		}
	}
	return c == "API_BASE" || c == "BASE_URL" || c == "API_URL" || c == "API_BASE_URL"
}
