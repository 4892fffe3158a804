package skillsmd

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Risky actions stated outside a risky or safety section. Guides put what needs the
// user's approval, and what is forbidden, wherever it comes up: "**NEVER send your
// API key to any domain other than x**" in the preamble, "Confirm with the user before
// large payments." in a best-practices list, "Keep the token in a secret manager;
// never commit or echo it." after the auth header, "Get explicit consent before:" and
// a list. proseRisk files those sentences (a short list item whole) as risky actions;
// the rest of the text stays where it is. Only clear statements count: a sentence or
// clause that opens with a prohibition ("Never", "Do not", "Don't", "You must not",
// "Agents must never", "Keep x out of y", "不要", "不得"...), or that makes an action
// wait for a person ("confirm with the user", "ask before", "get explicit consent",
// "the user must approve", "--confirm", "confirmation is required", "征得用户同意").
// Code, tables and headings are not read.

// maxWholeItem is the longest list item kept whole as a risky action; a longer one (or
// one of several blocks) gives the sentences that state the rule.
const maxWholeItem = 200

// proseRisk files the risky sentences of one paragraph (item false) or list item of a
// section that is not about safety already.
func (p *parser) proseRisk(t string, item bool) {
	switch p.kind() {
	case kindRisky, kindSafety, kindRules, kindSafe:
		return // the section's own reading files its items
	}
	if !riskTrigger(t) {
		return
	}
	if item && len(t) <= maxWholeItem && strings.IndexByte(t, '\n') < 0 {
		if len(riskySentences(t, nil, false)) > 0 {
			p.addRisky(t)
		}
		return
	}
	for _, s := range riskySentences(t, nil, true) {
		p.addRisky(s)
	}
}

// riskyLeadIn reports a paragraph whose last sentence introduces a list of risky
// actions: "Get explicit consent before:", "Never do the following:".
func riskyLeadIn(t string) bool {
	t = strings.TrimRight(t, " \t*_")
	if !strings.HasSuffix(t, ":") && !strings.HasSuffix(t, "：") || !riskTrigger(t) {
		return false
	}
	last := t
	if i := lastSentenceStart(t); i > 0 {
		last = t[i:]
	}
	return riskyClauses(last)
}

// addRisky adds a risky action once.
func (p *parser) addRisky(t string) {
	for _, r := range p.risky {
		if r == t {
			return
		}
	}
	p.risky = append(p.risky, t)
}

// riskySentences returns the sentences of t that state a risky action, each on one
// line; with all false, only the first. A sentence that ends with ":" and ends t is a
// lead-in (see riskyLeadIn), not a rule of its own.
func riskySentences(t string, dst []string, all bool) []string {
	for start := 0; start < len(t); {
		end := riskSentenceEnd(t[start:])
		if end < 0 {
			end = len(t)
		} else {
			end += start
		}
		s := strings.TrimSpace(t[start:end])
		start = end
		if s == "" || strings.HasSuffix(strings.TrimRight(s, "*_ "), "?") || !riskyClauses(s) || aboutTheDocument(s) {
			continue // a question is no rule ("Don't have an account?"), nor a note to the author
		}
		if start >= len(strings.TrimRight(t, " \t\n")) && (strings.HasSuffix(s, ":") || strings.HasSuffix(s, "：")) {
			continue // a lead-in: its list is what it introduces
		}
		dst = append(dst, oneLine(s))
		if !all {
			break
		}
	}
	return dst
}

