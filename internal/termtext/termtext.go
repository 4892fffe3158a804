// Package termtext makes text that a site published safe to print on a terminal: no
// control or escape sequence, no bidi or format character, credentials and URL queries
// redacted. The wellknown command and package lint print every published string
// through it.
package termtext

import (
	"strings"

	"github.com/wellknown-dev/discovery/internal/fence"
	"github.com/wellknown-dev/discovery/internal/lazyre"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Clean makes text a site published safe to print on one line of a terminal: control
// and escape sequences, bidi and format characters removed, line breaks folded,
// credentials and URL queries redacted, and the length capped at limit bytes.
func Clean(s string, limit int) string { return fence.Clean(StripEscapes(s), "", limit) }

// CleanText is clean for multi-line text: line breaks are kept, every other control
// character (ESC included) removed, credentials and URL queries redacted.
func CleanText(s string) string {
	// As discovery.Redact, line by line: this package sits below the root package.
	lines := strings.Split(StripEscapes(s), "\n")
	for i, l := range lines {
		lines[i] = secrets.Scrub(strings.TrimSuffix(l, "\r"))
	}
	return strings.Join(lines, "\n")
}

// escapeSequence matches a whole terminal escape sequence, so that removing the ESC
// alone does not leave its text behind ("]8;;https://evil.test" of a hyperlink,
// "[2J" of a screen clear): CSI (ESC [ or U+009B, parameters, final byte), OSC, DCS,
// SOS, PM and APC strings (ESC ] P X ^ _ or their C1 forms, up to BEL or ST, or the
// end of the text when unterminated), and the two-byte ESC sequences.
var escapeSequence = lazyre.New(`(?:\x1b\[|\x{9b})[0-?]*[ -/]*[@-~]?` +
	`|(?:\x1b[\]PX^_]|[\x{9d}\x{90}\x{98}\x{9e}\x{9f}])(?s:.*?)(?:\x07|\x1b\\|\x{9c}|$)` +
	`|\x1b[ -/]*[0-~]?`)

// StripEscapes removes every terminal escape sequence from s (see escapeSequence).
func StripEscapes(s string) string {
	if !strings.ContainsAny(s, "\x1b\u009b\u009d\u0090\u0098\u009e\u009f") {
		return s
	}
	return escapeSequence().ReplaceAllString(s, "")
}
