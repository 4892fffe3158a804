package mcpjson

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	jskind "github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Known spec_version values. The 2026-04-12 spec still shows 2026-01-24 in its examples.
var knownVersions = map[string]bool{"2026-01-24": true, "2026-04-12": true, "2026-06-13": true}

// splitVersion is the first spec_version validated against the 2026-06-13 schema;
// unknown future dates use the newest schema.
const splitVersion = "2026-06-13"

var (
	//go:embed schema-2026-04-12.json
	schema20260412 []byte
	//go:embed schema-2026-06-13.json
	schema20260613 []byte
)

// schemaID is the $id of both published schemas; each gets its own compiler.
const schemaID = "https://colinknapp.com/specs/mcp-discovery.schema.json"

type refuseLoader struct{}

// Load implements the loader interface.
func (refuseLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("mcpjson: external schema %q refused", u)
}

// compile compiles an embedded schema. strict is the author's schema with format
// assertions. Otherwise (for Parse) the status enum is dropped and formats are not
// asserted: an unknown status is a warning, and URLs are checked in code, where a
// relative URL is kept with a warning rather than failing the document. The lenient
// schema also drops the item schemas of "servers" and "tools": Parse checks each entry
// in code and skips a bad one (specChecked ignores every problem under
// /mcp/servers/N and /mcp/tools/N), so validating items there was wasted work, a third
// of Parse's time. That both arrays must be arrays is still checked.
func compile(raw []byte, strict bool) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if strict {
		c.AssertFormat()
	} else {
		if status, ok := dig(doc, "properties", "mcp", "properties", "status").(map[string]any); ok {
			delete(status, "enum")
		}
		for _, list := range []string{"servers", "tools"} {
			if a, ok := dig(doc, "properties", "mcp", "properties", list).(map[string]any); ok {
				delete(a, "items")
			}
		}
	}
	if err := c.AddResource(schemaID, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaID)
}

var (
	lenient20260412 = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(schema20260412, false) })
	lenient20260613 = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(schema20260613, false) })
	strict20260412  = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(schema20260412, true) })
	strict20260613  = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(schema20260613, true) })
)

func schemaFor(version string, strict bool) (*jsonschema.Schema, error) {
	older, newer := lenient20260412, lenient20260613
	if strict {
		older, newer = strict20260412, strict20260613
	}
	get := newer
	if version != "" && version < splitVersion {
		get = older
	}
	s, err := get()
	if err != nil {
		return nil, fmt.Errorf("mcpjson: embedded schema does not compile: %w", err)
	}
	return s, nil
}

// dig follows object keys through a decoded JSON value.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// decode reads exactly one JSON value, numbers as json.Number, and requires an object.
// Members whose value is null are removed (null counts as absent, as an omitted optional field).
func decode(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, syntaxError(data, dec, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		off := int(dec.InputOffset())
		return nil, newSyntaxError(data, skipSpace(data, off), "unexpected data after the top-level value")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, &ValidationError{Problems: []Problem{{Message: fmt.Sprintf("document is a JSON %s, not an object", kind(v)), Severity: SeverityError}}}
	}
	dropNulls(obj)
	return obj, nil
}

func skipSpace(data []byte, off int) int {
	for off < len(data) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
		off++
	}
	return off
}

func syntaxError(data []byte, dec *json.Decoder, err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		off := int(se.Offset)
		if off > 0 {
			off-- // Offset is just past the offending byte
		}
		msg := strings.TrimPrefix(se.Error(), "json: ")
		switch {
		case bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) && off == 0:
			msg = "document starts with a UTF-8 byte order mark, which JSON does not allow"
		case looksLikeHTML(data):
			msg = "document is an HTML page, not JSON"
		case off < len(data) && data[off] == '/':
			msg = "a comment ('/'); JSON has no comments"
		case off < len(data) && (data[off] == '}' || data[off] == ']') && trailingComma(data, off):
			msg = "trailing comma before '" + string(data[off]) + "' (JSON does not allow it)"
		}
		return newSyntaxError(data, off, msg)
	case errors.Is(err, io.EOF) && len(bytes.TrimSpace(data)) == 0:
		return newSyntaxError(data, len(data), "empty document")
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return newSyntaxError(data, len(data), "unexpected end of input")
	}
	return newSyntaxError(data, int(dec.InputOffset()), secrets.ScrubError(err.Error()))
}

