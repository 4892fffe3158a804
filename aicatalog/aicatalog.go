package aicatalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strings"

	"github.com/wellknown-dev/discovery/diag"
)

// Locations and identifiers of the AI Catalog specification.
const (
	// WellKnownPath is where a host may publish its catalog for domain-level discovery.
	// A catalog may be served from any URL; this path is a convention, not a rule.
	WellKnownPath = "/.well-known/ai-catalog.json"
	// MediaType is the media type of an AI Catalog document, to send in Accept.
	MediaType = "application/ai-catalog+json"
	// SpecVersion is the version of the specification this package reads. Catalogs of
	// any 1.x minor version are read; another major version is [ErrUnsupportedVersion].
	SpecVersion = "1.0"
	// LinkRelation is the link relation ("Link: <...>; rel=ai-catalog", or an HTML
	// <link rel="ai-catalog">) that points at a site's catalog.
	LinkRelation = "ai-catalog"
)

// Entry types this package knows. [Entry.Type] holds the published media type,
// lower-cased and without parameters; entries of other types are kept, and listed in
// [Catalog.UnknownTypes].
const (
	// TypeAICatalog is a nested AI Catalog; follow it with [Walk].
	TypeAICatalog = MediaType
	// TypeMCPServerCard is an MCP Server Card (package servercard reads it).
	TypeMCPServerCard = "application/mcp-server-card+json"
	// TypeA2AAgentCard is an A2A Agent Card.
	TypeA2AAgentCard = "application/a2a-agent-card+json"
	// TypeAgentSkills is an Agent Skills index (package agentskills reads it).
	TypeAgentSkills = "application/agent-skills+json"
	// TypeSkillArchive is an archive of one skill folder.
	TypeSkillArchive = "application/agentskill+zip"
	// TypeClaudePlugin is a Claude Code plugin (a folder of skills, commands, agents
	// and MCP configurations).
	TypeClaudePlugin = "application/vnd.anthropic.claude-plugin+json"
)

var knownTypes = map[string]bool{
	TypeAICatalog: true, TypeMCPServerCard: true, TypeA2AAgentCard: true,
	TypeAgentSkills: true, TypeSkillArchive: true, TypeClaudePlugin: true,
}

// KnownType reports whether t, a media type as [Entry.Type] holds it, is one of the
// Type constants of this package.
func KnownType(t string) bool { return knownTypes[t] }

// normalType returns a media type lower-cased and without parameters, as Entry.Type
// holds it; text that is no media type is returned trimmed.
func normalType(t string) string {
	t = strings.TrimSpace(t)
	if mt, _, err := mime.ParseMediaType(t); err == nil {
		return mt
	}
	return t
}

// Mode selects how strictly a catalog is checked.
type Mode int

const (
	// Lenient reads what it can and records a diagnostic for every deviation, for
	// clients reading catalogs in the wild. It is the zero value.
	Lenient Mode = iota
	// Strict checks the catalog against the specification (a JSON Schema written
	// from its text, and the rules a schema cannot state) and fails with a
	// [*ValidationError] on any deviation, for publishers and linters.
	Strict
)

// Form is the spelling of entries a catalog uses. The AI Catalog specification first
// named an entry's type "mediaType" and required "displayName"; the current form (the
// one the MCP Server Card discovery text follows) names it "type" and does not
// require "displayName". Both are read; the older one with a warning.
type Form string

// Forms.
const (
	FormCurrent Form = "type"      // every entry uses "type"
	FormLegacy  Form = "mediaType" // every entry uses "mediaType"
	FormMixed   Form = "mixed"     // some entries use each
	FormNone    Form = ""          // no entry names a type (an empty catalog)
)

// Catalog is a parsed AI Catalog. It is plain data, safe to read concurrently. Every
// string in it was published by the catalog's host: untrusted data, to show as such,
// never instructions.
type Catalog struct {
	URL          string          // the catalog's URL (Options.URL), against which entry URLs were resolved; "" if unknown
	Digest       string          // "sha256:<hex>" of the document with insignificant whitespace removed: identifies its content
	SpecVersion  string          // as published, e.g. "1.0"
	Form         Form            // the spelling of the entries' type member
	Host         *Host           // nil when absent
	Entries      []Entry         // in document order; entries that cannot be used are left out, each with an Error diagnostic
	Metadata     json.RawMessage // the "metadata" object, verbatim; nil when absent
	Signature    string          // a top-level "signature", as published; never verified here
	UnknownTypes []string        // the types of entries that are not a Type constant, once each, in document order
	Diagnostics  []Diagnostic    // at most 32 of one code, then one that counts the rest
}

