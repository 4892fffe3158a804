package agentskills

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Readers for the pre-final drafts of skills over MCP. None gives an integrity-bound
// entry; they are labelled non-standard and their content unverified unless a
// well-formed digest is given.

// LegacyEntry is a skill read from a draft skill://index.json.
type LegacyEntry struct {
	Name        string
	Description string
	URI         string // the SKILL.md URI
	Digest      string // June draft only; "" when unverified
}

// rawLegacy is a draft skill://index.json, April or June 2026.
type rawLegacy struct {
	Schema *string `json:"$schema"`
	Skills []struct {
		Name        string            `json:"name"`
		Type        string            `json:"type"`
		Description string            `json:"description"`
		URL         string            `json:"url"`
		Digest      string            `json:"digest"`
		Frontmatter map[string]any    `json:"frontmatter"`
		Archives    []json.RawMessage `json:"archives"` // decoded one by one: a bad one is skipped
	} `json:"skills"`
}

// legacyArchive is one element of a June-2026 entry's archives.
type legacyArchive struct {
	URL      string `json:"url"`
	MimeType string `json:"mimeType"`
	Digest   string `json:"digest"`
}

func decodeLegacy(data []byte) (*rawLegacy, error) {
	var raw rawLegacy
	if err := json.Unmarshal(data, &raw); err != nil || raw.Skills == nil {
		return nil, fmt.Errorf("%w: not a draft skill://index.json", ErrNotIndex)
	}
	return &raw, nil
}

// ParseLegacyIndex reads the skill://index.json of the April 2026 draft ($schema of the
// discovery index; types skill-md, archive, mcp-resource-template; no digests) or of
// the June 2026 draft (no $schema; {frontmatter, url?, digest?, archives?}). It returns
// the skill-md entries; archives, templates (never expanded) and unknown types are
// skipped with a diagnostic, as are June entries whose digest is malformed.
func ParseLegacyIndex(data []byte) ([]LegacyEntry, []Diagnostic, error) {
	raw, err := decodeLegacy(data)
	if err != nil {
		return nil, nil, err
	}
	var out []LegacyEntry
	var diags []Diagnostic
	skip := func(i int, code, msg string) {
		diags = append(diags, Diagnostic{Severity: Warning, Code: code, Where: fmt.Sprintf("/skills/%d", i), Message: msg})
	}
	june := raw.Schema == nil
	for i, s := range raw.Skills {
		e := LegacyEntry{Name: s.Name, Description: s.Description, URI: s.URL}
		if june {
			e.Name, _ = s.Frontmatter["name"].(string)
			e.Description, _ = s.Frontmatter["description"].(string)
			switch {
			case s.URL == "" && len(s.Archives) > 0:
				skip(i, "archive", "archive-only entry; archives are not read from drafts")
				continue
			case s.URL == "":
				skip(i, "entry", "entry has no url")
				continue
			case !ValidDigest(s.Digest):
				skip(i, "digest", "digest is not sha256: and 64 lowercase hex digits; the SKILL.md cannot be verified")
				continue
			}
			e.Digest = s.Digest
		} else {
			if s.Digest != "" { // a June-2026 revision of this form added digests
				if !ValidDigest(s.Digest) {
					skip(i, "digest", "digest is not sha256: and 64 lowercase hex digits; the SKILL.md cannot be verified")
					continue
				}
				e.Digest = s.Digest
			}
			switch s.Type {
			case TypeSkillMD:
			case TypeArchive:
				skip(i, "archive", "archive entry; archives are not read from drafts")
				continue
			case "mcp-resource-template":
				skip(i, "template", "resource template; a template is for the user, never expanded by the SDK")
				continue
			default:
				skip(i, "unknown-type", "unknown type "+quoteDoc(s.Type))
				continue
			}
		}
		u, err := ParseSkillURI(e.URI)
		if err != nil {
			skip(i, "uri", uriReason(err))
			continue
		}
		if e.Name == "" {
			e.Name = u.Name()
		}
		out = append(out, e)
	}
	return out, diags, nil
}

