// Package mcpjson parses and validates /.well-known/mcp.json documents.
//
// Two entry points serve two audiences. [Validate] is for publishers: it checks a
// document strictly against the JSON Schema of its spec version (mcp-discovery
// 2026-04-12 or skill-discovery 2026-06-13) and reports every problem with a JSON
// pointer. [Parse] is for clients: it reads the spec's shape and the shapes sites
// really publish at that path (MCP server cards, docs-site manifests, client
// mcpServers configs, flat single-server cards, pointers...), normalises them into one
// [Document], and records the [Shape] and a warning for everything it had to
// interpret.
//
// Both are pure functions over bytes: no I/O, no logging. The schemas are embedded and
// compiled once; they never load an external $ref. Every string in a Document comes
// from the published file and is untrusted data.
package mcpjson

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wellknown-dev/discovery/diag"
	"github.com/wellknown-dev/discovery/internal/jsonx"
)

// Document is an mcp.json normalised from whatever shape it was published in. It is
// plain data, safe to read concurrently.
type Document struct {
	Shape       Shape  // the shape recognised
	SpecVersion string // "YYYY-MM-DD" (spec shapes), or the version the document states
	Status      string // "draft", "stable" or "experimental" (spec shapes)
	SpecURL     string
	SkillsURL   string // 2026-06-13 only
	Notes       string
	Contact     string   // an email address or URL
	Servers     []Server // MCP servers, in document order
	Tools       []Tool   // plain HTTP services (spec shapes)
	Pointer     string   // where the real document is ($ref, serverCard): set for ShapePointer, and kept beside other shapes
	// ToolNames lists every MCP tool name the document gives, once each, in document
	// order: those of its servers and those listed beside them. It is set even when
	// no server is usable (a card that lists tools but no endpoint). Nil when none.
	ToolNames []string
	Warnings  []Problem
	// Candidates are the URLs the reader considered as MCP endpoints, in the order
	// it judged them, each with its evidence and, when not taken, why (at most 256):
	// the URLs known shapes read, then those the candidate pass scored. They explain
	// Servers; they are not part of the document's JSON form.
	Candidates []Candidate `json:"-"`
}

// Server is an MCP server listed in the document.
type Server struct {
	Name         string
	Description  string
	URL          string    // as published: absolute, or relative to the document (see Resolve); "" when LocalOnly
	Transport    Transport // normalised
	Auth         *Auth     // nil when the document says nothing
	Capabilities []string
	Tools        []string // names of the MCP tools the document says the server offers
	LocalOnly    bool     // a command or package run on the user's machine: never connect remotely
	Command      string   // for LocalOnly: the package or command, for display only
}

// Tool is a plain HTTP service listed in a spec-shaped document (not an MCP server).
type Tool struct {
	Name         string
	Description  string
	URL          string
	Capabilities []string
	Methods      []string // HTTP methods, as published
	ContentTypes []string
	Auth         *Auth
}

// Auth says how to authenticate to a server or tool. It never holds a credential.
type Auth struct {
	Type          string // "none", "api-key", "oauth2", "bearer", or the published word
	TokenEndpoint string
	Scopes        []string
	Header        string // API-key header; "" means Authorization
}

// Describe says how to authenticate, for a person or a model: the scheme, the header an
// API key or token goes in, the OAuth scopes and token endpoint ("api-key in the
// X-Api-Key header", "oauth2, scopes tickets.read, token endpoint https://..."); ""
// for a nil Auth or one without a type. The values are the document's: clean them
// before showing them.
func (a *Auth) Describe() string {
	if a == nil || a.Type == "" {
		return ""
	}
	s := a.Type
	switch {
	case a.Header != "":
		s += " in the " + a.Header + " header"
	case a.Type == "api-key" || a.Type == "bearer":
		s += " in the Authorization header"
	}
	if len(a.Scopes) > 0 {
		s += ", scopes " + strings.Join(a.Scopes, " ")
	}
	if a.TokenEndpoint != "" {
		s += ", token endpoint " + a.TokenEndpoint
	}
	return s
}

// Transport is a normalised MCP transport.
type Transport string

// Transports. Published values map as: "http+sse" and "sse" to TransportSSE;
// "streamable-http", "streamable_http" and "http" to TransportStreamableHTTP; "ws",
// "wss" and "websocket" to TransportWebSocket; "stdio" and "npm" to TransportStdio.
const (
	TransportSSE            Transport = "sse"
	TransportStreamableHTTP Transport = "streamable-http"
	TransportWebSocket      Transport = "websocket"
	TransportStdio          Transport = "stdio"
	TransportUnknown        Transport = ""
)

// Shape is the kind of document found at /.well-known/mcp.json.
type Shape string

