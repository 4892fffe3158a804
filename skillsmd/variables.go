package skillsmd

import (
	"strings"

	"github.com/yuin/goldmark/ast"
)

// Some documents write every endpoint after a template variable instead of a URL
// ("POST {{ACME_API}}/api/register", "curl $BASE_URL/v1/items") and assign the
// variable once, in a code block of settings ("ACME_API = \"https://acme.example\"",
// "export BASE_URL=https://acme.example"). A careful reader substitutes it: the base is
// the value of the variable the endpoints start with. The parser does the same when
// the document states no base: the variable must be assigned an absolute http(s) URL
// and used as the prefix of at least one endpoint (an HTTP method or a curl command
// before it). An assignment alone, in an example, states nothing.

// maxVars bounds the variables and uses remembered.
const maxVars = 32

// varValue is one assignment of an upper-case variable to an absolute URL.
type varValue struct {
	name, value string
}

// varUse counts the endpoints written after one template variable.
type varUse struct {
	name string
	n    int
	line int // line of the block holding the first use
}

// assignmentIn records "NAME = \"https://x\"", "NAME=https://x", "export NAME=...",
// "const NAME = '...'" and "\"NAME\": \"https://x\"" on one line. The name must be an
// upper-case identifier (letters, digits, "_"), as environment variables are.
func (p *parser) assignmentIn(line string) {
	if len(p.vars) >= maxVars {
		return
	}
	t := strings.TrimLeft(line, " \t")
	for _, kw := range [...]string{"export ", "const ", "let ", "var ", "set "} {
		t = strings.TrimPrefix(t, kw)
	}
	t = strings.TrimLeft(t, " \t\"'")
	i := 0
	for i < len(t) && (t[i] >= 'A' && t[i] <= 'Z' || t[i] == '_' || i > 0 && t[i] >= '0' && t[i] <= '9') {
		i++
	}
	if i < 3 || i < len(t) && (t[i] >= 'a' && t[i] <= 'z') {
		return
	}
	name := t[:i]
	rest := strings.TrimLeft(t[i:], "\"' \t")
	if rest == "" || rest[0] != '=' && rest[0] != ':' {
		return
	}
	rest = strings.TrimLeft(rest[1:], " \t\"'`")
	if !strings.HasPrefix(rest, "https://") && !strings.HasPrefix(rest, "http://") {
		return
	}
	if j := strings.IndexAny(rest, " \t\"'`,;#<>(){}[]\\|"); j >= 0 {
		rest = rest[:j]
	}
	v := strings.TrimRight(rest, "/.")
	if !plausibleBase(v) {
		return
	}
	for _, a := range p.vars {
		if a.name == name && a.value == v {
			return
		}
	}
	p.vars = append(p.vars, varValue{name, v})
}

// templateUsesIn records the template variables that start an endpoint on one line:
// "POST {{NAME}}/x", "GET ${NAME}/x", "GET {NAME}/x", "curl -X POST $NAME/x".
func (p *parser) templateUsesIn(line string, n ast.Node) {
	t := strings.TrimLeft(line, " \t$>")
	curl := strings.HasPrefix(t, "curl ")
	for off := 0; off < len(line); {
		i := strings.IndexAny(line[off:], "{$")
		if i < 0 {
			return
		}
		start := off + i
		name, end, def := templateName(line[start:])
		off = start + max(end, 1)
		if name == "" || end >= len(line[start:]) || line[start+end] != '/' {
			continue
		}
		if !curl && !methodBefore(line[:start]) {
			continue
		}
		p.addVarUse(name, n)
		if def != "" {
			p.addVar(name, def) // "${API_URL:-https://x}/v1/y": the default is the assignment
		}
	}
}

// addVar records that the upper-case variable name holds the absolute URL v.
func (p *parser) addVar(name, v string) {
	v = strings.TrimRight(v, "/.")
	if len(p.vars) >= maxVars || !plausibleBase(v) || strings.ToUpper(name) != name {
		return
	}
	for _, a := range p.vars {
		if a.name == name && a.value == v {
			return
		}
	}
	p.vars = append(p.vars, varValue{name, v})
}

