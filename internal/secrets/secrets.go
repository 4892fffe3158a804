// Package secrets finds credentials that were published by mistake in discovery
// documents (skill-discovery §7, mcp-discovery §6.1), so the SDK can warn about them
// without ever repeating the value. It is shared by the skillsmd and mcpjson parsers.
//
// Scan is built for speed on documents that hold no secret, which is nearly all of
// them: each detector runs its regular expression only around a cheap keyword hit.
//
// The same detectors make document text safe to repeat in a warning or an error:
// RedactURL for a URL, Quote for any other value, Scrub for free text and ScrubError
// for a dependency's message that may quote the document (quote.go).
package secrets

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wellknown-dev/discovery/internal/lazyre"
)

// Finding is a suspected credential: its kind and where it is. It never holds the value.
type Finding struct {
	Kind   string // such as "AWS access key id" or "bearer token"
	Offset int    // byte offset of the value in the scanned text
	Length int    // byte length of the value
}

type detector struct {
	kind     string
	triggers []string              // lower-case keywords; the regexp runs only near one
	re       func() *regexp.Regexp // anchored at the trigger; submatch 1, if present, is the secret value; compiled on first use
	check    func(value string) bool
	// pre, when set, is a cheap test at the trigger (the text from the trigger on, the
	// trigger's offset in it and its length) that must pass before the regexp runs.
	pre func(s []byte, at, n int) bool
}

// window is how far past a trigger a detector looks.
const window = 400

var detectors = []detector{
	{kind: "private key", triggers: []string{"begin"},
		re: lazyre.New(`^BEGIN ((RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY( BLOCK)?-----`)},
	{kind: "AWS access key id", triggers: []string{"akia", "asia"},
		re:    lazyre.New(`^((?:AKIA|ASIA)[0-9A-Z]{16})\b`),
		check: func(v string) bool { return !strings.Contains(v, "EXAMPLE") }},
	{kind: "GitHub token", triggers: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		re: lazyre.New(`^(gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b`)},
	{kind: "Slack token", triggers: []string{"xox"},
		re: lazyre.New(`^(xox[abposr]-[A-Za-z0-9-]{10,})`), check: notPlaceholder},
	{kind: "Slack webhook", triggers: []string{"hooks.slack.com/services/"},
		re: lazyre.New(`^hooks\.slack\.com/services/(T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{16,})`)},
	{kind: "JSON Web Token", triggers: []string{"eyj"},
		re: lazyre.New(`^(eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})`)},
	{kind: "Stripe key", triggers: []string{"sk_live_", "rk_live_"},
		re: lazyre.New(`^([sr]k_live_[0-9A-Za-z]{20,})`)},
	{kind: "Google API key", triggers: []string{"aiza"},
		re: lazyre.New(`^(AIza[0-9A-Za-z_-]{35})`)},
	{kind: "API secret key", triggers: []string{"sk-"},
		re: lazyre.New(`^(sk-(?:ant-|proj-)?[A-Za-z0-9_-]{32,})`), check: looksRandom},
	{kind: "bearer token", triggers: []string{"bearer"},
		re: lazyre.New(`(?i)^bearer\s+([A-Za-z0-9._~+/=-]{20,})`), check: looksRandom,
		pre: func(s []byte, at, n int) bool {
			if at+n+21 > len(s) || (s[at+n] != ' ' && s[at+n] != '\t') || s[at+n+1] == '<' {
				return false
			}
			// "Bearer token with...": the regexp fails unless 20 value bytes follow the
			// blanks, which prose seldom has; checking saves running it.
			i := at + n
			for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\f' || s[i] == '\r') { // \s
				i++
			}
			return bearerValueAhead(s[i:])
		}},
	{kind: "basic auth credentials", triggers: []string{"basic"},
		re: lazyre.New(`(?i)^basic[ \t]+([A-Za-z0-9+/]{8,}={0,2})`), check: basicCredentials,
		pre: func(s []byte, at, n int) bool {
			return at+n+9 <= len(s) && (s[at+n] == ' ' || s[at+n] == '\t')
		}},
	{kind: "credential assignment", triggers: []string{"api", "access", "secret", "auth", "client", "token", "passw", "pwd"},
		re:    lazyre.New(`(?i)^(?:api[_-]?key|apikey|access[_-]?key|secret[_-]?key|access[_-]?token|auth[_-]?token|token|secret|client[_-]?secret|password|passwd|pwd)["']?\s*[:=]\s*["']?([^\s"'<>{}\[\](),;` + "`" + `]{12,})`),
		check: looksRandom, pre: assignmentAhead},
}

