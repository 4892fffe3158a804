package aicatalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/wellknown-dev/discovery/internal/httpx"
	"github.com/wellknown-dev/discovery/internal/jsonx"
	"github.com/wellknown-dev/discovery/internal/lazyre"
	"github.com/wellknown-dev/discovery/internal/schemacheck"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// DefaultMaxEntries is how many entries Parse reads from one catalog, and Walk from a
// whole tree of nested catalogs, unless told otherwise.
const DefaultMaxEntries = 1000

// maxDiagsPerCode is how many diagnostics of one code a Catalog lists: a catalog of
// thousands of alike entries gets a count of the rest, not thousands of lines.
const maxDiagsPerCode = 32

// Options configures [Parse]. The zero Options reads leniently, with no catalog URL and
// at most [DefaultMaxEntries] entries.
type Options struct {
	// URL is the absolute URL the catalog was fetched from. Entry URLs are resolved
	// against it, and when its host is public an entry pointing at this machine or a
	// private network is left out. "" means unknown: relative entry URLs are then
	// kept as published, with a warning.
	URL string
	// Mode is Lenient (the zero value) or Strict.
	Mode Mode
	// MaxEntries bounds how many entries are read, in document order; the rest are
	// left out with one warning. 0 means DefaultMaxEntries; negative is an error.
	MaxEntries int
}

// Parse reads an AI Catalog document (application/ai-catalog+json). It is pure: no
// I/O, no logging. It returns an error wrapping [ErrNotCatalog] for anything but a
// JSON object with an "entries" array, [ErrUnsupportedVersion] for a specVersion of
// another major version, and, in Strict mode, a [*ValidationError] when the catalog
// does not conform. Otherwise every problem is a [Diagnostic] of the Catalog.
//
// Entries are read in both forms of the specification ("type", or the earlier
// "mediaType", with or without "displayName"), the older with a warning. An entry is
// left out, with an Error diagnostic, when it cannot be used: not an object, no type,
// "type" and "mediaType" that disagree, both "url" and "data" or neither, inline data
// of a JSON type that is not an object, or a URL that is not https (http only on a
// loopback host), carries userinfo, is a javascript:, data: or file: URL, or points at
// this machine or a private network from a catalog on a public host. Unknown members
// are ignored and null counts as absent. A trust manifest whose identity differs from
// its entry's identifier is dropped (the specification says to reject it), and a
// digest that is malformed or weaker than SHA-256 is cleared, each with a diagnostic.
//
// In Lenient mode a byte order mark, comments and trailing commas (JSON as editors
// write it) are read as if absent, with a warning; missing or mistyped members that do
// not stop an entry from being used are warnings. Strict mode reports them as errors,
// validates the document against a JSON Schema of the specification, and reports a
// repeated identifier (with the same version) as an error.
//
// Inline data is kept verbatim and not read here: [Walk] reads inline nested catalogs
// (in the mode it is given), and package servercard reads inline cards.
func Parse(data []byte, opts Options) (*Catalog, error) {
	if opts.MaxEntries < 0 {
		return nil, fmt.Errorf("aicatalog: Options.MaxEntries is negative (%d)", opts.MaxEntries)
	}
	if opts.MaxEntries == 0 {
		opts.MaxEntries = DefaultMaxEntries
	}
	var base *url.URL
	if opts.URL != "" {
		u, err := url.Parse(opts.URL)
		if err != nil || !u.IsAbs() || u.Host == "" {
			return nil, fmt.Errorf("aicatalog: Options.URL %s is not an absolute URL", secrets.Quote(secrets.RedactURL(opts.URL), 0))
		}
		base = u
	}
	r := &reader{strict: opts.Mode == Strict, base: base, cat: &Catalog{URL: opts.URL}}
	relaxed := ""
	var top map[string]json.RawMessage
	err := json.Unmarshal(data, &top)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Hand-written JSON: a byte order mark, comments, trailing commas are read as
		// if absent; anything else is the decoder's error below.
		if std, devs, ok := jsonx.Relax(data); ok && json.Unmarshal(std, &top) == nil {
			data, relaxed, err = std, jsonx.Describe(devs), nil
		}
	}
	if err != nil {
		if k := jsonKind(data); k != "" {
			return nil, fmt.Errorf("%w: the document is a JSON %s, not an object", ErrNotCatalog, k)
		}
		return nil, fmt.Errorf("%w: not JSON: %s", ErrNotCatalog, jsonMessage(err))
	}
	if top == nil {
		return nil, fmt.Errorf("%w: the document is null", ErrNotCatalog)
	}
	entries, total, ok := splitEntries(present(top, "entries"), opts.MaxEntries)
	if !ok {
		return nil, fmt.Errorf("%w: no \"entries\" array", ErrNotCatalog)
	}
	r.cat.Digest = digest(data)
	if relaxed != "" {
		r.violation("json", "", "not strict JSON: "+relaxed+"; read as if absent (publish plain JSON)")
	}
	if err := r.version(top); err != nil {
		return nil, err
	}
	if raw := present(top, "host"); raw != nil {
		r.cat.Host = r.host(raw)
	}
	r.cat.Metadata = r.metadata(top, "")
	r.cat.Signature, _ = r.str(top, "", "signature")
	if total > len(entries) {
		r.diag(Warning, "limit", "/entries", fmt.Sprintf("the catalog lists %d entries; only the first %d are read", total, len(entries)))
	}
	seen := make(map[string]string) // identifier and version -> pointer of the first
	unknown := make(map[string]bool)
	for i, m := range entries {
		at := "/entries/" + strconv.Itoa(i)
		e, ok := r.entry(at, m)
		if !ok {
			continue
		}
		if e.Identifier != "" {
			key := e.Identifier + "\x00" + e.Version
			if first, dup := seen[key]; dup {
				what := "identifier " + secrets.Quote(e.Identifier, 0)
				if e.Version != "" {
					what += " with version " + secrets.Quote(e.Version, 0)
				}
				r.violation("duplicate", at, what+" is already used by "+first+"; identifier and version must be unique")
			} else {
				seen[key] = at
			}
		}
		if !e.Known() && !unknown[e.Type] {
			unknown[e.Type] = true
			r.cat.UnknownTypes = append(r.cat.UnknownTypes, e.Type)
		}
		r.cat.Entries = append(r.cat.Entries, e)
	}
	switch {
	case r.current > 0 && r.legacy > 0:
		r.cat.Form = FormMixed
	case r.current > 0:
		r.cat.Form = FormCurrent
	case r.legacy > 0:
		r.cat.Form = FormLegacy
	}
	if r.strict {
		r.schema(data)
	}
	r.summarise()
	if r.strict {
		for _, d := range r.cat.Diagnostics {
			if d.Severity == Error {
				return nil, &ValidationError{Diagnostics: r.cat.Diagnostics}
			}
		}
	}
	return r.cat, nil
}

