package agentskills

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strings"
)

// The MCP Skills Extension (SEP-2640) describes each skill with an entry: its SKILL.md
// URI, its frontmatter as JSON, and its resources (every file with size and digest),
// or "dynamic". This file reads those entries; the MCP client uses them.

// ExtensionID is the capability key of the MCP Skills Extension.
const ExtensionID = "io.modelcontextprotocol/skills"

// Resource limits per skill that hosts must accept (SEP-2640).
const (
	MaxResources     = 512
	MaxResourceBytes = 16 << 20
)

// Entry is one skill of skills/list or skills/get.
type Entry struct {
	URI         URI            // the SKILL.md URI
	Frontmatter map[string]any // as published; compared field by field with the file
	Dynamic     bool           // resources is "dynamic": no manifest, content unverified
	Resources   []Resource     // every file of the skill, SKILL.md included (nil when Dynamic)
	// Meta is the entry's "_meta" object, each member verbatim (a Trust Manifest under
	// trust.MCPMetaKey, for one); nil when absent or not an object.
	Meta map[string]json.RawMessage
}

// Resource is one file of a skill entry.
type Resource struct {
	URI    string
	Digest string
	Size   int64
}

// ListResult is a parsed skills/list result.
type ListResult struct {
	Skills      []Entry
	NextCursor  string
	TTLMs       *int64 // nil when absent (older protocol versions)
	CacheScope  string
	Diagnostics []Diagnostic // invalid entries, which must not be loaded
}

type rawEntryMCP struct {
	URI         string          `json:"uri"`
	Frontmatter map[string]any  `json:"frontmatter"`
	Resources   json.RawMessage `json:"resources"`
	Meta        json.RawMessage `json:"_meta"`
}

// unwrapResult accepts a bare result or a JSON-RPC response and returns the result.
func unwrapResult(data []byte) (json.RawMessage, error) {
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, fmt.Errorf("agentskills: not a JSON object: %s", jsonMessage(err))
	}
	if env.Error != nil {
		return nil, fmt.Errorf("agentskills: JSON-RPC error %d", env.Error.Code)
	}
	if env.JSONRPC != "" {
		return env.Result, nil
	}
	return data, nil
}

// ParseListResult reads a skills/list result (bare, or inside a JSON-RPC response).
// Entries that break the rules are left out of Skills and reported as diagnostics:
// they must not be loaded.
func ParseListResult(data []byte) (*ListResult, error) {
	res, err := unwrapResult(data)
	if err != nil {
		return nil, err
	}
	var raw struct {
		Skills     []json.RawMessage `json:"skills"`
		NextCursor string            `json:"nextCursor"`
		TTLMs      *int64            `json:"ttlMs"`
		CacheScope string            `json:"cacheScope"`
	}
	if err := json.Unmarshal(res, &raw); err != nil || raw.Skills == nil {
		return nil, fmt.Errorf("agentskills: not a skills/list result (no \"skills\" array)")
	}
	out := &ListResult{NextCursor: raw.NextCursor, TTLMs: raw.TTLMs, CacheScope: raw.CacheScope}
	for i, m := range raw.Skills {
		e, diags := parseEntry(m, fmt.Sprintf("/skills/%d", i))
		out.Diagnostics = append(out.Diagnostics, diags...)
		if e != nil {
			out.Skills = append(out.Skills, *e)
		}
	}
	return out, nil
}

// ParseGetResult reads a skills/get result; an invalid entry is an error that lists
// its problems.
func ParseGetResult(data []byte) (*Entry, []Diagnostic, error) {
	res, err := unwrapResult(data)
	if err != nil {
		return nil, nil, err
	}
	var raw struct {
		Skill json.RawMessage `json:"skill"`
	}
	if err := json.Unmarshal(res, &raw); err != nil || len(raw.Skill) == 0 {
		return nil, nil, fmt.Errorf("agentskills: not a skills/get result (no \"skill\")")
	}
	e, diags := parseEntry(raw.Skill, "/skill")
	if e == nil {
		return nil, diags, fmt.Errorf("%w: the skills/get entry breaks the rules (%s)", ErrInvalidSkill, diags[0].Message)
	}
	return e, diags, nil
}