// bearerValueAhead reports whether s starts with 20 bytes that the bearer regexp's
// value class may match: [A-Za-z0-9._~+/=-], and, counted as one each, the bytes of
// any non-ASCII rune (under (?i) the class also holds 'ſ' and the Kelvin sign).
func bearerValueAhead(s []byte) bool {
	if len(s) < 20 {
		return false
	}
	for _, c := range s[:20] {
		if !(c|0x20 >= 'a' && c|0x20 <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("._~+/=-", c) >= 0 || c >= utf8.RuneSelf) {
			return false
		}
	}
	return true
}

// assignmentAhead reports whether the word holding the trigger is followed by ':' or
// '=' (after an optional quote and blanks), as in "api_key = ..." or "token": "...".
func assignmentAhead(l []byte, at, n int) bool {
	i := at + n
	for k := 0; i < len(l) && k < 16 && (lowerByte(l[i]) >= 'a' && lowerByte(l[i]) <= 'z' || l[i] == '_' || l[i] == '-'); k++ {
		i++
	}
	if i < len(l) && (l[i] == '"' || l[i] == '\'') {
		i++
	}
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	return i < len(l) && (l[i] == ':' || l[i] == '=')
}

// The tables below are small on purpose: a document is scanned right after it is
// parsed, when little of this package is in the CPU cache, and every cache line
// touched then costs more than the instructions that use it.

// trigger is one keyword of one detector.
type trigger struct {
	word string // lower-case: two letters, then at least one more byte
	det  int    // index into detectors
}

// triggers holds every trigger, grouped by first letter and in detector order within
// a group; the group of letter c is triggers[byFirst[c-'a']:byFirst[c-'a'+1]], and
// heads holds the first three bytes of each, as threeBytes packs them.
var triggers, heads, byFirst = func() (ts []trigger, hs []uint32, first [27]uint8) {
	for c := byte('a'); c <= 'z'; c++ {
		first[c-'a'] = uint8(len(ts))
		for i, d := range detectors {
			for _, w := range d.triggers {
				if w[0] == c {
					ts = append(ts, trigger{w, i})
					hs = append(hs, threeBytes(w[0], w[1], w[2]))
				}
			}
		}
	}
	first[26] = uint8(len(ts))
	return ts, hs, first
}()

func threeBytes(a, b, c byte) uint32 { return uint32(a)<<16 | uint32(b)<<8 | uint32(c) }

// byteClass sorts the bytes for ScanBytes: classWord for the bytes of a word
// (wordByte), classFirst for the first letter of a trigger, in either case.
var byteClass = func() (t [256]uint8) {
	for c := range t {
		if wordByte[c] {
			t[c] |= classWord
		}
	}
	for _, d := range detectors {
		for _, w := range d.triggers {
			t[w[0]] |= classFirst
			t[upperByte(w[0])] |= classFirst
		}
	}
	return t
}()

const (
	classWord  = 1
	classFirst = 2 // classWord << 1, so that ScanBytes can test both in one step
)

// seconds maps the first letter of a trigger to the set of its second letters (bit
// 0 for 'a'): both are letters, in either case.
var seconds = func() (t [26]uint32) {
	for _, d := range detectors {
		for _, w := range d.triggers {
			if !isLower(w[0]) || !isLower(w[1]) || len(w) < 3 {
				panic("secrets: a trigger must start with two lower-case letters: " + w)
			}
			t[w[0]-'a'] |= 1 << (w[1] - 'a')
		}
	}
	return t
}()

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// pairAt reports whether s[i] (the first letter of a trigger) and s[i+1] begin a
// trigger, in any case.
func pairAt(s []byte, i int) bool {
	b := s[i+1] | 0x20
	return isLower(b) && seconds[s[i]|0x20-'a']>>(b-'a')&1 != 0
}