// splitEntries decodes the "entries" array into its members' objects (nil for a
// member that is not an object), at most max of them; total counts them all. ok is
// false when raw is not an array. The array is read with one decoder, so each entry's
// bytes are scanned once rather than once per level.
func splitEntries(raw json.RawMessage, max int) (entries []map[string]json.RawMessage, total int, ok bool) {
	if raw == nil || raw[0] != '[' {
		return nil, 0, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, 0, false
	}
	for dec.More() {
		if total >= max {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil, 0, false
			}
			total++
			continue
		}
		var m map[string]json.RawMessage
		if err := dec.Decode(&m); err != nil {
			var te *json.UnmarshalTypeError
			if !errors.As(err, &te) {
				return nil, 0, false // raw was checked when the document was read: unreachable
			}
			m = nil
		}
		entries = append(entries, m)
		total++
	}
	return entries, total, true
}

// reader holds the state of one Parse.
type reader struct {
	strict          bool
	base            *url.URL
	cat             *Catalog
	perCode         map[string]int
	current, legacy int // entries naming their type with "type", and with "mediaType"
}

// diag records a diagnostic, at most maxDiagsPerCode of a code.
func (r *reader) diag(sev Severity, code, at, msg string) {
	if r.perCode == nil {
		r.perCode = make(map[string]int)
	}
	r.perCode[code]++
	if r.perCode[code] > maxDiagsPerCode {
		return // counted by summarise
	}
	r.cat.Diagnostics = append(r.cat.Diagnostics, Diagnostic{Severity: sev, Code: code, Source: sourceOf(r.cat.URL), Where: at, Message: msg})
}

// sourceOf is a catalog URL as a diagnostic names it: without userinfo, query or
// fragment, which may hold credentials.
func sourceOf(u string) string {
	if u == "" {
		return ""
	}
	return secrets.RedactURL(u)
}