// Shapes, checked in this order; the first match wins.
const (
	ShapeSpec         Shape = "spec"             // {"mcp": {"spec_version", "status", ...}}
	ShapeLegacy       Shape = "legacy"           // {"mcp": {"version", "services": [...]}} (2024 page)
	ShapeMCPWrapper   Shape = "mcp-wrapper"      // {"mcp": {"endpoints": {...}}}, a near miss of the spec
	ShapeCard2127     Shape = "server-card-2127" // SEP-2127 server card or MCP Registry server.json: "remotes", "packages"
	ShapeCard1649     Shape = "server-card-1649" // SEP-1649 server card: "serverInfo" and "transport" with a URL
	ShapeInitialize   Shape = "initialize"       // an MCP initialize result: "protocolVersion" and "serverInfo"
	ShapeClientConfig Shape = "client-config"    // {"mcpServers": {id: {...}}}
	ShapeDocsSite     Shape = "docs-site"        // top-level "servers" array (Mintlify and others)
	ShapeServersMap   Shape = "servers-map"      // top-level "servers" object keyed by name
	ShapeSEP1960      Shape = "sep-1960"         // "server_name" and "endpoints" keyed by transport
	ShapeFlat         Shape = "flat"             // one server: "url", "endpoint", "mcp_endpoint", "sse_endpoint"...
	ShapeLocal        Shape = "local"            // a local package or command, no URL
	ShapeNone         Shape = "none"             // says there is no MCP server here: "mcp_available": false, "status": "not_provided", an empty "servers"
	ShapePointer      Shape = "pointer"          // only "$ref" or "serverCard"
	ShapeScored       Shape = "scored"           // no known shape, but URLs whose keys, siblings and paths say MCP (see Parse)
	ShapeUnknown      Shape = "unknown"          // a JSON object of no known shape: no server, and a warning
)

// Relation is where an endpoint lives relative to the discovery origin.
type Relation int

const (
	// RelationSameOrigin: same scheme, host and port (a relative URL is same-origin).
	RelationSameOrigin Relation = iota + 1
	// RelationSubdomain: a host under the origin's host (api.example.com for example.com).
	RelationSubdomain
	// RelationOther: any other origin. Connecting needs the user's consent (the spec: tell the user before contacting another origin, and get explicit consent first).
	RelationOther
	// RelationLocal: a local command; there is nothing to connect to remotely.
	RelationLocal
)

// String returns a readable form of the Relation.
func (r Relation) String() string {
	switch r {
	case RelationSameOrigin:
		return "same-origin"
	case RelationSubdomain:
		return "subdomain"
	case RelationOther:
		return "other-origin"
	case RelationLocal:
		return "local"
	}
	return fmt.Sprintf("Relation(%d)", int(r))
}

// Severity tells how serious a [Problem] is.
type Severity = diag.Severity

// Severities, the module's one Severity type.
const (
	// SeverityError: the document, or the entry at Pointer, does not conform.
	SeverityError = diag.Error
	// SeverityWarning: accepted, with a remark, or an entry skipped while the rest is kept.
	SeverityWarning = diag.Warning
)

// Problem is one finding about a document, located by an RFC 6901 JSON pointer such as
// "/mcp/servers/0/url" ("" is the whole document).
type Problem struct {
	Pointer  string
	Message  string
	Severity Severity
}

// Diagnostic returns p in the module's common shape.
func (p Problem) Diagnostic() diag.Diagnostic {
	return diag.Diagnostic{Severity: p.Severity, Where: p.Pointer, Message: p.Message}
}

// String returns a readable form of the Problem.
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

// Error implements the error interface.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("mcpjson: invalid JSON at line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// ValidationError reports a JSON document that cannot be used: a value that is not an
// object, or a spec-shaped document ({"mcp": {"spec_version" or "status"}}) that
// breaks its schema (the spec treats a document with invalid JSON or missing required
// fields as unsupported). Any other JSON object parses, with zero servers and a
// warning when nothing in it is usable.
type ValidationError struct {
	Problems []Problem // at least one, each with SeverityError
}

// Error implements the error interface.
func (e *ValidationError) Error() string {
	if len(e.Problems) == 1 {
		return "mcpjson: invalid document: " + e.Problems[0].String()
	}
	return fmt.Sprintf("mcpjson: invalid document: %s (and %d more problems)", e.Problems[0], len(e.Problems)-1)
}

// unknownShapeMsg is the warning of a JSON object that matches no known shape.
const unknownShapeMsg = "no known mcp.json shape: no \"mcp\" object, server card, \"mcpServers\", \"servers\" or server URL"

// Options configures [ParseWithOptions]. The zero Options is what [Parse] uses.
type Options struct {
	// URL is the absolute URL the document was fetched from. "" means unknown: then
	// endpoints are judged on their own. When set, an endpoint that is the document
	// itself is skipped, and, if URL's host is public (not loopback, private or a
	// local name), so are endpoints on loopback or private addresses and on the
	// reserved example domains (example.com, .org, .net): in a public document they
	// are development leftovers or placeholders that could only reach the reader's
	// own machine or network. Relative endpoints are still kept as published; see
	// [Resolve].
	URL string
}

