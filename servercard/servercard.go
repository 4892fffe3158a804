package servercard

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/wellknown-dev/discovery/diag"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Identifiers of the MCP Server Card extension.
const (
	// MediaType is the media type of a Server Card: send it in Accept when fetching
	// one, and find cards in an AI Catalog by it.
	MediaType = "application/mcp-server-card+json"
	// SchemaURL is the $schema of a v1 Server Card. It is an identifier, compared as a
	// string, never downloaded.
	SchemaURL = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
	// PathSuffix is what MCP reserves after a server's streamable-HTTP URL for its
	// card: https://host/mcp has its card at https://host/mcp/server-card. A card may
	// be hosted anywhere; an AI Catalog entry gives its URL.
	PathSuffix = "/server-card"
	// MaxDescription is the longest description, in characters, a card may have.
	MaxDescription = 100
)

// URLFor returns the recommended location of the card of the MCP server whose
// streamable-HTTP endpoint is endpoint: endpoint with [PathSuffix] appended to its path
// (query and fragment dropped). endpoint must be an absolute http or https URL.
func URLFor(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("servercard: endpoint %s is not an absolute http(s) URL", secrets.Quote(secrets.RedactURL(endpoint), 0))
	}
	u.RawQuery, u.Fragment, u.RawFragment, u.User = "", "", "", nil
	u.Path = strings.TrimSuffix(u.Path, "/") + PathSuffix
	u.RawPath = ""
	return u.String(), nil
}

// Mode selects how strictly a card is checked.
type Mode int

const (
	// Lenient reads what it can and records a diagnostic for every deviation, for
	// clients. It is the zero value.
	Lenient Mode = iota
	// Strict checks the card against the extension's definitions (a JSON Schema
	// written from them, and the rules a schema cannot state) and fails with a
	// [*ValidationError] on any deviation, for publishers and linters.
	Strict
)

// Card is a parsed MCP Server Card. It is plain data, safe to read concurrently. A
// card is advisory: every string in it was published by the server's operator,
// untrusted, to show as such; nothing in it is a basis for a security or access
// decision, and once connected the server's own answers win (see [Compare]).
type Card struct {
	Schema      string // $schema as published ("" when absent)
	Name        string // reverse-DNS "namespace/name", e.g. "com.example/weather"
	Version     string
	Description string // as published, even over MaxDescription characters (a diagnostic says so)
	Title       string
	WebsiteURL  string // https (or loopback http); "" when absent or unusable
	Repository  *Repository
	Icons       []Icon
	Remotes     []Remote // in document order; unusable ones are left out, each with an Error diagnostic
	// PostInstallInstructions is text for a person, shown after setting the server
	// up. It is display-only: never instructions for an agent, never executed.
	PostInstallInstructions string
	Meta                    json.RawMessage // the "_meta" object, verbatim; nil when absent
	Diagnostics             []Diagnostic
	// Digest is the digest ("sha256:<hex>") of the card's bytes as served, what a
	// catalog entry's Trust Manifest signs. Parse leaves it ""; the discovery Client
	// sets it on the cards it fetches.
	Digest string
}

// Repository says where the server's source code is.
type Repository struct {
	URL       string
	Source    string // e.g. "github"
	Subfolder string
	ID        string
}

// Icon is an icon to display for the server. Src is an https URL or a data: URI;
// show SVG only with the precautions it needs (it can hold scripts).
type Icon struct {
	Src      string
	MimeType string
	Sizes    []string
	Theme    string // "light", "dark" or ""
}

// Transport is the transport of a remote endpoint.
type Transport string

// Transports a card may name.
const (
	TransportStreamableHTTP Transport = "streamable-http"
	TransportSSE            Transport = "sse"
)

