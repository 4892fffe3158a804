package agentskills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/adrg/frontmatter"
	"go.yaml.in/yaml/v3"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// ParseOptions configures ParseSkillMD. The zero value is lenient, with no folder check.
type ParseOptions struct {
	Mode       Mode   // Lenient (zero) or Strict
	Dir        string // name of the folder holding the file; "" skips the name-vs-folder check
	ASCIINames bool   // names must be a-z, 0-9 and '-' only (the well-known index rule)
}

// SkillMD is a parsed SKILL.md. It is plain data, safe to read concurrently.
type SkillMD struct {
	Raw         []byte         // the file exactly as given: hash and measure these bytes
	Frontmatter map[string]any // every field as written, JSON-compatible (compared with MCP listings)
	Body        string         // the Markdown after the frontmatter
	Diagnostics []Diagnostic   // warnings: the skill loaded anyway
}

// Name returns the frontmatter name (its source text when it was not a string).
func (s *SkillMD) Name() string { return scalarText(s.Frontmatter["name"]) }

// Description returns the frontmatter description.
func (s *SkillMD) Description() string { v, _ := s.Frontmatter["description"].(string); return v }

// License returns the frontmatter license, or "".
func (s *SkillMD) License() string { v, _ := s.Frontmatter["license"].(string); return v }

// Compatibility returns the frontmatter compatibility, or "".
func (s *SkillMD) Compatibility() string { v, _ := s.Frontmatter["compatibility"].(string); return v }

// Metadata returns the frontmatter metadata as strings; a non-string value is given
// as its text (the raw value stays in Frontmatter).
func (s *SkillMD) Metadata() map[string]string {
	m, ok := s.Frontmatter["metadata"].(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = scalarText(v)
	}
	return out
}

// AllowedTools returns the pre-approved tools: a space-separated string, or (read
// leniently) a list or a comma-separated string. A host must ignore them for skills
// from untrusted origins unless the user approved the grant.
func (s *SkillMD) AllowedTools() []string {
	tools, _ := allowedTools(s.Frontmatter["allowed-tools"])
	return tools
}

// allowedTools normalises allowed-tools; standard reports the spec's form.
func allowedTools(v any) (tools []string, standard bool) {
	switch t := v.(type) {
	case nil:
		return nil, true
	case string:
		if strings.Contains(t, ",") {
			for _, f := range strings.Split(t, ",") {
				if f = strings.TrimSpace(f); f != "" {
					tools = append(tools, f)
				}
			}
			return tools, false
		}
		return strings.Fields(t), true
	case []any:
		for _, e := range t {
			if s := strings.TrimSpace(scalarText(e)); s != "" {
				tools = append(tools, s)
			}
		}
		return tools, false
	}
	return nil, false
}

