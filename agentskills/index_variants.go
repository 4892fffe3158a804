package agentskills

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Index shapes seen in published indexes that deviate from the RFC but whose meaning
// is clear. Lenient mode reads them with a warning; Strict mode refuses them, except
// the lowercase skill.md, which the Agent Skills guidance accepts with a warning in
// both modes.

// typeSkill is an entry type written instead of TypeSkillMD.
const typeSkill = "skill"

// lowerSkillFile is the lowercase spelling of SkillFile.
const lowerSkillFile = "skill.md"

// rawDigest is an entry's "digest" as written: a string ("sha256:<hex>"), or an
// object ({"sha256": "<hex>"} or {"algorithm": "sha256", "value": "<hex>"}).
type rawDigest struct {
	text   string // the string form
	object bool   // written as an object
	hex    string // the object's sha256 value
	// foreign: an object with no sha256 value but other text, such as a digest of
	// another algorithm ({"sha512": ...}): a digest all the same, never a placeholder.
	foreign bool
}

// UnmarshalJSON accepts a string, an object or null; any other value leaves the
// digest empty, so that the entry is skipped for want of a valid digest.
func (d *rawDigest) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '"':
		return json.Unmarshal(b, &d.text)
	case len(b) > 0 && b[0] == '{':
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return nil
		}
		d.object = true
		if v, ok := m["sha256"].(string); ok {
			d.hex = v
		} else if alg, _ := m["algorithm"].(string); strings.EqualFold(alg, "sha256") {
			d.hex, _ = m["value"].(string)
		} else {
			for _, v := range m {
				if t, ok := v.(string); ok && strings.TrimSpace(t) != "" {
					d.foreign = true
				}
			}
		}
	}
	return nil
}

// present reports whether a digest was written in any form.
func (d rawDigest) present() bool { return d.text != "" || d.object }

// entryDigest returns the entry's digest as "sha256:<hex>": the "digest" string; in
// Lenient mode also a digest object or a bare "sha256" field, with a warning. It
// records a diagnostic and returns false when no valid digest is found.
func (ix *Index) entryDigest(at, name string, e rawEntry, mode Mode, unverifiedOK bool) (string, bool) {
	d, how := e.Digest.text, ""
	switch {
	case d != "":
	case e.Digest.object:
		d, how = withPrefix(e.Digest.hex), "an object"
	case e.SHA256 != "":
		d, how = withPrefix(string(e.SHA256)), "a bare \"sha256\" field"
	}
	if how != "" && mode == Strict {
		ix.diag(Error, "digest", at, "entry "+quoteDoc(name)+" gives its digest as "+how+", not a \"digest\" string; skipped")
		return "", false
	}
	if mode != Strict && !ValidDigest(d) && ValidDigest(strings.ToLower(d)) {
		ix.diag(Warning, "digest", at, "entry "+quoteDoc(name)+" writes its digest in upper case; read in lower case")
		d = strings.ToLower(d)
	}
	if !ValidDigest(d) {
		if unverifiedOK && mode != Strict && !e.Digest.foreign && placeholderDigest(d) {
			ix.unverified(at, name, d)
			return "", true
		}
		ix.diag(Error, "digest", at, "entry "+quoteDoc(name)+" has no valid digest (sha256: and 64 lowercase hex digits); it cannot be verified, so it is skipped")
		return "", false
	}
	if how != "" {
		ix.diag(Warning, "digest", at, "entry "+quoteDoc(name)+" gives its digest as "+how+"; read as a \"digest\" string")
	}
	return d, true
}

// unverified reports, in Lenient mode, an entry (or a file of one) that should carry a
// digest and carries none: it is read as v0.1.0 entries are, its content unverified.
func (ix *Index) unverified(at, name, d string) {
	what := "no digest"
	if d != "" && d != DigestPrefix {
		what = "a placeholder digest " + quoteDoc(d)
	}
	ix.diag(Warning, "unverified", at, "entry "+quoteDoc(name)+" gives "+what+" where a sha256 digest is required; read in lenient mode, its content cannot be verified and is labelled unverified")
}

// placeholderDigest reports a digest field that holds no digest: empty, or text that
// is not hex after "sha256:" ("sha256:TODO", "<sha256>", "sha256:..."). A digest of
// another algorithm ("sha512:...") or hex of the wrong length is a digest, only not one
// that can be used: entries with those are skipped, never read unverified, so that a
// published digest is never dropped.
func placeholderDigest(d string) bool {
	h := strings.TrimSpace(d)
	if len(h) >= len(DigestPrefix) && strings.EqualFold(h[:len(DigestPrefix)], DigestPrefix) {
		h = h[len(DigestPrefix):]
	}
	if h == "" {
		return true
	}
	if strings.Contains(h, ":") {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i] | 0x20; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return true
		}
	}
	return false
}

// withPrefix adds "sha256:" to a bare hex digest.
func withPrefix(h string) string {
	if strings.HasPrefix(h, DigestPrefix) {
		return h
	}
	return DigestPrefix + h
}