// Remote is one HTTP endpoint of the server. Its URL may be a template
// ("https://{tenant}.example.com/mcp", "{base}/mcp"): such a remote is not
// connectable until [Remote.Expand] fills it.
type Remote struct {
	Pointer   string           // where it is in the card, e.g. "/remotes/0"
	Type      Transport        // TransportStreamableHTTP or TransportSSE
	URL       string           // as published: a URL, or a template with {variables}
	URLVars   []string         // the variables of URL, in order of appearance; nil when URL is no template
	Variables map[string]Input // the declared variables, by name; nil when none (a variable of URL may be undeclared: a diagnostic says so)
	Headers   []Header
	// SupportedProtocolVersions lists the MCP protocol versions the endpoint
	// supports; nil when the card does not say.
	SupportedProtocolVersions []string
}

// Templated reports whether URL is a template with variables to fill.
func (r Remote) Templated() bool { return len(r.URLVars) > 0 }

// Connectable reports whether URL can be connected to as published: it is no
// template. (Its host still has to pass the caller's connection policy.)
func (r Remote) Connectable() bool { return !r.Templated() && r.URL != "" }

// Input describes a value a user supplies, or the card presets, for a URL variable
// or a header.
type Input struct {
	Description string
	IsRequired  bool
	IsSecret    bool   // handle the value as a secret: do not log or display it
	Format      string // "string", "number", "boolean", "filepath" or ""
	Default     string
	Placeholder string
	Value       string // a preset value; may hold {variables}
	Choices     []string
}

// Header is an HTTP header to send to a remote.
type Header struct {
	Input
	Name      string
	Variables map[string]Input // variables of Value
	ValueVars []string         // the variables of Value, in order; nil when none
}

// Severity tells whether a diagnostic stopped something.
type Severity = diag.Severity

// Severities, the module's one Severity type.
const (
	// Warning: read anyway.
	Warning = diag.Warning
	// Error: what the diagnostic concerns (a remote, a header) was not used; in
	// Strict mode, the card does not conform.
	Error = diag.Error
)

// Diagnostic is one finding about a card.
type Diagnostic struct {
	Severity Severity
	Code     string // stable identifier such as "schema-version", "description" or "url"
	Where    string // an RFC 6901 JSON pointer ("/remotes/0/url"); "" for the whole card
	Message  string // never quotes a credential, a URL's userinfo or its query
}

// Diagnostic returns d in the module's common shape.
func (d Diagnostic) Diagnostic() diag.Diagnostic {
	return diag.Diagnostic{Severity: d.Severity, Code: d.Code, Where: d.Where, Message: d.Message}
}

// String returns a readable form of the Diagnostic.
func (d Diagnostic) String() string { return d.Diagnostic().String() }

// Sentinel errors; test with errors.Is.
var (
	// ErrNotCard: the document is not a JSON object.
	ErrNotCard = errors.New("servercard: not a server card")
	// ErrInvalid: in Strict mode, the card does not conform; the [*ValidationError]
	// lists why.
	ErrInvalid = errors.New("servercard: card does not conform")
	// ErrTemplate: a template could not be filled: a variable without a value, a
	// value not among its choices, or a result that is not a usable URL.
	ErrTemplate = errors.New("servercard: template not filled")
)

// ValidationError reports a card that Strict mode rejects, with every diagnostic
// found (errors and warnings).
type ValidationError struct {
	Diagnostics []Diagnostic // at least one with Severity Error
}

// Error implements the error interface.
func (e *ValidationError) Error() string {
	n := 0
	var first *Diagnostic
	for i := range e.Diagnostics {
		if e.Diagnostics[i].Severity == Error {
			if first == nil {
				first = &e.Diagnostics[i]
			}
			n++
		}
	}
	if first == nil {
		return ErrInvalid.Error()
	}
	msg := "servercard: card does not conform: " + first.String()
	if n > 1 {
		msg += fmt.Sprintf(" (and %d more errors)", n-1)
	}
	return msg
}

// Unwrap returns ErrInvalid.
func (e *ValidationError) Unwrap() error { return ErrInvalid }