// parseEntry checks one entry against SEP-2640; nil means invalid.
func parseEntry(m json.RawMessage, at string) (*Entry, []Diagnostic) {
	var diags []Diagnostic
	bad := func(msg string) (*Entry, []Diagnostic) {
		return nil, append(diags, Diagnostic{Severity: Error, Code: "entry", Where: at, Message: msg + "; the entry must not be loaded"})
	}
	var r rawEntryMCP
	if err := json.Unmarshal(m, &r); err != nil {
		return bad("entry is not an object")
	}
	u, err := ParseSkillURI(r.URI)
	if err != nil {
		return bad(uriReason(err))
	}
	name, _ := r.Frontmatter["name"].(string)
	if name != u.Name() {
		return bad(fmt.Sprintf("frontmatter name %s is not the last segment of %s", quoteDoc(name), quoteDoc(r.URI)))
	}
	if d, _ := r.Frontmatter["description"].(string); strings.TrimSpace(d) == "" {
		return bad("frontmatter has no description")
	}
	e := &Entry{URI: u, Frontmatter: r.Frontmatter}
	if json.Unmarshal(r.Meta, &e.Meta) != nil {
		e.Meta = nil // not an object: ignored, as an unknown member would be
	}
	res := bytes.TrimSpace(r.Resources)
	switch {
	case len(res) == 0 || bytes.Equal(res, []byte("null")):
		return bad("resources is missing")
	case bytes.Equal(res, []byte(`"dynamic"`)):
		e.Dynamic = true
		return e, diags
	}
	if err := json.Unmarshal(res, &e.Resources); err != nil {
		return bad("resources is neither an array nor \"dynamic\"")
	}
	if len(e.Resources) == 0 {
		return bad("resources is empty (it must list SKILL.md at least)")
	}
	if len(e.Resources) > MaxResources {
		return bad(fmt.Sprintf("%d resources, over %d", len(e.Resources), MaxResources))
	}
	var total int64
	seen := map[string]bool{}
	for i, rs := range e.Resources {
		where := fmt.Sprintf("%s/resources/%d", at, i)
		if _, err := ParseURIInSkill(rs.URI, u.Root()); err != nil {
			return bad(where + ": " + uriReason(err))
		}
		if seen[rs.URI] {
			return bad(where + ": " + quoteDoc(rs.URI) + " is listed twice")
		}
		seen[rs.URI] = true
		if !ValidDigest(rs.Digest) {
			return bad(where + ": digest is not sha256: and 64 lowercase hex digits")
		}
		if rs.Size < 0 {
			return bad(where + ": negative size")
		}
		total += rs.Size
	}
	if !seen[u.String()] {
		return bad("resources does not list the SKILL.md")
	}
	if total > MaxResourceBytes {
		return bad(fmt.Sprintf("resources total %d bytes, over %d", total, MaxResourceBytes))
	}
	return e, diags
}

// Resource returns the listed resource with that URI.
func (e *Entry) Resource(uri string) (Resource, bool) {
	for _, r := range e.Resources {
		if r.URI == uri {
			return r, true
		}
	}
	return Resource{}, false
}