// stripFolder removes a leading "<name>/", or "<group>/.../<name>/", from v0.1 file
// paths when the list has no SKILL.md of its own but a "<prefix><name>/SKILL.md" (the
// paths were written from the skills folder or a folder of groups, such as
// "workflows/<name>/SKILL.md", not from the skill's folder), with a warning. Only files
// under that prefix lose it; the others stay as written.
func (ix *Index) stripFolder(at, name string, list []IndexFile) {
	prefix := ""
	for _, f := range list {
		switch {
		case f.Path == SkillFile || f.Path == lowerSkillFile:
			return
		case prefix == "" && (f.Path == name+"/"+SkillFile || f.Path == name+"/"+lowerSkillFile):
			prefix = name + "/"
		case prefix == "" && (strings.HasSuffix(f.Path, "/"+name+"/"+SkillFile) || strings.HasSuffix(f.Path, "/"+name+"/"+lowerSkillFile)):
			prefix = f.Path[:strings.LastIndex(f.Path, "/"+name+"/")+len(name)+2]
		}
	}
	if prefix == "" {
		return
	}
	for i := range list {
		list[i].Path = strings.TrimPrefix(list[i].Path, prefix)
	}
	ix.diag(Warning, "files", at+"/files", "entry "+quoteDoc(name)+" lists its files under "+quoteDoc(prefix)+"; read relative to the skill folder")
}

// urlFolder reads a v0.1.0 file list written as absolute URLs ("https://raw.example/
// skills/a/SKILL.md", ".../a/references/x.md"): the skill's folder is the folder of its
// SKILL.md URL, and the files under it lose that prefix (the others stay unsafe paths,
// dropped later), with a warning. nil when no file is a SKILL.md URL, or when the list
// also names a SKILL.md by a path: the skill's folder is then the index's, as the
// RFC places it, and the URLs are unsafe paths like any other.
func (ix *Index) urlFolder(at, name string, list []IndexFile) *url.URL {
	for _, f := range list {
		if !strings.Contains(f.Path, "://") && strings.EqualFold(lastSegment(f.Path), SkillFile) {
			return nil
		}
	}
	prefix := ""
	for _, f := range list {
		u, err := url.Parse(f.Path)
		if err == nil && u.IsAbs() && u.Host != "" && u.RawQuery == "" && u.Fragment == "" && strings.EqualFold(lastSegment(u.Path), SkillFile) {
			prefix = f.Path[:strings.LastIndexByte(f.Path, '/')+1]
			break
		}
	}
	dir, err := url.Parse(prefix)
	if prefix == "" || err != nil {
		return nil
	}
	for i := range list {
		if rest, ok := strings.CutPrefix(list[i].Path, prefix); ok && rest != "" {
			list[i].Path = rest
		}
	}
	ix.diag(Warning, "files", at+"/files", "entry "+quoteDoc(name)+" lists its files as URLs; read from the folder of its SKILL.md, "+quoteURL(prefix))
	return dir
}

// namesSkillFile reports a URL whose last path segment is SKILL.md, any case, or its
// plain-text twin SKILL.txt: a site on GitHub Pages publishes one because Jekyll turns
// a Markdown file with YAML front matter into an HTML page.
func namesSkillFile(ref string) bool {
	u, ok := reference(ref)
	return ok && skillFileName(lastSegment(u.Path))
}

// plainlySkillFile reports a URL that is plainly a skill file whatever the entry's type
// says: a SKILL.md or SKILL.txt, a Markdown file named after the skill ("<name>.md",
// with "_" and "-" read alike), one whose name says it is a skill ("<stem>-skill.md",
// "<stem>_skill.md", "<stem>.skill.md"), or a Markdown file a site publishes in its
// well-known skills folder (".../.well-known/agent-skills/<file>.md" or
// ".../.well-known/skills/<file>.md"), any case. Another Markdown file ("readme.md",
// "index.md"), in that folder or elsewhere, is not plainly one.
func plainlySkillFile(ref, name string) bool {
	if namesSkillFile(ref) {
		return true
	}
	u, ok := reference(ref)
	if !ok || notSkillFile(ref) != "" {
		return false
	}
	seg := strings.ToLower(lastSegment(u.Path))
	stem, isMD := strings.CutSuffix(seg, ".md")
	if !isMD || stem == "" || notSkillStem[stem] {
		return false
	}
	if name != "" && sameSkillName(stem, name) {
		return true
	}
	for _, suffix := range []string{"-skill", "_skill", ".skill"} {
		if s, ok := strings.CutSuffix(stem, suffix); ok && s != "" {
			return true
		}
	}
	return inSkillsFolder(u.Path)
}

// notSkillStem names the Markdown files that are a folder's own documents, never a
// skill: a README, an index, a licence, a changelog.
var notSkillStem = map[string]bool{"readme": true, "index": true, "license": true, "licence": true,
	"changelog": true, "contributing": true}

// sameSkillName reports a file stem that spells the skill's name, with "_" and "-"
// read alike ("search-posts.md" for a skill named "search_posts").
func sameSkillName(stem, name string) bool {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "_", "-") }
	return norm(stem) == norm(name)
}

// inSkillsFolder reports a path whose folder is a site's well-known skills folder,
// ".well-known/agent-skills" or ".well-known/skills", where a site publishes nothing
// but its skills.
func inSkillsFolder(p string) bool {
	dir := strings.ToLower(path.Dir(p))
	return strings.HasSuffix(dir, "/.well-known/agent-skills") || strings.HasSuffix(dir, "/.well-known/skills")
}

// skillTextFile is the plain-text spelling of SkillFile that sites serve raw.
const skillTextFile = "SKILL.txt"

// skillFileName reports a file name that is the skill file: SKILL.md or SKILL.txt, any case.
func skillFileName(seg string) bool {
	return strings.EqualFold(seg, SkillFile) || strings.EqualFold(seg, skillTextFile)
}

// notSkillFileExt is the extension of a file that is not a skill file (a SKILL.md is
// Markdown): the llms.txt, OpenAPI, sitemap, robots.txt and pages that sites list in an
// index as "skill-md" entries. A URL without an extension may be a skill file.
var notSkillFileExt = map[string]bool{".json": true, ".txt": true, ".xml": true, ".html": true, ".htm": true,
	".yaml": true, ".yml": true, ".toml": true, ".csv": true, ".js": true, ".pdf": true}