// violation records a departure from the specification that does not stop the reader:
// a warning in Lenient mode, an error in Strict mode.
func (r *reader) violation(code, at, msg string) {
	sev := Warning
	if r.strict {
		sev = Error
	}
	r.diag(sev, code, at, msg)
}

// summarise ends the diagnostics with, for each code that had more than
// maxDiagsPerCode, one that counts those not listed.
func (r *reader) summarise() {
	for i := 0; i < len(r.cat.Diagnostics); i++ {
		d := r.cat.Diagnostics[i]
		n := r.perCode[d.Code]
		if n <= maxDiagsPerCode {
			continue
		}
		delete(r.perCode, d.Code) // once per code
		r.cat.Diagnostics = append(r.cat.Diagnostics, Diagnostic{Severity: d.Severity, Code: d.Code, Source: d.Source,
			Message: fmt.Sprintf("%d more diagnostics of this code are not listed", n-maxDiagsPerCode)})
	}
}

var versionRE = lazyre.New(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)

// version reads specVersion: a major version other than 1 is an error, anything that
// is not "Major.Minor" a violation read as 1.0.
func (r *reader) version(top map[string]json.RawMessage) error {
	raw := present(top, "specVersion")
	if raw == nil {
		r.violation("spec-version", "", "no specVersion; read as "+SpecVersion)
		return nil
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		r.violation("spec-version", "/specVersion", "specVersion is not a string; read as "+SpecVersion)
		return nil
	}
	r.cat.SpecVersion = v
	m := versionRE().FindStringSubmatch(v)
	if m == nil {
		r.violation("spec-version", "/specVersion", "specVersion "+secrets.Quote(v, 20)+" is not \"Major.Minor\"; read as "+SpecVersion)
		return nil
	}
	if m[1] != "1" {
		return fmt.Errorf("%w: %s (this reader knows major version 1)", ErrUnsupportedVersion, secrets.Quote(v, 20))
	}
	return nil
}

// entry reads one entry; ok is false when it cannot be used (an Error diagnostic says
// why).
func (r *reader) entry(at string, m map[string]json.RawMessage) (e Entry, ok bool) {
	if m == nil {
		r.diag(Error, "entry", at, "entry is not an object; left out")
		return e, false
	}
	e.Pointer = at
	e.Identifier, _ = r.str(m, at, "identifier")
	if e.Identifier == "" {
		r.violation("identifier", at, "entry has no identifier")
	}
	typ, hasType := r.str(m, at, "type")
	mediaType, hasMediaType := r.str(m, at, "mediaType")
	switch {
	case hasType && hasMediaType && normalType(typ) != normalType(mediaType):
		r.diag(Error, "type", at, "\"type\" and \"mediaType\" name different types; left out")
		return e, false
	case hasType && typ != "":
		e.Type = typ
		r.current++
		if hasMediaType {
			r.diag(Warning, "legacy-form", at+"/mediaType", "both \"type\" and the earlier \"mediaType\"; \"type\" is enough")
		}
	case hasMediaType && mediaType != "":
		e.Type = mediaType
		r.legacy++
		r.diag(Warning, "legacy-form", at+"/mediaType", "\"mediaType\" is the earlier name of \"type\"; read as \"type\"")
	default:
		r.diag(Error, "type", at, "entry has no type (\"type\", or the earlier \"mediaType\"); left out")
		return e, false
	}
	e.Type = normalType(strings.ToLower(e.Type))
	if t, sub, ok := strings.Cut(e.Type, "/"); !ok || t == "" || sub == "" || strings.ContainsAny(e.Type, " \t\r\n") {
		key := "/type"
		if !hasType || typ == "" {
			key = "/mediaType" // the type was read from there
		}
		r.violation("type", at+key, "type "+secrets.Quote(e.Type, 60)+" is not a media type (type/subtype); kept as an unknown type")
	}
	e.DisplayName, _ = r.str(m, at, "displayName")
	e.Description, _ = r.str(m, at, "description")
	e.Version, _ = r.str(m, at, "version")
	if e.UpdatedAt, _ = r.str(m, at, "updatedAt"); e.UpdatedAt != "" {
		if _, err := time.Parse(time.RFC3339, e.UpdatedAt); err != nil {
			r.violation("updated-at", at+"/updatedAt", "updatedAt is not an RFC 3339 timestamp")
		}
	}
	e.Tags = r.strings(m, at, "tags")
	e.Metadata = r.metadata(m, at)
	if raw := present(m, "publisher"); raw != nil {
		e.Publisher = r.publisher(at+"/publisher", raw)
	}
	rawURL, hasURL := r.str(m, at, "url")
	data := present(m, "data")
	if _, nullData := m["data"]; nullData && data == nil && hasURL {
		// null counts as absent, but the specification's "exactly one of" counts
		// members: say so here rather than leave the schema's words alone.
		r.violation("both-url-and-data", at, "entry has \"url\" and a null \"data\"; leave \"data\" out")
	}
	switch {
	case hasURL && data != nil:
		r.diag(Error, "both-url-and-data", at, "entry has both \"url\" and \"data\"; exactly one is allowed; left out")
		return e, false
	case !hasURL && data == nil:
		r.diag(Error, "no-url-or-data", at, "entry has neither \"url\" nor \"data\"; left out")
		return e, false
	case hasURL:
		u, warn, reason := r.resolve(rawURL)
		if reason != "" {
			r.diag(Error, "url", at+"/url", reason+"; left out")
			return e, false
		}
		if warn != "" {
			r.diag(Warning, "url", at+"/url", warn)
		}
		e.URL = u
	default:
		if jsonType(e.Type) && !isObject(data) {
			r.diag(Error, "data", at+"/data", "inline data of type "+secrets.Quote(e.Type, 0)+" is not a JSON object; left out")
			return e, false
		}
		e.Data = bytes.Clone(data)
	}
	if raw := present(m, "trustManifest"); raw != nil {
		tm := r.trustManifest(at+"/trustManifest", raw)
		switch {
		case tm != nil && tm.Identity != e.Identifier:
			// The specification: consumers MUST reject a trust manifest whose identity
			// does not match its entry's identifier, or trust claims could be moved
			// from one artifact to another.
			r.diag(Error, "trust-identity", at+"/trustManifest/identity", "trust manifest identity does not match the entry's identifier; trust manifest ignored")
		case tm != nil:
			e.TrustManifest = tm
		}
	}
	return e, true
}