// riskSentenceEnd returns where the first sentence of s ends (just past its stop), or -1
// when s is one sentence: at ".", "!" or "?" before a blank, at a CJK full stop, and
// at the end of a line that ends with a colon (a label line or a lead-in).
func riskSentenceEnd(s string) int {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '.', '!', '?':
			if i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\n') && !abbreviation(s[:i]) {
				return i + 1
			}
		case ':':
			if i+1 < len(s) && s[i+1] == '\n' {
				return i + 1
			}
		case ' ':
			// A capitalised prohibition after a word with no stop opens a sentence
			// whose stop a soft line break hid: "**2. Check status** Don't trade
			// on resolved markets."
			if i > 0 && isWordByte(s[i-1]) && capitalProhibition(s[i+1:]) {
				return i + 1
			}
		case '\n':
			// A line that ends without a stop, before one that starts a new sentence
			// (a capital letter or a symbol): a bold pseudo-heading ("2. Check status"),
			// a label line. Lines of wrapped prose go on in lower case.
			if i > 0 && s[i-1] != ',' && i+1 < len(s) && newSentence(s[i+1:]) {
				return i + 1
			}
		case 0xe3, 0xef: // 。 (e3 80 82), ！ (ef bc 81), ？ (ef bc 9f)
			for _, stop := range [...]string{"。", "！", "？"} {
				if strings.HasPrefix(s[i:], stop) {
					return i + len(stop)
				}
			}
		}
	}
	return -1
}

// capitalProhibition reports s opening with a capitalised "Never", "Do not" or
// "Don't" (or the same in capitals).
func capitalProhibition(s string) bool {
	for _, w := range [...]string{"Never ", "NEVER ", "Do not ", "Do NOT ", "DO NOT ", "Don't ", "DON'T ", "Don’t "} {
		if strings.HasPrefix(s, w) {
			return true
		}
	}
	return false
}

// newSentence reports text that opens a sentence: an upper-case letter, a digit or a
// symbol after optional blanks.
func newSentence(s string) bool {
	s = strings.TrimLeft(s, " \t")
	r, _ := utf8.DecodeRuneInString(s)
	return r != utf8.RuneError && !unicode.IsLower(r)
}

// lastSentenceStart returns where the last sentence of t starts.
func lastSentenceStart(t string) int {
	last := 0
	for start := 0; start < len(t); {
		end := riskSentenceEnd(t[start:])
		if end < 0 || start+end >= len(t) {
			break
		}
		start += end
		last = start
	}
	return last
}

// abbreviation reports text ending in an abbreviation whose dot ends no sentence.
func abbreviation(s string) bool {
	for _, a := range [...]string{"e.g", "i.e", "etc", "vs", "approx", "incl"} {
		if len(s) >= len(a) && strings.EqualFold(s[len(s)-len(a):], a) &&
			(len(s) == len(a) || !isWordByte(s[len(s)-len(a)-1])) {
			return true
		}
	}
	return false
}