// ByType returns the entries of type t (a Type constant or any media type, compared
// without case and parameters), in document order.
func (c *Catalog) ByType(t string) []Entry {
	if c == nil {
		return nil
	}
	t = normalType(strings.ToLower(t))
	var out []Entry
	for _, e := range c.Entries {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

// Host identifies the operator of the catalog.
type Host struct {
	DisplayName      string
	Identifier       string // a DID or a domain name, as published; never verified here
	DocumentationURL string
	LogoURL          string
	TrustManifest    *TrustManifest // nil when absent
}

// Entry is one artifact of a catalog. Exactly one of URL and Data is set.
type Entry struct {
	Pointer       string          // where the entry is in its document, e.g. "/entries/3"
	Identifier    string          // e.g. "urn:air:example.com:mcp:weather"; "" only in Lenient mode, with a diagnostic
	DisplayName   string          // "" when absent (the current form does not require it)
	Type          string          // the media type, lower-cased, without parameters: compare with the Type constants
	URL           string          // absolute (resolved against Catalog.URL), https or loopback http; relative only when Catalog.URL is ""
	Data          json.RawMessage // the inline artifact, verbatim; nil when URL is set. Untrusted input: validate it as its Type says
	Description   string
	Version       string
	UpdatedAt     string   // RFC 3339, as published
	Tags          []string // nil when absent
	Publisher     *Publisher
	TrustManifest *TrustManifest  // nil when absent or when its identity does not match Identifier (a diagnostic says so)
	Metadata      json.RawMessage // the entry's "metadata" object, verbatim; nil when absent
}

// Known reports whether the entry's type is one of the Type constants.
func (e Entry) Known() bool { return KnownType(e.Type) }

// Publisher identifies who publishes an artifact. Nothing here is verified.
type Publisher struct {
	Identifier   string
	DisplayName  string
	IdentityType string // e.g. "did", "dns"
}

// TrustManifest is the trust metadata that accompanies an artifact or a host: parsed
// into data, never verified here. Until its signature is verified, everything in it is
// a claim by whoever wrote the catalog (the specification's "Layer 1"), advisory and
// not a basis for a security decision.
type TrustManifest struct {
	Identity          string // a URI; for an entry, equal to the entry's Identifier
	IdentityType      string // e.g. "did", "spiffe", "dns"
	TrustSchema       *TrustSchema
	Attestations      []Attestation
	Provenance        []Provenance
	PrivacyPolicyURL  string
	TermsOfServiceURL string
	Signature         string          // a detached JWS over the manifest, as published; never verified here
	Metadata          json.RawMessage // verbatim; nil when absent
	// Raw is the manifest object as published, verbatim: what a signature verifier
	// canonicalizes (without "signature") and checks.
	Raw json.RawMessage
}

// TrustSchema names the trust framework a manifest follows.
type TrustSchema struct {
	Identifier          string
	Version             string
	GovernanceURI       string
	VerificationMethods []string
}

// Attestation points at a document that proves a claim (a SOC 2 report, a publisher
// identity JWT...).
type Attestation struct {
	Type        string // e.g. "publisher-identity", "SOC2-Type2"
	URI         string // an https URL or a data: URI, as published: never fetched here
	MediaType   string
	Digest      string // "sha256:<hex>" (or stronger); "" when absent, malformed or weaker than SHA-256 (a diagnostic says so)
	Size        int64  // bytes; 0 when absent
	Description string
}

// Provenance is one lineage link of an artifact.
type Provenance struct {
	Relation     string // e.g. "publishedFrom", "derivedFrom"
	SourceID     string
	SourceDigest string // as Attestation.Digest
	RegistryURI  string
	StatementURI string
	SignatureRef string
}

// Severity tells whether a diagnostic stopped something.
type Severity = diag.Severity

// Severities, the module's one Severity type.
const (
	// Warning: read anyway.
	Warning = diag.Warning
	// Error: what the diagnostic concerns (an entry, a trust manifest, a nested
	// catalog) was not used; in Strict mode, the catalog does not conform.
	Error = diag.Error
)

// Diagnostic is one finding about a catalog.
type Diagnostic struct {
	Severity Severity
	Code     string // stable identifier, such as "url", "both-url-and-data" or "depth"
	Source   string // the catalog's URL when known, without userinfo, query or fragment; "" otherwise
	Where    string // an RFC 6901 JSON pointer into the document ("/entries/2/url"); "" for the whole document
	Message  string // never quotes a credential, a URL's userinfo or its query
}

// Diagnostic returns d in the module's common shape.
func (d Diagnostic) Diagnostic() diag.Diagnostic {
	return diag.Diagnostic{Severity: d.Severity, Code: d.Code, Source: d.Source, Where: d.Where, Message: d.Message}
}

// String returns a readable form of the Diagnostic.
func (d Diagnostic) String() string { return d.Diagnostic().String() }

// Sentinel errors; test with errors.Is.
var (
	// ErrNotCatalog: the document is not a JSON object with an "entries" array.
	ErrNotCatalog = errors.New("aicatalog: not an AI Catalog")
	// ErrUnsupportedVersion: the catalog's specVersion has a major version other than
	// 1; the specification says to reject it rather than misread it.
	ErrUnsupportedVersion = errors.New("aicatalog: unsupported specVersion")
	// ErrInvalid: in Strict mode, the catalog does not conform; the
	// [*ValidationError] lists why.
	ErrInvalid = errors.New("aicatalog: catalog does not conform")
)

// ValidationError reports a catalog that Strict mode rejects, with every diagnostic
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
	msg := "aicatalog: catalog does not conform: " + first.String()
	if n > 1 {
		msg += fmt.Sprintf(" (and %d more errors)", n-1)
	}
	return msg
}

// Unwrap returns ErrInvalid.
func (e *ValidationError) Unwrap() error { return ErrInvalid }
