package servercard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wellknown-dev/discovery/internal/jsonx"
	"github.com/wellknown-dev/discovery/internal/lazyre"
	"github.com/wellknown-dev/discovery/internal/schemacheck"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Options configures [Parse]. The zero Options reads leniently without the card's URL.
type Options struct {
	// URL is the absolute URL the card was fetched from; for a card inline in an AI
	// Catalog, the catalog's URL; "" when unknown.
	// When its host is public, a remote on this machine or a private network is left
	// out: in a published card it is a development leftover, and on the reader's
	// side some other service.
	URL string
	// Mode is Lenient (the zero value) or Strict.
	Mode Mode
}

// Parse reads an MCP Server Card. It is pure: no I/O, no logging. It returns an error
// wrapping [ErrNotCard] for anything but a JSON object and, in Strict mode, a
// [*ValidationError] when the card does not conform; otherwise every problem is a
// [Diagnostic] of the Card.
//
// Lenient mode reads, each with a warning: a $schema that is missing or names another
// version or document (the card is read as v1 all the same), a missing or malformed
// name, version or description, a description over [MaxDescription] characters (kept
// whole), a version range, transport spellings such as "http" or "streamable_http",
// template variables the remote does not declare, members of the wrong JSON type
// (ignored), tools, resources or prompts (which cards do not list: they are listed at
// runtime), and JSON with a byte order mark, comments or trailing commas. A remote is
// left out, with an Error diagnostic, when it cannot be used: an unknown transport, no
// URL, a template with broken braces, or a URL that is not https (http only on
// loopback), carries userinfo, or points at this machine or a private network from a
// card on a public host. A header without a valid name is left out too. Strict mode
// checks the card against a JSON Schema written from the extension's definitions and
// reports every deviation above as an error.
//
// A remote whose URL is a template keeps it as published, with its variables in
// URLVars: it is not [Remote.Connectable] until [Remote.Expand] fills it.
func Parse(data []byte, opts Options) (*Card, error) {
	var base *url.URL
	if opts.URL != "" {
		u, err := url.Parse(opts.URL)
		if err != nil || !u.IsAbs() || u.Host == "" {
			return nil, fmt.Errorf("servercard: Options.URL %s is not an absolute URL", secrets.Quote(secrets.RedactURL(opts.URL), 0))
		}
		base = u
	}
	r := &reader{strict: opts.Mode == Strict, base: base, card: &Card{}}
	var top map[string]json.RawMessage
	err := json.Unmarshal(data, &top)
	relaxed := ""
	var se *json.SyntaxError
	if errors.As(err, &se) {
		if std, devs, ok := jsonx.Relax(data); ok && json.Unmarshal(std, &top) == nil {
			data, relaxed, err = std, jsonx.Describe(devs), nil
		}
	}
	if err != nil {
		if k := jsonKind(data); k != "" {
			return nil, fmt.Errorf("%w: the document is a JSON %s, not an object", ErrNotCard, k)
		}
		return nil, fmt.Errorf("%w: not JSON: %s", ErrNotCard, secrets.ScrubError(strings.TrimPrefix(err.Error(), "json: ")))
	}
	if top == nil {
		return nil, fmt.Errorf("%w: the document is null", ErrNotCard)
	}
	if relaxed != "" {
		r.violation("json", "", "not strict JSON: "+relaxed+"; read as if absent (publish plain JSON)")
	}
	r.read(top)
	if r.strict {
		r.schema(data)
	}
	if r.strict {
		for _, d := range r.card.Diagnostics {
			if d.Severity == Error {
				return nil, &ValidationError{Diagnostics: r.card.Diagnostics}
			}
		}
	}
	return r.card, nil
}

type reader struct {
	strict bool
	base   *url.URL
	card   *Card
}

func (r *reader) diag(sev Severity, code, at, msg string) {
	r.card.Diagnostics = append(r.card.Diagnostics, Diagnostic{Severity: sev, Code: code, Where: at, Message: msg})
}

