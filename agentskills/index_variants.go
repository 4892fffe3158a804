package agentskills

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
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
		}
	}
	return nil
}

// present reports whether a digest was written in any form.
func (d rawDigest) present() bool { return d.text != "" || d.object }

// entryDigest returns the entry's digest as "sha256:<hex>": the "digest" string; in
// Lenient mode also a digest object or a bare "sha256" field, with a warning. It
// records a diagnostic and returns false when no valid digest is found.
func (ix *Index) entryDigest(at, name string, e rawEntry, mode Mode) (string, bool) {
	d, how := e.Digest.text, ""
	switch {
	case d != "":
	case e.Digest.object:
		d, how = withPrefix(e.Digest.hex), "an object"
	case e.SHA256 != "":
		d, how = withPrefix(e.SHA256), "a bare \"sha256\" field"
	}
	if how != "" && mode == Strict {
		ix.diag(Error, "digest", at, "entry "+quoteDoc(name)+" gives its digest as "+how+", not a \"digest\" string; skipped")
		return "", false
	}
	if !ValidDigest(d) {
		ix.diag(Error, "digest", at, "entry "+quoteDoc(name)+" has no valid digest (sha256: and 64 lowercase hex digits); it cannot be verified, so it is skipped")
		return "", false
	}
	if how != "" {
		ix.diag(Warning, "digest", at, "entry "+quoteDoc(name)+" gives its digest as "+how+"; read as a \"digest\" string")
	}
	return d, true
}

// withPrefix adds "sha256:" to a bare hex digest.
func withPrefix(h string) string {
	if strings.HasPrefix(h, DigestPrefix) {
		return h
	}
	return DigestPrefix + h
}

// folderPath reports a v0.1 "path" that names the skill's own folder or its
// SKILL.md: "name", "name/", "name/SKILL.md" or "SKILL.md".
func folderPath(name, p string) bool {
	if name == "" || p == "" {
		return false
	}
	p = strings.TrimPrefix(p, "./")
	return p == name || p == name+"/" || p == name+"/"+SkillFile || p == SkillFile
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

// schemaVariant reports a $schema that is clearly the v0.2.0 index identifier spelled
// another way: an http(s) URL on agentskills.io or one of its subdomains whose path,
// or the index's "version", says 0.2. Examples: "http://schemas.agentskills.io/
// discovery/0.2.0/schema.json/", "https://agentskills.io/schemas/v0.2.0/skills-index.json",
// "https://schemas.agentskills.io/discovery/schema.json" with "version": "0.2.0".
// Trailing slashes, case and "www." do not matter.
func schemaVariant(schema, version string) bool {
	u, err := url.Parse(strings.TrimSpace(schema))
	if err != nil || u.Scheme != "https" && u.Scheme != "http" || u.User != nil {
		return false
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host != "agentskills.io" && !strings.HasSuffix(host, ".agentskills.io") {
		return false
	}
	path := strings.ToLower(u.Path)
	if !strings.Contains(path, "schema") && !strings.Contains(path, "discovery") && !strings.Contains(path, "index") {
		return false
	}
	return mentions02(path) || mentions02(strings.ToLower(u.RawQuery)) || strings.HasPrefix(strings.TrimPrefix(version, "v"), "0.2")
}

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

// stringList reports a JSON array of strings (v0.1.0 file paths).
func stringList(raw json.RawMessage) bool {
	var fs []string
	return json.Unmarshal(raw, &fs) == nil && len(fs) > 0
}

// skillFileRef returns the reference an entry with no "files" gives to its Markdown
// file, and the key it was under: a "url" or "path" whose last segment is SKILL.md (any
// case), or an "entry" naming a ".md" file. A "path" naming the skill's own folder is
// left to folderPath. "" when there is none.
func (e rawEntry) skillFileRef(name string) (ref, key string) {
	last := func(s string) string { return s[strings.LastIndexByte(s, '/')+1:] }
	switch {
	case e.URL != "" && strings.EqualFold(last(e.URL), SkillFile):
		return e.URL, "url"
	case e.Path != "" && !folderPath(name, e.Path) && strings.EqualFold(last(e.Path), SkillFile):
		return e.Path, "path"
	case e.Entry != "" && strings.HasSuffix(strings.ToLower(e.Entry), ".md"):
		return e.Entry, "entry"
	}
	return e.otherURLRef()
}

// otherURLRef finds the skill file under another URL key of the entry ("install_url",
// "skill_url", "downloadUrl"...: a key whose name ends in "url", any case) whose value's
// last segment is SKILL.md. Keys are tried in sorted order, so the choice is stable.
func (e rawEntry) otherURLRef() (ref, key string) {
	if len(e.raw) == 0 || !bytes.Contains(bytes.ToLower(e.raw), []byte("url")) {
		return "", ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(e.raw, &m) != nil {
		return "", ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if lk := strings.ToLower(k); lk != "url" && strings.HasSuffix(lk, "url") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		var v string
		if json.Unmarshal(m[k], &v) != nil || v == "" {
			continue
		}
		if strings.EqualFold(v[strings.LastIndexByte(v, '/')+1:], SkillFile) {
			return v, k
		}
	}
	return "", ""
}

// nameFromID returns the entry's "id" when it, and not "name", is shaped like a skill
// name ({"id": "docs-researcher", "name": "Documentation Researcher"}); "" otherwise.
func (e rawEntry) nameFromID(name string) string {
	id, _ := e.ID.(string)
	if id == "" || id == name || len(NameProblems(id, true)) > 0 {
		return ""
	}
	if name != "" && len(NameProblems(name, true)) == 0 {
		return ""
	}
	return id
}

// dropUnsafeFiles removes, with a warning, the files of a v0.1.0 list whose paths are
// unsafe ("../../scripts/x.js", "/abs"), other than the skill file itself: they are
// never fetched, and the skill is read without them (Lenient mode only).
func (ix *Index) dropUnsafeFiles(at string, list []IndexFile) []IndexFile {
	kept := list[:0:0]
	for i, f := range list {
		if why := unsafeFilePath(f.Path); why != "" && !strings.EqualFold(f.Path[strings.LastIndexByte(f.Path, '/')+1:], SkillFile) {
			ix.diag(Warning, "files", fmt.Sprintf("%s/files/%d", at, i), "file "+quoteDoc(f.Path)+": "+why+"; not read")
			continue
		}
		kept = append(kept, f)
	}
	return kept
}

// directEntry reads an entry that names its Markdown file directly (see
// skillFileRef), resolved against the index URL, with a warning: it has no digest,
// so, as with v0.1.0, nothing verifies what is fetched.
func (ix *Index) directEntry(at string, out IndexEntry, base *url.URL, ref, key string) (IndexEntry, bool) {
	u, why := resolveArtifact(base, ref)
	if why != "" {
		ix.diag(Error, "url", at, "entry "+quoteDoc(out.Name)+": "+why+"; skipped")
		return IndexEntry{}, false
	}
	ix.diag(Warning, "files", at, "entry "+quoteDoc(out.Name)+" names its skill file in \""+key+"\" instead of listing \"files\" (and gives no digest); read as its SKILL.md")
	out.URL = u
	out.Files = []IndexFile{{Path: SkillFile, URL: u}}
	return out, true
}
