package secrets

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file makes document text safe to repeat in a warning or an error. A message
// never holds a published credential, a URL's userinfo or a URL's query: those are
// what a log line, a bug report or a model's context must not receive.

// UnparsableURL is what RedactURL returns for text that does not parse as a URL.
const UnparsableURL = "(unparsable URL)"

// ValueNotShown replaces what ScrubError takes out of a dependency's message.
const ValueNotShown = "(value not shown)"

// DefaultQuoteLen is the length, in runes, Quote cuts values to when max is below 1.
const DefaultQuoteLen = 120

// RedactURL returns raw, a URL as published (absolute or relative), without its
// userinfo, query and fragment, with the credentials Scan finds in what is left
// redacted and control and format characters removed; it is otherwise as written.
// Text that does not parse as a URL gives [UnparsableURL], since no part of it can be
// trusted to be a host or a path.
func RedactURL(raw string) string {
	raw = strings.TrimSpace(raw)
	if _, err := url.Parse(raw); err != nil {
		return UnparsableURL
	}
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i]
	}
	raw = stripUserinfo(raw, "")
	return Redact(dropInvisible(raw))
}

// stripUserinfo removes the userinfo of the URL u ("scheme://user:pass@host/..." or
// "//user@host/..."), replacing it with mark, and returns u unchanged when it has none.
// The opaque form "scheme:user:pass@host" loses what precedes its last '@' too,
// except for mailto: where that is the address.
func stripUserinfo(u, mark string) string {
	rest, prefix := u, ""
	if i := schemeEnd(u); i > 0 {
		prefix, rest = u[:i+1], u[i+1:]
	}
	if after, ok := strings.CutPrefix(rest, "//"); ok {
		prefix, rest = prefix+"//", after
	} else if prefix == "" || strings.EqualFold(prefix, "mailto:") {
		return u // a path, or an address
	}
	host := rest
	if i := strings.IndexByte(host, '/'); i >= 0 {
		host = host[:i]
	}
	at := strings.LastIndexByte(host, '@')
	switch {
	case at < 0:
		return u
	case mark == "":
		return prefix + rest[at+1:]
	}
	return prefix + mark + rest[at:]
}

// schemeEnd returns the index of the ':' that ends u's scheme (RFC 3986 §3.1), or -1.
func schemeEnd(u string) int {
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return i
		default:
			return -1
		}
	}
	return -1
}

// Scrub makes free text from a document, or a message that quotes one, safe to repeat:
// control and format characters (Unicode Cc and Cf, bidi controls, line separators)
// are removed or become spaces; in every URL-like word the userinfo becomes "…@" and
// the query and fragment become "?…" and "#…"; and every credential Scan finds is
// redacted. A word is URL-like when it holds "://", starts with '/', or has a '?'
// or '#' followed by an '='. Words end at blanks, quotes, backticks, angle brackets and
// parentheses. Scrub does not shorten or quote s: see Quote.
func Scrub(s string) string {
	s = dropInvisible(s)
	if strings.ContainsAny(s, "?#@") {
		var b strings.Builder
		for s != "" {
			i := strings.IndexFunc(s, wordEnd)
			if i < 0 {
				i = len(s)
			}
			b.WriteString(scrubWord(s[:i]))
			if i < len(s) {
				_, n := utf8.DecodeRuneInString(s[i:])
				b.WriteString(s[i : i+n])
				i += n
			}
			s = s[i:]
		}
		s = b.String()
	}
	return Redact(s)
}

func wordEnd(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("\"'`<>()", r)
}

// scrubWord strips the userinfo, query values and fragment of one URL-like word. The
// names of query parameters stay ("/search?q=…&page=…": a reader learns how the URL
// is used), unless a name does not look like one.
//
// Punctuation that ends a sentence or a clause after the URL (":" before an error's
// cause, ",", ";", ".", "!") is kept: it is not part of a query value.
func scrubWord(w string) string {
	if t := strings.TrimRight(w, ":;,.!"); len(t) < len(w) && t != "" {
		return scrubWord(t) + w[len(t):]
	}
	q := strings.IndexAny(w, "?#")
	urlish := strings.Contains(w, "://") || strings.HasPrefix(w, "/") || q >= 0 && strings.Contains(w[q:], "=")
	if !urlish {
		if at := strings.LastIndexByte(w, '@'); at > 0 && strings.Contains(w[:at], ":") && !strings.HasPrefix(strings.ToLower(w), "mailto:") {
			return "…" + w[at:] // "user:pass@host", without a scheme
		}
		return w
	}
	tail := ""
	if q >= 0 {
		w, tail = w[:q], QueryNames(w[q:])
	}
	return stripUserinfo(w, "…") + tail
}