// violation records a departure from the definitions that does not stop the reader:
// a warning in Lenient mode, an error in Strict mode.
func (r *reader) violation(code, at, msg string) {
	sev := Warning
	if r.strict {
		sev = Error
	}
	r.diag(sev, code, at, msg)
}

var (
	nameRE  = lazyre.New(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)
	rangeRE = lazyre.New(`^\s*[\^~<>=]|(^|\.)[xX*](\.|$)|\s-\s|\|\|`)
)

func (r *reader) read(top map[string]json.RawMessage) {
	c := r.card
	schema, ok := r.str(top, "", "$schema")
	c.Schema = schema
	switch {
	case !ok:
		r.violation("schema-version", "", "no $schema; read as a v1 card ("+SchemaURL+")")
	case schema != SchemaURL:
		r.violation("schema-version", "/$schema", "$schema "+secrets.Quote(secrets.RedactURL(schema), 0)+" is not the v1 Server Card schema "+SchemaURL+"; read as a v1 card")
	}
	c.Name, _ = r.str(top, "", "name")
	switch n := utf8.RuneCountInString(c.Name); {
	case c.Name == "":
		r.violation("name", "", "no name")
	case n < 3 || n > 200 || !nameRE().MatchString(c.Name):
		r.violation("name", "/name", "name "+secrets.Quote(c.Name, 0)+" is not reverse-DNS \"namespace/name\" (one slash; letters, digits, '.', '-' and, after the slash, '_')")
	}
	c.Version, _ = r.str(top, "", "version")
	switch {
	case c.Version == "":
		r.violation("version", "", "no version")
	case len(c.Version) > 255:
		r.violation("version", "/version", "version is longer than 255 bytes")
	case rangeRE().MatchString(c.Version):
		r.violation("version", "/version", "version "+secrets.Quote(c.Version, 40)+" is a range; a card states one version")
	}
	c.Description, _ = r.str(top, "", "description")
	switch n := utf8.RuneCountInString(c.Description); {
	case c.Description == "":
		r.violation("description", "", "no description")
	case n > MaxDescription:
		r.violation("description", "/description", fmt.Sprintf("description is %d characters; the limit is %d", n, MaxDescription))
	}
	if title, ok := r.str(top, "", "title"); ok {
		c.Title = title
		if n := utf8.RuneCountInString(title); n == 0 || n > 100 {
			r.violation("title", "/title", fmt.Sprintf("title is %d characters; it must have 1 to 100", n))
		}
	}
	if w, ok := r.str(top, "", "websiteUrl"); ok {
		if reason := checkRemoteURL(w, nil); reason != "" {
			r.violation("url", "/websiteUrl", "websiteUrl is unusable: "+reason+"; ignored")
		} else {
			c.WebsiteURL = w
		}
	}
	if raw := present(top, "repository"); raw != nil {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			r.violation("type-mismatch", "/repository", "repository is not an object; ignored")
		} else {
			rp := &Repository{}
			rp.URL, _ = r.str(m, "/repository", "url")
			rp.Source, _ = r.str(m, "/repository", "source")
			rp.Subfolder, _ = r.str(m, "/repository", "subfolder")
			rp.ID, _ = r.str(m, "/repository", "id")
			if rp.URL == "" || rp.Source == "" {
				r.violation("repository", "/repository", "repository needs url and source")
			}
			c.Repository = rp
		}
	}
	for i, m := range r.objects(top, "", "icons") {
		at := "/icons/" + strconv.Itoa(i)
		if m == nil {
			continue
		}
		var ic Icon
		ic.Src, _ = r.str(m, at, "src")
		ic.MimeType, _ = r.str(m, at, "mimeType")
		ic.Sizes = r.strings(m, at, "sizes")
		ic.Theme, _ = r.str(m, at, "theme")
		if ic.Theme != "" && ic.Theme != "light" && ic.Theme != "dark" {
			r.violation("icon", at+"/theme", "theme is neither \"light\" nor \"dark\"; ignored")
			ic.Theme = ""
		}
		if !strings.HasPrefix(ic.Src, "data:image/") && checkRemoteURL(ic.Src, nil) != "" {
			r.violation("icon", at+"/src", "icon src is neither an https URL nor a data:image URI; icon left out")
			continue
		}
		c.Icons = append(c.Icons, ic)
	}
	c.PostInstallInstructions, _ = r.str(top, "", "postInstallInstructions")
	if raw := present(top, "_meta"); raw != nil {
		if isObject(raw) {
			c.Meta = bytes.Clone(raw)
		} else {
			r.violation("type-mismatch", "/_meta", "_meta is not an object; ignored")
		}
	}
	for _, k := range []string{"tools", "resources", "prompts"} {
		if present(top, k) != nil {
			r.diag(Warning, "primitives", "/"+k, "a server card does not list "+k+" (they are listed at runtime); ignored")
		}
	}
	for i, m := range r.objects(top, "", "remotes") {
		if m == nil {
			r.diag(Error, "remote", "/remotes/"+strconv.Itoa(i), "remote is not an object; left out")
			continue
		}
		if rm, ok := r.remote("/remotes/"+strconv.Itoa(i), m); ok {
			c.Remotes = append(c.Remotes, rm)
		}
	}
}