// jsonType reports a media type whose documents are JSON objects.
func jsonType(t string) bool {
	return t == TypeAICatalog || t == TypeMCPServerCard || t == TypeA2AAgentCard || t == TypeAgentSkills || t == TypeClaudePlugin
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// resolve resolves an entry URL against the catalog URL (RFC 3986 §5) and checks that
// it is usable. reason is why it is not; warn a remark on one that is.
func (r *reader) resolve(ref string) (abs, warn, reason string) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return "", "", "url is empty"
	}
	u, err := url.Parse(ref)
	if err != nil {
		return "", "", "url does not parse"
	}
	if !u.IsAbs() {
		if r.base == nil {
			if u.Host != "" || strings.HasPrefix(ref, "//") {
				return "", "", "url is scheme-relative and the catalog URL is unknown"
			}
			if u.User != nil {
				return "", "", "url carries userinfo"
			}
			return ref, "url is relative and the catalog URL is unknown; kept as published", ""
		}
		u = r.base.ResolveReference(u)
	}
	switch {
	case u.User != nil:
		// user:password@host in a published document is a credential or a trick to
		// make the URL read as another host.
		return "", "", "url carries userinfo"
	case u.Scheme == "https":
	case u.Scheme == "http" && httpx.IsLoopbackHost(u.Hostname()):
	case u.Scheme == "http":
		return "", "", "url is plain http (https is required off loopback)"
	default:
		// javascript:, data:, file: and every other scheme: nothing a client should
		// fetch on a catalog's word.
		return "", "", "url scheme " + secrets.Quote(u.Scheme, 20) + " is not https"
	}
	if u.Host == "" {
		return "", "", "url has no host"
	}
	if r.base != nil && httpx.IsLocalHost(u.Hostname()) && !httpx.IsLocalHost(r.base.Hostname()) {
		// A catalog on a public host pointing at localhost or 10.0.0.5 names the
		// publisher's development machine, and on the reader's side some other service.
		return "", "", "url points at this machine or a private network from a catalog on a public host"
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), "", ""
}