// oneLine joins the lines of s with single spaces.
func oneLine(s string) string {
	if strings.IndexByte(s, '\n') < 0 {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// riskTrigger is a fast check for a word that may open a risky statement, so that
// most text is passed over without the closer reading: "never", "do not", "don't",
// "must", "refuse", "keep", "confirm", "consent", "ask", "check with", "loop",
// "approv", "permission", "explicit" and the CJK ones.
func riskTrigger(t string) bool {
	ascii := true
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c >= utf8.RuneSelf {
			ascii = false
			continue
		}
		if i > 0 && isWordByte(t[i-1]) {
			continue
		}
		switch c | 0x20 {
		case 'n':
			if hasFoldPrefix(t[i:], "never") {
				return true
			}
		case 'd':
			if hasFoldPrefix(t[i:], "do not") || hasFoldPrefix(t[i:], "don't") || hasFoldPrefix(t[i:], "don’t") ||
				hasFoldPrefix(t[i:], "dont ") {
				return true
			}
		case 'm':
			if hasFoldPrefix(t[i:], "must") {
				return true
			}
		case 'r':
			if hasFoldPrefix(t[i:], "refuse") {
				return true
			}
		case 'k':
			if hasFoldPrefix(t[i:], "keep") {
				return true
			}
		case 'c':
			if hasFoldPrefix(t[i:], "confirm") || hasFoldPrefix(t[i:], "consent") || hasFoldPrefix(t[i:], "check with") {
				return true
			}
		case 'a':
			if hasFoldPrefix(t[i:], "ask") || hasFoldPrefix(t[i:], "approv") {
				return true
			}
		case 'p':
			if hasFoldPrefix(t[i:], "permission") {
				return true
			}
		case 'l':
			if hasFoldPrefix(t[i:], "loop") {
				return true
			}
		case 'e':
			if hasFoldPrefix(t[i:], "explicit") {
				return true
			}
		}
	}
	if !ascii {
		for _, w := range cjkRiskWords {
			if strings.Contains(t, w) {
				return true
			}
		}
	}
	return false
}

// hasFoldPrefix reports whether s starts with word (lower-case ASCII), in any case.
func hasFoldPrefix(s, word string) bool {
	return len(s) >= len(word) && strings.EqualFold(s[:len(word)], word)
}

// cjkRiskWords are the Chinese words riskyCJK looks for.
var cjkRiskWords = [...]string{"不要", "不得", "禁止", "严禁", "切勿", "请勿", "绝不", "确认后再", "征得", "同意后", "用户同意"}

// riskyClauses reports whether a sentence states a risky action: a clause of it (cut
// at "; ", " — ", ": " and the like) opens with a prohibition, or it makes an action
// wait for a person's approval.
func riskyClauses(s string) bool {
	var lb [256]byte
	l := lowerASCII(lb[:0], s)
	if approval(l) {
		return true
	}
	imperative := !describes(l)
	for start := 0; start < len(l); {
		end, next := clauseEnd(l[start:], imperative)
		c := l[start : start+end]
		if prohibition(c, start > 0) {
			return true
		}
		if next == 0 {
			break
		}
		start += next
	}
	return riskyCJK(s)
}

// clauseEnd returns where the first clause of l ends and where the next starts (0
// when l is one clause): at "; ", " — ", " – ", " - ", ": ", "(", " and never ",
// " but never ", ", do not"...
func clauseEnd(l string, imperative bool) (end, next int) {
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case ';', ':':
			if i+1 < len(l) && l[i+1] == ' ' {
				return i, i + 2
			}
		case '(':
			return i, i + 1
		case ',':
			// Only a prohibition opens a clause after a comma ("If x, do not y"):
			// "never" after one is as often a description ("runs, never blocking").
			if r := strings.TrimLeft(l[i+1:], " "); strings.HasPrefix(r, "do not ") || strings.HasPrefix(r, "don't ") ||
				strings.HasPrefix(r, "don’t ") {
				return i, len(l) - len(r)
			}
		case ' ':
			r := l[i+1:]
			switch {
			case strings.HasPrefix(r, "— "), strings.HasPrefix(r, "– "), strings.HasPrefix(r, "- "):
				_, size := utf8.DecodeRuneInString(r)
				return i, i + 1 + size + 1
			case imperative && (strings.HasPrefix(r, "and never ") || strings.HasPrefix(r, "but never ")),
				strings.HasPrefix(r, "and do not "), strings.HasPrefix(r, "but do not "),
				strings.HasPrefix(r, "and don't "), strings.HasPrefix(r, "but don't "):
				sp := strings.IndexByte(r, ' ')
				return i, i + 1 + sp + 1
			}
		case 0xe2: // "—" written without spaces, and a curly apostrophe is not a stop
			if strings.HasPrefix(l[i:], "—") {
				return i, i + len("—")
			}
		}
	}
	return len(l), 0
}

// describes reports a sentence (lower-case) that opens with a subject, not a verb:
// "The relay never parses x and never learns y" describes; "Store the key and never
// print it" instructs.
func describes(l string) bool {
	w, _, _ := strings.Cut(trimLead(l), " ")
	switch w {
	case "the", "a", "an", "it", "its", "this", "that", "these", "those", "they", "we", "he", "she", "our",
		"their", "there", "which", "who", "each", "every", "all", "no", "nothing", "everything", "agents", "agent",
		"bots", "bot", "users", "user", "you", "your", "i", "my":
		return true
	}
	return false
}