// transportAliases are spellings of the two transports seen in the wild.
var transportAliases = map[string]Transport{
	"http": TransportStreamableHTTP, "streamable_http": TransportStreamableHTTP, "streamablehttp": TransportStreamableHTTP,
	"streamable-http": TransportStreamableHTTP, "http+sse": TransportSSE, "sse": TransportSSE,
}

func (r *reader) remote(at string, m map[string]json.RawMessage) (Remote, bool) {
	rm := Remote{Pointer: at}
	typ, _ := r.str(m, at, "type")
	switch t, ok := transportAliases[strings.ToLower(typ)]; {
	case typ == string(TransportStreamableHTTP) || typ == string(TransportSSE):
		rm.Type = Transport(typ)
	case ok:
		rm.Type = t
		r.violation("transport", at+"/type", "transport "+secrets.Quote(typ, 30)+" read as "+string(t)+"; write \"streamable-http\" or \"sse\"")
	case typ == "":
		r.diag(Error, "transport", at, "remote has no transport type; left out")
		return rm, false
	default:
		r.diag(Error, "transport", at+"/type", "transport "+secrets.Quote(typ, 30)+" is neither \"streamable-http\" nor \"sse\"; remote left out")
		return rm, false
	}
	rm.URL, _ = r.str(m, at, "url")
	rm.URL = strings.TrimSpace(rm.URL)
	if rm.URL == "" {
		r.diag(Error, "url", at, "remote has no url; left out")
		return rm, false
	}
	vars, err := templateVars(rm.URL)
	if err != nil {
		r.diag(Error, "url", at+"/url", "url template: "+err.Error()+"; remote left out")
		return rm, false
	}
	rm.URLVars = vars
	rm.Variables = r.inputs(m, at+"/variables")
	if len(vars) == 0 {
		if reason := checkRemoteURL(rm.URL, r.base); reason != "" {
			r.diag(Error, "url", at+"/url", "url is unusable: "+reason+"; remote left out")
			return rm, false
		}
	} else {
		// The literal text of a template is checked as far as it goes: it must start
		// with http(s):// or with a variable, and carry no userinfo.
		lit := rm.URL
		if i := strings.IndexByte(lit, '{'); i >= 0 {
			lit = lit[:i]
		}
		switch {
		case lit == "":
		case strings.HasPrefix(lit, "https://"):
		case strings.HasPrefix(lit, "http://"):
			r.diag(Warning, "url", at+"/url", "url template is plain http: only a loopback host will be accepted once filled")
		default:
			r.diag(Error, "url", at+"/url", "url template starts with neither https:// nor a {variable}; remote left out")
			return rm, false
		}
		if strings.Contains(strings.SplitN(strings.TrimPrefix(strings.TrimPrefix(rm.URL, "https://"), "http://"), "/", 2)[0], "@") {
			r.diag(Error, "url", at+"/url", "url template carries userinfo; remote left out")
			return rm, false
		}
		for _, v := range vars {
			if _, ok := rm.Variables[v]; !ok {
				r.violation("undeclared-variable", at+"/url", "url variable {"+v+"} is not declared in variables; the user must supply it")
			}
		}
	}
	rm.SupportedProtocolVersions = r.strings(m, at, "supportedProtocolVersions")
	for i, hm := range r.objects(m, at, "headers") {
		hat := at + "/headers/" + strconv.Itoa(i)
		if hm == nil {
			continue
		}
		var h Header
		h.Input = r.input(hat, hm)
		h.Name, _ = r.str(hm, hat, "name")
		if !validHeaderName(h.Name) {
			r.diag(Error, "header", hat, "header has no valid name; left out")
			continue
		}
		h.Variables = r.inputs(hm, hat+"/variables")
		hv, err := templateVars(h.Value)
		if err != nil {
			r.violation("header", hat+"/value", "value template: "+err.Error())
		}
		h.ValueVars = hv
		for _, v := range hv {
			if _, ok := h.Variables[v]; !ok {
				r.violation("undeclared-variable", hat+"/value", "header variable {"+v+"} is not declared in variables; the user must supply it")
			}
		}
		rm.Headers = append(rm.Headers, h)
	}
	return rm, true
}