// notSkillFile says what a URL names when it cannot be a skill file: "a .json file"
// ("/llms.txt", "/openapi.json"), "a folder or page" (a path that ends in "/", or none:
// "https://example.com/#tools", "/operators/", "./"), a GitHub account, repository or
// folder page ("https://github.com/o/r", ".../tree/main/skills/x"). "" when it can be
// one: a SKILL.md or SKILL.txt, a Markdown file, a file without an extension.
func notSkillFile(ref string) string {
	u, ok := reference(ref)
	if !ok {
		return ""
	}
	seg := lastSegment(u.Path)
	if skillFileName(seg) {
		return ""
	}
	if githubPage(u) {
		return "a GitHub account, repository or folder page"
	}
	if seg == "" || seg == "." || seg == ".." {
		return "a folder or page"
	}
	i := strings.LastIndexByte(seg, '.')
	if i < 0 || !notSkillFileExt[strings.ToLower(seg[i:])] {
		return ""
	}
	return "a " + strings.ToLower(seg[i:]) + " file"
}

// githubPage reports the URL of an account's or a repository's page, or of a folder
// view, on GitHub ("https://github.com/o", "https://github.com/o/r",
// "https://github.com/o/r/tree/main/x"): HTML, never a file. A file's page (".../blob/
// main/SKILL.md") is read as given.
func githubPage(u *url.URL) bool {
	host := strings.ToLower(strings.TrimPrefix(strings.TrimSuffix(u.Hostname(), "."), "www."))
	if host != "github.com" {
		return false
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	return len(segs) <= 2 || segs[2] == "tree"
}

// schemaVariant reports a $schema that is clearly the v0.2.0 index identifier spelled
// another way: an http(s) URL on agentskills.io or one of its subdomains whose path,
// or the index's "version", says 0.2. Examples: "http://schemas.agentskills.io/
// discovery/0.2.0/schema.json/", "https://agentskills.io/schemas/v0.2.0/skills-index.json",
// "https://schemas.agentskills.io/discovery/schema.json" with "version": "0.2.0".
// Trailing slashes, case and "www." do not matter. A schema file in the discovery RFC's
// own repository on GitHub ("https://raw.githubusercontent.com/cloudflare/
// agent-skills-discovery-rfc/main/schemas/v0.2.0/index.schema.json") is a variant on the
// same terms, and so is one there that names no version at all, in its URL or the
// index's "version" (".../agent-skills-discovery-rfc/main/schema.json"): the RFC has
// published one $schema, v0.2.0's (a v0.1.0 index has none), so that is the one it can
// mean. A version other than 0.2 anywhere is not a variant. The URL is compared, never
// downloaded.
func schemaVariant(schema, version string) bool {
	u, err := url.Parse(strings.TrimSpace(schema))
	if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.User != nil {
		return false
	}
	host := strings.ToLower(strings.TrimPrefix(strings.TrimSuffix(u.Hostname(), "."), "www."))
	path := strings.ToLower(u.Path)
	switch {
	case host == "agentskills.io" || strings.HasSuffix(host, ".agentskills.io"):
		if !strings.Contains(path, "schema") && !strings.Contains(path, "discovery") && !strings.Contains(path, "index") {
			return false
		}
	case (host == "github.com" || host == "raw.githubusercontent.com") && strings.HasPrefix(path, rfcRepoPath):
		path = path[len(rfcRepoPath):]
		if !strings.Contains(path, "schema") {
			return false
		}
		if version == "" && !mentionsVersion(path) && !mentionsVersion(u.RawQuery) {
			return true
		}
	default:
		return false
	}
	return mentions02(path) || mentions02(strings.ToLower(u.RawQuery)) || strings.HasPrefix(strings.TrimPrefix(version, "v"), "0.2")
}

// rfcRepoPath is the path prefix, on github.com and raw.githubusercontent.com, of the
// repository of the Agent Skills discovery RFC.
const rfcRepoPath = "/cloudflare/agent-skills-discovery-rfc/"

// mentions02 reports a "0.2" version in s that is not part of a longer number:
// "0.2.0", "v0.2", "0.2.1"; not "10.2" or "0.20".
func mentions02(s string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], "0.2")
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isDigit(s[j-1]) && s[j-1] != '.'
		end := j + 3
		after := end == len(s) || !isDigit(s[end])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// mentionsVersion reports a version number in s: a digit, a dot and a digit ("0.1",
// "v1.0.0", "2.0"). A commit hash or a branch name is none.
func mentionsVersion(s string) bool {
	for i := 1; i+1 < len(s); i++ {
		if s[i] == '.' && isDigit(s[i-1]) && isDigit(s[i+1]) {
			return true
		}
	}
	return false
}

// stringList reports a JSON array of strings (v0.1.0 file paths).
func stringList(raw json.RawMessage) bool {
	var fs []string
	return json.Unmarshal(raw, &fs) == nil && len(fs) > 0
}

