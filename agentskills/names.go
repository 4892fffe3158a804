package agentskills

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxNameLen, MaxDescriptionLen and MaxCompatibilityLen are the specification's limits,
// counted in characters (runes), not bytes.
const (
	MaxNameLen          = 64
	MaxDescriptionLen   = 1024
	MaxCompatibilityLen = 500
)

// NameProblems returns what is wrong with a skill name, or nil.
//
// The specification's text says "unicode lowercase alphanumeric" but lists a-z and 0-9.
// We follow its reference validator: the name is NFKC-normalised, then every character
// must be a lowercase (or caseless) letter, a decimal digit or a hyphen. Names like
// "données" or "数据" are therefore valid, while "Raydium" and "android_ui" are not.
// asciiOnly applies the stricter rule of the well-known index RFC (a-z, 0-9, '-'), where
// names also appear in URLs. Lengths count characters.
//
// A name must not hold compatibility characters: "ﬁle-tools" (a ligature), "ｐｄｆ"
// (fullwidth) or "𝚍𝚎𝚙𝚕𝚘𝚢" normalise (NFKC) to another skill's name, which they would pass
// for in front of people and models while every exact comparison (an installed
// folder, a local skill, a catalog entry) keeps them apart.
func NameProblems(name string, asciiOnly bool) []string {
	var out []string
	n := norm.NFKC.String(name)
	switch l := utf8.RuneCountInString(n); {
	case l == 0:
		return []string{"name is empty"}
	case l > MaxNameLen:
		out = append(out, fmt.Sprintf("name is %d characters, over %d", l, MaxNameLen))
	}
	if norm.NFC.String(name) != n {
		// A compatibility character, not a canonical variant: an NFD "données" is the
		// same text as an NFC one (file systems write either), a ligature is not.
		out = append(out, fmt.Sprintf("name %s has compatibility characters (it reads as %s)", quote(name), quote(n)))
	}
	if asciiOnly {
		n = name // the characters as written: the RFC's rule admits no other
	}
	for _, r := range n {
		ok := r == '-' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
		if !ok && !asciiOnly {
			ok = unicode.IsDigit(r) || unicode.IsLetter(r) && !unicode.IsUpper(r) && !unicode.IsTitle(r)
		}
		if !ok {
			what := "ASCII lowercase letters, digits and hyphens"
			if !asciiOnly {
				what = "lowercase letters, digits and hyphens"
			}
			out = append(out, fmt.Sprintf("name %s has %q; only %s are allowed", quote(name), r, what))
			break
		}
	}
	if strings.HasPrefix(n, "-") || strings.HasSuffix(n, "-") {
		out = append(out, "name starts or ends with a hyphen")
	}
	if strings.Contains(n, "--") {
		out = append(out, "name has consecutive hyphens")
	}
	return out
}

// sameName compares a name with a folder name after NFKC normalisation.
func sameName(name, dir string) bool { return norm.NFKC.String(name) == norm.NFKC.String(dir) }