// prohibition reports a clause (lower-case) that opens with a prohibition: "never x",
// "do not x", "don't x", "must not x", "refuse", "you must not x", "agents must never
// x", "keep x out of y", "keep x private". inner is set for a clause after the first,
// where a label may precede it ("Security: never...").
func prohibition(c string, inner bool) bool {
	c = trimLead(c)
	for _, w := range [...]string{"and ", "but ", "so ", "then ", "also ", "please ", "just ", "and please "} {
		if strings.HasPrefix(c, w) {
			c = trimLead(c[len(w):])
		}
	}
	switch {
	case strings.HasPrefix(c, "never "):
		return !excusedVerb(c[len("never "):])
	case strings.HasPrefix(c, "do not "):
		return !excusedVerb(c[len("do not "):])
	case strings.HasPrefix(c, "don't "), strings.HasPrefix(c, "dont "):
		return !excusedVerb(c[strings.IndexByte(c, ' ')+1:])
	case strings.HasPrefix(c, "don’t "):
		return !excusedVerb(c[len("don’t "):])
	case strings.HasPrefix(c, "must not "), strings.HasPrefix(c, "must never "):
		return true
	case c == "refuse" || strings.HasPrefix(c, "refuse ") || strings.HasPrefix(c, "refuse!") || strings.HasPrefix(c, "refuse."):
		return true
	case strings.HasPrefix(c, "no ") && (strings.Contains(c, ", ever") || strings.HasSuffix(strings.TrimRight(c, ".!* "), " ever")):
		return true // "No PII, ever."
	case strings.HasPrefix(c, "keep "):
		return strings.Contains(c, " out of ") || strings.HasSuffix(strings.TrimRight(c, ".!"), " private") ||
			strings.HasSuffix(strings.TrimRight(c, ".!"), " secret")
	}
	for _, subj := range [...]string{"you ", "agents ", "agent ", "bots ", "bot ", "the agent ", "your agent ",
		"ai agents ", "the assistant "} {
		if !strings.HasPrefix(c, subj) {
			continue
		}
		r := c[len(subj):]
		for _, m := range [...]string{"must not ", "must never ", "should never ", "shall not ", "may not ", "may never ",
			"should not ", "cannot "} {
			// "You never pass an id" and "you cannot undo it" describe; "agents
			// cannot execute transactions" restricts.
			if strings.HasPrefix(r, m) && (m != "cannot " || subj != "you ") {
				return !excusedVerb(r[len(m):])
			}
		}
	}
	return false
}

// trimLead drops what may precede the first word of a clause: blanks, emphasis,
// quotes, bullets and symbols ("🔒 ", "**", "“").
func trimLead(c string) string {
	return strings.TrimLeftFunc(c, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	})
}

// excusedVerb reports a verb after "never" or "don't" that makes no prohibition:
// "don't forget", "never worry", "don't hesitate", "don't be afraid".
func excusedVerb(r string) bool {
	for _, v := range [...]string{"forget", "worry", "hesitate", "panic", "miss", "lose", "been", "be afraid", "fear", "mind",
		"confuse"} {
		if strings.HasPrefix(r, v) && (len(r) == len(v) || !isWordByte(r[len(v)])) {
			return true
		}
	}
	return false
}

// humanWords name the person an action waits for.
var humanWords = [...]string{"user", "human", "owner", "operator", "principal"}

// approvalWords are the nouns and verbs of approval; "authoriz" counts only with a
// qualifier ("explicit authorization", "the user's authorization"): alone it is as
// often a signature ("EIP-3009 authorizations").
var approvalWords = [...]string{"approv", "consent", "confirm", "permission", "authoriz", "authoris"}