// dropUnsafeFiles removes, with a warning, the files of a v0.1.0 list whose paths are
// unsafe ("../../scripts/x.js", "/abs"), other than the skill file itself (an unsafe
// SKILL.md skips the entry, unless the list names one at a safe path too): they are
// never fetched, and the skill is read without them (Lenient mode only).
func (ix *Index) dropUnsafeFiles(at string, list []IndexFile) []IndexFile {
	safeSkill := false // a SKILL.md at a safe path: another, unsafe, one is just a file to drop
	for _, f := range list {
		if strings.EqualFold(f.Path, SkillFile) {
			safeSkill = true
		}
	}
	kept := list[:0:0]
	for i, f := range list {
		if why := unsafeFilePath(f.Path); why != "" && (safeSkill || !strings.EqualFold(lastSegment(f.Path), SkillFile)) {
			ix.diag(Warning, "files", fmt.Sprintf("%s/files/%d", at, i), "file "+quoteDoc(f.Path)+": "+why+"; not read")
			continue
		}
		kept = append(kept, f)
	}
	return kept
}

// The containers of entries. An index's entries are its "skills" array. Lenient mode
// also reads "skills" written as an object: keyed by skill name ({"pdf-tools": {...}})
// or holding groups of entries ({"payments": [...], "optional": [...]}).

// rawItem is one entry as published, with its JSON pointer and, in an object keyed by
// name, its key.
type rawItem struct {
	at, key string
	msg     json.RawMessage
}

// entries returns the entries of the index's "skills" member; false when it holds none
// in a shape the mode reads.
func (ix *Index) entries(raw json.RawMessage, mode Mode) ([]rawItem, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil {
			return nil, false
		}
		items := make([]rawItem, len(list))
		for i, m := range list {
			items[i] = rawItem{at: fmt.Sprintf("/skills/%d", i), msg: m}
		}
		return items, true
	}
	if mode == Strict || len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	members, ok := objectMembers(raw)
	if !ok {
		return nil, false
	}
	var items []rawItem
	groups, named := 0, 0
	for _, m := range members {
		at := "/skills/" + pointerToken(m.key)
		switch v := bytes.TrimSpace(m.value); {
		case len(v) > 0 && v[0] == '[':
			var list []json.RawMessage
			if json.Unmarshal(v, &list) != nil {
				continue
			}
			groups++
			for i, e := range list {
				items = append(items, rawItem{at: fmt.Sprintf("%s/%d", at, i), msg: e})
			}
		case len(v) > 0 && v[0] == '{':
			named++
			items = append(items, rawItem{at: at, key: m.key, msg: v})
		}
	}
	switch {
	case groups == 0 && named == 0:
		return nil, false
	case groups > 0:
		ix.diag(Warning, "skills", "/skills", fmt.Sprintf("\"skills\" is an object holding %d groups of entries, not an array; read the entries of every group", groups))
	default:
		ix.diag(Warning, "skills", "/skills", "\"skills\" is an object keyed by skill name, not an array; read each member as an entry")
	}
	return items, true
}

type member struct {
	key   string
	value json.RawMessage
}

// objectMembers returns the members of a JSON object in document order.
func objectMembers(raw json.RawMessage) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		k, _ := t.(string)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return nil, false
		}
		out = append(out, member{k, v})
	}
	return out, true
}

// maxKeyShown bounds the characters of a document's key in a diagnostic's location.
const maxKeyShown = 64

// pointerToken escapes a key of the document for the JSON pointer (RFC 6901) of a
// diagnostic. The key is document text: secrets are scrubbed, control, format and
// line-separating characters escaped (\u001b), and it is cut after maxKeyShown
// characters ("…"), so it can neither leak a token nor forge lines or terminal output.
func pointerToken(k string) string {
	k = secrets.Scrub(k)
	var b strings.Builder
	n := 0
	for _, r := range k {
		if n == maxKeyShown {
			b.WriteString("…")
			break
		}
		n++
		switch {
		case r == '~':
			b.WriteString("~0")
		case r == '/':
			b.WriteString("~1")
		case r < ' ' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == utf8.RuneError || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// The skill name. The RFC's "name" is the skill's name; published entries also give a
// display name there ("Field Notes") and the skill name under another key, or no
// "name" at all.

// nameKeys are the keys, compared by normKey, that may carry the skill name beside or
// instead of "name", in order of preference.
var nameKeys = []string{"id", "slug", "skill", "skillname", "skillid", "key", "handle", "identifier"}

// normKey lowercases a key and drops "_" and "-": "skill_name", "skillName" and
// "Skill-Name" are all "skillname".
func normKey(k string) string {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c == '_' || c == '-' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf {
			var b strings.Builder
			for _, r := range k {
				if r != '_' && r != '-' {
					b.WriteRune(unicode.ToLower(r))
				}
			}
			return b.String()
		}
	}
	return k // already lowercase, nothing to drop: most keys, without an allocation
}

// skillName returns the entry's skill name (Lenient mode): "name" when it is a valid
// skill name; else the first valid skill name under one of nameKeys, or the entry's
// key in a "skills" object; else "name" as written, which the caller checks.
func (ix *Index) skillName(at string, e rawEntry, name string) string {
	if name != "" && len(NameProblems(name, true)) == 0 {
		return name
	}
	keys := sortedKeys(e.fields)
	for _, want := range nameKeys {
		for _, k := range keys {
			var v string
			if normKey(k) != want || json.Unmarshal(e.fields[k], &v) != nil || !nameLike(v) {
				continue
			}
			if name != "" {
				ix.diag(Warning, "name", at, "entry "+quoteDoc(v)+" gives its skill name in "+quoteDoc(k)+" and a display name in \"name\"; read by its "+quoteDoc(k))
			} else {
				ix.diag(Warning, "name", at, "entry "+quoteDoc(v)+" has no \"name\"; read by its "+quoteDoc(k))
			}
			return v
		}
	}
	if nameLike(e.key) {
		if name != "" {
			ix.diag(Warning, "name", at, "entry "+quoteDoc(name)+" is a display name, not a skill name; read as "+quoteDoc(e.key)+", its key")
		}
		return e.key
	}
	if dir := skillFolder(string(e.URL)); dir != "" && displayText(name) {
		// A SKILL.md's name is its folder's (the Agent Skills specification): the entry's
		// url ".../audity/SKILL.md" names the skill beside a display name ("Audity").
		msg := "entry " + quoteDoc(dir) + " has no skill name; read by the folder of its skill file"
		if name != "" {
			msg = "entry " + quoteDoc(name) + " is a display name, not a skill name; read as " + quoteDoc(dir) + ", the folder of its skill file"
		}
		ix.diag(Warning, "name", at, msg)
		return dir
	}
	return name
}

// displayText reports a name that reads as a display name ("Audity", "Ledger Export
// (CSV/XLSX)"): valid UTF-8 without control, format or line-separating characters. A
// name with an escape sequence is hostile, not a label, and is refused as written.
func displayText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
	})
}