// ParseFastMCPManifest reads a FastMCP skill://<name>/_manifest: {skill, files[{path,
// size, hash}]}. Files whose hash is a well-formed digest can be verified; the others
// are reported as unverifiable (the first 32, then a count). A manifest of more than
// MaxResources files is an error.
func ParseFastMCPManifest(data []byte) (string, []Resource, []Diagnostic, error) {
	var raw struct {
		Skill string `json:"skill"`
		Files []struct {
			Path string `json:"path"`
			Size int64  `json:"size"`
			Hash string `json:"hash"`
		} `json:"files"`
	}
	if err := json.Unmarshal(data, &raw); err != nil || raw.Skill == "" || raw.Files == nil {
		return "", nil, nil, fmt.Errorf("agentskills: not a FastMCP skill manifest")
	}
	if len(raw.Files) > MaxResources {
		return "", nil, nil, fmt.Errorf("agentskills: FastMCP manifest lists %d files, more than %d (MaxResources)", len(raw.Files), MaxResources)
	}
	var res []Resource
	var diags []Diagnostic
	bad := 0 // files without a usable hash: a diagnostic for the first maxDiagsPerCode
	for i, f := range raw.Files {
		u, err := NewURI(raw.Skill, f.Path)
		if err != nil {
			return "", nil, nil, fmt.Errorf("agentskills: FastMCP manifest file %d: %w", i, redactURIError(err))
		}
		r := Resource{URI: u.String(), Size: f.Size}
		if ValidDigest(f.Hash) {
			r.Digest = f.Hash
		} else if bad++; bad <= maxDiagsPerCode {
			diags = append(diags, Diagnostic{Severity: Warning, Code: "digest", Where: fmt.Sprintf("/files/%d", i),
				Message: "hash is not sha256: and 64 lowercase hex digits; the file cannot be verified"})
		}
		res = append(res, r)
	}
	if bad > maxDiagsPerCode {
		diags = append(diags, Diagnostic{Severity: Warning, Code: "digest", Where: "/files",
			Message: fmt.Sprintf("%d more files whose hash is not sha256: and 64 lowercase hex digits", bad-maxDiagsPerCode)})
	}
	return raw.Skill, res, diags, nil
}

// LegacyArchive is a skill that a draft skill://index.json offers as an archive: the
// April 2026 draft's entries of type "archive" and the June 2026 draft's archives[].
// Archives were removed from the extension; read them only behind an explicit option,
// digest first, with ReadArchive's hardening.
type LegacyArchive struct {
	Name        string
	Description string
	URI         string // the archive resource
	Root        string // the skill's root: the archive URI minus its suffix
	MimeType    string // as published, or "" (then the suffix decides)
	Digest      string // "" when the draft gives none: the content is unverified
}

// ParseLegacyArchives returns the archive entries of a draft skill://index.json, the
// ones ParseLegacyIndex skips. An archive whose digest is malformed, or whose URI has
// no .zip, .tar.gz or .tgz suffix to derive the skill's root from, is skipped with a
// diagnostic.
func ParseLegacyArchives(data []byte) ([]LegacyArchive, []Diagnostic, error) {
	raw, err := decodeLegacy(data)
	if err != nil {
		return nil, nil, err
	}
	var out []LegacyArchive
	var diags []Diagnostic
	add := func(at, name, desc, uri, mime, digest string) {
		if digest != "" && !ValidDigest(digest) {
			diags = append(diags, Diagnostic{Severity: Warning, Code: "digest", Where: at,
				Message: "archive digest is not sha256: and 64 lowercase hex digits; skipped"})
			return
		}
		root := ""
		for _, suffix := range []string{".tar.gz", ".tgz", ".zip"} {
			if r, ok := strings.CutSuffix(uri, suffix); ok {
				root = r
				break
			}
		}
		u, err := ParseSkillURI(root + "/" + SkillFile)
		if root == "" || err != nil {
			diags = append(diags, Diagnostic{Severity: Warning, Code: "archive", Where: at,
				Message: "archive URI has no .zip, .tar.gz or .tgz suffix under a skill:// path; skipped"})
			return
		}
		if name == "" {
			name = u.Name()
		}
		out = append(out, LegacyArchive{Name: name, Description: desc, URI: uri, Root: u.Root(), MimeType: mime, Digest: digest})
	}
	for i, s := range raw.Skills {
		at := fmt.Sprintf("/skills/%d", i)
		if raw.Schema != nil && s.Type == TypeArchive {
			add(at, s.Name, s.Description, s.URL, "", s.Digest)
		}
		if raw.Schema == nil {
			name, _ := s.Frontmatter["name"].(string)
			desc, _ := s.Frontmatter["description"].(string)
			for j, raw := range s.Archives {
				var a legacyArchive
				if json.Unmarshal(raw, &a) != nil {
					diags = append(diags, Diagnostic{Severity: Warning, Code: "archive", Where: fmt.Sprintf("%s/archives/%d", at, j),
						Message: "archive is not an object with url, mimeType and digest; skipped"})
					continue
				}
				add(fmt.Sprintf("%s/archives/%d", at, j), name, desc, a.URL, a.MimeType, a.Digest)
			}
		}
	}
	return out, diags, nil
}
