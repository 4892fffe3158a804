package agentskills

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wellknown-dev/discovery/internal/httpx"
	"github.com/wellknown-dev/discovery/internal/jsonx"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Well-known index paths, probed in this order.
const (
	IndexPath       = "/.well-known/agent-skills/index.json" // v0.2.0
	LegacyIndexPath = "/.well-known/skills/index.json"       // v0.1.0
)

// SchemaV020 is the $schema of a v0.2.0 index. It is an identifier: compared as a
// string, never downloaded.
const SchemaV020 = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"

// Index versions.
const (
	V010        = "0.1.0"         // {name, description, files[]}; no digests
	V020        = "0.2.0"         // {name, type, description, url, digest}
	V020Interim = "0.2.0-interim" // "version": "0.2.0" with files[{path, digest}] (Feb 2026 draft)
)

// Entry types of a v0.2.0 index.
const (
	TypeSkillMD = "skill-md" // one SKILL.md
	TypeArchive = "archive"  // a packed skill folder (.tar.gz or .zip)
)

// Index is a parsed well-known skills index. Every string in it was published by the
// site: untrusted data, to show as such, never instructions.
type Index struct {
	URL     string // the index URL, the base every entry URL was resolved against
	Version string // V010, V020 or V020Interim
	// Digest is the digest ([Digest]) of the index bytes as served: what a lock records
	// and what a Trust Manifest beside the index signs. ParseIndex leaves it ""; the
	// discovery Client sets it on the indexes it fetches.
	Digest      string
	Skills      []IndexEntry
	Diagnostics []Diagnostic // entries skipped, fields ignored, versions guessed; at most maxDiagsPerCode of a code, then one that counts the rest

	perCode map[string]int // while parsing: diagnostics of each code so far
	catalog string         // while parsing: the listKeys key of the entries, in an index without "skills"
}

// MaxIndexEntries is how many entries of an index ParseIndex reads (in the order
// listed): published indexes list a few hundred skills at most, and every entry read
// costs memory whatever its size in the document.
const MaxIndexEntries = 4096

// maxDiagsPerCode is how many diagnostics of one code an Index lists: an index of
// thousands of alike entries gets a count of the rest, not thousands of lines (nor
// the memory they take).
const maxDiagsPerCode = 32

// IndexEntry is one skill of an index.
type IndexEntry struct {
	Name        string
	Description string
	Type        string      // TypeSkillMD or TypeArchive (v0.1.0 entries are TypeSkillMD)
	URL         string      // absolute URL of the SKILL.md or the archive
	Digest      string      // "sha256:..." of the artifact at URL; "" for v0.1.0, which has none
	Files       []IndexFile // v0.1.0 and interim: every file of the skill, SKILL.md first
}

// IndexFile is one file listed by a v0.1.0 or interim entry.
type IndexFile struct {
	Path   string // relative to the skill folder
	URL    string // absolute
	Digest string // interim only
}

// HasDigests reports whether the entry publishes digests for all its content, so that
// a fetch can be verified against them. It says nothing of a fetch that happened:
// v0.1.0 entries have none, so label their content unverified.
func (e IndexEntry) HasDigests() bool {
	if len(e.Files) == 0 {
		return e.Digest != ""
	}
	// A file list (interim entries): every file needs its own digest. Digest is then
	// the SKILL.md's and says nothing of the others.
	for _, f := range e.Files {
		if f.Digest == "" {
			return false
		}
	}
	return len(e.Files) > 0
}

type rawIndex struct {
	Schema  *string // nil when absent or null
	Version string  // "version" as written: a string, or a number's digits ("version": 1)
}

type rawEntry struct {
	Name        any             `json:"name"`
	Description any             `json:"description"`
	Type        text            `json:"type"`
	URL         text            `json:"url"`
	Digest      rawDigest       `json:"digest"`
	SHA256      text            `json:"sha256"` // a bare hex digest, seen instead of "digest"
	Files       json.RawMessage `json:"files"`

	fields map[string]json.RawMessage // every key as published, read only in Lenient mode
	key    string                     // the entry's key when "skills" is an object keyed by name
}

