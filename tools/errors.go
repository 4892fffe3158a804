package tools

import (
	"errors"
	"strings"
)

var (
	// ErrUnknownTool is returned by [Toolset.Call] for a name that is not one of
	// [Toolset.Tools]. The message lists the tools there are.
	ErrUnknownTool = errors.New("tools: unknown tool")

	// ErrInvalidInput is wrapped by every [*InputError]: the input does not match the
	// tool's input schema.
	ErrInvalidInput = errors.New("tools: invalid input")

	// ErrNotConfigured is returned when the Toolset lacks what a tool needs: a nil
	// discovery Client or Catalog given to [New], or the zero Toolset.
	ErrNotConfigured = errors.New("tools: toolset not configured")
)

// InputError reports an input that does not match a tool's input schema. Its message
// names, for each problem, the location in the input and what to send instead, so a
// model can correct its call. Test for it with errors.As, or for [ErrInvalidInput]
// with errors.Is.
type InputError struct {
	Tool     string         // the tool called
	Problems []InputProblem // at least one, sorted by Pointer
}

// InputProblem is one mismatch between an input and a schema.
type InputProblem struct {
	// Pointer is the RFC 6901 JSON pointer of the offending value in the input, such
	// as "/origin"; "" is the input as a whole.
	Pointer string
	// Message says what is wrong and what to send, such as `required property
	// missing: send "origin", a string (...)`.
	Message string
}

// Error implements the error interface. Each problem reads
// "input.origin: required property missing: send ...".
func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString("tools: invalid input for ")
	b.WriteString(e.Tool)
	for i, p := range e.Problems {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(dotted(p.Pointer))
		b.WriteString(": ")
		b.WriteString(p.Message)
	}
	return b.String()
}

// Unwrap returns ErrInvalidInput.
func (e *InputError) Unwrap() error { return ErrInvalidInput }

// dotted turns a JSON pointer into the "input.a.b" form models read easily.
func dotted(pointer string) string {
	if pointer == "" {
		return "input"
	}
	var b strings.Builder
	b.WriteString("input")
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		if simpleName(tok) {
			b.WriteByte('.')
			b.WriteString(tok)
		} else {
			b.WriteString("[" + quote(tok, 64) + "]")
		}
	}
	return b.String()
}

// simpleName reports whether a property name can follow a dot as it is.
func simpleName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
