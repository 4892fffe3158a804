// Package schemacheck validates decoded JSON against an embedded JSON Schema (draft
// 2020-12) and reports each failure as a JSON pointer and a message that never quotes
// the document's values. It serves the readers whose strict mode checks a document
// against a schema of our own, written from the specification's text.
//
// Schemas are compiled without network access: a $ref to anything but the schema
// itself is refused. Formats ("uri", "date-time"...) are asserted.
package schemacheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	jskind "github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Schema is a compiled schema. It is safe for concurrent use.
type Schema struct{ s *jsonschema.Schema }

// Problem is one schema failure: where (an RFC 6901 JSON pointer, "" for the whole
// document) and what.
type Problem struct {
	Pointer string
	Message string
}

type refuseLoader struct{}

// Load refuses every external schema: the embedded schemas are self-contained.
func (refuseLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("schemacheck: external schema %q refused", u)
}

// Compile compiles raw, a JSON Schema whose $id is id, with format assertions on.
func Compile(raw []byte, id string) (*Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(id)
	if err != nil {
		return nil, err
	}
	return &Schema{s: s}, nil
}

// Decode reads data as exactly one JSON value in the form Validate expects (numbers
// as json.Number). It returns the encoding/json error for anything else.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the top-level value")
	}
	return v, nil
}

var printer = message.NewPrinter(language.English)

// Validate validates v (as Decode returns it) and returns every failure at the
// leaves of the validator's tree, sorted by pointer then message; nil when v is valid.
func (s *Schema) Validate(v any) []Problem {
	err := s.s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Message: secrets.ScrubError(err.Error())}}
	}
	var probs []Problem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			probs = append(probs, Problem{Pointer: Pointer(e.InstanceLocation...), Message: kindMessage(e.ErrorKind)})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	// The validator's order of causes is not stable; sort for reproducible output.
	sort.SliceStable(probs, func(i, j int) bool {
		if probs[i].Pointer != probs[j].Pointer {
			return probs[i].Pointer < probs[j].Pointer
		}
		return probs[i].Message < probs[j].Message
	})
	return probs
}

// kindMessage says what a schema keyword found wrong without the failing value: the
// validator's own messages quote it ("'...' does not match pattern ..."). Messages
// made only of the schema's words and numbers are kept; any other is scrubbed of
// every quoted span.
func kindMessage(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *jskind.Pattern:
		return "value does not match pattern " + schemaQuote(k.Want)
	case *jskind.Format:
		return "value is not a valid " + k.Want
	case *jskind.AdditionalProperties:
		names := make([]string, len(k.Properties))
		for i, p := range k.Properties {
			names[i] = secrets.Quote(p, 0)
		}
		return "additional properties " + strings.Join(names, ", ") + " not allowed"
	case *jskind.PropertyNames:
		return "invalid property name " + secrets.Quote(k.Property, 0)
	case *jskind.Required:
		names := make([]string, len(k.Missing))
		for i, p := range k.Missing {
			names[i] = strconv.Quote(p)
		}
		if len(names) == 1 {
			return "missing required member " + names[0]
		}
		return "missing required members " + strings.Join(names, ", ")
	case *jskind.Type, *jskind.Enum, *jskind.Const, *jskind.Dependency, *jskind.DependentRequired,
		*jskind.MinProperties, *jskind.MaxProperties, *jskind.MinItems, *jskind.MaxItems, *jskind.AdditionalItems,
		*jskind.MinLength, *jskind.MaxLength, *jskind.UniqueItems, *jskind.Minimum, *jskind.Maximum,
		*jskind.ExclusiveMinimum, *jskind.ExclusiveMaximum, *jskind.MultipleOf, *jskind.FalseSchema,
		*jskind.OneOf, *jskind.AnyOf, *jskind.Not:
		return k.LocalizedString(printer) // the schema's names and values, and numbers
	}
	return secrets.ScrubError(k.LocalizedString(printer))
}

// schemaQuote quotes a string from the schema the way the validator does: '...'.
func schemaQuote(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
	return "'" + strings.ReplaceAll(q, "'", `\'`) + "'"
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// Pointer builds an RFC 6901 JSON pointer from reference tokens. Object keys are
// document text: a key holding a credential, a URL's userinfo or a query is scrubbed
// (secrets.Scrub) so the pointer names the member without repeating the secret.
func Pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(pointerEscaper.Replace(secrets.Scrub(t)))
	}
	return b.String()
}