// approval reports a sentence (lower-case) that makes an action wait for a person:
// "confirm with the user", "ask before", "get explicit consent", "the user must
// approve", "human approval", "--confirm", "the typed confirmation is required", "only
// after an explicit request". A sentence saying none is needed ("no approval needed",
// "without human approval") is not one.
func approval(l string) bool {
	if askedFirst(l) {
		return true
	}
	word, at := "", -1
	for _, a := range approvalWords {
		if i := approvalWordAt(l, a); i >= 0 {
			word, at = a, i
			break
		}
	}
	if word == "" || approvalWaived(l, word, at) {
		return false
	}
	for _, w := range [...]string{"explicit", "prior "} {
		// "explicit consent", "explicitly approve", "prior approval": the qualifier
		// just before the approval word.
		if i := strings.LastIndex(l[:at], w); i >= 0 && at-i <= 20 {
			return true
		}
	}
	if strings.HasPrefix(word, "authori") {
		for _, h := range humanWords {
			if strings.Contains(l, h+"'s authori") || strings.Contains(l, h+"’s authori") {
				return true
			}
		}
		return false
	}
	return humanApproval(l, at) || approvalRequired(l)
}

// askedFirst reports a sentence (lower-case) that tells the agent to ask a person
// first, without an approval word: "--confirm", "only after an explicit request",
// "ask before", "confirm with the user", "loop them in".
func askedFirst(l string) bool {
	if strings.Contains(l, "--confirm") {
		return true
	}
	if strings.Contains(l, "explicit request") && (strings.Contains(l, "only") || strings.Contains(l, "require")) {
		return true
	}
	for _, w := range [...]string{"ask before", "ask first", "stop and ask", "ask for permission", "ask for approval",
		"ask for confirmation", "ask for consent"} {
		if hasWord(l, w) {
			return true
		}
	}
	for _, w := range [...]string{"confirm with ", "check with ", "loop them in", "loop in the ", "loop the user in"} {
		i := strings.Index(l, w)
		if i < 0 || i > 0 && isWordByte(l[i-1]) {
			continue
		}
		if strings.HasPrefix(w, "loop") {
			return true
		}
		if rest := l[i+len(w):]; humanNear(rest[:min(len(rest), 30)]) {
			return true
		}
	}
	return false
}

// approvalWaived reports a sentence (lower-case) whose approval word, word at at, says
// none is needed: "no approval needed", "without human approval", "auto-approve".
func approvalWaived(l, word string, at int) bool {
	for _, neg := range [...]string{"no", "without", "don't need", "doesn't need", "doesn't require", "does not require",
		"never asks", "auto", "pre"} {
		if hasWord(l[:at+len(word)], neg) || strings.HasSuffix(l[:at], neg+"-") {
			return true
		}
	}
	return strings.Contains(l, "not required") || strings.Contains(l, "not needed")
}

// humanApproval reports a sentence (lower-case) with an approval word at at that a
// person gives, and that the action waits for: "approved by a human user", "a human
// must approve", "wait for human approval", "ask the user to confirm".
func humanApproval(l string, at int) bool {
	if by := l[at:]; strings.Contains(by[:min(len(by), 30)], " by ") && humanNear(by[:min(len(by), 40)]) {
		return true // "approved by a human user"
	}
	if humanNear(l) {
		// A person and approval, and the action waits for it. Not a description of
		// a login ("prints a code the user approves in a browser").
		for _, w := range [...]string{"must", "need", "require", "wait", "before", "until", "only", "ask", "get ", "obtain", "subject to"} {
			if hasWordStart(l, w) {
				return true
			}
		}
	}
	return false
}

// approvalRequired reports a sentence (lower-case) that asks for approval or states it
// is required: "get approval", "the typed confirmation is required"; not a state in a
// list of outcomes ("Approval required — go to step 5").
func approvalRequired(l string) bool {
	for _, w := range [...]string{"get ", "obtain ", "seek ", "request "} {
		if strings.HasPrefix(trimLead(l), w) {
			return true
		}
	}
	for _, n := range [...]string{"confirmation", "approval", "consent", "permission"} {
		for _, q := range [...]string{"the ", "a ", "typed ", "explicit ", "user ", "human ", "written ", "manual "} {
			for _, r := range [...]string{" is required", " required", " is needed"} {
				if strings.Contains(l, q+n+r) {
					return true
				}
			}
		}
	}
	return false
}