func scalarText(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// yamlFormat is "---" YAML frontmatter decoded into a yaml.Node (which keeps the source
// text of every scalar), through adrg/frontmatter with YAML v3.
var yamlFormat = frontmatter.NewFormat("---", "---", yaml.Unmarshal)

// aliasBudget bounds the nodes an alias expansion may produce ("billion laughs").
const aliasBudget = 10000

// ParseSkillMD parses a SKILL.md. In Lenient mode it loads what it can: a deviation is
// a warning in SkillMD.Diagnostics, and it fails (a *SkillError wrapping
// ErrInvalidSkill) only where the client guide skips the skill: no frontmatter, YAML
// that does not parse even after quoting the failing value once, duplicate keys, no
// description. Strict mode fails on every deviation from the specification.
// Invalid UTF-8 and NUL bytes fail in both modes.
func ParseSkillMD(data []byte, opts ParseOptions) (*SkillMD, error) {
	p := &skillParser{opts: opts, out: &SkillMD{Raw: data}}
	if err := p.parse(data); err != nil {
		return nil, err
	}
	return p.out, nil
}

type skillParser struct {
	opts  ParseOptions
	out   *SkillMD
	diags []Diagnostic
}

// problem records a deviation: a warning in Lenient mode, an error in Strict mode.
func (p *skillParser) problem(code, msg string) {
	sev := Warning
	if p.opts.Mode == Strict {
		sev = Error
	}
	p.diags = append(p.diags, Diagnostic{Severity: sev, Code: code, Where: SkillFile, Message: msg})
}

func (p *skillParser) warn(code, msg string) {
	p.diags = append(p.diags, Diagnostic{Severity: Warning, Code: code, Where: SkillFile, Message: msg})
}

// fail records a reason the skill cannot load and returns the error.
func (p *skillParser) fail(code, msg string) error {
	p.diags = append(p.diags, Diagnostic{Severity: Error, Code: code, Where: SkillFile, Message: msg})
	return &SkillError{Path: p.opts.Dir, Diagnostics: p.diags}
}

func (p *skillParser) parse(data []byte) error {
	if !utf8.Valid(data) {
		return p.fail("encoding", "file is not valid UTF-8")
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return p.fail("encoding", "file contains NUL bytes")
	}
	src := data
	if b, ok := bytes.CutPrefix(src, []byte("\xef\xbb\xbf")); ok {
		p.problem("bom", "file starts with a UTF-8 byte order mark")
		src = b
	}
	if trimmed := bytes.TrimLeft(src, " \t\r\n"); len(trimmed) != len(src) && bytes.HasPrefix(trimmed, []byte("---")) {
		p.problem("leading-blank", "blank lines before the opening ---")
		src = trimmed
	}
	fmText, body, ok := splitFrontmatter(src)
	if !ok {
		return p.fail("no-frontmatter", "no YAML frontmatter between --- lines (a skill needs a name and a description)")
	}
	p.out.Body = string(body)

	root, err := decodeYAML(src, fmText)
	if err != nil && p.opts.Mode == Lenient {
		// The client guide's fallback: an unquoted ": " or a leading backtick in a value
		// is valid intent but invalid YAML; quote such values once and retry.
		if fixed, changed := quoteValues(fmText); changed {
			if r, err2 := decodeYAML(append(append([]byte("---\n"), fixed...), []byte("---\n")...), fixed); err2 == nil {
				p.warn("yaml-quoted", "frontmatter is not valid YAML ("+yamlMessage(err)+"); read after quoting values that hold \": \" or start with a reserved character")
				root, err = r, nil
			}
		}
	}
	if err != nil {
		return p.fail("yaml", "frontmatter does not parse: "+yamlMessage(err))
	}
	fm, err := p.toMap(root)
	if err != nil {
		return err
	}
	p.out.Frontmatter = fm
	if err := p.check(fm); err != nil {
		return err
	}
	for _, d := range p.diags {
		if d.Severity == Error {
			return &SkillError{Path: p.opts.Dir, Diagnostics: p.diags}
		}
	}
	p.out.Diagnostics = p.diags
	return nil
}

// splitFrontmatter returns the YAML between a first line "---" and the next line that
// is "---" on its own (after trimming "\r" and trailing blanks), and the body after it.
func splitFrontmatter(src []byte) (fm, body []byte, ok bool) {
	first, rest, found := bytes.Cut(src, []byte("\n"))
	if !found || string(bytes.TrimRight(first, " \t\r")) != "---" {
		return nil, nil, false
	}
	for off := 0; off <= len(rest); {
		line, _, more := bytes.Cut(rest[off:], []byte("\n"))
		if string(bytes.TrimRight(line, " \t\r")) == "---" {
			end := off + len(line)
			if more {
				end++
			}
			return rest[:off], rest[end:], true
		}
		if !more {
			break
		}
		off += len(line) + 1
	}
	return nil, nil, false
}

// decodeYAML decodes the frontmatter of src (which starts with "---") into a node,
// through adrg/frontmatter. fm is the YAML as splitFrontmatter found it: adrg trims
// delimiter lines, so an indented "---" inside a quoted value would end its block
// early; in that one case the YAML is decoded directly.
func decodeYAML(src, fm []byte) (*yaml.Node, error) {
	var node yaml.Node
	for _, l := range bytes.Split(fm, []byte("\n")) {
		if string(bytes.TrimSpace(l)) == "---" {
			if err := yaml.Unmarshal(fm, &node); err != nil {
				return nil, err
			}
			return &node, nil
		}
	}
	if _, err := frontmatter.MustParse(bytes.NewReader(src), &node, yamlFormat); err != nil {
		return nil, err
	}
	return &node, nil
}

// yamlMessage renders a YAML error as one line that keeps the line number and the
// reason but never the file's text: YAML errors quote values and keys ("cannot decode
// !!str `ghp_...` as a !!int", "unknown anchor '...' referenced"), which may be
// credentials. The first of several unmarshal errors is kept.
func yamlMessage(err error) string {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg, _, _ = strings.Cut(msg, "\n")
	return secrets.ScrubError(strings.TrimPrefix(msg, "yaml: "))
}

// quoteValues rewrites top-level "key: value" lines whose plain value holds ": " or
// starts with a character YAML reserves, as double-quoted scalars.
func quoteValues(fm []byte) ([]byte, bool) {
	lines := strings.Split(string(fm), "\n")
	changed := false
	for i, l := range lines {
		l = strings.TrimRight(l, "\r")
		if l == "" || l[0] == ' ' || l[0] == '\t' || l[0] == '#' || l[0] == '-' {
			continue
		}
		key, val, ok := strings.Cut(l, ": ")
		val = strings.TrimSpace(val)
		if !ok || val == "" || strings.ContainsAny(key, " \"'") {
			continue
		}
		switch val[0] {
		case '"', '\'', '|', '>', '[', '{', '&', '*', '!':
			continue // quoted, block or flow: leave it alone
		}
		if strings.Contains(val, ": ") || strings.Contains(val, " #") || val[0] == '`' || val[0] == '@' || val[0] == '%' {
			lines[i] = key + ": " + strconv.Quote(val)
			changed = true
		}
	}
	return []byte(strings.Join(lines, "\n")), changed
}

// toMap converts the document node into JSON-compatible values: string-keyed maps,
// slices, numbers, booleans, nil; timestamps keep their source text. Duplicate keys
// and oversized alias expansions fail.
func (p *skillParser) toMap(root *yaml.Node) (map[string]any, error) {
	n := root
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil, p.fail("no-frontmatter", "frontmatter is empty")
		}
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return nil, p.fail("yaml", "frontmatter is not a mapping of fields")
	}
	budget := aliasBudget
	v, err := p.value(n, &budget, "")
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	return m, nil
}