func (r *reader) host(raw json.RawMessage) *Host {
	const at = "/host"
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		r.violation("host", at, "host is not an object; ignored")
		return nil
	}
	h := &Host{}
	h.DisplayName, _ = r.str(m, at, "displayName")
	if h.DisplayName == "" {
		r.violation("host", at, "host has no displayName")
	}
	h.Identifier, _ = r.str(m, at, "identifier")
	h.DocumentationURL, _ = r.str(m, at, "documentationUrl")
	h.LogoURL, _ = r.str(m, at, "logoUrl")
	if raw := present(m, "trustManifest"); raw != nil {
		h.TrustManifest = r.trustManifest(at+"/trustManifest", raw)
		if h.TrustManifest != nil && h.Identifier != "" && h.TrustManifest.Identity != h.Identifier {
			r.diag(Warning, "trust-identity", at+"/trustManifest/identity", "host trust manifest identity differs from the host's identifier")
		}
	}
	return h
}

func (r *reader) publisher(at string, raw json.RawMessage) *Publisher {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		r.violation("publisher", at, "publisher is not an object; ignored")
		return nil
	}
	p := &Publisher{}
	p.Identifier, _ = r.str(m, at, "identifier")
	p.DisplayName, _ = r.str(m, at, "displayName")
	p.IdentityType, _ = r.str(m, at, "identityType")
	if p.Identifier == "" || p.DisplayName == "" {
		r.violation("publisher", at, "publisher needs both identifier and displayName")
	}
	return p
}

func (r *reader) trustManifest(at string, raw json.RawMessage) *TrustManifest {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		r.violation("trust-manifest", at, "trust manifest is not an object; ignored")
		return nil
	}
	tm := &TrustManifest{Raw: bytes.Clone(raw)}
	tm.Identity, _ = r.str(m, at, "identity")
	if tm.Identity == "" {
		r.diag(Error, "trust-manifest", at, "trust manifest has no identity; ignored")
		return nil
	}
	tm.IdentityType, _ = r.str(m, at, "identityType")
	tm.PrivacyPolicyURL, _ = r.str(m, at, "privacyPolicyUrl")
	tm.TermsOfServiceURL, _ = r.str(m, at, "termsOfServiceUrl")
	tm.Signature, _ = r.str(m, at, "signature")
	tm.Metadata = r.metadata(m, at)
	if raw := present(m, "trustSchema"); raw != nil {
		var s map[string]json.RawMessage
		if json.Unmarshal(raw, &s) != nil || s == nil {
			r.violation("trust-manifest", at+"/trustSchema", "trustSchema is not an object; ignored")
		} else {
			sat := at + "/trustSchema"
			ts := &TrustSchema{}
			ts.Identifier, _ = r.str(s, sat, "identifier")
			ts.Version, _ = r.str(s, sat, "version")
			ts.GovernanceURI, _ = r.str(s, sat, "governanceUri")
			ts.VerificationMethods = r.strings(s, sat, "verificationMethods")
			if ts.Identifier == "" || ts.Version == "" {
				r.violation("trust-manifest", sat, "trustSchema needs both identifier and version")
			}
			tm.TrustSchema = ts
		}
	}
	for i, o := range r.objects(m, at, "attestations") {
		aat := at + "/attestations/" + strconv.Itoa(i)
		if o == nil {
			continue
		}
		var a Attestation
		a.Type, _ = r.str(o, aat, "type")
		a.URI, _ = r.str(o, aat, "uri")
		a.MediaType, _ = r.str(o, aat, "mediaType")
		a.Description, _ = r.str(o, aat, "description")
		a.Digest = r.digest(o, aat, "digest")
		if raw := present(o, "size"); raw != nil {
			if n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64); err == nil && n >= 0 {
				a.Size = n
			} else {
				r.violation("trust-manifest", aat+"/size", "size is not an unsigned integer; ignored")
			}
		}
		if a.Type == "" || a.URI == "" || a.MediaType == "" {
			r.violation("trust-manifest", aat, "attestation needs type, uri and mediaType")
		}
		tm.Attestations = append(tm.Attestations, a)
	}
	for i, o := range r.objects(m, at, "provenance") {
		pat := at + "/provenance/" + strconv.Itoa(i)
		if o == nil {
			continue
		}
		var p Provenance
		p.Relation, _ = r.str(o, pat, "relation")
		p.SourceID, _ = r.str(o, pat, "sourceId")
		p.SourceDigest = r.digest(o, pat, "sourceDigest")
		p.RegistryURI, _ = r.str(o, pat, "registryUri")
		p.StatementURI, _ = r.str(o, pat, "statementUri")
		p.SignatureRef, _ = r.str(o, pat, "signatureRef")
		if p.Relation == "" || p.SourceID == "" {
			r.violation("trust-manifest", pat, "provenance link needs relation and sourceId")
		}
		tm.Provenance = append(tm.Provenance, p)
	}
	return tm
}