// skillFolder returns the folder of a skill file URL (".../audity/SKILL.md" is
// "audity") when it is a valid skill name other than a folder of skills ("skills",
// "agent-skills"); "" otherwise.
func skillFolder(ref string) string {
	u, ok := reference(ref)
	if !ok || !skillFileName(lastSegment(u.Path)) {
		return ""
	}
	dir := strings.TrimSuffix(u.Path, lastSegment(u.Path))
	dir = lastSegment(strings.TrimSuffix(dir, "/"))
	if !nameLike(dir) || dir == "skills" || dir == "agent-skills" || dir == "skill" {
		return ""
	}
	return dir
}

// nameLike reports a valid skill name that is not a record key: a number ("12") or a
// UUID is a valid name by the rules, but an id of that shape names a database row.
func nameLike(s string) bool {
	if s == "" || len(NameProblems(s, true)) > 0 || !strings.ContainsFunc(s, func(r rune) bool { return r >= 'a' && r <= 'z' }) {
		return false
	}
	if len(s) == 36 && strings.Count(s, "-") == 4 && strings.Trim(s, "0123456789abcdef-") == "" {
		return false
	}
	return true
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Locating the skill of a v0.1.0 or interim entry without "files" (Lenient mode).

type locKind int

const (
	notLocated    locKind = iota
	locFile               // a Markdown file: the SKILL.md, or the skill's one .md file
	locFolder             // a folder holding SKILL.md; ref "" is <index dir>/<name>/
	locConvention         // nothing given: <index dir>/<name>/SKILL.md by the v0.1.0 convention
	locArchive            // an archive of the skill, with the digest published for it
)

type locator struct {
	kind  locKind
	ref   string // the file or folder as written
	key   string // the key it was found under ("url", "source.path")
	why   string // notLocated: why the entry is not a skill; quotes the entry (redacted)
	class string // notLocated: the reason in general terms, without document text

	digest, digestKey string // locArchive: the archive's digest as written, and its key
}

// field is one string value of an entry: at its top level or one object down, alone or
// in an array of strings.
type field struct {
	key, leaf string // "source.path" and "path"
	val       string
}

// interfaceKeys, compared by normKey, mark an entry that describes a tool, an API
// route or an agent's capability (MCP tools, REST endpoints, A2A agent card skills),
// not a skill folder.
var interfaceKeys = map[string]bool{"endpoint": true, "method": true, "tools": true, "inputschema": true,
	"outputschema": true, "parameters": true, "inputmodes": true, "outputmodes": true}

// maxListStrings and maxFields bound what stringFields reads of one entry: the strings
// of an array, and in all. An entry that points at its skill does so in a few keys;
// thousands of strings in one entry are not a skill to find, and must not cost a
// URL parse each.
const (
	maxListStrings = 64
	maxFields      = 256
)

// stringFields lists the entry's string values: "url" first, then the top level in key
// order, then the members of nested objects; "name" and "description" are left out.
// tool reports an object that is a JSON Schema (a tool's input), which skills do not
// have.
func (e rawEntry) stringFields() (out []field, tool bool) {
	defer func() { out = out[:min(len(out), maxFields)] }()
	var walk func(prefix string, m map[string]json.RawMessage, depth int)
	walk = func(prefix string, m map[string]json.RawMessage, depth int) {
		var nested []string
		keys := sortedKeys(m)
		if depth == 0 {
			sort.SliceStable(keys, func(i, j int) bool { return keys[i] == "url" && keys[j] != "url" })
		}
		for _, k := range keys {
			if depth == 0 && (k == "name" || k == "description") {
				continue
			}
			v := bytes.TrimSpace(m[k])
			if len(v) == 0 {
				continue
			}
			switch v[0] {
			case '"':
				var s string
				if json.Unmarshal(v, &s) == nil {
					out = append(out, field{prefix + k, k, s})
				}
			case '[':
				var list []json.RawMessage
				_ = json.Unmarshal(v, &list)
				for _, x := range list[:min(len(list), maxListStrings)] {
					var s string
					if json.Unmarshal(x, &s) == nil {
						out = append(out, field{prefix + k, k, s})
					}
				}
			case '{':
				nested = append(nested, k)
			}
		}
		for _, k := range nested {
			var sub map[string]json.RawMessage
			if json.Unmarshal(m[k], &sub) != nil {
				continue
			}
			var t string
			_ = json.Unmarshal(sub["type"], &t)
			if sub["properties"] != nil || t == "object" {
				tool = true
			}
			if depth == 0 {
				walk(prefix+k+".", sub, depth+1)
			}
		}
	}
	walk("", e.fields, 0)
	return out, tool
}

// reference parses s as a URL reference: a URL or a path, without white space.
func reference(s string) (*url.URL, bool) {
	if s == "" || strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f || unicode.IsSpace(r) }) >= 0 {
		return nil, false
	}
	u, err := url.Parse(s)
	return u, err == nil
}