// text is a string member of an entry. Any other JSON value ("url": ["a", "b"],
// "type": 2) reads as empty, so that the entry is judged on its other members (and
// skipped for want of a url, when it needs one) instead of as "not an object".
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) != nil {
		s = "" // the last of duplicate keys wins, as with a string
	}
	*t = text(s)
	return nil
}

// readTop reads the index's $schema and "version" from its members, whatever the JSON
// type of the others. A $schema that is not a string is no identifier ParseIndex
// knows; a "version" written as a number ("version": 1) reads as its digits. Keys match
// as encoding/json matches struct fields: the exact key, else any case.
func readTop(top map[string]json.RawMessage) (rawIndex, error) {
	var raw rawIndex
	if m := topMember(top, "$schema"); m != nil && string(bytes.TrimSpace(m)) != "null" {
		var s string
		if json.Unmarshal(m, &s) != nil {
			return raw, fmt.Errorf("%w: $schema is not a string; not processed", ErrUnknownSchema)
		}
		raw.Schema = &s
	}
	if m := bytes.TrimSpace(topMember(top, "version")); len(m) > 0 {
		var n json.Number
		if json.Unmarshal(m, &raw.Version) != nil && json.Unmarshal(m, &n) == nil {
			raw.Version = n.String()
		}
	}
	return raw, nil
}

// topMember returns top[key], else the value of the least key (in byte order) equal
// to key in any case; nil when there is none.
func topMember(top map[string]json.RawMessage, key string) json.RawMessage {
	if m, ok := top[key]; ok {
		return m
	}
	best, found := "", false
	for k := range top {
		if strings.EqualFold(k, key) && (!found || k < best) {
			best, found = k, true
		}
	}
	if !found {
		return nil
	}
	return top[best]
}