// templateName reads "{{NAME}}", "${NAME}", "{NAME}" or "$NAME" at the start of s and
// returns the name and the length read, or "". A shell default, "${NAME:-https://x}"
// (also ":=", "-" and "="), is read too: def is its value when that is an absolute
// http(s) URL.
func templateName(s string) (name string, n int, def string) {
	open, close := "", ""
	switch {
	case strings.HasPrefix(s, "{{"):
		open, close = "{{", "}}"
	case strings.HasPrefix(s, "${"):
		open, close = "${", "}"
	case strings.HasPrefix(s, "{"):
		open, close = "{", "}"
	case strings.HasPrefix(s, "$"):
		open = "$"
	default:
		return "", 0, ""
	}
	i := len(open)
	for i < len(s) && s[i] == ' ' && close != "" {
		i++
	}
	j := i
	for j < len(s) && (s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || s[j] == '_' || j > i && s[j] >= '0' && s[j] <= '9') {
		j++
	}
	if j == i {
		return "", 0, ""
	}
	name = s[i:j]
	for j < len(s) && s[j] == ' ' && close != "" {
		j++
	}
	if open == "${" {
		for _, op := range [...]string{":-", ":=", "-", "="} {
			if !strings.HasPrefix(s[j:], op) {
				continue
			}
			end := strings.IndexByte(s[j:], '}')
			if end < 0 || end > maxDefault {
				return "", 0, ""
			}
			if v := s[j+len(op) : j+end]; strings.HasPrefix(v, "https://") || strings.HasPrefix(v, "http://") {
				def = v
			}
			j += end
			break
		}
	}
	if close != "" {
		if !strings.HasPrefix(s[j:], close) {
			return "", 0, ""
		}
		j += len(close)
	}
	return name, j, def
}

// maxDefault bounds the length of a shell default templateName reads.
const maxDefault = 256

func (p *parser) addVarUse(name string, n ast.Node) {
	for i := range p.varUses {
		if p.varUses[i].name == name {
			p.varUses[i].n++
			return
		}
	}
	if len(p.varUses) < maxVars {
		p.varUses = append(p.varUses, varUse{name: name, n: 1, line: p.lineOfNode(n)})
	}
}

// templateBase returns the value of the variable most endpoints start with, and the
// line of its first use, or "" when no used variable has one clear value: one
// public URL, or else one local one ("http://localhost:3000" is what the document
// says its examples run against).
func (p *parser) templateBase() (string, int) {
	best, bestN, line := "", 0, 0
	for _, u := range p.varUses {
		var public, local []string
		for _, a := range p.vars {
			if a.name != u.name {
				continue
			}
			host, _, _ := strings.Cut(a.value[strings.Index(a.value, "//")+2:], "/")
			if localHost(host) {
				local = append(local, a.value)
			} else {
				public = append(public, a.value)
			}
		}
		v := ""
		switch {
		case len(public) == 1:
			v = public[0]
		case len(public) == 0 && len(local) == 1:
			v = local[0]
		}
		if v != "" && u.n > bestN {
			best, bestN, line = v, u.n, u.line
		}
	}
	return best, line
}

// unresolvedTemplate returns the line of the first endpoint written after a template
// variable the document does not assign ("curl {DESKTOP}/api/bots", "GET
// ${HOST}/v1/x") when such endpoints are at least as many as those written in full,
// or 0. templateBase has found no value for them: the document's base is that
// placeholder, and a URL written in full elsewhere (another service, a verifier) is
// not it.
func (p *parser) unresolvedTemplate() int {
	n, line := 0, 0
	for _, u := range p.varUses {
		n += u.n
		if line == 0 || u.line < line {
			line = u.line
		}
	}
	if n == 0 || n < len(p.endpoints) {
		return 0
	}
	return line
}