func upperByte(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// hasPrefixFold reports whether s starts with the lower-case word, ignoring ASCII case.
func hasPrefixFold(s []byte, word string) bool {
	if len(s) < len(word) {
		return false
	}
	for i := 0; i < len(word); i++ {
		if lowerByte(s[i]) != word[i] {
			return false
		}
	}
	return true
}

// wordByte marks the bytes of a word: every trigger starts a word, so Scan looks only
// at word starts.
var wordByte = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
	}
	return t
}()

// Scan returns the suspected credentials in s, in order of offset, without overlaps.
func Scan(s string) []Finding { return ScanBytes([]byte(s)) }

// ScanBytes is Scan for a byte slice, without copying it.
// It never copies the text: triggers, pre-checks and anchored regexps all read the
// slice in place, and only a matched value is converted for its final check.
func ScanBytes(s []byte) []Finding {
	var out []Finding
	var seenBuf [16]int // on the stack: short strings (keys, values) scan without allocating
	seen := seenBuf[:]  // end of the last value judged, per detector
	if len(detectors) > len(seenBuf) {
		seen = make([]int, len(detectors))
	}
	prev := uint8(0) // the class of the byte before s[i]; none before the first
	for i, c := range s {
		// A trigger starts a word: one table lookup per byte finds the first letter of
		// a trigger after a byte that is not part of a word, without a branch the CPU
		// mispredicts at every word boundary. The few candidates get the exact test.
		cl := byteClass[c]
		start := cl &^ (prev << 1) & classFirst
		prev = cl
		if start == 0 || i+1 == len(s) {
			continue
		}
		if pairAt(s, i) {
			out = scanAt(s, i, out, seen)
		}
	}
	out = scanUserinfo(s, out)
	if len(out) < 2 {
		return out
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Offset < out[b].Offset })
	kept := out[:1]
	for _, f := range out[1:] {
		last := &kept[len(kept)-1]
		if f.Offset < last.Offset+last.Length {
			// One value found by two detectors, or two values that overlap: keep the
			// first kind and cover both, so that Redact leaves no part of either.
			last.Length = max(last.Length, f.Offset+f.Length-last.Offset)
			continue
		}
		kept = append(kept, f)
	}
	return kept
}

// scanAt runs the detectors whose trigger starts at the word start at.
func scanAt(s []byte, at int, out []Finding, seen []int) []Finding {
	if at+2 >= len(s) {
		return out // every trigger is longer than what is left
	}
	{
		c := lowerByte(s[at])
		if !isLower(c) {
			return out
		}
		head := threeBytes(c, lowerByte(s[at+1]), lowerByte(s[at+2]))
		w := s[at:min(at+window, len(s))]
		lo, hi := int(byFirst[c-'a']), int(byFirst[c-'a'+1])
		for i, h := range heads[lo:hi] {
			if h != head { // one comparison rules out nearly every trigger
				continue
			}
			tg := &triggers[lo+i]
			d := &detectors[tg.det]
			if at < seen[tg.det] || !hasPrefixFold(w, tg.word) || (d.pre != nil && !d.pre(w, 0, len(tg.word))) {
				continue
			}
			// Every regexp starts with its trigger, so it runs anchored here and fails fast.
			m := d.re().FindSubmatchIndex(w)
			if m == nil {
				continue
			}
			vs, ve := m[0], m[1]
			if len(m) >= 4 && m[2] >= 0 {
				vs, ve = m[2], m[3]
			}
			if ve+at <= seen[tg.det] {
				continue
			}
			// The value has now been judged: a later trigger inside it would only see a
			// suffix of it ("token=token=token=..." must not cost one regexp run per
			// trigger), so the detector resumes after it either way.
			seen[tg.det] = ve + at
			if d.check != nil && !d.check(string(w[vs:ve])) {
				continue
			}
			out = append(out, Finding{Kind: d.kind, Offset: vs + at, Length: ve - vs})
		}
	}
	return out
}