// validHeaderName reports an HTTP field name (RFC 9110 token).
func validHeaderName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return s != ""
}

// inputs reads a map of variable names to inputs; nil when absent.
func (r *reader) inputs(m map[string]json.RawMessage, at string) map[string]Input {
	raw := present(m, "variables")
	if raw == nil {
		return nil
	}
	var vm map[string]json.RawMessage
	if json.Unmarshal(raw, &vm) != nil || vm == nil {
		r.violation("type-mismatch", at, "variables is not an object; ignored")
		return nil
	}
	names := make([]string, 0, len(vm))
	for k := range vm {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make(map[string]Input, len(vm))
	for _, k := range names {
		vat := at + schemacheck.Pointer(k)
		var im map[string]json.RawMessage
		if json.Unmarshal(vm[k], &im) != nil || im == nil {
			r.violation("type-mismatch", vat, "variable is not an object; ignored")
			continue
		}
		out[k] = r.input(vat, im)
	}
	return out
}

func (r *reader) input(at string, m map[string]json.RawMessage) Input {
	var in Input
	in.Description, _ = r.str(m, at, "description")
	in.IsRequired = r.bool(m, at, "isRequired")
	in.IsSecret = r.bool(m, at, "isSecret")
	in.Format, _ = r.str(m, at, "format")
	switch in.Format {
	case "", "string", "number", "boolean", "filepath":
	default:
		r.violation("input", at+"/format", "format is not one of string, number, boolean, filepath; ignored")
		in.Format = ""
	}
	in.Default, _ = r.str(m, at, "default")
	in.Placeholder, _ = r.str(m, at, "placeholder")
	in.Value, _ = r.str(m, at, "value")
	in.Choices = r.strings(m, at, "choices")
	for _, f := range []struct{ key, v string }{{"value", in.Value}, {"default", in.Default}} {
		if fs := secrets.Scan(f.v); len(fs) > 0 {
			// A card is public: a credential in it is leaked, whoever it belongs to.
			r.diag(Warning, "credential", at+"/"+f.key, "the "+f.key+" holds what looks like a "+fs[0].Kind+": a published card must not carry credentials (the value is not repeated here)")
		}
	}
	return in
}

func (r *reader) bool(m map[string]json.RawMessage, at, key string) bool {
	raw := present(m, key)
	if raw == nil {
		return false
	}
	switch string(raw) {
	case "true":
		return true
	case "false":
		return false
	}
	r.violation("type-mismatch", at+"/"+key, key+" is not a boolean; ignored")
	return false
}

// present returns the member key of m, or nil when it is absent or null.
func present(m map[string]json.RawMessage, key string) json.RawMessage {
	raw, ok := m[key]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	return raw
}

// plainString decodes the common JSON string, quoted ASCII without escapes, without
// the decoder's reflection; ok is false for anything else.
func plainString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c < 0x20 || c >= 0x80 || c == '\\' || c == '"' {
			return "", false
		}
	}
	return string(body), true
}