// elsewhere reports a reference to another resource: an absolute URL, a path that is
// absolute or explicitly relative ("/api/x", "./x", "../x"), or any path under a file-
// or folder-like key ("dir": "skills/other").
func (f field) elsewhere() bool {
	s := f.val
	if _, ok := reference(s); !ok {
		return false
	}
	return strings.Contains(s, "://") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") ||
		(fileKey(f.leaf) || folderKey(f.leaf)) && strings.ContainsAny(s, "/.") || urlKey(f.leaf)
}

// urlKey reports a key that holds a URL: "url", "landing_url", "href", "homepage"...
// A relative reference there ("skills/a/index.html") points at a resource all the same.
func urlKey(k string) bool {
	k = normKey(k)
	return strings.HasSuffix(k, "url") || strings.HasSuffix(k, "uri") || strings.HasSuffix(k, "href") ||
		k == "link" || k == "homepage" || k == "website"
}

// archiveExt reports a file name of a packed skill folder: .tar.gz, .tgz or .zip.
func archiveExt(seg string) bool {
	seg = strings.ToLower(seg)
	return strings.HasSuffix(seg, ".tar.gz") || strings.HasSuffix(seg, ".tgz") || strings.HasSuffix(seg, ".zip")
}

// archive finds, among the top-level string fields, the first archive of the skill (a
// URL whose last segment is a .tar.gz, .tgz or .zip) and the digest published for it
// under the key of the same stem ("archive_url" and "archive_sha256", "tarball" and
// "tarball_digest"). named reports an archive with or without such a digest.
func (e rawEntry) archive(fs []field) (l locator, named bool) {
	i := slices.IndexFunc(fs, func(f field) bool {
		u, ok := reference(f.val)
		return ok && f.key == f.leaf && archiveExt(lastSegment(u.Path))
	})
	if i < 0 {
		return locator{}, false
	}
	f := fs[i]
	stem := normKey(f.leaf)
	for _, suf := range []string{"url", "uri", "href"} {
		stem = strings.TrimSuffix(stem, suf)
	}
	for _, k := range sortedKeys(e.fields) {
		var d string
		nk := normKey(k)
		if k == f.key || !strings.HasPrefix(nk, stem) {
			continue
		}
		switch strings.TrimPrefix(nk, stem) {
		case "sha256", "digest", "hash", "checksum":
			if json.Unmarshal(e.fields[k], &d) == nil && d != "" {
				return locator{kind: locArchive, ref: f.val, key: f.key, digest: d, digestKey: k}, true
			}
		}
	}
	return locator{}, true
}