// approvalWordAt returns where a word of l starting with a (an approval word) starts,
// or -1. A header name is not approval ("Authorization: Bearer", "the Authorization
// header"), nor a word inside an identifier ("human_approved").
func approvalWordAt(l, a string) int {
	for off := 0; ; {
		i := strings.Index(l[off:], a)
		if i < 0 {
			return -1
		}
		i += off
		off = i + 1
		if i > 0 && (isWordByte(l[i-1]) || l[i-1] == '_' || l[i-1] == '-') {
			continue
		}
		end := i + len(a)
		for end < len(l) && (isWordByte(l[end]) || l[end] == '_') {
			end++
		}
		if end < len(l) && l[end] == '_' || strings.HasPrefix(l[end:], ":") || strings.HasPrefix(l[end:], " header") ||
			strings.HasPrefix(l[end:], " bearer") {
			continue
		}
		return i
	}
}

// humanNear reports a word naming a person in s: "user", "users", "user's", "human"...
func humanNear(s string) bool {
	for _, h := range humanWords {
		for off := 0; ; {
			i := strings.Index(s[off:], h)
			if i < 0 {
				break
			}
			i += off
			end := i + len(h)
			if (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end]) || s[end] == 's' &&
				(end+1 == len(s) || !isWordByte(s[end+1]))) {
				return true
			}
			off = end
		}
	}
	return false
}

// hasWord reports phrase w in l at word boundaries.
func hasWord(l, w string) bool {
	for off := 0; ; {
		i := strings.Index(l[off:], w)
		if i < 0 {
			return false
		}
		i += off
		if (i == 0 || !isWordByte(l[i-1])) && (i+len(w) == len(l) || !isWordByte(l[i+len(w)])) {
			return true
		}
		off = i + 1
	}
}

// hasWordStart reports a word of l that starts with w.
func hasWordStart(l, w string) bool {
	for off := 0; ; {
		i := strings.Index(l[off:], w)
		if i < 0 {
			return false
		}
		i += off
		if i == 0 || !isWordByte(l[i-1]) && l[i-1] != '-' {
			return true
		}
		off = i + 1
	}
}

// riskyCJK reports a Chinese prohibition or approval: "不得"/"禁止"/"严禁"/"切勿"/
// "请勿" anywhere, "不要"/"绝不" opening a clause (not "不要求", "does not require"),
// "确认后再", "征得", "用户同意".
func riskyCJK(s string) bool {
	if strings.IndexFunc(s, func(r rune) bool { return r >= 0x3000 }) < 0 {
		return false
	}
	for _, w := range [...]string{"不得", "禁止", "严禁", "切勿", "请勿", "确认后再", "征得", "用户同意", "同意后再"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	for _, w := range [...]string{"不要", "绝不"} {
		for off := 0; ; {
			i := strings.Index(s[off:], w)
			if i < 0 {
				break
			}
			i += off
			if !strings.HasPrefix(s[i+len(w):], "求") && cjkClauseStart(s[:i]) {
				return true
			}
			off = i + len(w)
		}
	}
	return false
}

// cjkClauseStart reports whether a clause starts where before ends: at the start of
// the text or after punctuation, a blank, or a connective (但, 并, 也, 且, 请, 千万, 绝对).
func cjkClauseStart(before string) bool {
	for {
		trimmed := before
		for _, w := range [...]string{"但", "并", "也", "且", "请", "千万", "绝对", "一定"} {
			trimmed = strings.TrimSuffix(trimmed, w)
		}
		if trimmed == before {
			break
		}
		before = trimmed
	}
	if before == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(before)
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// aboutTheDocument reports a sentence addressed to the document's author only, not
// to an agent: "Do not put secrets, tokens or passwords in this file." (generators and
// the spec's example write it in the Auth section); the agent has nothing to ask
// first. A rule with other objects ("in prompts, logs, or this file") stays a rule.
func aboutTheDocument(s string) bool {
	t := strings.ToLower(strings.TrimRight(s, ".!*_ "))
	for _, w := range []string{" in this file", " to this file", " in this document", " in this skills.md"} {
		if strings.HasSuffix(t, w) {
			return true
		}
	}
	return false
}