// ParseIndex parses a skills index fetched from indexURL. It decides the version from
// the body, not the path: $schema SchemaV020 is v0.2.0; an unknown $schema is
// ErrUnknownSchema (warn and do not process, as the RFC says); no $schema is v0.1.0 (or
// the interim draft when "version" is "0.2.0"). A document with no "skills" array is
// ErrNotIndex, as is an A2A agent card; the error never quotes the document.
//
// Lenient mode reads, each with a Warning diagnostic, the deviations seen in published
// indexes whose meaning is clear:
//
//   - the index: a $schema that spells the v0.2.0 identifier another way (another
//     agentskills.io host or path, http, a trailing slash, the version in "version", a
//     schema file in the discovery RFC's own GitHub repository, versioned 0.2 or not
//     versioned at all);
//     "skills" as an object, either keyed by skill name or holding groups of entries;
//     no "skills" but a catalog's list ("items", "entries", "results", "data"), or a
//     document that is itself an array, of which only the entries that point at a skill
//     file or folder themselves, and have no type other than a skill's, are read.
//   - v0.2.0 entries: type "skill", or any type when the url names a SKILL.md ("md",
//     "claude-code"), for skill-md; a digest written as an object ({"sha256": "<hex>"})
//     or as a bare "sha256" field; v0.2.0-shaped entries in an index without $schema.
//   - the skill name: when "name" is missing or a display name ("Field Notes"), a valid
//     skill name given in "id", "slug", "skill", "skill_name" and the like, the
//     entry's key, or the folder of the SKILL.md its "url" names (".../audity/SKILL.md");
//     a valid "name" always wins. The description, when "description" is missing, from
//     "summary".
//   - v0.1.0 and interim entries: no description; file paths prefixed with the skill's
//     folder, or written as absolute URLs (read from the folder of the SKILL.md URL);
//     unsafe paths other than the skill file's, dropped and never fetched; and,
//     without "files", the skill located by the rest of the entry, in this order: any
//     value whose last path segment is SKILL.md (any case, under any key, nested one
//     level at most; or its plain-text twin SKILL.txt); a Markdown file under a path-,
//     file- or entry-like key, or named after the skill ("<name>.md") under "url"; a folder
//     named after the skill under a path-, dir-, folder- or source-like key; else, when
//     the entry has a valid skill name and points at nothing else (no URL or path, no
//     type other than a skill's, no JSON Schema of a tool's input), the v0.1.0
//     convention <index dir>/<name>/SKILL.md. Nothing verifies these files: the
//     warnings say so. An archive under a URL-like key with its digest under the key of
//     the same stem ("archive_url" and "archive_sha256") is an archive entry verified by
//     that digest; an archive without one is not read, and a relative "entrypoint"
//     beside an archive is a path inside it, never a file of the site. An entry that
//     points only at other resources (pages, APIs, MCP endpoints, a relative link under
//     "url") is not a skill and is skipped; an index of such entries is ErrNotIndex.
//
// Strict mode refuses all of these. A lowercase skill.md listed instead of SKILL.md is
// accepted with a warning in both modes. In both modes too, a member of an unexpected
// JSON type does not make the document unreadable: a "version" written as a number
// reads as its digits, an entry's "url", "type" or "sha256" that is not a string as
// absent, and a $schema that is not a string is ErrUnknownSchema.
//
// In Lenient mode a byte order mark, comments and trailing commas (JSON as editors
// write it) are read as if absent, with a "json" warning. A digest in upper case is
// read in lower case. A skill-md entry (or an interim file)
// that gives no digest, or a placeholder where one should be ("sha256:TODO",
// "sha256:c4d5e6f7..."), is read as v0.1.0 entries are: without a digest, with an
// "unverified" warning, so that whoever fetches it labels it unverified
// ([IndexEntry.HasDigests] is false). An archive is never read without its digest.
//
// An entry is skipped, with a diagnostic, when it cannot be used safely: an unknown
// type, a skill-md entry whose url names a file that is not Markdown (llms.txt,
// openapi.json, a page) or no file at all (a path ending in "/", a GitHub repository
// page), a digest that cannot be used but is one (another algorithm,
// hex of another length: never dropped to read the entry unverified), a URL that is
// not https (http only on loopback) or carries userinfo, a URL on this machine or a
// private network (localhost, 127.0.0.1, 10.x, fd00::/8...) in an index that is not
// there itself, an unsafe skill name or skill file path. Strict mode skips every entry without a valid digest.
func ParseIndex(data []byte, indexURL string, mode Mode) (*Index, error) {
	base, err := url.Parse(indexURL)
	if err != nil || !base.IsAbs() {
		return nil, fmt.Errorf("agentskills: index URL %s is not absolute", quoteURL(indexURL))
	}
	doc, err := decodeIndex(data, mode)
	if err != nil {
		return nil, err
	}
	ix := &Index{URL: base.String()}
	if doc.relaxed != "" {
		ix.diag(Warning, "json", "", "not strict JSON: "+doc.relaxed+"; read as if absent (Strict mode refuses it: publish plain JSON)")
	}
	items, ok := ix.entries(doc.top["skills"], mode)
	switch {
	case doc.list != nil:
		items, ok = ix.catalogList(catalogTop, "", doc.list)
	case !ok && doc.top["skills"] == nil && mode != Strict:
		items, ok = ix.catalogEntries(doc.top)
	}
	if !ok {
		return nil, fmt.Errorf("%w: no \"skills\" array", ErrNotIndex)
	}
	if err := ix.setVersion(doc.raw, mode); err != nil {
		return nil, err
	}
	items = ix.boundEntries(items)
	located, why := ix.readEntries(items, base, mode)
	if err := ix.checkSkillsFound(len(items), located, why); err != nil {
		return nil, err
	}
	ix.summarise()
	ix.catalog = ""
	return ix, nil
}

// indexDoc is an index document decoded, before its entries are read.
type indexDoc struct {
	top     map[string]json.RawMessage
	list    json.RawMessage // Lenient mode: the document is an array, read as a catalog's list
	raw     rawIndex
	relaxed string // the deviations from strict JSON read as if absent, described; "" for none
}