// Parse reads an mcp.json document for a client, in any of the shapes of [Shape]. It
// is ParseWithOptions with the zero [Options].
func Parse(data []byte) (*Document, error) {
	return ParseWithOptions(data, Options{})
}

// ParseWithOptions reads an mcp.json document for a client, in any of the shapes of
// [Shape]. It returns a [*SyntaxError] (with line and column) for anything but one
// JSON value (a leading byte order mark, comments and trailing commas, as editors'
// configs have them, are read as if absent, with a warning; Validate rejects them), and a [*ValidationError] for a value that is not an object or a
// spec-shaped document that lacks what the schema requires (unsupported, as the spec
// says). Every other
// JSON object gives a Document: one of an unknown shape, or one that says there is no
// server here, has no server and a warning saying so.
//
// Unknown members are ignored at every level, null counts as absent, and an unknown
// spec_version or status is a warning. Only an https (or loopback http) URL under a
// key that names an MCP endpoint becomes a server. An entry whose URL is unusable
// (javascript:, data:, userinfo, plain http off loopback, a URI template, a
// placeholder, text or a name that is no URL, a relative path on a server the document
// says the reader must host, a REST API base, a chat API, a site's home page (also
// on a static-site host such as x.netlify.app) or, as a card's one URL, the root of any
// host not named for MCP, or a file the document lists among its resources, under a
// key that does not name MCP, a page on a code-hosting site or package registry
// (github.com, npmjs.com...), an entry typed as a page or file or turned off
// ("enabled": false, "disabled": true), and with opts.URL a private address or the
// document itself) is skipped with a warning naming its pointer and why; so is a local
// bridge command ("npx mcp-remote <url>") to such an address. A bridge to a URL the
// document also lists as a remote server is that server, not a local one; a URL under
// a key that does not name MCP beside a transport that names another protocol ("rest",
// "x402-rest", "http-json"), or beside the request body of one HTTP route
// ("request_schema", "requestBody"), is no endpoint; flags under the protocol's
// methods on tools ({"list": true, "call": true}) name no tool. The rest of the
// document is kept.
//
// After the shapes, a candidate pass considers every other URL of a document that is
// not spec-shaped, a pointer, or one that says it has no live MCP server. It scores
// each by the keys it sits under ("mcp_servers", "endpoints", "remote_url"), its
// siblings ("transport", "headers", "auth") and the URL itself (a path segment "mcp" or
// "sse", a host named for MCP); keys that name something else (docs, homepage,
// repository, icons, licence, schemas, pricing, auth servers, examples, packages,
// command arguments, tools) and unusable URLs exclude it. A URL with strong evidence
// becomes a server, with a warning giving the evidence, and a document of no known
// shape then has [ShapeScored]; one with some evidence but not enough is named in a
// warning saying why it was not taken.
// Relative URLs are kept as published, with a warning (see [Resolve]). Local commands
// and packages are kept, marked LocalOnly, and never connected to. Strings that look
// like credentials are reported without their value.
func ParseWithOptions(data []byte, opts Options) (*Document, error) {
	v, err := decode(data)
	var relaxed string
	if se := (*SyntaxError)(nil); errors.As(err, &se) {
		// Hand-written JSON: a byte order mark, comments, trailing commas (as editors'
		// configs have them) are read as if absent, with a warning; a strict decode of
		// what is left must succeed, or the first error stands.
		if std, devs, ok := jsonx.Relax(data); ok {
			if v2, err2 := decode(std); err2 == nil {
				v, err, relaxed = v2, nil, jsonx.Describe(devs)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	d, err := normalize(v, opts)
	if err != nil {
		return nil, err
	}
	if relaxed != "" {
		d.Warnings = append([]Problem{{Severity: SeverityWarning,
			Message: "not strict JSON: " + relaxed + "; read as if absent, as editors read JSON with comments (Validate rejects it: publish plain JSON)"}},
			d.Warnings...)
	}
	d.Warnings = append(d.Warnings, scanSecrets(v, "")...)
	return d, nil
}

// Validate checks data against the published schema of its spec_version exactly as the
// spec's author wrote it (status enum included, formats asserted), plus the checks a
// client makes (usable URLs, no credentials), and returns every problem found, each
// with SeverityError: it is strict, for a site owner before publishing, and anything a
// lenient client would have to interpret (a relative or plain-http server URL, an entry
// it skips, a credential) is an error here. An empty result means the document is
// valid.
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
	s, err := schemaFor(version, true)
	if err != nil {
		return []Problem{{Message: err.Error(), Severity: SeverityError}}
	}
	probs := validate(s, v)
	if m, ok := dig(v, "mcp").(map[string]any); ok {
		r := newReader(Options{})
		r.spec(m)
		probs = append(probs, r.Warnings...)
	}
	probs = append(probs, scanSecrets(v, "")...)
	// What a client reads with a warning (a relative or plain-http URL, an entry it
	// had to skip, a published credential) is, for the publisher, a violation to fix.
	for i := range probs {
		probs[i].Severity = SeverityError
	}
	return probs
}
