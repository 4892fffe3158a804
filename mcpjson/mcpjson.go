// Package mcpjson parses and validates /.well-known/mcp.json documents (mcp-discovery
// 2026-04-12 and skill-discovery 2026-06-13).
//
// Parse and Validate are pure functions over bytes: no I/O, no logging. The JSON
// Schemas of both spec versions are embedded and compiled once; they never load an
// external $ref. Every string in a Document comes from the published file and is
// untrusted data.
package mcpjson

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Document is a parsed mcp.json. It is plain data, safe to read concurrently.
type Document struct {
	SpecVersion string // "YYYY-MM-DD"
	Status      string // "draft", "stable" or "experimental"
	SpecURL     string
	SkillsURL   string // 2026-06-13 only
	Notes       string
	Contact     string // an email address or URL
	Servers     []Server
	Tools       []Tool
	Warnings    []Problem // what was accepted with a remark, or skipped
}

// Server is an MCP server listed in the document.
type Server struct {
	Name         string
	Description  string
	URL          string // absolute, https (or http on a loopback host), no userinfo
	Transport    string // "http+sse" when the document leaves it out
	Auth         *Auth  // nil when the document leaves it out
	Capabilities []string
}

// Tool is a plain HTTP service listed in the document (not an MCP server).
type Tool struct {
	Name         string
	Description  string
	URL          string // absolute, https (or http on a loopback host), no userinfo
	Capabilities []string
	Methods      []string // HTTP methods, as published
	ContentTypes []string
	Auth         *Auth
}

// Auth says how to authenticate to a server or tool. It never holds a credential.
type Auth struct {
	Type          string // "none", "api-key", "oauth2" or "bearer"
	TokenEndpoint string
	Scopes        []string
	Header        string // API-key header; "" means Authorization
}

// Severity tells how serious a [Problem] is.
type Severity int

const (
	// SeverityError: the document, or the entry at Pointer, does not conform.
	SeverityError Severity = iota + 1
	// SeverityWarning: accepted, with a remark.
	SeverityWarning
)

func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// Problem is one finding about a document, located by an RFC 6901 JSON pointer such as
// "/mcp/servers/0/url" ("" is the whole document).
type Problem struct {
	Pointer  string
	Message  string
	Severity Severity
}

func (p Problem) String() string {
	ptr := p.Pointer
	if ptr == "" {
		ptr = "(document)"
	}
	return fmt.Sprintf("%s: %s: %s", ptr, p.Severity, p.Message)
}

// SyntaxError reports a document that is not one well-formed JSON value.
type SyntaxError struct {
	Offset int // byte offset
	Line   int // 1-based
	Column int // 1-based, in bytes
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("mcpjson: invalid JSON at line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// ValidationError reports a document that is JSON but does not follow the schema.
type ValidationError struct {
	Problems []Problem // at least one, each with SeverityError
}

func (e *ValidationError) Error() string {
	if len(e.Problems) == 1 {
		return "mcpjson: invalid document: " + e.Problems[0].String()
	}
	return fmt.Sprintf("mcpjson: invalid document: %s (and %d more problems)", e.Problems[0], len(e.Problems)-1)
}

// Known spec_version values. The 2026-04-12 spec still shows 2026-01-24 in its examples.
var knownVersions = map[string]bool{"2026-01-24": true, "2026-04-12": true, "2026-06-13": true}

// splitVersion is the first spec_version validated against the 2026-06-13 schema.
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

func (refuseLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("mcpjson: external schema %q refused", u)
}

// compile compiles an embedded schema with format assertions. lenient drops the status
// enum (an unknown status is then a warning made in code, not a schema failure).
func compile(raw []byte, lenient bool) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	if lenient {
		if status, ok := dig(doc, "properties", "mcp", "properties", "status").(map[string]any); ok {
			delete(status, "enum")
		}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	c.AssertFormat()
	if err := c.AddResource(schemaID, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaID)
}

var (
	lenient20260412 = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(schema20260412, true) })
	lenient20260613 = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(schema20260613, true) })
	strict20260412  = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(schema20260412, false) })
	strict20260613  = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(schema20260613, false) })
)

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

// Parse parses and validates an mcp.json document for a client. It returns a
// [*SyntaxError] for anything but one JSON value, and a [*ValidationError] when the
// document does not follow the schema of its spec_version. Unknown members are
// ignored, null counts as absent, and an unknown spec_version or status is a warning.
// A server or tool whose URL is not an absolute https URL (http only on a loopback
// host) without userinfo is skipped with a warning; the rest of the document is kept.
func Parse(data []byte) (*Document, error) {
	v, err := decode(data)
	if err != nil {
		return nil, err
	}
	version, _ := dig(v, "mcp", "spec_version").(string)
	s, err := schemaFor(version, lenient20260412, lenient20260613)
	if err != nil {
		return nil, err
	}
	if probs := validate(s, v); len(probs) > 0 {
		return nil, &ValidationError{Problems: probs}
	}
	return build(v.(map[string]any)["mcp"].(map[string]any)), nil
}

// Validate checks data against the published schema of its spec_version, exactly as
// written by the spec's author (status enum included, formats asserted), and returns
// every problem found; none means the document is valid. It is what a publisher runs
// before serving the file.
func Validate(data []byte) []Problem {
	v, err := decode(data)
	if err != nil {
		var se *SyntaxError
		var ve *ValidationError
		switch {
		case errors.As(err, &se):
			return []Problem{{Message: se.Error(), Severity: SeverityError}}
		case errors.As(err, &ve):
			return ve.Problems
		}
		return []Problem{{Message: err.Error(), Severity: SeverityError}}
	}
	version, _ := dig(v, "mcp", "spec_version").(string)
	s, err := schemaFor(version, strict20260412, strict20260613)
	if err != nil {
		return []Problem{{Message: err.Error(), Severity: SeverityError}}
	}
	probs := validate(s, v)
	if len(probs) == 0 {
		probs = build(v.(map[string]any)["mcp"].(map[string]any)).Warnings
	}
	return probs
}