// str reads a string member; ok is false when it is absent, null or not a string (a
// violation then says so).
func (r *reader) str(m map[string]json.RawMessage, at, key string) (string, bool) {
	raw := present(m, key)
	if raw == nil {
		return "", false
	}
	if s, ok := plainString(raw); ok {
		return s, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		r.violation("type-mismatch", at+schemacheck.Pointer(key), key+" is not a string; ignored")
		return "", false
	}
	return s, true
}

// strings reads an array of strings; members that are not strings are left out.
func (r *reader) strings(m map[string]json.RawMessage, at, key string) []string {
	raw := present(m, key)
	if raw == nil {
		return nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		r.violation("type-mismatch", at+"/"+key, key+" is not an array; ignored")
		return nil
	}
	out := make([]string, 0, len(list))
	for i, v := range list {
		s, ok := plainString(v)
		if !ok && json.Unmarshal(v, &s) != nil {
			r.violation("type-mismatch", at+"/"+key+"/"+strconv.Itoa(i), "not a string; left out")
			continue
		}
		out = append(out, s)
	}
	return out
}

// maxItems bounds the remotes, headers and icons read from one list: a server has a
// handful of each, and every member read costs memory whatever its size.
const maxItems = 64

// objects reads an array of objects, at most maxItems of them (a warning says how
// many more there were); a member that is not an object is nil. The members past the
// bound are skipped without being decoded.
func (r *reader) objects(m map[string]json.RawMessage, at, key string) []map[string]json.RawMessage {
	raw := present(m, key)
	if raw == nil {
		return nil
	}
	if raw[0] != '[' {
		r.violation("type-mismatch", at+"/"+key, key+" is not an array; ignored")
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil
	}
	var out []map[string]json.RawMessage
	total := 0
	for dec.More() {
		total++
		if len(out) >= maxItems {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				break
			}
			continue
		}
		var o map[string]json.RawMessage
		if err := dec.Decode(&o); err != nil {
			var te *json.UnmarshalTypeError
			if !errors.As(err, &te) {
				break // raw was checked when the card was read: unreachable
			}
			o = nil
		}
		out = append(out, o)
	}
	if total > len(out) {
		r.diag(Warning, "limit", at+"/"+key, fmt.Sprintf("%s lists %d members; only the first %d are read", key, total, len(out)))
	}
	return out
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// jsonKind names the JSON type of a valid JSON value that is not an object; "" for
// anything else.
func jsonKind(data []byte) string {
	if !json.Valid(data) {
		return ""
	}
	switch t := bytes.TrimLeft(data, " \t\r\n"); t[0] {
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case '{':
		return ""
	}
	return "number"
}

// schema validates the card against the embedded schema. A schema problem at a
// pointer where the reader already reported an error is left out: the reader's
// message says the same in the card's words.
func (r *reader) schema(data []byte) {
	s, err := cardSchema()
	if err != nil {
		r.diag(Error, "schema", "", err.Error())
		return
	}
	v, err := schemacheck.Decode(data)
	if err != nil {
		return // Parse has read it: unreachable
	}
	reported := make(map[string]bool)
	for _, d := range r.card.Diagnostics {
		if d.Severity == Error {
			reported[d.Where] = true
		}
	}
	for _, p := range s.Validate(v) {
		if reported[p.Pointer] {
			continue
		}
		r.diag(Error, "schema", p.Pointer, p.Message)
	}
}