// decodeIndex decodes the JSON of an index: one object (or, in Lenient mode, one
// array), hand-written JSON relaxed outside Strict mode, and not an A2A agent card.
func decodeIndex(data []byte, mode Mode) (indexDoc, error) {
	var doc indexDoc
	if mode != Strict && !json.Valid(data) {
		// Hand-written JSON: a byte order mark, comments, trailing commas are read as
		// if absent, with a warning; anything else is the decoder's error below.
		if std, devs, ok := jsonx.Relax(data); ok && json.Valid(std) {
			data, doc.relaxed = std, jsonx.Describe(devs)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t := bytes.TrimLeft(data, " \t\r\n"); mode != Strict && len(t) > 0 && t[0] == '[' {
		if err := dec.Decode(&doc.list); err != nil {
			return indexDoc{}, fmt.Errorf("%w: not JSON: %v", ErrNotIndex, jsonMessage(err))
		}
	} else if err := dec.Decode(&doc.top); err != nil {
		return indexDoc{}, fmt.Errorf("%w: not a JSON object: %v", ErrNotIndex, jsonMessage(err))
	}
	if dec.More() {
		return indexDoc{}, fmt.Errorf("%w: data after the JSON object", ErrNotIndex)
	}
	raw, err := readTop(doc.top)
	if err != nil {
		return indexDoc{}, err
	}
	doc.raw = raw
	top := doc.top
	if top["capabilities"] != nil && (top["protocolVersion"] != nil || top["defaultInputModes"] != nil || top["preferredTransport"] != nil) {
		return indexDoc{}, fmt.Errorf("%w: an A2A agent card, whose \"skills\" are the agent's capabilities", ErrNotIndex)
	}
	return doc, nil
}

// setVersion sets ix.Version from the index's $schema and "version"; an unknown
// $schema is an error.
func (ix *Index) setVersion(raw rawIndex, mode Mode) error {
	switch {
	case raw.Schema != nil && *raw.Schema == SchemaV020:
		ix.Version = V020
	case raw.Schema != nil && mode != Strict && schemaVariant(*raw.Schema, raw.Version):
		ix.Version = V020
		ix.diag(Warning, "schema", "/$schema", "$schema "+quoteURL(*raw.Schema)+" is a variant spelling of "+SchemaV020+"; read as v0.2.0")
	case raw.Schema != nil:
		return fmt.Errorf("%w: %s (known: %s); not processed", ErrUnknownSchema, quoteURL(*raw.Schema), SchemaV020)
	case raw.Version == "0.2.0":
		ix.Version = V020Interim
	default:
		ix.Version = V010
	}
	return nil
}

// boundEntries returns the entries that are read: the first MaxIndexEntries, with a
// warning for an empty list and for a longer one.
func (ix *Index) boundEntries(items []rawItem) []rawItem {
	if len(items) == 0 {
		// "skills": [] is valid, and says nothing: a placeholder, or a generator that
		// found no skills. Say so, rather than answer an index without a word.
		ix.diag(Warning, "empty", "/skills", "the index lists no skills")
	}
	if len(items) > MaxIndexEntries {
		ix.diag(Warning, "limit", "/skills", fmt.Sprintf("the index lists %d entries; only the first %d are read", len(items), MaxIndexEntries))
		items = items[:MaxIndexEntries]
	}
	return items
}

// readEntries reads every entry into ix.Skills. located reports that some entry is
// shaped like a skill entry or locates a skill; why collects, once each, why the
// others are not skill entries.
func (ix *Index) readEntries(items []rawItem, base *url.URL, mode Mode) (located bool, why []string) {
	for _, it := range items {
		var e rawEntry
		if err := json.Unmarshal(it.msg, &e); err != nil {
			ix.diag(Error, "entry", it.at, "entry is not an object; skipped")
			continue
		}
		if mode != Strict {
			_ = json.Unmarshal(it.msg, &e.fields)
			e.key = it.key
		}
		entry, ok, notSkill := ix.entry(it.at, e, base, mode)
		located = located || notSkill == ""
		if notSkill != "" && !slices.Contains(why, notSkill) {
			why = append(why, notSkill)
		}
		if ok {
			ix.Skills = append(ix.Skills, entry)
		}
	}
	return located, why
}

// checkSkillsFound returns ErrNotIndex when no entry was read and the document is not
// an index after all: a catalog whose entries were a guess, or a v0.1.0 document
// whose n entries neither have an index entry's shape nor locate a skill.
func (ix *Index) checkSkillsFound(n int, located bool, why []string) error {
	if len(ix.Skills) == 0 && ix.catalog != "" {
		// The entries were a guess (a catalog's "items"): none locates a skill file.
		reason := "none is a skill entry"
		if len(why) > 0 {
			reason = "entries " + strings.Join(why, "; ")
		}
		return fmt.Errorf("%w: no \"skills\" array, and %s", ErrNotIndex, catalogWhy(ix.catalog, reason))
	}
	if len(ix.Skills) == 0 && n > 0 && ix.Version == V010 && !located {
		// No entry has the shape of any version nor locates a skill file: a different
		// document that happens to have "skills" (pages, API routes, MCP endpoints).
		return fmt.Errorf("%w: no entry lists files (v0.1.0), has type, url and digest (v0.2.0) or names a skill file or folder; entries %s", ErrNotIndex, strings.Join(why, "; "))
	}
	return nil
}

// v020Shaped reports an entry with the fields of a v0.2.0 entry: url and a digest in
// any of the spellings ParseIndex reads (a missing type is the caller's to judge).
func (e rawEntry) v020Shaped() bool {
	return e.URL != "" && e.hasDigest()
}

// hasDigest reports a digest written in any of the spellings ParseIndex reads: an entry
// that publishes one is verified with it, or not read at all.
func (e rawEntry) hasDigest() bool { return e.Digest.present() || e.SHA256 != "" }

func (ix *Index) diag(sev Severity, code, at, msg string) {
	if ix.perCode == nil {
		ix.perCode = make(map[string]int)
	}
	ix.perCode[code]++
	if ix.perCode[code] > maxDiagsPerCode {
		return // counted by summarise
	}
	ix.Diagnostics = append(ix.Diagnostics, Diagnostic{Severity: sev, Code: code, Where: at, Message: msg})
}

// summarise ends the diagnostics with, for each code that had more than
// maxDiagsPerCode, one that counts those not listed (with the severity of the last
// listed, as alike entries get alike diagnostics).
func (ix *Index) summarise() {
	for i := 0; i < len(ix.Diagnostics); i++ {
		d := ix.Diagnostics[i]
		n := ix.perCode[d.Code]
		if n <= maxDiagsPerCode {
			continue
		}
		delete(ix.perCode, d.Code) // once per code
		last := d
		for _, e := range ix.Diagnostics[i:] {
			if e.Code == d.Code {
				last = e
			}
		}
		ix.Diagnostics = append(ix.Diagnostics, Diagnostic{Severity: last.Severity, Code: d.Code, Where: "/skills",
			Message: fmt.Sprintf("%d more diagnostics of this kind, not listed", n-maxDiagsPerCode)})
	}
	ix.perCode = nil
}

// entry checks and resolves one entry; false means skipped (with a diagnostic).
// notSkill says, in general terms, why the entry is not a skill entry: "" for one
// shaped like a skill entry of some version or, in Lenient mode, one that locates a
// skill, whether or not it was then read.
func (ix *Index) entry(at string, e rawEntry, base *url.URL, mode Mode) (out IndexEntry, ok bool, notSkill string) {
	name, _ := e.Name.(string)
	desc, _ := e.Description.(string)
	if mode != Strict {
		name = ix.skillName(at, e, name)
		if desc == "" {
			desc = ix.summary(at, name, e)
		}
	}
	version := ix.Version
	shaped := len(e.Files) > 0 || e.v020Shaped()
	var loc locator
	if !shaped && version != V020 && mode != Strict {
		loc = e.locate(name)
		if ix.catalog != "" {
			loc = loc.inCatalog(e)
		}
	}
	switch {
	case shaped:
	case mode == Strict:
		notSkill = "list no files"
	default:
		notSkill = loc.class
	}
	if !ix.entryNameOK(at, name, mode) || !ix.entryDescriptionOK(at, name, desc, mode) {
		return IndexEntry{}, false, notSkill
	}
	out = IndexEntry{Name: name, Description: desc, Type: TypeSkillMD}

	if !shaped && version != V020 && mode != Strict {
		// No "files" and no v0.2.0 fields: the skill located by the rest of the entry,
		// verified by the digest the entry publishes, if it publishes one.
		digest := ""
		if e.hasDigest() {
			if digest, ok = ix.entryDigest(at, name, e, mode, false); !ok {
				return IndexEntry{}, false, notSkill
			}
		}
		out, ok = ix.locatedEntry(at, out, loc, base, digest)
		return out, ok, notSkill
	}
	if version != V020 && len(e.Files) == 0 && e.v020Shaped() {
		if mode == Strict {
			ix.diag(Error, "version", at, "v0.2.0-shaped entry in an index without $schema; skipped")
			return IndexEntry{}, false, notSkill
		}
		ix.diag(Warning, "version", at, "v0.2.0-shaped entry in an index without $schema; read as v0.2.0")
		version = V020
	}
	if version == V020 {
		out, ok = ix.artifactEntry(at, out, e, base, mode)
	} else { // V010, V020Interim: a file list under <index dir>/<name>/
		out, ok = ix.fileListEntry(at, out, e, base, version, mode)
	}
	if !ok {
		return IndexEntry{}, false, notSkill
	}
	return out, true, notSkill
}

// entryNameOK checks an entry's name: present, a safe path segment, and (in Strict
// mode; a warning otherwise) a valid skill name.
func (ix *Index) entryNameOK(at, name string, mode Mode) bool {
	if name == "" {
		ix.diag(Error, "entry", at, "entry has no name; skipped")
		return false
	}
	if strings.ContainsAny(name, "/\\") || name == "." || name == ".." || !utf8.ValidString(name) {
		ix.diag(Error, "name", at, "entry name "+quoteDoc(name)+" is not a safe path segment; skipped")
		return false
	}
	for _, msg := range NameProblems(name, true) {
		msg = secrets.Scrub(msg) // it quotes the name
		if mode == Strict {
			ix.diag(Error, "name", at, msg+"; skipped")
			return false
		}
		ix.diag(Warning, "name", at, msg)
	}
	return true
}

// entryDescriptionOK checks an entry's description: present and at most
// MaxDescriptionLen characters (in Strict mode; a warning otherwise).
func (ix *Index) entryDescriptionOK(at, name, desc string, mode Mode) bool {
	if desc == "" {
		if mode == Strict {
			ix.diag(Error, "description", at, "entry "+quoteDoc(name)+" has no description; skipped")
			return false
		}
		ix.diag(Warning, "description", at, "entry "+quoteDoc(name)+" has no description")
	}
	if l := utf8.RuneCountInString(desc); l > MaxDescriptionLen {
		if mode == Strict {
			ix.diag(Error, "description", at, fmt.Sprintf("description is %d characters, over %d; skipped", l, MaxDescriptionLen))
			return false
		}
		ix.diag(Warning, "description", at, fmt.Sprintf("description is %d characters, over %d", l, MaxDescriptionLen))
	}
	return true
}

// artifactEntry reads a v0.2.0 entry into out: its type, its url (a skill file or an
// archive) and its digest.
func (ix *Index) artifactEntry(at string, out IndexEntry, e rawEntry, base *url.URL, mode Mode) (IndexEntry, bool) {
	name := out.Name
	switch {
	case e.Type == TypeSkillMD || e.Type == TypeArchive:
		out.Type = string(e.Type)
	case mode != Strict && (e.Type == typeSkill || plainlySkillFile(string(e.URL), name)):
		// {"type": "skill"}, {"type": "md", "url": ".../SKILL.md"}, {"type": "prompt",
		// "url": ".../<name>.md"}: a skill file all the same, whatever the type says.
		typ := "has type " + quoteDoc(string(e.Type))
		if e.Type == "" {
			typ = "has no type"
		}
		ix.diag(Warning, "type", at, fmt.Sprintf("entry %s %s and its url names a skill file; read as %s", quoteDoc(name), typ, TypeSkillMD))
		out.Type = TypeSkillMD
	default:
		ix.diag(Warning, "unknown-type", at, fmt.Sprintf("entry %s has type %s; skipped", quoteDoc(name), quoteDoc(string(e.Type))))
		return IndexEntry{}, false
	}
	if what := notSkillFile(string(e.URL)); out.Type == TypeSkillMD && what != "" {
		// "skill-md" beside /llms.txt, /openapi.json or a page ("/operators/"): a
		// site's other resources listed as skills. A SKILL.md is a Markdown file.
		ix.diag(Error, "url", at, fmt.Sprintf("entry %s is a skill-md entry whose url names %s, not a skill file; skipped", quoteDoc(name), what))
		return IndexEntry{}, false
	}
	// A skill-md entry without a digest (or with a placeholder) is read in Lenient
	// mode as v0.1.0 entries are: unverified, and labelled so. An archive never is.
	digest, ok := ix.entryDigest(at, name, e, mode, out.Type == TypeSkillMD)
	if !ok {
		return IndexEntry{}, false
	}
	u, why := resolveArtifact(base, string(e.URL))
	if why != "" {
		ix.diag(Error, "url", at, "entry "+quoteDoc(name)+": "+why+"; skipped")
		return IndexEntry{}, false
	}
	out.URL, out.Digest = u, digest
	return out, true
}

// fileListEntry reads a v0.1.0 or interim entry into out: its file list, under
// <index dir>/<name>/, SKILL.md first (with digests in an interim index).
func (ix *Index) fileListEntry(at string, out IndexEntry, e rawEntry, base *url.URL, version string, mode Mode) (IndexEntry, bool) {
	name := out.Name
	if len(e.Files) == 0 {
		ix.diag(Error, "files", at, "entry "+quoteDoc(name)+" has no \"files\"; skipped")
		return IndexEntry{}, false
	}
	digests := version == V020Interim
	if digests && mode != Strict && stringList(e.Files) {
		// "version": "0.2.0" beside v0.1.0 file lists (paths, no digests).
		ix.diag(Warning, "files", at+"/files", "entry "+quoteDoc(name)+" lists plain paths in an interim index; read as v0.1.0 files, without digests")
		digests = false
	}
	files, ok := ix.files(at, name, e.Files, base, digests, mode)
	if !ok {
		return IndexEntry{}, false
	}
	out.Files = files
	out.URL = files[0].URL
	if digests {
		out.Digest = files[0].Digest
	}
	return out, true
}

// files checks a v0.1.0 (strings) or interim ({path, digest}) file list and resolves
// each file to <index dir>/<name>/<path>, SKILL.md first.
func (ix *Index) files(at, name string, raw json.RawMessage, base *url.URL, digests bool, mode Mode) ([]IndexFile, bool) {
	var list []IndexFile
	if digests {
		var fs []struct {
			Path   string `json:"path"`
			Digest string `json:"digest"`
		}
		if err := json.Unmarshal(raw, &fs); err != nil {
			ix.diag(Error, "files", at+"/files", "files is not a list of {path, digest}; skipped")
			return nil, false
		}
		for _, f := range fs {
			list = append(list, IndexFile{Path: f.Path, Digest: f.Digest})
		}
	} else {
		var fs []string
		if err := json.Unmarshal(raw, &fs); err != nil {
			ix.diag(Error, "files", at+"/files", "files is not a list of paths; skipped")
			return nil, false
		}
		for _, f := range fs {
			list = append(list, IndexFile{Path: f})
		}
	}
	if len(list) == 0 {
		ix.diag(Error, "files", at+"/files", "entry "+quoteDoc(name)+" lists no files; skipped")
		return nil, false
	}
	dir := base.ResolveReference(&url.URL{Path: name + "/"}) // String escapes it
	if mode != Strict && !digests {
		if d := ix.urlFolder(at, name, list); d != nil {
			dir = d
		}
		ix.stripFolder(at, name, list)
	}
	if mode != Strict {
		list = ix.dropUnsafeFiles(at, list)
	}
	skill, lower := -1, -1
	for i := range list {
		f := &list[i]
		if why := unsafeFilePath(f.Path); why != "" {
			ix.diag(Error, "files", fmt.Sprintf("%s/files/%d", at, i), "file "+quoteDoc(f.Path)+": "+why+"; entry skipped")
			return nil, false
		}
		if digests && !ValidDigest(f.Digest) && mode != Strict && placeholderDigest(f.Digest) {
			ix.unverified(fmt.Sprintf("%s/files/%d", at, i), name, f.Digest)
			f.Digest = ""
		} else if digests && !ValidDigest(f.Digest) {
			ix.diag(Error, "digest", fmt.Sprintf("%s/files/%d", at, i), "file "+quoteDoc(f.Path)+" has no valid digest; entry skipped")
			return nil, false
		}
		f.URL = dir.ResolveReference(&url.URL{Path: f.Path}).String()
		switch f.Path {
		case SkillFile:
			skill = i
		case lowerSkillFile:
			lower = i
		}
	}
	if skill < 0 && lower >= 0 {
		// The Agent Skills guidance accepts a lowercase skill.md with a warning, in both modes.
		ix.diag(Warning, "files", at+"/files", "entry "+quoteDoc(name)+" lists skill.md, not SKILL.md; read as its SKILL.md")
		skill = lower
	}
	if skill < 0 {
		ix.diag(Error, "files", at+"/files", "entry "+quoteDoc(name)+" does not list SKILL.md; skipped")
		return nil, false
	}
	list[0], list[skill] = list[skill], list[0]
	if u, why := resolveArtifact(base, list[0].URL); why != "" || u == "" {
		ix.diag(Error, "url", at, "entry "+quoteDoc(name)+": "+why+"; skipped")
		return nil, false
	}
	return list, true
}

// unsafeFilePath says why an index file path is refused, or "": relative, "/"
// separators, no ".." or empty segment, printable ASCII without \ ? # [ ].
func unsafeFilePath(p string) string {
	switch {
	case p == "":
		return "empty path"
	case strings.HasPrefix(p, "/"):
		return "absolute path"
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c < 0x21 || c > 0x7e || strings.IndexByte(`\?#[]`, c) >= 0 {
			return "character outside printable ASCII or one of \\ ? # [ ]"
		}
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "empty, . or .. segment"
		}
	}
	return ""
}

// resolveArtifact resolves an entry URL against the index URL (RFC 3986 §5) and checks
// that it is usable: https, or http on a loopback host, without userinfo, and on this
// machine or a private network only when the index is too.
func resolveArtifact(base *url.URL, ref string) (string, string) {
	if ref == "" {
		return "", "no url"
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", "url does not parse"
	}
	u := base.ResolveReference(r)
	switch {
	case u.User != nil:
		return "", "url carries userinfo"
	case u.Scheme == "https":
	case u.Scheme == "http" && httpx.IsLoopbackHost(u.Hostname()):
	default:
		return "", "url is not https"
	}
	if u.Host == "" {
		return "", "url has no host"
	}
	if httpx.IsLocalHost(u.Hostname()) && !httpx.IsLocalHost(base.Hostname()) {
		// "http://127.0.0.1:3000/r/x-skill.md" in a published index: the publisher's
		// development server, and on the reader's machine some other service. Only an
		// index on this machine or a private network may point there.
		return "", "url points at this machine or a private network (a development address?) from an index on a public host"
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), ""
}

// jsonMessage renders an encoding/json error; its messages name types and single
// characters, and are scrubbed all the same.
func jsonMessage(err error) string {
	return secrets.Scrub(strings.TrimPrefix(err.Error(), "json: "))
}