func schemaFor(version string, older, newer func() (*jsonschema.Schema, error)) (*jsonschema.Schema, error) {
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

// decode reads exactly one JSON value, numbers as json.Number, and requires an object.
// Members whose value is null are removed (MD-C-1: null counts as absent).
func decode(data []byte) (any, error) {
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
		msg := se.Error()
		if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) && off == 0 {
			msg = "document starts with a UTF-8 byte order mark, which JSON does not allow"
		}
		return newSyntaxError(data, off, msg)
	case errors.Is(err, io.EOF) && len(bytes.TrimSpace(data)) == 0:
		return newSyntaxError(data, len(data), "empty document")
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return newSyntaxError(data, len(data), "unexpected end of input")
	}
	return newSyntaxError(data, int(dec.InputOffset()), err.Error())
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
			probs = append(probs, Problem{Pointer: pointer(e.InstanceLocation), Message: e.ErrorKind.LocalizedString(printer), Severity: SeverityError})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return probs
}

// pointer builds an RFC 6901 JSON pointer.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}

// build maps a validated mcp object onto a Document, skipping bad entries with warnings.
func build(m map[string]any) *Document {
	d := &Document{
		SpecVersion: str(m, "spec_version"),
		Status:      str(m, "status"),
		SpecURL:     str(m, "spec_url"),
		SkillsURL:   str(m, "skills_url"),
		Notes:       str(m, "notes"),
		Contact:     str(m, "contact"),
	}
	if !knownVersions[d.SpecVersion] {
		d.warn("/mcp/spec_version", fmt.Sprintf("unknown spec_version %q; processed as the newest known version", d.SpecVersion))
	}
	switch d.Status {
	case "draft", "stable", "experimental":
	default:
		d.warn("/mcp/status", fmt.Sprintf("unknown status %q; treated as not stable", d.Status))
	}
	servers, _ := m["servers"].([]any)
	seen := map[string]bool{}
	for i, e := range servers {
		ptr := fmt.Sprintf("/mcp/servers/%d", i)
		o, ok := e.(map[string]any)
		if !ok {
			d.warn(ptr, fmt.Sprintf("server entry is a JSON %s, not an object; skipped", kind(e)))
			continue
		}
		s := Server{Name: str(o, "name"), Description: str(o, "description"), URL: str(o, "url"),
			Transport: str(o, "transport"), Auth: auth(o["auth"]), Capabilities: strs(o["capabilities"])}
		if s.Transport == "" {
			s.Transport = "http+sse"
		}
		if !d.entryOK(ptr, s.Name, s.URL, s.Transport == "stdio") {
			continue
		}
		if seen[s.Name] {
			d.warn(ptr+"/name", fmt.Sprintf("duplicate server name %q; the first entry is kept", s.Name))
			continue
		}
		seen[s.Name] = true
		d.Servers = append(d.Servers, s)
	}
	tools, _ := m["tools"].([]any)
	for i, e := range tools {
		ptr := fmt.Sprintf("/mcp/tools/%d", i)
		o, ok := e.(map[string]any)
		if !ok {
			d.warn(ptr, fmt.Sprintf("tool entry is a JSON %s, not an object; skipped", kind(e)))
			continue
		}
		t := Tool{Name: str(o, "name"), Description: str(o, "description"), URL: str(o, "url"),
			Capabilities: strs(o["capabilities"]), Methods: strs(o["methods"]),
			ContentTypes: strs(o["content_types"]), Auth: auth(o["auth"])}
		if !d.entryOK(ptr, t.Name, t.URL, false) {
			continue
		}
		d.Tools = append(d.Tools, t)
	}
	return d
}

func (d *Document) warn(ptr, msg string) {
	d.Warnings = append(d.Warnings, Problem{Pointer: ptr, Message: msg, Severity: SeverityWarning})
}

// entryOK checks the name and URL of a server or tool and warns when it skips one.
func (d *Document) entryOK(ptr, name, rawURL string, local bool) bool {
	if name == "" {
		d.warn(ptr+"/name", "entry has no name; skipped")
		return false
	}
	if rawURL == "" {
		d.warn(ptr+"/url", "entry has no url; skipped")
		return false
	}
	if local {
		return true // a stdio server names a local command, never a remote endpoint
	}
	if why := CheckURL(rawURL); why != "" {
		d.warn(ptr+"/url", why+"; entry skipped")
		return false
	}
	return true
}

// CheckURL says why rawURL is not a usable endpoint, or returns "". A usable endpoint
// is an absolute https URL, or http on a loopback host, with no userinfo.
func CheckURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "url does not parse"
	}
	if u.User != nil {
		return "url carries userinfo (credentials in the URL)"
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		h := u.Hostname()
		if a, err := netip.ParseAddr(h); !(h == "localhost" || err == nil && a.Unmap().IsLoopback()) {
			return "url uses plain http on a non-loopback host"
		}
	case "":
		return "url is relative"
	default:
		return fmt.Sprintf("url scheme %q is not allowed", u.Scheme)
	}
	if u.Host == "" {
		return "url has no host"
	}
	return ""
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func strs(v any) []string {
	a, _ := v.([]any)
	var out []string
	for _, e := range a {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func auth(v any) *Auth {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	return &Auth{Type: str(m, "type"), TokenEndpoint: str(m, "token_endpoint"), Scopes: strs(m["scopes"]), Header: str(m, "header")}
}