// Redact returns s with every finding replaced by "[redacted <kind>]".
func Redact(s string) string {
	fs := Scan(s)
	if len(fs) == 0 {
		return s
	}
	var b strings.Builder
	prev := 0
	for _, f := range fs {
		b.WriteString(s[prev:f.Offset])
		b.WriteString("[redacted " + f.Kind + "]")
		prev = f.Offset + f.Length
	}
	b.WriteString(s[prev:])
	return b.String()
}

// basicCredentials accepts the base64 of HTTP Basic credentials: printable
// "user:password" text. Prose such as "Basic authentication" does not decode to that.
func basicCredentials(v string) bool {
	raw, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "=")); err != nil {
			return false
		}
	}
	if !utf8.Valid(raw) || bytes.IndexByte(raw, ':') < 0 {
		return false
	}
	for _, r := range string(raw) {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// scanUserinfo appends a finding for the userinfo of every URL that carries a password
// ("scheme://user:password@host"). It runs on the "://" separators, which a fast
// byte search finds, rather than on keyword triggers: any scheme may carry userinfo.
// The finding covers "user:password", which Redact replaces as a whole.
func scanUserinfo(s []byte, out []Finding) []Finding {
	for off := 0; off < len(s); {
		i := bytes.Index(s[off:], []byte("://"))
		if i < 0 {
			break
		}
		start := off + i + 3
		end, at := start, -1
		for end < len(s) && !authorityEnd(s[end]) {
			if s[end] == '@' {
				at = end
			}
			end++
		}
		if at > start {
			ui := s[start:at]
			if c := bytes.IndexByte(ui, ':'); c >= 0 && c+1 < len(ui) && notPlaceholder(string(ui[c+1:])) {
				out = append(out, Finding{Kind: "URL password", Offset: start, Length: at - start})
			}
		}
		// Go on after this "://": a '/' ends every authority, so the next "://" starts
		// at end-1 at the earliest, and no byte is looked at more than twice.
		off = start
	}
	return out
}

// authorityEnd reports a byte that ends the authority of a URL written in text.
func authorityEnd(c byte) bool { return authorityEnds[c] }

var authorityEnds = func() (t [256]bool) {
	for c := range t {
		t[c] = c <= ' ' || c == 0x7f || strings.IndexByte("/?#\"'<>`\\", byte(c)) >= 0
	}
	return t
}()

// placeholders are words that mark a value as an example, not a credential.
var placeholders = []string{"your", "xxx", "example", "placeholder", "changeme", "redacted", "dummy", "sample",
	"insert", "replace", "token_here", "key_here", "<", "{", "$", "…", "***", "process.env", "env."}

func notPlaceholder(v string) bool {
	l := strings.ToLower(v)
	for _, p := range placeholders {
		if strings.Contains(l, p) {
			return false
		}
	}
	return true
}

// looksRandom accepts values that are not placeholders and mix letters and digits
// without being a plain word, path or URL.
func looksRandom(v string) bool {
	if !notPlaceholder(v) || strings.Contains(v, "://") || strings.HasPrefix(v, "/") {
		return false
	}
	var lower, upper, digit int
	for _, r := range v {
		switch {
		case r >= 'a' && r <= 'z':
			lower++
		case r >= 'A' && r <= 'Z':
			upper++
		case r >= '0' && r <= '9':
			digit++
		}
	}
	if digit == 0 || lower+upper == 0 {
		return false
	}
	// Reject runs of one character ("0000000000000000") and dotted identifiers
	// ("config.auth.token.value").
	distinct := map[rune]bool{}
	for _, r := range v {
		distinct[r] = true
	}
	return len(distinct) >= 8 && strings.Count(v, ".") < 3
}