// digestLen is the hex length of each hash algorithm a digest may use: SHA-256 or
// stronger, as the specification requires of consumers.
var digestLen = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128, "sha3-256": 64, "sha3-384": 96, "sha3-512": 128}

// digest reads a digest member ("algorithm:hex"). One that is malformed or uses an
// algorithm weaker than SHA-256 is cleared with a diagnostic: nothing may be verified
// against it.
func (r *reader) digest(m map[string]json.RawMessage, at, key string) string {
	d, _ := r.str(m, at, key)
	if d == "" {
		return ""
	}
	alg, hexs, ok := strings.Cut(d, ":")
	alg = strings.ToLower(alg)
	switch n, known := digestLen[alg]; {
	case !ok:
		r.violation("digest", at+"/"+key, "digest is not \"algorithm:hex\"; ignored")
	case !known && (alg == "sha1" || alg == "md5" || alg == "sha224"):
		r.diag(Warning, "weak-digest", at+"/"+key, "digest algorithm "+alg+" is weaker than SHA-256 and cannot be used to verify; ignored")
	case !known:
		r.violation("digest", at+"/"+key, "digest algorithm "+secrets.Quote(alg, 20)+" is not known; ignored")
	case len(hexs) != n || !isLowerHex(hexs):
		r.violation("digest", at+"/"+key, fmt.Sprintf("digest is not %d lower-case hex digits of %s; ignored", n, alg))
	default:
		return alg + ":" + hexs
	}
	return ""
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return s != ""
}

// present returns the member key of m, or nil when it is absent or null.
func present(m map[string]json.RawMessage, key string) json.RawMessage {
	raw, ok := m[key]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil
	}
	return raw
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
		r.violation("type-mismatch", at+"/"+schemacheck.Pointer(key)[1:], key+" is not a string; ignored")
		return "", false
	}
	return s, true
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

// objects reads an array of objects; a member that is not an object is nil, with a
// violation.
func (r *reader) objects(m map[string]json.RawMessage, at, key string) []map[string]json.RawMessage {
	raw := present(m, key)
	if raw == nil {
		return nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		r.violation("type-mismatch", at+"/"+key, key+" is not an array; ignored")
		return nil
	}
	out := make([]map[string]json.RawMessage, len(list))
	for i, v := range list {
		if json.Unmarshal(v, &out[i]) != nil {
			out[i] = nil
			r.violation("type-mismatch", at+"/"+key+"/"+strconv.Itoa(i), "not an object; left out")
		}
	}
	return out
}

// metadata returns the "metadata" object of m verbatim.
func (r *reader) metadata(m map[string]json.RawMessage, at string) json.RawMessage {
	raw := present(m, "metadata")
	if raw == nil {
		return nil
	}
	if !isObject(raw) {
		r.violation("type-mismatch", at+"/metadata", "metadata is not an object; ignored")
		return nil
	}
	return bytes.Clone(raw)
}

// schema validates the document against the embedded schema. A schema problem at a
// pointer where the reader already reported an error is left out: the reader's
// message says the same in the catalog's words.
func (r *reader) schema(data []byte) {
	s, err := catalogSchema()
	if err != nil {
		r.diag(Error, "schema", "", err.Error())
		return
	}
	v, err := schemacheck.Decode(data)
	if err != nil {
		return // Parse has read it: unreachable
	}
	reported := make(map[string]bool)
	for _, d := range r.cat.Diagnostics {
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

// digest returns "sha256:<hex>" of a JSON document with insignificant whitespace
// removed (of the bytes as given when they do not compact).
func digest(data []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, data) == nil {
		data = b.Bytes()
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
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

// jsonMessage renders an encoding/json error, scrubbed.
func jsonMessage(err error) string {
	return secrets.ScrubError(strings.TrimPrefix(err.Error(), "json: "))
}