func lastSegment(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// fileKey reports a key that names a file: "path", "file", "entry", "entrypoint",
// "skill_path", "main"...
func fileKey(k string) bool {
	k = normKey(k)
	return strings.Contains(k, "path") || strings.Contains(k, "file") || strings.Contains(k, "entry") || k == "main" || k == "src" || k == "source"
}

// folderKey reports a key that names a folder: "path", "dir", "folder", "location",
// "source"...
func folderKey(k string) bool {
	k = normKey(k)
	for _, w := range []string{"path", "dir", "folder", "location", "source", "src"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// locate finds the skill of an entry that has neither "files" nor the v0.2.0 fields,
// in this order: a value whose last path segment is SKILL.md (any case; a bare
// "SKILL.md" is the skill's own folder); a Markdown file under a file-like key; a
// folder named after the skill under a folder-like key; else the v0.1.0 convention,
// when the entry has a valid skill name and points at nothing else.
func (e rawEntry) locate(name string) locator {
	fs, tool := e.stringFields()
	arch, packed := e.archive(fs)
	if arch.kind == locArchive && !e.hasDigest() {
		return arch
	}
	if loc, ok := locateSkillFile(fs, packed); ok {
		return loc
	}
	if loc, ok := locateMarkdown(fs, name, packed); ok {
		return loc
	}
	if loc, ok := locateFolder(fs, name); ok {
		return loc
	}
	return e.unlocated(name, fs, tool, packed)
}

// locateSkillFile finds a value whose last path segment is SKILL.md (any case; a bare
// "SKILL.md" is the skill's own folder).
func locateSkillFile(fs []field, packed bool) (locator, bool) {
	for _, f := range fs {
		if namesSkillFile(f.val) {
			bare := strings.TrimPrefix(f.val, "./")
			switch {
			case strings.EqualFold(bare, SkillFile):
				return locator{kind: locFolder, key: f.key}, true
			case strings.EqualFold(bare, skillTextFile):
				continue // a text twin with no folder: nothing to read it from
			case packed && insideArchive(f):
				// "entrypoint": "<name>/SKILL.md" beside an archive is a path inside the
				// archive, not a file of the site.
				continue
			}
			return locator{kind: locFile, ref: f.val, key: f.key}, true
		}
	}
	return locator{}, false
}

// locateMarkdown finds a Markdown file under a file-like key, or named after the
// skill under "url".
func locateMarkdown(fs []field, name string, packed bool) (locator, bool) {
	for _, f := range fs {
		u, ok := reference(f.val)
		if !ok {
			continue
		}
		seg := strings.ToLower(lastSegment(u.Path))
		if packed && insideArchive(f) {
			continue
		}
		if strings.HasSuffix(seg, ".md") && (fileKey(f.leaf) || f.key == "url" && name != "" && seg == strings.ToLower(name)+".md") {
			return locator{kind: locFile, ref: f.val, key: f.key}, true
		}
	}
	return locator{}, false
}

// locateFolder finds a relative folder named after the skill under a folder-like key.
func locateFolder(fs []field, name string) (locator, bool) {
	for _, f := range fs {
		u, ok := reference(f.val)
		if ok && name != "" && folderKey(f.leaf) && u.Scheme == "" && u.Host == "" && u.RawQuery == "" && u.Fragment == "" &&
			sameName(name, lastSegment(strings.TrimSuffix(u.Path, "/"))) {
			return locator{kind: locFolder, ref: f.val, key: f.key}, true
		}
	}
	return locator{}, false
}

// unlocated judges an entry that gives no skill file or folder: the v0.1.0 convention
// when it has a valid skill name and points at nothing else; otherwise not located,
// saying why.
func (e rawEntry) unlocated(name string, fs []field, tool, packed bool) locator {
	if packed {
		return locator{why: "gives an archive but no digest for it under a key of the same stem (\"archive_url\", \"archive_sha256\"), and an archive is read only with its digest", class: "give an archive without its digest"}
	}
	switch {
	case name == "" || len(NameProblems(name, true)) > 0:
		return locator{why: "gives no skill file or folder, and no valid skill name to find one by", class: "give no skill file and no valid skill name"}
	case e.Type != "" && e.Type != typeSkill && e.Type != TypeSkillMD:
		return locator{why: "has type " + quoteDoc(string(e.Type)) + " and no skill file: not a skill", class: "have a type that is not a skill's"}
	case tool:
		return locator{why: "describes a tool's input (a JSON Schema) and gives no skill file: not a skill", class: "describe a tool's input"}
	case e.fields["description"] == nil && !e.named():
		return locator{why: "gives no skill file, folder or description: not read as a skill", class: "give no skill file, name or description"}
	}
	for k := range e.fields {
		if interfaceKeys[normKey(k)] {
			return locator{why: "has " + quoteDoc(k) + ", as a tool, an API route or an agent capability has, and gives no skill file: not a skill", class: "describe tools, API routes or agent capabilities"}
		}
	}
	for _, f := range fs {
		if f.elsewhere() {
			return locator{why: "points at " + quoteURL(f.val) + " (under " + quoteDoc(f.key) + "), which is not a skill file, and lists no files: not a skill", class: "point at other resources (pages, APIs, endpoints), not skill files"}
		}
	}
	return locator{kind: locConvention}
}

// insideArchive reports a relative path under an entry-like key ("entrypoint",
// "entry", "main"): in an entry that gives an archive, a path inside it.
func insideArchive(f field) bool {
	k := normKey(f.leaf)
	if !strings.Contains(k, "entry") && k != "main" {
		return false
	}
	u, ok := reference(f.val)
	return ok && u.Scheme == "" && u.Host == "" && !strings.HasPrefix(u.Path, "/")
}

// named reports an entry that names itself, in "name" or one of nameKeys, rather than
// only by its key in a "skills" object.
func (e rawEntry) named() bool {
	for k := range e.fields {
		if n := normKey(k); n == "name" || slices.Contains(nameKeys, n) {
			return true
		}
	}
	return false
}

// locatedEntry reads an entry located by locate, with a warning: it has no file list
// and no digest, so, as with v0.1.0, nothing verifies what is fetched.
func (ix *Index) locatedEntry(at string, out IndexEntry, loc locator, base *url.URL, digest string) (IndexEntry, bool) {
	name := quoteDoc(out.Name)
	ref := loc.ref
	switch loc.kind {
	case notLocated:
		ix.diag(Error, "files", at, "entry "+name+" "+loc.why+"; skipped")
		return IndexEntry{}, false
	case locFile:
		how := " (and gives no digest)"
		if digest != "" {
			how = " (its digest verifies it)"
		}
		ix.diag(Warning, "files", at, "entry "+name+" names its skill file in "+quoteDoc(loc.key)+" instead of listing \"files\""+how+"; read as its SKILL.md")
	case locFolder:
		if ref == "" {
			ix.diag(Warning, "files", at, "entry "+name+" gives a bare SKILL.md in "+quoteDoc(loc.key)+" instead of listing \"files\"; read as [\"SKILL.md\"]")
			break
		}
		ix.diag(Warning, "files", at, "entry "+name+" names its folder in "+quoteDoc(loc.key)+" instead of listing \"files\"; read as [\"SKILL.md\"]")
		ref = strings.TrimSuffix(ref, "/") + "/" + SkillFile
	case locConvention:
		ix.diag(Warning, "files", at, "entry "+name+" gives no skill file, folder or \"files\"; read as "+url.PathEscape(out.Name)+"/SKILL.md beside the index by the v0.1.0 convention, which nothing in the index confirms")
	case locArchive:
		// The archive and its digest, under keys of one stem: a v0.2.0 archive entry,
		// verified when fetched, never read without its digest.
		d := withPrefix(loc.digest)
		if !ValidDigest(d) {
			ix.diag(Error, "digest", at, "entry "+name+" gives its archive a digest in "+quoteDoc(loc.digestKey)+" that is not sha256 and 64 lowercase hex digits; it cannot be verified, so it is skipped")
			return IndexEntry{}, false
		}
		u, why := resolveArtifact(base, ref)
		if why != "" {
			ix.diag(Error, "url", at, "entry "+name+": "+why+"; skipped")
			return IndexEntry{}, false
		}
		ix.diag(Warning, "type", at, "entry "+name+" names its archive in "+quoteDoc(loc.key)+" and its digest in "+quoteDoc(loc.digestKey)+"; read as an archive entry")
		out.Type, out.URL, out.Digest, out.Files = TypeArchive, u, d, nil
		return out, true
	}
	if ref == "" { // the skill's own folder, <index dir>/<name>/
		files, ok := ix.files(at, out.Name, json.RawMessage(`["`+SkillFile+`"]`), base, false, Lenient)
		if !ok {
			return IndexEntry{}, false
		}
		out.Files, out.URL = files, files[0].URL
	} else {
		u, why := resolveArtifact(base, ref)
		if why != "" {
			ix.diag(Error, "url", at, "entry "+name+": "+why+"; skipped")
			return IndexEntry{}, false
		}
		out.URL = u
		out.Files = []IndexFile{{Path: SkillFile, URL: u}}
	}
	if digest != "" {
		// A published digest binds the file: the entry is a v0.2.0 skill-md, verified
		// when fetched, never read without it.
		out.Files, out.Digest = nil, digest
	}
	return out, true
}

// Catalogs. Registry exports and catalogs list skills under another key than
// "skills" ({"items": [{"slug": ..., "summary": ..., "latestVersion": {"skill_md_url":
// ...}}]}). Lenient mode reads such a list when the index has no "skills" member, but
// only the entries that point at a skill file or folder themselves and have no type
// other than a skill's: a catalog also lists other things (pages, blueprints, tools),
// and a name alone says nothing there.

// listKeys, compared by normKey, are the top-level keys of such lists, in order of
// preference.
var listKeys = []string{"items", "entries", "results", "data", "agentskills", "catalog"}

// catalogTop is the catalog "key" of a document that is itself an array of entries.
const catalogTop = "(the document)"

// catalogEntries returns the entries of the member of top whose key is the first of
// listKeys and whose value is an array holding objects, with a warning; false when
// there is none.
func (ix *Index) catalogEntries(top map[string]json.RawMessage) ([]rawItem, bool) {
	best, bestKey := len(listKeys), ""
	for k, v := range top {
		i := slices.Index(listKeys, normKey(k))
		if i < 0 || i > best || i == best && k > bestKey || !holdsObjects(v) {
			continue
		}
		best, bestKey = i, k
	}
	if best == len(listKeys) {
		return nil, false
	}
	return ix.catalogList(listKeys[best], bestKey, top[bestKey])
}

// holdsObjects reports a JSON array that has an object among its elements.
func holdsObjects(v json.RawMessage) bool {
	list, ok := objectList(v)
	return ok && list != nil
}

// objectList returns the elements of a JSON array; nil when none is an object, false
// when v is not an array.
func objectList(v json.RawMessage) ([]json.RawMessage, bool) {
	var list []json.RawMessage
	if v = bytes.TrimSpace(v); len(v) == 0 || v[0] != '[' || json.Unmarshal(v, &list) != nil {
		return nil, false
	}
	if !slices.ContainsFunc(list, func(m json.RawMessage) bool {
		m = bytes.TrimSpace(m)
		return len(m) > 0 && m[0] == '{'
	}) {
		return nil, true
	}
	return list, true
}

// catalogList returns the elements of a catalog's list, the member key of top (""
// for a document that is an array), as entries, with a warning; false when it holds
// no object.
func (ix *Index) catalogList(catalog, key string, v json.RawMessage) ([]rawItem, bool) {
	list, _ := objectList(v)
	if list == nil {
		return nil, false
	}
	at, msg := "", "the index is an array, not an object with \"skills\"; read its entries that point at a skill file, as a catalog's"
	if key != "" {
		at = "/" + pointerToken(key)
		msg = "no \"skills\" array; read the entries of " + quoteDoc(key) + " that point at a skill file, as a catalog's"
	}
	items := make([]rawItem, len(list))
	for i, m := range list {
		items[i] = rawItem{at: at + "/" + strconv.Itoa(i), msg: m}
	}
	ix.catalog = catalog
	ix.diag(Warning, "skills", at, msg) // "": the whole document
	return items, true
}

// catalogWhy says, without document text, why no entry of a catalog was read.
func catalogWhy(catalog, reason string) string {
	if catalog == catalogTop {
		return "of the entries of the array, " + reason
	}
	return "of the \"" + catalog + "\" list, " + reason
}

// inCatalog narrows a locator for an entry of a catalog: the v0.1.0 convention does not
// apply (a catalog lists names of many things), nor does a skill file of an entry whose
// type is not a skill's ("blueprint", "api").
func (l locator) inCatalog(e rawEntry) locator {
	switch {
	case l.kind == notLocated:
		return l
	case e.Type != "" && e.Type != typeSkill && e.Type != TypeSkillMD:
		return locator{why: "has type " + quoteDoc(string(e.Type)) + " in a catalog: not a skill", class: "have a type that is not a skill's"}
	case l.kind == locConvention:
		return locator{why: "gives no skill file or folder, and a catalog's entry is not read by the v0.1.0 convention", class: "give no skill file or folder"}
	}
	return l
}

// summary returns, with a warning, the description an entry without "description"
// gives in "summary" (registry exports); "" when it gives none.
func (ix *Index) summary(at, name string, e rawEntry) string {
	for _, k := range sortedKeys(e.fields) {
		var s string
		if normKey(k) == "summary" && json.Unmarshal(e.fields[k], &s) == nil && s != "" {
			ix.diag(Warning, "description", at, "entry "+quoteDoc(name)+" gives its description in "+quoteDoc(k))
			return s
		}
	}
	return ""
}
