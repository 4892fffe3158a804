// Package diag is the one shape of the diagnostics this module reports. Each package
// keeps the type that suits its input (skillsmd.Warning has a line, mcpjson.Problem a
// JSON pointer, agentskills.Diagnostic a path or pointer, discovery.Warning a URL), and
// each converts to a [Diagnostic] with its Diagnostic method, so that a host (a linter,
// a UI, a log) handles them all alike. The severities are one type, [Severity], which
// mcpjson.Severity and agentskills.Severity are aliases of.
package diag

import "fmt"

// Severity says how bad a diagnostic is. The zero value is not a valid severity.
type Severity int

const (
	// Error: the document, entry or file does not conform; what it concerns was not
	// used (or, for a publisher's check, must be fixed).
	Error Severity = iota + 1
	// Warning: accepted, with a remark, or an entry skipped while the rest was kept.
	Warning
	// Info: no problem; what a reader saw and decided (a candidate it did not take,
	// and why), shown when a publisher asks for explanations. It never makes a check
	// fail.
	Info
)

// String returns "error", "warning" or "info".
func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Info:
		return "info"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// MarshalText encodes the severity as its String.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Diagnostic is a diagnostic in the common shape.
type Diagnostic struct {
	Severity Severity
	Code     string // stable identifier, such as "unsafe-link"; "" when the source has none
	Source   string // the document: a URL, a file path, or "" when unknown
	Where    string // inside it: a JSON pointer ("/servers/0/url"), a path, or "" for the whole
	Line     int    // 1-based line, when known; 0 otherwise
	Message  string // what happened and what to do; never quotes a credential
}

// String returns "source:line: where: severity: code: message", leaving out the
// parts that are empty.
func (d Diagnostic) String() string {
	loc := d.Source
	if d.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, d.Line)
	}
	s := ""
	if loc != "" {
		s = loc + ": "
	}
	if d.Where != "" {
		s += d.Where + ": "
	}
	s += d.Severity.String() + ": "
	if d.Code != "" {
		s += d.Code + ": "
	}
	return s + d.Message
}