// maxQueryNames is how many parameter names QueryNames keeps.
const maxQueryNames = 8

// QueryNames returns the query (and fragment) that starts rest ("?..." or "#...") with
// every value replaced by "…": "?q=…&page=…". A parameter whose name is not a short
// identifier (letters, digits, "_", "-", ".", "[]"), or that has no "=", becomes "…":
// it may be a value itself. A fragment becomes "#…".
func QueryNames(rest string) string {
	if rest == "" {
		return ""
	}
	if rest[0] == '#' {
		return "#…"
	}
	query, frag, hasFrag := strings.Cut(rest[1:], "#")
	var b strings.Builder
	b.WriteByte('?')
	n := 0
	for part := range strings.SplitSeq(query, "&") {
		if part == "" {
			continue
		}
		if n > 0 {
			b.WriteByte('&')
		}
		if n == maxQueryNames {
			b.WriteString("…")
			break
		}
		n++
		name, _, ok := strings.Cut(part, "=")
		if !ok || !paramName(name) {
			b.WriteString("…")
			continue
		}
		b.WriteString(name)
		b.WriteString("=…")
	}
	if n == 0 {
		b.WriteString("…")
	}
	if hasFrag || frag != "" {
		b.WriteString("#…")
	}
	return b.String()
}

// paramName reports a plausible query parameter name.
func paramName(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_-.[]", c) >= 0) {
			return false
		}
	}
	return true
}

// dropInvisible removes control and format characters, turning line breaks and tabs
// into spaces: such characters hide text from a reader, or split a credential so that
// Scan misses it while a terminal still shows it whole.
func dropInvisible(s string) string {
	clean := true
	for _, r := range s {
		if r < ' ' || r >= 0x7f && invisible(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t' || r == '\u2028' || r == '\u2029' || r == '\u0085':
			return ' '
		case invisible(r):
			return -1
		}
		return r
	}, s)
}

// Invisible reports control, format and bidi control characters, line separators and
// the replacement character: what hides text from a reader.
func Invisible(r rune) bool { return invisible(r) }

// invisible reports control, format and bidi control characters.
func invisible(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Bidi_Control, r) ||
		r == '\u2028' || r == '\u2029' || r == utf8.RuneError
}

// Quote returns s, a value taken from a document, as a Go-syntax quoted string to put
// in a warning or an error: Scrub applied, then cut to max runes with a trailing "…"
// (max < 1 means DefaultQuoteLen). Pass a URL through RedactURL first when the whole
// value is a URL, so that an unparsable one is not repeated at all.
func Quote(s string, max int) string {
	if max < 1 {
		max = DefaultQuoteLen
	}
	s = Scrub(s)
	if utf8.RuneCountInString(s) > max {
		n := 0
		for i := range s {
			if n == max-1 {
				s = s[:i] + "…"
				break
			}
			n++
		}
	}
	return strconv.Quote(s)
}

// ScrubError makes a dependency's error message safe to repeat when that message may
// quote document text (YAML and JSON Schema errors do: "cannot decode !!str `…` as a
// !!int", "'…' does not match pattern"). Every quoted span ('…', "…" or `…`) longer
// than one character becomes ValueNotShown, whatever it holds, and the rest goes
// through Scrub. Spans of one character ("did not find expected ',' or ']'") stay:
// they name syntax, not values.
func ScrubError(msg string) string {
	for _, q := range []byte{'`', '"', '\''} {
		var at []int
		for i := 0; i < len(msg); i++ {
			if msg[i] == q {
				at = append(at, i)
			}
		}
		if len(at) == 0 {
			continue
		}
		short := len(at)%2 == 0
		for k := 0; short && k+1 < len(at); k += 2 {
			short = utf8.RuneCountInString(msg[at[k]+1:at[k+1]]) <= 1
		}
		if !short {
			msg = msg[:at[0]] + ValueNotShown + msg[at[len(at)-1]+1:]
		}
	}
	return Scrub(msg)
}