func (p *skillParser) value(n *yaml.Node, budget *int, at string) (any, error) {
	*budget--
	if *budget < 0 {
		return nil, p.fail("yaml-alias", "frontmatter aliases expand beyond the budget")
	}
	switch n.Kind {
	case yaml.AliasNode:
		return p.value(n.Alias, budget, at)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if n.Content[i].Kind == yaml.ScalarNode && n.Content[i].Tag == "!!merge" {
				return nil, p.fail("yaml", "merge keys (<<) are not supported in frontmatter")
			}
			if _, dup := m[k]; dup {
				return nil, p.fail("yaml-duplicate", fmt.Sprintf("key %s is defined twice (line %d)", quoteDoc(at+k), n.Content[i].Line))
			}
			v, err := p.value(n.Content[i+1], budget, at+k+".")
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := p.value(c, budget, at)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return n.Value, nil
		}
		switch t := v.(type) {
		case time.Time:
			return n.Value, nil // keep the date as written
		case int:
			return jsonInt(int64(t), n.Value), nil // JSON numbers
		case int64:
			return jsonInt(t, n.Value), nil
		case uint64:
			if t > 1<<53 {
				return json.Number(strconv.FormatUint(t, 10)), nil
			}
			return float64(t), nil
		}
		return v, nil
	}
	return nil, nil
}

// jsonInt returns an integer as a JSON number: a float64 when that is exact, else a
// json.Number, so that a value past 2^53 is never rounded.
func jsonInt(v int64, _ string) any {
	if v > 1<<53 || v < -(1<<53) {
		return json.Number(strconv.FormatInt(v, 10))
	}
	return float64(v)
}

// check applies the field rules of the specification.
func (p *skillParser) check(fm map[string]any) error {
	name, isString := fm["name"].(string)
	switch {
	case fm["name"] == nil && p.opts.Dir != "" && p.opts.Mode == Lenient:
		p.warn("no-name", "no name; the folder name "+quoteDoc(p.opts.Dir)+" is used")
		name = p.opts.Dir
		fm["name"] = name
	case fm["name"] == nil:
		return p.fail("no-name", "frontmatter has no name")
	case !isString:
		name = scalarText(fm["name"])
		p.problem("name-type", fmt.Sprintf("name is not a string; its text %s is used", quoteDoc(name)))
		fm["name"] = name
	}
	for _, msg := range NameProblems(name, p.opts.ASCIINames) {
		p.problem("name", secrets.Scrub(msg)) // it quotes the name
	}
	if p.opts.Dir != "" && !sameName(name, p.opts.Dir) {
		p.problem("name-mismatch", fmt.Sprintf("name %s differs from its folder %s", quoteDoc(name), quoteDoc(p.opts.Dir)))
	}

	desc, _ := fm["description"].(string)
	switch l := utf8.RuneCountInString(strings.TrimSpace(desc)); {
	case fm["description"] == nil, l == 0:
		return p.fail("no-description", "missing or empty description (it tells an agent when to use the skill)")
	case l > MaxDescriptionLen:
		p.problem("description-length", fmt.Sprintf("description is %d characters, over %d", l, MaxDescriptionLen))
	}
	if _, ok := fm["description"].(string); !ok {
		p.problem("description-type", "description is not a string")
	}
	if v, ok := fm["compatibility"]; ok {
		c, isStr := v.(string)
		switch l := utf8.RuneCountInString(c); {
		case !isStr:
			p.problem("compatibility", "compatibility is not a string")
		case l == 0 || l > MaxCompatibilityLen:
			p.problem("compatibility", fmt.Sprintf("compatibility is %d characters; 1 to %d are allowed", l, MaxCompatibilityLen))
		}
	}
	if v, ok := fm["license"]; ok {
		if _, isStr := v.(string); !isStr {
			p.problem("license", "license is not a string")
		}
	}
	if v, ok := fm["metadata"]; ok {
		m, isMap := v.(map[string]any)
		if !isMap {
			p.problem("metadata", "metadata is not a map")
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if _, isStr := m[k].(string); !isStr {
				p.problem("metadata", fmt.Sprintf("metadata value %s is not a string", quoteDoc(k)))
			}
		}
	}
	if v, ok := fm["allowed-tools"]; ok {
		if _, standard := allowedTools(v); !standard {
			p.problem("allowed-tools", "allowed-tools is not a space-separated string; read as a list")
		}
	}
	if p.opts.Mode == Strict {
		known := map[string]bool{"name": true, "description": true, "license": true, "compatibility": true, "metadata": true, "allowed-tools": true}
		var extra []string
		for k := range fm {
			if !known[k] {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		for i, k := range extra {
			extra[i] = quoteDoc(k)
		}
		if len(extra) > 0 {
			p.warn("unknown-field", "fields outside the specification are kept: "+strings.Join(extra, ", "))
		}
	}
	return nil
}