// trailingComma reports whether the last non-blank byte before off is a comma.
func trailingComma(data []byte, off int) bool {
	b := bytes.TrimRight(data[:off], " \t\r\n")
	return len(b) > 0 && b[len(b)-1] == ','
}

func looksLikeHTML(data []byte) bool {
	l := bytes.ToLower(bytes.TrimSpace(data[:min(len(data), 64)]))
	return bytes.HasPrefix(l, []byte("<!doctype")) || bytes.HasPrefix(l, []byte("<html"))
}

func newSyntaxError(data []byte, off int, msg string) *SyntaxError {
	off = min(max(off, 0), len(data))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return &SyntaxError{Offset: off, Line: line, Column: col, Msg: msg}
}

func kind(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "object"
}

func dropNulls(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if e == nil {
				delete(t, k)
				continue
			}
			dropNulls(e)
		}
	case []any:
		for _, e := range t {
			dropNulls(e)
		}
	}
}

var printer = message.NewPrinter(language.English)

// validate runs the schema and converts its errors into problems at the leaves.
func validate(s *jsonschema.Schema, v any) []Problem {
	err := s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Message: err.Error(), Severity: SeverityError}}
	}
	var probs []Problem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			probs = append(probs, Problem{Pointer: pointer(e.InstanceLocation), Message: schemaMessage(e.ErrorKind), Severity: SeverityError})
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

// schemaMessage says what a schema keyword found wrong, without the failing value:
// the validator's own messages quote it ("'ghp_...' does not match pattern ...", "'...'
// is not valid uri"). Kinds whose messages hold only the schema's words and numbers keep
// them; keys the document wrote are quoted through quote; any other message is
// scrubbed of every quoted span.
func schemaMessage(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *jskind.Pattern:
		return "value does not match pattern " + schemaQuote(k.Want)
	case *jskind.Format:
		msg := "value is not a valid " + k.Want
		if k.Err != nil {
			msg += ": " + secrets.ScrubError(k.Err.Error())
		}
		return msg
	case *jskind.AdditionalProperties:
		names := make([]string, len(k.Properties))
		for i, p := range k.Properties {
			names[i] = quote(p)
		}
		return "additional properties " + strings.Join(names, ", ") + " not allowed"
	case *jskind.PropertyNames:
		return "invalid property name " + quote(k.Property)
	case *jskind.Type, *jskind.Enum, *jskind.Const, *jskind.Required, *jskind.Dependency, *jskind.DependentRequired,
		*jskind.MinProperties, *jskind.MaxProperties, *jskind.MinItems, *jskind.MaxItems, *jskind.AdditionalItems,
		*jskind.MinLength, *jskind.MaxLength, *jskind.UniqueItems, *jskind.Minimum, *jskind.Maximum,
		*jskind.ExclusiveMinimum, *jskind.ExclusiveMaximum, *jskind.MultipleOf, *jskind.FalseSchema:
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

// pointer builds an RFC 6901 JSON pointer.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(pointerToken(t))
	}
	return b.String()
}

// pointerToken escapes an object key for a JSON pointer. Keys are document text: a key
// that holds a credential, a URL's userinfo or a query is scrubbed (secrets.Scrub), so
// such a pointer names the member without repeating the secret. Other keys, nearly
// all of them, are only escaped.
func pointerToken(k string) string {
	return pointerEscaper.Replace(secrets.Scrub(k))
}
