// Package agentskills reads Agent Skills: SKILL.md files, the well-known skills index
// a site publishes (/.well-known/agent-skills/index.json, or the older
// /.well-known/skills/index.json), skill archives, skill:// URIs, the skill entries of
// the MCP Skills Extension (SEP-2640), and skill folders on the local disk.
//
// Everything here but the local scan is a pure function over bytes: no network, no
// consent, no logging. Fetching goes through the root package's Client, which applies
// the same HTTPS, origin, consent, retry and cache rules as for discovery documents.
// Every string read from a skill or an index is untrusted data, never instructions.
package agentskills

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wellknown-dev/discovery/diag"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Mode selects how strictly SKILL.md files and indexes are checked.
type Mode int

const (
	// Lenient loads what it can and records a diagnostic for every deviation (the Agent
	// Skills client guide). It is the zero value, for discovery and loading.
	Lenient Mode = iota
	// Strict applies every rule of the specification and rejects any deviation (the
	// reference validator), for authoring and CI.
	Strict
)

// Severity tells whether a diagnostic stopped something.
type Severity = diag.Severity

// Severities, the module's one Severity type.
const (
	// Warning: loaded anyway.
	Warning = diag.Warning
	// Error: the skill, entry or file was not loaded.
	Error = diag.Error
)

// Diagnostic is one finding about a skill, an index or an archive.
type Diagnostic struct {
	Severity Severity
	Code     string // stable identifier such as "name-mismatch" or "unknown-type"
	Where    string // a file path, a JSON pointer ("/skills/2") or a line ("SKILL.md:3"); "" for the whole input
	Message  string
}

// Diagnostic returns d in the module's common shape.
func (d Diagnostic) Diagnostic() diag.Diagnostic {
	return diag.Diagnostic{Severity: d.Severity, Code: d.Code, Where: d.Where, Message: d.Message}
}

// String returns a readable form of the Diagnostic.
func (d Diagnostic) String() string {
	if d.Where == "" {
		return fmt.Sprintf("%s: %s: %s", d.Severity, d.Code, d.Message)
	}
	return fmt.Sprintf("%s: %s: %s: %s", d.Where, d.Severity, d.Code, d.Message)
}

// Sentinel errors; test with errors.Is.
var (
	// ErrInvalidSkill: a SKILL.md that cannot be loaded (no frontmatter, YAML that does
	// not parse, no description...). The *SkillError says why.
	ErrInvalidSkill = errors.New("agentskills: invalid skill")
	// ErrNotIndex: the document is not a skills index (no "skills" array).
	ErrNotIndex = errors.New("agentskills: not a skills index")
	// ErrUnknownSchema: the index names a $schema this package does not know; per the
	// discovery RFC it is not processed.
	ErrUnknownSchema = errors.New("agentskills: unknown index $schema")
	// ErrDigestMismatch: content does not match its published size or digest; it must
	// not be used.
	ErrDigestMismatch = errors.New("agentskills: digest mismatch")
	// ErrUnsafeArchive: an archive entry could escape the target, is a link or a
	// device, collides with another entry, or the archive is malformed.
	ErrUnsafeArchive = errors.New("agentskills: unsafe archive")
	// ErrArchiveTooLarge: an archive exceeds a limit (size, entries, depth, ratio);
	// reading stopped at the limit.
	ErrArchiveTooLarge = errors.New("agentskills: archive exceeds a limit")
	// ErrInvalidURI: a string that is not a skill URI.
	ErrInvalidURI = errors.New("agentskills: invalid skill URI")
)

// SkillError reports a SKILL.md that was not loaded, with every diagnostic found.
type SkillError struct {
	Path        string // the file, as the caller named it ("" if not given)
	Diagnostics []Diagnostic
}

// Error implements the error interface. The path is scrubbed (secrets.Scrub): callers
// name a skill's folder after an index entry, which is document text.
func (e *SkillError) Error() string {
	for _, d := range e.Diagnostics {
		if d.Severity == Error {
			if e.Path != "" {
				return fmt.Sprintf("agentskills: %s: %s", secrets.Scrub(e.Path), d.Message)
			}
			return "agentskills: " + d.Message
		}
	}
	return "agentskills: invalid skill"
}

// Unwrap returns ErrInvalidSkill.
func (e *SkillError) Unwrap() error { return ErrInvalidSkill }

// ArchiveError reports an archive rejected by the hardening rules.
type ArchiveError struct {
	Entry  string // the offending entry's name, quoted safely; "" for the archive itself
	Reason string
	Err    error // ErrUnsafeArchive or ErrArchiveTooLarge
}

// Error implements the error interface.
func (e *ArchiveError) Error() string {
	if e.Entry == "" {
		return "agentskills: archive: " + e.Reason
	}
	return fmt.Sprintf("agentskills: archive entry %q: %s", e.Entry, e.Reason)
}

// Unwrap returns the sentinel.
func (e *ArchiveError) Unwrap() error { return e.Err }

// Quoting document text. Every diagnostic and error message that repeats a value from
// a skill, an index or an MCP result goes through one of these: a message never holds
// a published credential, a URL's userinfo or a URL's query (secrets.Quote).

// quoteDoc quotes a value from a document: credentials redacted, URL userinfo and
// queries shown as "…", control and format characters dropped, at most 120 characters.
func quoteDoc(s string) string { return secrets.Quote(s, 0) }

// quoteURL quotes a URL from a document, or from the caller: userinfo, query and
// fragment removed (secrets.RedactURL).
func quoteURL(u string) string { return secrets.Quote(secrets.RedactURL(u), 0) }

// uriReason is the message of an error from the skill URI parsers, which quote the URI
// as given; scrubbed, so that its query or userinfo is not repeated.
func uriReason(err error) string { return secrets.Scrub(err.Error()) }

// redactURIError is err with its message scrubbed (see uriReason), still matching
// ErrInvalidURI with errors.Is; the original error, which quotes the URI, is dropped.
func redactURIError(err error) error {
	msg := uriReason(err)
	if errors.Is(err, ErrInvalidURI) {
		return fmt.Errorf("%w%s", ErrInvalidURI, strings.TrimPrefix(msg, ErrInvalidURI.Error()))
	}
	return errors.New(msg)
}
