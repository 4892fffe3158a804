// Package jsonx reads JSON as sites write it by hand. Documents published for agents
// are often copied from editor configurations (VS Code's mcp.json is JSON with comments
// and trailing commas) or saved by editors that start a file with a byte order mark.
// None of that is JSON (RFC 8259), and a strict reader stops at the first byte of it;
// a careful human reader does not. [Relax] turns such a document into standard JSON
// without moving a byte, so every later line and column still points into the
// document as published, and says what it removed so the reader can warn.
//
// Relax is meant for lenient readers only, after a strict decode failed: strict
// validation keeps rejecting these documents.
package jsonx

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// MaxDepth bounds the nesting Relax accepts: hujson parses recursively, and a
// document nested deeper than any real one is left to the strict reader's error.
const MaxDepth = 1000

// Kind names one way a document departs from standard JSON.
type Kind string

// The deviations Relax removes.
const (
	BOM           Kind = "byte order mark"
	Comment       Kind = "comment"
	TrailingComma Kind = "trailing comma"
)

// Deviation is one kind of departure from standard JSON in a document: where it is
// first seen (1-based line and column, counted in bytes) and how often.
type Deviation struct {
	Kind   Kind
	Offset int // byte offset of the first occurrence
	Line   int
	Column int
	Count  int
}

// String describes the deviation for a warning, e.g. "2 comments (the first at line 3,
// column 5)".
func (d Deviation) String() string {
	what := string(d.Kind)
	if d.Count != 1 {
		what = fmt.Sprintf("%d %ss", d.Count, d.Kind)
	}
	if d.Kind == BOM {
		return "a UTF-8 byte order mark at the start"
	}
	first := "at"
	if d.Count != 1 {
		first = "the first at"
	}
	if d.Count == 1 {
		what = "a " + what
	}
	return fmt.Sprintf("%s (%s line %d, column %d)", what, first, d.Line, d.Column)
}

// Describe joins the deviations for one warning: "a comment (at line 2, column 3) and
// 2 trailing commas (the first at line 5, column 9)".
func Describe(devs []Deviation) string {
	parts := make([]string, len(devs))
	for i, d := range devs {
		parts[i] = d.String()
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// Relax returns data as standard JSON when its only departures from RFC 8259 are a
// leading UTF-8 byte order mark, comments (// and /* */) and trailing commas, each
// replaced by spaces so offsets, lines and columns are those of data; devs lists what
// was replaced, in the order of [Kind] above. ok is false, and data is returned as is,
// when data is standard JSON already, has any other syntax error, or nests deeper than
// [MaxDepth]. data is never modified.
func Relax(data []byte) (out []byte, devs []Deviation, ok bool) {
	body := data
	var bom bool
	if bytes.HasPrefix(body, []byte("\xef\xbb\xbf")) {
		bom = true
		body = append([]byte("   "), body[3:]...)
	}
	if depth(body) > MaxDepth {
		return data, nil, false
	}
	std, err := hujson.Standardize(bytes.Clone(body))
	if err != nil {
		return data, nil, false
	}
	if bom {
		devs = append(devs, Deviation{Kind: BOM, Line: 1, Column: 1, Count: 1})
	}
	// hujson accepted body, so a small lexer finds what it replaced: outside strings,
	// a '/' starts a comment, and a comma Standardize blanked was a trailing one.
	comment, comma := Deviation{Kind: Comment}, Deviation{Kind: TrailingComma}
	note := func(d *Deviation, off int) {
		if d.Count == 0 {
			d.Offset = off
			d.Line, d.Column = position(data, off)
		}
		d.Count++
	}
	for i, in := 0, false; i < len(body); i++ {
		switch c := body[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in:
		case c == '/' && i+1 < len(body) && body[i+1] == '*':
			note(&comment, i)
			end := bytes.Index(body[i+2:], []byte("*/"))
			i += 2 + end + 1 // hujson checked the comment is closed
		case c == '/':
			note(&comment, i)
			for i < len(body) && body[i] != '\n' {
				i++
			}
		case c == ',' && std[i] != ',':
			note(&comma, i)
		}
	}
	for _, d := range []Deviation{comment, comma} {
		if d.Count > 0 {
			devs = append(devs, d)
		}
	}
	if len(devs) == 0 {
		return data, nil, false // standard JSON already: nothing to relax
	}
	return std, devs, true
}

// depth returns the deepest nesting of brackets and braces in data outside strings
// and comments. Comments are skipped as hujson reads them: a quote inside one must not
// start a string here, or the brackets after it would go uncounted and hujson would
// recurse as deep as the document is long.
func depth(data []byte) int {
	d, most := 0, 0
	in := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in:
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return most // unclosed: hujson refuses it
			}
			i += 2 + end + 1
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case c == '[' || c == '{':
			d++
			most = max(most, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return most
}

// position returns the 1-based line and byte column of off in data.
func position(data []byte, off int) (line, col int) {
	line = 1 + bytes.Count(data[:off], []byte{'\n'})
	col = off + 1
	if i := bytes.LastIndexByte(data[:off], '\n'); i >= 0 {
		col = off - i
	}
	return line, col
}