// VerifyFile checks content read for uri against the entry: the URI must be listed
// (an unlisted file fails, even inside the skill), then size, then digest; for the
// SKILL.md the frontmatter is also compared, value by value, with the entry's. For a
// dynamic entry only the SKILL.md frontmatter can be checked. The error wraps
// ErrDigestMismatch or ErrInvalidSkill: the content must not be used.
func (e *Entry) VerifyFile(uri string, content []byte) error {
	if !e.Dynamic {
		r, ok := e.Resource(uri)
		if !ok {
			return fmt.Errorf("%w: %s is not listed in the skill's resources", ErrDigestMismatch, quoteDoc(uri))
		}
		if err := Verify(content, r.Size, r.Digest); err != nil {
			return fmt.Errorf("%s: %w", quoteDoc(uri), err)
		}
	}
	if uri != e.URI.String() {
		return nil
	}
	sk, err := ParseSkillMD(content, ParseOptions{Dir: e.URI.Name()})
	if err != nil {
		return err
	}
	if !sameJSON(sk.Frontmatter, e.Frontmatter) {
		return fmt.Errorf("%w: the frontmatter of %s differs from the listing", ErrDigestMismatch, quoteDoc(uri))
	}
	return nil
}

// sameJSON compares two JSON-compatible values as JSON (numbers as numbers).
func sameJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return false
	}
	// Numbers compare exactly, as rationals, not as float64: 9007199254740993 and
	// 9007199254740992 are different values, 1.0 and 1 the same.
	decode := func(b []byte) (any, bool) {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return nil, false
		}
		return exactNumbers(v), true
	}
	va, ok1 := decode(ja)
	vb, ok2 := decode(jb)
	return ok1 && ok2 && reflect.DeepEqual(va, vb)
}

// exactRat is a JSON number in canonical rational form, for comparison.
type exactRat string

// exactNumbers replaces every json.Number in v by its exact rational value.
func exactNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(t)); ok {
			return exactRat(r.RatString())
		}
		return string(t)
	case map[string]any:
		for k, e := range t {
			t[k] = exactNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = exactNumbers(e)
		}
	}
	return v
}

// Capabilities reports whether server capabilities (an initialize or server/discover
// result, or its "capabilities" object) declare the Skills Extension, and with
// directoryRead. The extension lives under capabilities.extensions; the older
// "experimental" location is not accepted.
func Capabilities(data []byte) (declared, directoryRead bool, err error) {
	res, err := unwrapResult(data)
	if err != nil {
		return false, false, err
	}
	var v struct {
		Capabilities *struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"capabilities"`
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if err := json.Unmarshal(res, &v); err != nil {
		return false, false, fmt.Errorf("agentskills: capabilities: %s", jsonMessage(err))
	}
	ext := v.Extensions
	if v.Capabilities != nil {
		ext = v.Capabilities.Extensions
	}
	raw, ok := ext[ExtensionID]
	if !ok {
		return false, false, nil
	}
	var settings struct {
		DirectoryRead bool `json:"directoryRead"`
	}
	_ = json.Unmarshal(raw, &settings) // {} or unknown settings: no optional features
	return true, settings.DirectoryRead, nil
}

// DirEntry is a child listed by resources/directory/read.
type DirEntry struct {
	URI      string
	Name     string
	MimeType string
	IsDir    bool // mimeType inode/directory
}

// ParseDirectoryRead reads a resources/directory/read result. A directory listing never
// extends a held entry: a new child must not be read until skills/get refreshes it.
func ParseDirectoryRead(data []byte) ([]DirEntry, string, error) {
	res, err := unwrapResult(data)
	if err != nil {
		return nil, "", err
	}
	var v struct {
		Resources  []DirEntry `json:"resources"`
		NextCursor string     `json:"nextCursor"`
	}
	if err := json.Unmarshal(res, &v); err != nil || v.Resources == nil {
		return nil, "", fmt.Errorf("agentskills: not a resources/directory/read result")
	}
	for i := range v.Resources {
		d := &v.Resources[i]
		d.IsDir = d.MimeType == "inode/directory"
		if strings.HasSuffix(d.URI, "/") {
			return nil, "", fmt.Errorf("%w: directory URI %s ends with a slash", ErrInvalidURI, quoteDoc(d.URI))
		}
	}
	return v.Resources, v.NextCursor, nil
}
