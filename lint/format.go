package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/diag"
	"github.com/wellknown-dev/discovery/internal/termtext"
	"github.com/wellknown-dev/discovery/skillsmd"
)

// Report is what a Linter found: the files it checked and the problems, ordered by
// file, line and column. It is plain data.
type Report struct {
	Files    []File
	Problems []Problem
}

// location is "file:line:col", "file:line" or "file".
func (p Problem) location() string {
	switch {
	case p.Line > 0 && p.Column > 0:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
	case p.Line > 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return p.File
}

// text is the message with its pointer, if any.
func (p Problem) text() string {
	if p.Pointer != "" {
		return p.Pointer + ": " + p.Message
	}
	return p.Message
}

// WriteText writes one line per problem to w: "file:line:col: severity: message
// [code]". With color, the severity is painted with ANSI escapes (red errors, yellow
// warnings, cyan info). File names and messages are cleaned of control and escape sequences.
func (r *Report) WriteText(w io.Writer, color bool) error {
	for _, p := range r.Problems {
		sev := p.Severity.String()
		switch {
		case color && p.Severity == diag.Error:
			sev = "\033[31m" + sev + "\033[0m"
		case color && p.Severity == diag.Info:
			sev = "\033[36m" + sev + "\033[0m"
		case color:
			sev = "\033[33m" + sev + "\033[0m"
		}
		if _, err := fmt.Fprintf(w, "%s: %s: %s [%s]\n", termtext.Clean(p.location(), 1024), sev, p.text(), p.Code); err != nil {
			return err
		}
	}
	return nil
}

// jsonReport is the json format; its field names are stable (docs/wellknown.md).
type jsonReport struct {
	Files    []File    `json:"files"`
	Problems []Problem `json:"problems"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
}

// WriteJSON writes r to w as one indented JSON object: files, problems and the counts
// of errors and warnings (field names in docs/wellknown.md).
func (r *Report) WriteJSON(w io.Writer) error {
	errs, warns := r.Count()
	j := jsonReport{Files: r.Files, Problems: r.Problems, Errors: errs, Warnings: warns}
	if j.Files == nil {
		j.Files = []File{}
	}
	if j.Problems == nil {
		j.Problems = []Problem{}
	}
	return writeJSON(w, j)
}

// writeJSON writes v as indented JSON and a newline, with no HTML escaping.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// WriteSARIF writes r to w as a SARIF 2.1.0 log, for code scanning. Paths inside the
// working directory are relative to %SRCROOT%; artifact locations are URI references.
func (r *Report) WriteSARIF(w io.Writer) error { return writeJSON(w, r.sarif()) }

// WriteGitHub writes r to w as GitHub Actions workflow commands, one per problem:
// ::error file=F,line=L,col=C,title=T::message.
func (r *Report) WriteGitHub(w io.Writer) error {
	for _, p := range r.Problems {
		props := []string{"file=" + ghProperty(p.File)}
		if p.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", p.Line))
			if p.Column > 0 {
				props = append(props, fmt.Sprintf("col=%d", p.Column))
			}
		}
		props = append(props, "title="+ghProperty("wellknown lint: "+p.Code))
		cmd := p.Severity.String()
		if p.Severity == diag.Info {
			cmd = "notice"
		}
		if _, err := fmt.Fprintf(w, "::%s %s::%s\n", cmd, strings.Join(props, ","), ghData(p.text())); err != nil {
			return err
		}
	}
	return nil
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// SARIF 2.1.0, the subset lint writes.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool     `json:"tool"`
	ColumnKind string        `json:"columnKind"`
	Results    []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  int             `json:"ruleIndex"`
	Level      string          `json:"level"`
	Message    sarifMessage    `json:"message"`
	Locations  []sarifLocation `json:"locations"`
	Properties *sarifProps     `json:"properties,omitempty"`
}

// sarifProps is a result's property bag: the evidence of an info result.
type sarifProps struct {
	Evidence *Evidence `json:"evidence"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical       `json:"physicalLocation"`
	LogicalLocations []sarifLogicalPlace `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifLogicalPlace struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

const sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

func (r *Report) sarif() sarifLog {
	codes := map[string]bool{}
	for _, p := range r.Problems {
		codes[p.Code] = true
	}
	ids := make([]string, 0, len(codes))
	for c := range codes {
		ids = append(ids, c)
	}
	sort.Strings(ids)
	index := map[string]int{}
	rules := make([]sarifRule, 0, len(ids))
	for i, id := range ids {
		index[id] = i
		rules = append(rules, sarifRule{ID: id, ShortDescription: sarifMessage{Text: ruleDescription(id)}})
	}
	results := make([]sarifResult, 0, len(r.Problems))
	for _, p := range r.Problems {
		loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifactFor(p.File)}}
		if p.Line > 0 {
			loc.PhysicalLocation.Region = &sarifRegion{StartLine: p.Line, StartColumn: p.Column}
		}
		if p.Pointer != "" {
			loc.LogicalLocations = []sarifLogicalPlace{{FullyQualifiedName: p.Pointer, Kind: "member"}}
		}
		res := sarifResult{RuleID: p.Code, RuleIndex: index[p.Code], Level: p.Severity.String(),
			Message: sarifMessage{Text: p.text()}, Locations: []sarifLocation{loc}}
		if p.Severity == diag.Info {
			res.Level = "note" // SARIF's name for a result that is no problem
		}
		if p.Evidence != nil {
			res.Properties = &sarifProps{Evidence: p.Evidence}
		}
		results = append(results, res)
	}
	return sarifLog{
		Schema:  sarifSchema,
		Version: "2.1.0",
		Runs: []sarifRun{{
			Tool: sarifTool{Driver: sarifDriver{Name: "wellknown lint", Version: discovery.Version,
				InformationURI: "https://github.com/wellknown-dev/discovery", Rules: rules}},
			ColumnKind: "unicodeCodePoints",
			Results:    results,
		}},
	}
}

// srcRoot is the uriBaseId of paths relative to the working directory: the checkout's
// root in CI, which SARIF consumers such as GitHub code scanning resolve it to.
const srcRoot = "%SRCROOT%"

// fileURI is the file: URI of an absolute path.
func fileURI(abs string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path // Windows: file:///C:/...
	}
	return u.String()
}

// sarifArtifactFor locates a problem's file: a URL as is; a path relative to the
// working directory (srcRoot), whether it was given absolute or not; a path outside
// the working directory as a file: URI.
func sarifArtifactFor(file string) sarifArtifact {
	if isURL(file) {
		return sarifArtifact{URI: sarifURI(file)}
	}
	wd, werr := os.Getwd()
	abs, aerr := filepath.Abs(file)
	if werr != nil || aerr != nil {
		return sarifArtifact{URI: sarifURI(file)}
	}
	rel, err := filepath.Rel(wd, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return sarifArtifact{URI: fileURI(abs)}
	}
	return sarifArtifact{URI: sarifURI(rel), URIBaseID: srcRoot}
}

// sarifURI makes a file path a relative URI reference, as SARIF requires of
// artifactLocation.uri: forward slashes, and every byte that may not stand in a path
// segment (RFC 3986 section 3.3: a line break, a space, "#", "?", "%", non-ASCII...)
// percent-encoded, so that a reader decoding it gets the file name back. A colon in
// the first segment is encoded too, or it would read as a scheme. URLs are kept, with
// only the bytes no URI may hold encoded.
func sarifURI(file string) string {
	if isURL(file) {
		return escapeURI(file, "/?#[]%")
	}
	file = strings.ReplaceAll(file, "\\", "/")
	first, rest, found := strings.Cut(file, "/")
	uri := strings.ReplaceAll(escapeURI(first, ""), ":", "%3A")
	if found {
		uri += "/" + escapeURI(rest, "/")
	}
	return uri
}

// escapeURI percent-encodes every byte of s but the unreserved characters, the
// sub-delimiters, ":", "@" and those in keep (RFC 3986 section 2). A "%" in keep is
// kept only where it starts an escape ("%2F"); elsewhere it is encoded.
func escapeURI(s, keep string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0,
			c != '%' && strings.IndexByte(keep, c) >= 0,
			c == '%' && strings.IndexByte(keep, c) >= 0 && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// ruleDescription is the short description of a rule for SARIF.
func ruleDescription(code string) string {
	if d, ok := ruleDescriptions[code]; ok {
		return d
	}
	switch {
	case strings.HasPrefix(code, "catalog-"):
		return "An AI Catalog breaks its specification (" + strings.ReplaceAll(strings.TrimPrefix(code, "catalog-"), "-", " ") + "); the result's message says what to change."
	case strings.HasPrefix(code, "card-"):
		return "An MCP Server Card breaks the extension's schema (" + strings.ReplaceAll(strings.TrimPrefix(code, "card-"), "-", " ") + "); the result's message says what to change."
	}
	return "A problem found by wellknown lint (" + strings.ReplaceAll(code, "-", " ") + "); the result's message says what to change."
}

// ruleDescriptions describes every code lint reports: its own, and the parsers'
// (skillsmd, mcpjson, agentskills) that it passes through.
var ruleDescriptions = map[string]string{
	// lint's own
	"syntax":                "The document does not parse.",
	"schema":                "mcp.json breaks the JSON Schema of its spec_version.",
	"mcp-json":              "mcp.json holds something a client has to interpret or skip.",
	"no-title":              "skills.md has no H1 title.",
	"empty":                 "The document is empty.",
	"unknown-kind":          "The kind of document cannot be told from its name or content.",
	"nothing-to-lint":       "The folder holds no document lint knows.",
	"nothing-published":     "The origin publishes no well-known document.",
	"not-published":         "Nothing is published at the URL (an error status or an HTML page).",
	"fetch":                 "The document could not be fetched.",
	"unreachable":           "The origin could not be reached, so nothing was checked.",
	"cross-origin-redirect": "A well-known URL redirects to another origin, which clients follow only with consent.",
	"too-large":             "The document is over the size limit of discovery clients, which refuse it.",
	"credential":            "The document publishes what looks like a credential (a token, a key, a password in a URL).",
	"digest-mismatch":       "A skill artifact does not match the size or digest its index publishes.",
	"missing-artifact":      "A skill artifact the index lists is missing.",
	"unsafe-archive":        "A skill archive is unsafe or too large to unpack.",
	"artifact":              "A skill artifact could not be read.",
	"not-checked":           "A skill artifact on another origin was not checked.",
	"budget":                "The command's --budget ran out before this document or artifact was checked.",
	"media-type":            "An AI Catalog or Server Card is served without its media type (application/ai-catalog+json, application/mcp-server-card+json).",
	"cors":                  "An AI Catalog or Server Card is served without Access-Control-Allow-Origin, so agents in a browser cannot read it.",
	"etag":                  "An AI Catalog or Server Card is served without an ETag, so clients cannot revalidate it.",
	"cache-control":         "An AI Catalog or Server Card is served without Cache-Control.",
	"not-catalog":           "The document is not an AI Catalog of a supported version.",
	"not-card":              "The document is not an MCP Server Card.",
	"trust-manifest":        "A catalog entry's trust manifest: whether it is signed, and whether it verifies against the trust roots given.",
	codeEndpointTaken:       "Explanation (--explain): a URL the mcp.json reader takes as an MCP endpoint, and the evidence.",
	codeEndpointRejected:    "Explanation (--explain): a URL the mcp.json reader considered and did not take, and why.",
	codeBaseTaken:           "Explanation (--explain): the API base the skills.md reader takes, and where it was stated.",
	codeBaseRejected:        "Explanation (--explain): a candidate for the skills.md API base that was not taken, and why.",
	codeAuthRule:            "Explanation (--explain): an auth rule of skills.md, and where it came from.",
	codeAuthRejected:        "Explanation (--explain): an auth header of skills.md that was not taken, and why.",
	"unverified":            "The index publishes no digests, so clients cannot verify the skill.",
	"name-mismatch":         "A skill's name differs from its folder or its index entry; skills install refuses it.",
	"not-index":             "The document is not a skills index.",
	"unknown-schema":        "The index names an unknown $schema.",
	"duplicate-name":        "The index lists a skill name more than once.",
	"symlink":               "A skill folder holds a symbolic link, which skills install refuses.",
	"not-regular":           "A skill folder holds something other than files and folders.",
	"file-name":             "A file name in a skill is refused by skills install.",
	"limit":                 "A skill has more files, bytes or folder levels than clients accept.",
	// skillsmd
	skillsmd.WarnFrontmatter:     "skills.md has YAML frontmatter that does not parse.",
	skillsmd.WarnUnsafeLink:      "skills.md links to a javascript:, data:, file: or vbscript: URL, or one with credentials.",
	skillsmd.WarnNoAPI:           "skills.md names endpoints but states no API section or base URL.",
	skillsmd.WarnTooLong:         "skills.md is longer than the specification recommends.",
	skillsmd.WarnRawHTML:         "skills.md holds a <script> or <iframe> element.",
	skillsmd.WarnTooComplex:      "skills.md nests or links beyond what parsers read as structure.",
	skillsmd.WarnStrayFence:      "skills.md has a code fence that opens where a block seems to close (its opening fence is missing); the sections after it read as code elsewhere.",
	skillsmd.WarnBasePlaceholder: "skills.md states its API base only as a template.",
	skillsmd.WarnBaseInferred:    "skills.md states no API base; clients infer one from its endpoints.",
	// agentskills (SKILL.md and indexes)
	"encoding":           "The file is not valid UTF-8 text.",
	"bom":                "The file starts with a byte order mark.",
	"leading-blank":      "The file has blank lines before its frontmatter.",
	"no-frontmatter":     "SKILL.md has no YAML frontmatter.",
	"yaml":               "SKILL.md frontmatter is not valid YAML.",
	"yaml-quoted":        "SKILL.md frontmatter is valid YAML only after quoting values.",
	"yaml-alias":         "SKILL.md frontmatter aliases expand too far.",
	"yaml-duplicate":     "SKILL.md frontmatter defines a key twice.",
	"no-name":            "SKILL.md has no name.",
	"name":               "A skill name is not a valid Agent Skills name (a-z, 0-9, single hyphens); skills install refuses it.",
	"name-type":          "SKILL.md name is not a string.",
	"no-description":     "SKILL.md has no description.",
	"description":        "A skill's description is missing or not usable.",
	"description-length": "SKILL.md description is longer than the specification allows.",
	"description-type":   "SKILL.md description is not a string.",
	"compatibility":      "SKILL.md compatibility is not a short string.",
	"license":            "SKILL.md license is not a string.",
	"metadata":           "SKILL.md metadata is not a map of strings.",
	"allowed-tools":      "SKILL.md allowed-tools is not a space-separated string.",
	"unknown-field":      "SKILL.md frontmatter has fields outside the specification.",
	"entry":              "An index entry is not usable.",
	"type":               "An index entry has no usable type.",
	"unknown-type":       "An index entry has a type clients do not know.",
	"url":                "An index entry's URL is not usable.",
	"digest":             "An index entry's digest is missing or malformed.",
	"files":              "An index entry's file list is not usable.",
	"version":            "The index's version is missing or unknown.",
	"archive":            "A skill archive is not usable.",
	"skipped":            "An index entry was skipped by clients.",
	"shadowed":           "A skill is hidden by another of the same name.",
	"unreadable":         "A file could not be read.",
}
