package lint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/diag"
	"github.com/wellknown-dev/discovery/internal/jsonx"
	"github.com/wellknown-dev/discovery/internal/secrets"
	"github.com/wellknown-dev/discovery/internal/skillrules"
	"github.com/wellknown-dev/discovery/internal/termtext"
	"github.com/wellknown-dev/discovery/mcpjson"
	"github.com/wellknown-dev/discovery/skillsmd"
	"github.com/wellknown-dev/discovery/trust"
)

// Document kinds lint knows.
const (
	KindSkillsMD    = "skills.md"
	KindMCPJSON     = "mcp.json"
	KindSkillMD     = "SKILL.md"
	KindSkillFolder = "skill-folder"
	KindIndex       = "skills-index"
	KindOrigin      = "origin"
)

// Problem is one finding, in the shape every output format is made from.
type Problem struct {
	File     string        `json:"file"`              // a path as given, or a redacted URL
	Line     int           `json:"line"`              // 1-based; 0 when unknown
	Column   int           `json:"column"`            // 1-based, in characters; 0 when unknown
	Pointer  string        `json:"pointer,omitempty"` // RFC 6901 pointer, for JSON documents
	Severity diag.Severity `json:"severity"`          // "error", "warning" or "info" (info only with Options.Explain)
	Code     string        `json:"code"`              // stable rule identifier
	Message  string        `json:"message"`
	Evidence *Evidence     `json:"evidence,omitempty"` // what a reader decided and why: set on info problems (Options.Explain)
}

// File is one document checked.
type File struct {
	File string `json:"file"` // a path as given, or a redacted URL
	Kind string `json:"kind"` // one of the Kind constants, or "unknown"
}

// Options configures a Linter. A nil *Options is the zero Options, which is safe.
type Options struct {
	// Client fetches the URLs linted and the artifacts of the indexes they publish,
	// with its origin, private-address and consent rules. nil: a Client made with
	// discovery.NewClient(nil) on first use, which refuses private origins and denies
	// consent. The artifacts of an index read from disk are always fetched from lint's
	// own loopback server, by a Client of lint's own that reaches nothing else.
	Client *discovery.Client

	// FollowCrossOriginRedirects follows a redirect of a URL linted to another origin;
	// the Client then asks consent for what it fetches there. false: the redirect is
	// not followed and is reported (code cross-origin-redirect).
	FollowCrossOriginRedirects bool

	// UserAgent is sent with the requests lint makes itself (the documents at the URLs
	// linted). "": Go's default.
	UserAgent string

	// Explain adds, as problems of severity info with their Evidence, what the readers
	// decided: for mcp.json each endpoint taken and each candidate URL not taken, for
	// skills.md the API base taken, the candidates set aside and where each auth rule
	// came from. Info problems never count as errors or warnings. false: none.
	Explain bool

	// FetchCrossOrigin fetches the server cards an AI Catalog lists on another origin
	// than its own, through Client (which asks consent for that origin). false: they
	// are reported as not checked (code not-checked).
	FetchCrossOrigin bool

	// TrustRoots are the trust anchors the trust manifests of catalog entries are
	// verified against (package trust); one that does not verify is an error. nil: a
	// signed manifest is reported (as info) as not verified.
	TrustRoots []trust.Root
}

// Linter checks documents and collects the problems it finds across calls of Lint;
// Report returns them. Create it with New; the zero Linter is not usable. A Linter is
// not safe for concurrent use: call Lint from one goroutine at a time.
type Linter struct {
	opts     Options
	files    []File
	problems []Problem
	client   *discovery.Client // opts.Client, or one made on first use
	local    *discovery.Client // for the artifacts of indexes on disk; made on first use
}

// New returns a Linter configured by opts, which may be nil; opts is copied.
func New(opts *Options) *Linter {
	l := &Linter{}
	if opts != nil {
		l.opts = *opts
	}
	l.client = l.opts.Client
	return l
}

// Lint checks target and adds what it finds to the Linter's report. target is a path
// (a skills.md, mcp.json, SKILL.md or index.json, a skill folder, or a folder holding
// well-known documents, also under .well-known/) or an http(s) URL (of a document, or
// an origin for all it publishes). The kind of each document is told by its name and
// content. ctx bounds the whole call: what its deadline leaves unchecked is reported
// by name (code budget). Problems in the documents are not errors: Lint returns an
// error only when it cannot go on (a file it cannot read, ctx cancelled), or a
// *TargetError for a target that is neither.
func (lt *Linter) Lint(ctx context.Context, target string) error {
	l := &linter{ctx: ctx, Linter: lt}
	return l.lintArg(target)
}

// Report returns the files checked and the problems found so far, problems ordered by
// file (in the order the files were checked), then line and column.
func (lt *Linter) Report() *Report {
	l := &linter{Linter: lt}
	l.sort()
	return &Report{Files: slices.Clone(lt.files), Problems: slices.Clone(lt.problems)}
}

// TargetError reports a target that Lint cannot read as a path or a URL.
type TargetError struct {
	Target string // redacted
	Reason string
}

func (e *TargetError) Error() string { return "lint: " + e.Target + " " + e.Reason }

// linter is a Linter during one call of Lint: the call's context.
type linter struct {
	ctx context.Context
	*Linter
	depth int             // nested catalogs being checked by URL, around this one
	seen  map[string]bool // the catalogs checked by URL in this call (redacted URLs): a cycle stops
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

func (l *linter) add(p Problem) {
	if p.Severity == diag.Info && !l.opts.Explain {
		return // explanations are shown only when asked for
	}
	if p.Code == "" {
		p.Code = "invalid"
	}
	if refusedCodes[p.Code] {
		p.Severity = diag.Error
	}
	p.Message = termtext.Clean(p.Message, 2048)
	l.problems = append(l.problems, p)
}

func (l *linter) addFile(file, kind string) { l.files = append(l.files, File{file, kind}) }

// Count returns the number of problems of severity error and of the others but info
// (explanations, which are no problem).
func (r *Report) Count() (errs, warns int) {
	for _, p := range r.Problems {
		switch p.Severity {
		case diag.Error:
			errs++
		case diag.Info:
		default:
			warns++
		}
	}
	return errs, warns
}

// sort orders problems by file (in argument order), then line and column.
func (l *linter) sort() {
	order := map[string]int{}
	for i, f := range l.files {
		if _, ok := order[f.File]; !ok {
			order[f.File] = i
		}
	}
	slices.SortStableFunc(l.problems, func(x, y Problem) int {
		ox, okx := order[x.File]
		oy, oky := order[y.File]
		if !okx {
			ox = len(order)
		}
		if !oky {
			oy = len(order)
		}
		if ox != oy {
			return ox - oy
		}
		if x.Line != y.Line {
			return x.Line - y.Line
		}
		return x.Column - y.Column
	})
}

// lintArg lints one command-line argument.
func (l *linter) lintArg(arg string) error {
	if isURL(arg) {
		return l.lintURL(arg)
	}
	st, err := os.Stat(arg)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return l.lintDir(arg)
	}
	data, err := readFileCapped(arg)
	if err != nil {
		return err
	}
	kind := detectKind(filepath.Base(arg), data)
	if kind == "" {
		l.addFile(arg, "unknown")
		l.add(Problem{File: arg, Severity: diag.Error, Code: "unknown-kind",
			Message: "cannot tell what this document is: name it skills.md, mcp.json, SKILL.md or index.json"})
		return nil
	}
	return l.lintDoc(arg, kind, data, filepath.Dir(arg))
}

// refusedCodes are the parsers' diagnostics that are errors in lint whatever severity
// the parser gives them: what a client or "skills install" refuses, and published
// credentials. Lint must flag as errors everything install or GetSkill would refuse.
var refusedCodes = map[string]bool{
	skillsmd.WarnCredential: true, // a published secret (skills.md; lint's own scan of SKILL.md and indexes): remove and rotate it
	"name":                  true, // SKILL.md: an invalid name; install refuses it
	"name-mismatch":         true, // SKILL.md: differs from its folder or index entry; install refuses it
}

// Size limits of the clients, which lint enforces as errors.
const (
	// maxDocBytes: skills.md, mcp.json and skills indexes (Client.Discover,
	// Client.Structured, Client.ListSkills).
	maxDocBytes = discovery.DefaultMaxDocumentBytes
	// maxSkillMDBytes: one SKILL.md fetched by Client.GetSkill, or read by
	// agentskills.ScanLocal.
	maxSkillMDBytes = 1 << 20
)

// docLimit is the size over which clients refuse a document of kind; 0: none here.
func docLimit(kind string) int64 {
	switch kind {
	case KindSkillsMD, KindMCPJSON, KindIndex, KindAICatalog, KindServerCard:
		return maxDocBytes
	case KindSkillMD:
		return maxSkillMDBytes
	}
	return 0
}

// checkSize reports a document over its client's limit: an error, since clients
// refuse it. It reports whether the document is within the limit.
func (l *linter) checkSize(file, kind string, data []byte) bool {
	limit := docLimit(kind)
	if limit == 0 || int64(len(data)) <= limit {
		return true
	}
	l.add(Problem{File: file, Severity: diag.Error, Code: "too-large",
		Message: fmt.Sprintf("%s is %d bytes, over the %d-byte limit of discovery clients (%s): they refuse it; make it smaller", kind, len(data), limit, sizeName(limit))})
	return false
}

// sizeName is "1 MiB", "16 MiB".
func sizeName(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// scanCredentials reports every credential found in a document the parsers do not
// scan themselves (SKILL.md, indexes), as an error: a secret published is leaked.
func (l *linter) scanCredentials(file string, data []byte) {
	for _, f := range secrets.ScanBytes(data) {
		line, col := offsetLineCol(data, f.Offset)
		l.add(Problem{File: file, Line: line, Column: col, Severity: diag.Error, Code: "credential",
			Message: "possible " + f.Kind + " published in the document (value not shown); remove it and rotate the credential"})
	}
}

// maxLintBytes caps a file read from disk.
const maxLintBytes = 16 << 20

func readFileCapped(name string) ([]byte, error) {
	return skillrules.ReadFileLimit(name, maxLintBytes, "lint: ")
}

// detectKind tells a document's kind by its file name, then by its content.
func detectKind(name string, data []byte) string {
	switch strings.ToLower(name) {
	case "skills.md":
		return KindSkillsMD
	case "mcp.json":
		return KindMCPJSON
	case "index.json":
		return KindIndex
	}
	if k := catalogKind(name, nil); k != "" {
		return k
	}
	if strings.EqualFold(name, "SKILL.md") {
		return KindSkillMD
	}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch ext := strings.ToLower(path.Ext(name)); {
	case ext == ".json" || bytes.HasPrefix(trimmed, []byte("{")):
		var probe map[string]json.RawMessage
		if json.Unmarshal(trimmed, &probe) != nil {
			if ext == ".json" {
				return KindMCPJSON // let the mcp.json check report the syntax error
			}
			return ""
		}
		if k := catalogKind(name, probe); k != "" {
			return k
		}
		if _, ok := probe["skills"]; ok {
			return KindIndex
		}
		return KindMCPJSON
	case ext == ".md" || ext == ".markdown":
		if bytes.HasPrefix(trimmed, []byte("---")) && skillFrontmatter.Match(trimmed) {
			return KindSkillMD
		}
		return KindSkillsMD
	}
	return ""
}

var skillFrontmatter = regexp.MustCompile(`(?m)\A---[ \t]*\r?\n(?:.*\r?\n)*?(?:name|description)[ \t]*:`)

// lintDir lints a skill folder (one with a SKILL.md), or the well-known documents in
// a folder (or its .well-known/ subfolder).
func (l *linter) lintDir(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, agentskills.SkillFile)); err == nil {
		return l.lintSkillFolder(dir)
	}
	found := false
	for _, base := range []string{dir, filepath.Join(dir, ".well-known")} {
		for _, rel := range []string{"skills.md", "mcp.json", "agent-skills/index.json", "skills/index.json", "ai-catalog.json"} {
			p := filepath.Join(base, filepath.FromSlash(rel))
			if st, err := os.Stat(p); err != nil || st.IsDir() {
				continue
			}
			found = true
			if err := l.lintArg(p); err != nil {
				return err
			}
		}
	}
	if !found {
		l.addFile(dir, "unknown")
		l.add(Problem{File: dir, Severity: diag.Error, Code: "nothing-to-lint",
			Message: "the folder holds no SKILL.md, skills.md, mcp.json or skills index (also looked in .well-known/)"})
	}
	return nil
}

func (l *linter) lintSkillFolder(dir string) error {
	name := filepath.Join(dir, agentskills.SkillFile)
	data, err := readFileCapped(name)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	l.addFile(dir, KindSkillFolder)
	if l.checkSize(name, KindSkillMD, data) {
		l.lintSkillMD(name, data, filepath.Base(abs), false)
	}
	l.scanCredentials(name, data)
	return l.checkFolderFiles(dir)
}

// checkFolderFiles reports what "skills install" (agentskills.ExtractArchive) and
// GetSkill refuse in a skill folder: links and other non-regular files, names that
// print as something else or that wellknown reserves, and more files or bytes than
// the limits.
func (l *linter) checkFolderFiles(dir string) error {
	var files int
	var total int64
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		at := func(code, msg string) {
			l.add(Problem{File: p, Severity: diag.Error, Code: code, Message: msg})
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			at("symlink", "a symbolic link: skills install refuses links in skills (and agents' scanners do not follow them); put the file itself here")
			return nil
		case d.IsDir():
			if strings.Count(filepath.ToSlash(rel), "/")+1 > agentskills.DefaultMaxDepth {
				at("limit", fmt.Sprintf("nested deeper than %d folders: skills install refuses it", agentskills.DefaultMaxDepth))
				return fs.SkipDir
			}
			return nil
		case !d.Type().IsRegular():
			at("not-regular", "not a regular file (a device, a pipe or a socket): skills install refuses it")
			return nil
		}
		switch {
		case !skillrules.PrintableName(rel):
			at("file-name", "the file name has control, format or bidi characters: skills install refuses it")
		case filepath.ToSlash(rel) == skillrules.RecordFile:
			at("file-name", skillrules.RecordFile+" is reserved for wellknown's install record: skills install refuses a skill that ships one")
		}
		files++
		if files == agentskills.DefaultMaxEntries+1 {
			at("limit", fmt.Sprintf("the skill has more than %d files: skills install refuses it", agentskills.DefaultMaxEntries))
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += info.Size()
		if total > agentskills.DefaultMaxBytes && total-info.Size() <= agentskills.DefaultMaxBytes {
			at("limit", fmt.Sprintf("the skill's files total more than %s: skills install refuses it", sizeName(agentskills.DefaultMaxBytes)))
		}
		return nil
	})
}

// lintDoc lints one document of a known kind. dir is the folder it came from on disk,
// or "" for a fetched one (then file is its URL).
func (l *linter) lintDoc(file, kind string, data []byte, dir string) error {
	l.addFile(file, kind)
	if !l.checkSize(file, kind, data) && kind != KindSkillsMD {
		return nil // a client stops here; skills.md is still read for its other problems
	}
	switch kind {
	case KindSkillsMD:
		l.lintSkillsMD(file, data)
	case KindMCPJSON:
		l.lintMCPJSON(file, data)
	case KindSkillMD:
		folder := ""
		if dir != "" {
			if abs, err := filepath.Abs(dir); err == nil {
				folder = filepath.Base(abs)
			}
		}
		l.lintSkillMD(file, data, folder, false)
		l.scanCredentials(file, data)
	case KindIndex:
		l.scanCredentials(file, data)
		return l.lintIndex(file, data, dir)
	case KindAICatalog:
		l.scanCredentials(file, data)
		l.lintAICatalog(file, data)
	case KindServerCard:
		l.scanCredentials(file, data)
		l.lintServerCard(file, data)
	}
	return nil
}

// lintSkillsMD reports what skillsmd.Parse finds, and a missing title.
func (l *linter) lintSkillsMD(file string, data []byte) {
	doc, err := skillsmd.Parse(data)
	var se *skillsmd.SyntaxError
	switch {
	case errors.As(err, &se):
		line, col := offsetLineCol(data, se.Offset) // columns are code points, as everywhere
		l.add(Problem{File: file, Line: line, Column: col, Severity: diag.Error, Code: "syntax", Message: se.Msg})
		return
	case err != nil:
		l.add(Problem{File: file, Severity: diag.Error, Code: "syntax", Message: err.Error()})
		return
	}
	if len(bytes.TrimSpace(data)) == 0 {
		l.add(Problem{File: file, Line: 1, Column: 1, Severity: diag.Error, Code: "empty", Message: "skills.md is empty: write a title, a purpose and the sections agents need (API, Auth, Safe Actions, Risky Actions)"})
		return
	}
	if doc.Title == "" {
		l.add(Problem{File: file, Line: 1, Column: 1, Severity: diag.Warning, Code: "no-title", Message: "no H1 title: start the document with \"# Name of the site\""})
	}
	for _, w := range doc.Warnings {
		if w.Code == skillsmd.WarnTooLong && int64(len(data)) > maxDocBytes {
			continue // reported as too-large, an error
		}
		p := Problem{File: file, Line: w.Line, Severity: diag.Warning, Code: w.Code, Message: w.Message}
		if p.Line > 0 {
			p.Column = 1
		}
		l.add(p)
	}
	if l.opts.Explain {
		l.explainSkillsMD(file, data)
	}
}

// relaxJSON reports what keeps data from being JSON when it is only a byte order mark,
// comments or trailing commas (JSON as editors write it: clients read it with a
// warning, strict readers refuse it), each at its first place, and returns the
// document with them blanked, offsets unchanged, so that the rest is still checked
// and located. Any other syntax error is left to the caller.
func (l *linter) relaxJSON(file string, data []byte) []byte {
	if json.Valid(data) {
		return data
	}
	std, devs, ok := jsonx.Relax(data)
	if !ok {
		return data
	}
	for _, d := range devs {
		what := map[jsonx.Kind]string{
			jsonx.BOM:           "the file starts with a UTF-8 byte order mark, which JSON does not allow: save it without one",
			jsonx.Comment:       "a comment: JSON has none; remove it",
			jsonx.TrailingComma: "a trailing comma: JSON does not allow one; remove it",
		}[d.Kind]
		if d.Count > 1 {
			what += fmt.Sprintf(" (%d in the file)", d.Count)
		}
		line, col := offsetLineCol(data, d.Offset) // columns are code points, as everywhere
		l.add(Problem{File: file, Line: line, Column: col, Severity: diag.Error, Code: "syntax", Message: what})
	}
	return std
}

// lintMCPJSON checks an mcp.json strictly against its schema (mcpjson.Validate),
// locating every problem's pointer in the text. Problems at one pointer are reported
// once, and the schema's terse messages get the guidance a publisher needs.
func (l *linter) lintMCPJSON(file string, data []byte) {
	data = l.relaxJSON(file, data)
	if !json.Valid(data) {
		_, err := mcpjson.Parse(data)
		var se *mcpjson.SyntaxError
		if errors.As(err, &se) {
			line, col := offsetLineCol(data, se.Offset) // columns are code points, as everywhere
			l.add(Problem{File: file, Line: line, Column: col, Severity: diag.Error, Code: "syntax", Message: se.Msg})
		} else {
			l.add(Problem{File: file, Severity: diag.Error, Code: "syntax", Message: "not one well-formed JSON value"})
		}
		return
	}
	pos := newJSONPositions(data)
	var raw any
	_ = json.Unmarshal(data, &raw)
	doc, perr := mcpjson.Parse(data)
	var order []string
	byPointer := map[string]*Problem{}
	for _, pr := range mcpjson.Validate(data) {
		msg := mcpGuidance(pr, raw, doc, perr)
		if p, ok := byPointer[pr.Pointer]; ok {
			if !strings.Contains(p.Message, msg) {
				p.Message += "; " + msg
			}
			if pr.Severity == diag.Error {
				p.Severity = diag.Error
			}
			continue
		}
		line, col := pos.lineCol(pr.Pointer)
		byPointer[pr.Pointer] = &Problem{File: file, Line: line, Column: col, Pointer: pr.Pointer, Severity: pr.Severity, Code: "schema", Message: msg}
		order = append(order, pr.Pointer)
	}
	for _, ptr := range order {
		l.add(*byPointer[ptr])
	}
	if perr == nil {
		for _, w := range doc.Warnings {
			if byPointer[w.Pointer] != nil {
				continue
			}
			line, col := pos.lineCol(w.Pointer)
			l.add(Problem{File: file, Line: line, Column: col, Pointer: w.Pointer, Severity: diag.Warning, Code: "mcp-json", Message: w.Message})
		}
		if l.opts.Explain {
			l.explainMCP(file, pos, doc)
		}
	}
}

// mcpStatuses are the values the schemas allow for mcp.status.
const mcpStatuses = `"stable" or "experimental"`

// mcpGuidance is pr's message with what to do about it, where the schema's words
// alone do not say.
func mcpGuidance(pr mcpjson.Problem, raw any, doc *mcpjson.Document, perr error) string {
	msg := pr.Message
	_, last := path.Split(pr.Pointer)
	switch {
	case pr.Pointer == "" && strings.Contains(msg, "missing property 'mcp'") && perr == nil &&
		doc.Shape != mcpjson.ShapeSpec && doc.Shape != mcpjson.ShapeUnknown:
		// Another shape that clients read leniently (mcp servers does): say so, and how
		// to publish the spec's shape.
		msg += fmt.Sprintf(": this document has the %q shape, which \"wellknown mcp servers\" and lenient clients read, "+
			"but the well-known mcp.json is {\"mcp\": {\"spec_version\": \"2026-06-13\", \"status\": \"stable\", \"servers\": [{\"name\": ..., \"url\": ...}]}}: "+
			"put the servers in that object", doc.Shape)
	case strings.HasSuffix(msg, "missing property 'status'"):
		msg += ": add \"status\": " + mcpStatuses
	case last == "status" && strings.HasPrefix(msg, "value must be one of"):
		msg = "status must be " + mcpStatuses
	case last == "name" && strings.Contains(msg, "has no name"):
		if v, ok := pointerValue(raw, pr.Pointer); ok && v != nil {
			if _, isString := v.(string); !isString {
				msg = fmt.Sprintf("name must be a string, not %s; clients skip this entry", jsonTypeName(v))
			}
		}
	}
	return msg
}

// pointerValue returns the value at an RFC 6901 pointer in a decoded JSON value.
func pointerValue(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch t := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = t[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(t) {
				return nil, false
			}
			v = t[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// jsonTypeName is "a number", "an object"... for a decoded JSON value.
func jsonTypeName(v any) string {
	switch v.(type) {
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case nil:
		return "null"
	}
	return "a string"
}

// lintSkillMD reports what agentskills.ParseSkillMD finds. folder is the name of the
// folder holding it (or the index entry's name), "" to skip that check.
func (l *linter) lintSkillMD(file string, data []byte, folder string, fromIndex bool) *agentskills.SkillMD {
	asciiNames := fromIndex // the well-known index rule: names appear in URLs
	md, err := agentskills.ParseSkillMD(data, agentskills.ParseOptions{Dir: folder, ASCIINames: asciiNames})
	var diags []agentskills.Diagnostic
	var se *agentskills.SkillError
	switch {
	case errors.As(err, &se):
		diags = se.Diagnostics
	case err != nil:
		diags = []agentskills.Diagnostic{{Severity: diag.Error, Code: "invalid", Message: err.Error()}}
	default:
		diags = md.Diagnostics
	}
	for _, d := range diags {
		if fromIndex && d.Code == "name-mismatch" {
			continue // reported on the index entry, which names it
		}
		line, col := skillDiagLine(data, d)
		msg := d.Message
		if strings.HasPrefix(d.Code, "yaml") {
			// YAML counts lines from the frontmatter; say the file's line, as the
			// position does, so "5:1 ... line 4" does not send the reader astray.
			msg = yamlLine.ReplaceAllString(msg, "line "+strconv.Itoa(line))
		}
		l.add(Problem{File: file, Line: line, Column: col, Severity: d.Severity, Code: d.Code, Message: msg})
	}
	return md
}

var (
	yamlLine      = regexp.MustCompile(`\bline (\d+)\b`)
	quotedField   = regexp.MustCompile(`"([A-Za-z0-9_-]+)"`)
	frontmatterKV = regexp.MustCompile(`^([A-Za-z0-9_-]+)[ \t]*:`)
)

// skillDiagLine finds the line of a SKILL.md diagnostic, which names none: the line of
// the frontmatter field it is about, the line a YAML error names, or line 1.
func skillDiagLine(data []byte, d agentskills.Diagnostic) (int, int) {
	lines := strings.Split(string(data), "\n")
	fmStart := 0 // index of the opening ---
	for fmStart < len(lines) && strings.TrimSpace(lines[fmStart]) == "" {
		fmStart++
	}
	fieldLine := func(field string) int {
		for i := fmStart + 1; i < len(lines); i++ {
			t := strings.TrimRight(lines[i], "\r")
			if strings.TrimSpace(t) == "---" {
				break
			}
			if m := frontmatterKV.FindStringSubmatch(t); m != nil && m[1] == field {
				return i + 1
			}
		}
		return 0
	}
	var field string
	// "no-description" is about the description field as much as "description-length":
	// an empty "description:" is reported at its line, not at 1:1.
	switch c := strings.TrimPrefix(d.Code, "no-"); {
	case strings.HasPrefix(c, "name"):
		field = "name"
	case strings.HasPrefix(c, "description"):
		field = "description"
	case c == "allowed-tools", c == "compatibility", c == "license", c == "metadata":
		field = c
	case c == "unknown-field", c == "yaml-duplicate":
		if m := quotedField.FindStringSubmatch(d.Message); m != nil {
			field = m[1]
		}
	case strings.HasPrefix(c, "yaml"):
		if m := yamlLine.FindStringSubmatch(d.Message); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
				return n + fmStart + 1, 1 // YAML counts from the line after the opening ---
			}
		}
	}
	if field != "" {
		if n := fieldLine(field); n > 0 {
			return n, 1
		}
	}
	return fmStart + 1, 1
}

// lintIndex checks a skills index, then every artifact it lists: for a file on disk
// (dir != ""), those next to it, served to the discovery client from a loopback
// server; for a fetched index, through the client (artifacts on other origins ask
// consent).
func (l *linter) lintIndex(file string, data []byte, dir string) error {
	indexURL := file
	var origin string
	if dir != "" {
		ts, root, err := serveFolder(dir)
		if err != nil {
			return err
		}
		defer root.Close()
		defer ts.Close()
		origin, indexURL = ts.URL, ts.URL+agentskills.IndexPath
	} else {
		u, err := url.Parse(file)
		if err != nil {
			return err
		}
		origin = u.Scheme + "://" + u.Host
	}
	data = l.relaxJSON(file, data)
	pos := newJSONPositions(data)
	ix, err := agentskills.ParseIndex(data, indexURL, agentskills.Lenient)
	if err != nil {
		line, col := 1, 1
		if !json.Valid(data) {
			var se *json.SyntaxError
			if errors.As(json.Unmarshal(data, new(any)), &se) {
				line, col = offsetLineCol(data, int(se.Offset))
			}
			l.add(Problem{File: file, Line: line, Column: col, Severity: diag.Error, Code: "syntax", Message: "not well-formed JSON"})
			return nil
		}
		code := "not-index"
		if errors.Is(err, agentskills.ErrUnknownSchema) {
			code = "unknown-schema"
			line, col = pos.lineCol("/$schema")
		}
		l.add(Problem{File: file, Line: line, Column: col, Severity: diag.Error, Code: code, Message: err.Error()})
		return nil
	}
	for _, d := range ix.Diagnostics {
		p := Problem{File: file, Severity: d.Severity, Code: d.Code, Message: d.Message}
		if strings.HasPrefix(d.Where, "/") || d.Where == "" {
			p.Pointer = d.Where
			p.Line, p.Column = pos.lineCol(d.Where)
		} else {
			p.Message = d.Where + ": " + p.Message
		}
		l.add(p)
	}
	l.checkIndexTrust(file, data, dir)
	return l.checkArtifacts(file, data, pos, ix, origin, dir)
}

// checkArtifacts fetches every skill of ix through the discovery client
// (Client.GetSkill: size and digest verified, archives unpacked with the hardening),
// lints each SKILL.md and compares its name with the entry's.
func (l *linter) checkArtifacts(file string, data []byte, pos *jsonPositions, ix *agentskills.Index, origin, dir string) error {
	client, err := l.clientFor(dir)
	if err != nil {
		return err
	}
	o, err := discovery.ParseOrigin(origin)
	if err != nil {
		return err
	}
	six := &discovery.SkillsIndex{Origin: o, Index: ix}
	rawPointers, dups := indexEntryPointers(data)
	for _, ptr := range dups {
		line, col := pos.lineCol(ptr.pointer)
		l.add(Problem{File: file, Line: line, Column: col, Pointer: ptr.pointer, Severity: diag.Error, Code: "duplicate-name",
			Message: fmt.Sprintf("skill %s is listed again (first at %s): clients use the first entry and skills install refuses the others; give each skill one entry", strconv.Quote(termtext.Clean(ptr.name, 64)), rawPointers[ptr.name])})
	}
	// Names the reader took from another key ("id", "slug", a "skills" object's key)
	// are not in rawPointers' count: a duplicate among them is reported at the index.
	reported := map[string]bool{}
	for _, ptr := range dups {
		reported[ptr.name] = true
	}
	seen := map[string]bool{}
	for _, e := range ix.Skills {
		if seen[e.Name] && !reported[e.Name] {
			reported[e.Name] = true
			line, col := pos.lineCol("/skills")
			l.add(Problem{File: file, Line: line, Column: col, Pointer: "/skills", Severity: diag.Error, Code: "duplicate-name",
				Message: fmt.Sprintf("skill %s is listed more than once: clients use the first entry and skills install refuses the others; give each skill one entry", strconv.Quote(termtext.Clean(e.Name, 64)))})
		}
		seen[e.Name] = true
	}
	checked := map[string]bool{}
	for _, e := range ix.Skills {
		if checked[e.Name] {
			continue // a duplicate, reported above; GetSkill reads the first entry
		}
		checked[e.Name] = true
		ptr := rawPointers[e.Name]
		line, col := pos.lineCol(ptr)
		at := func(sev diag.Severity, code, msg string) {
			l.add(Problem{File: file, Line: line, Column: col, Pointer: ptr, Severity: sev, Code: code, Message: msg})
		}
		if err := skillrules.CheckSkillName(e.Name); err != nil {
			at(diag.Error, "name", err.Error()+": skills install refuses it")
		}
		// artifact names the artifact in messages: a path on disk, or the URL.
		artifact := func(u string) string {
			if dir == "" {
				return discovery.Redact(u)
			}
			name, _ := localName(dir, origin, u)
			return name
		}
		if dir != "" && !sameOrigin(e.URL, origin) && !allFilesOn(e, origin) {
			at(diag.Warning, "not-checked", fmt.Sprintf("skill %s: its artifact %s is on another origin, not next to the index: not checked (lint the published index by URL to check it)",
				strconv.Quote(termtext.Clean(e.Name, 64)), discovery.Redact(e.URL)))
			continue
		}
		if l.outOfTime() {
			at(diag.Error, "budget", fmt.Sprintf("skill %s: %s", strconv.Quote(termtext.Clean(e.Name, 64)), l.notInTime()))
			continue
		}
		ctx, cancel := context.WithTimeout(l.ctx, 2*time.Minute)
		sk, err := client.GetSkill(ctx, six, e.Name)
		cancel()
		if err != nil && l.outOfTime() {
			at(diag.Error, "budget", fmt.Sprintf("skill %s: %s", strconv.Quote(termtext.Clean(e.Name, 64)), l.notInTime()))
			continue
		}
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return err
			}
			reportSkillError(err, e, dir, origin, at, artifact)
			continue
		}
		if !sk.Verified {
			fix := "publish a v0.2.0 index with a digest for every skill"
			if ix.Version != agentskills.V010 {
				fix = "give the entry its sha256 digest"
			}
			at(diag.Warning, "unverified", fmt.Sprintf("skill %s: %s; clients label it unverified: %s", strconv.Quote(termtext.Clean(e.Name, 64)), unverifiedWhy(sk), fix))
		}
		if len(sk.Files) == 0 {
			continue
		}
		mdFile := artifact(e.URL)
		if e.Type == agentskills.TypeArchive {
			mdFile += "!/" + agentskills.SkillFile
		} else if len(e.Files) > 0 {
			mdFile = artifact(e.Files[0].URL)
		}
		l.addFile(mdFile, KindSkillMD)
		md := l.lintSkillMD(mdFile, sk.Files[0].Data, e.Name, true)
		if md != nil && md.Name() != e.Name && md.Name() != "" {
			at(diag.Error, "name-mismatch", fmt.Sprintf("the index lists skill %s but its SKILL.md is named %s: make them the same",
				strconv.Quote(termtext.Clean(e.Name, 64)), strconv.Quote(termtext.Clean(md.Name(), 64))))
		}
	}
	return nil
}

// reportSkillError reports why GetSkill could not read the artifact of entry e, with
// at (the entry's position) and artifact (names an artifact URL for a person).
func reportSkillError(err error, e agentskills.IndexEntry, dir, origin string, at func(diag.Severity, string, string), artifact func(string) string) {
	var se *agentskills.SkillError
	var he *discovery.HTTPError
	switch {
	case errors.Is(err, agentskills.ErrDigestMismatch):
		at(diag.Error, "digest-mismatch", fmt.Sprintf("skill %s: %s does not match the published size or digest: rebuild the index after changing the skill", strconv.Quote(termtext.Clean(e.Name, 64)), artifact(e.URL)))
	case errors.Is(err, agentskills.ErrUnsafeArchive), errors.Is(err, agentskills.ErrArchiveTooLarge):
		at(diag.Error, "unsafe-archive", fmt.Sprintf("skill %s: %s", strconv.Quote(termtext.Clean(e.Name, 64)), localize(err.Error(), dir, origin)))
	case errors.As(err, &se):
		for _, d := range se.Diagnostics {
			at(d.Severity, d.Code, fmt.Sprintf("skill %s (%s): %s", strconv.Quote(termtext.Clean(e.Name, 64)), artifact(e.URL), localize(d.Message, dir, origin)))
		}
	case errors.As(err, &he) && (he.StatusCode == http.StatusNotFound || he.StatusCode == http.StatusGone) && dir != "":
		name, inside := localName(dir, origin, he.URL)
		if inside {
			at(diag.Error, "missing-artifact", fmt.Sprintf("skill %s: %s not found", strconv.Quote(termtext.Clean(e.Name, 64)), name))
		} else {
			at(diag.Error, "missing-artifact", fmt.Sprintf("skill %s: its artifact %s is outside the index folder: a local index is checked with the files in its folder (lint the published index by URL otherwise)", strconv.Quote(termtext.Clean(e.Name, 64)), name))
		}
	case errors.As(err, &he) && (he.StatusCode == http.StatusNotFound || he.StatusCode == http.StatusGone):
		at(diag.Error, "missing-artifact", fmt.Sprintf("skill %s: %s is not there (HTTP %d)", strconv.Quote(termtext.Clean(e.Name, 64)), artifact(he.URL), he.StatusCode))
	default:
		at(diag.Error, "artifact", fmt.Sprintf("skill %s: %s", strconv.Quote(termtext.Clean(e.Name, 64)), localize(err.Error(), dir, origin)))
	}
}

// namedPointer is an index entry's pointer and name.
type namedPointer struct{ pointer, name string }

// indexEntryPointers maps each skill name in a raw index to its first entry's pointer
// ("/skills/3"): the parsed Index may have skipped entries, so its positions differ.
// dups lists the later entries of names already listed.
func indexEntryPointers(data []byte) (first map[string]string, dups []namedPointer) {
	var raw struct {
		Skills []struct {
			Name string `json:"name"`
		} `json:"skills"`
	}
	out := map[string]string{}
	if json.Unmarshal(data, &raw) != nil {
		return out, nil
	}
	for i, s := range raw.Skills {
		ptr := "/skills/" + strconv.Itoa(i)
		if s.Name == "" {
			continue // named elsewhere ("id", a key), or not at all: ParseIndex says which
		}
		if _, dup := out[s.Name]; dup {
			dups = append(dups, namedPointer{ptr, s.Name})
			continue
		}
		out[s.Name] = ptr
	}
	return out, dups
}

func sameOrigin(rawURL, origin string) bool {
	u, err := url.Parse(rawURL)
	return err == nil && u.Scheme+"://"+u.Host == origin
}

func allFilesOn(e agentskills.IndexEntry, origin string) bool {
	if len(e.Files) == 0 {
		return false
	}
	for _, f := range e.Files {
		if !sameOrigin(f.URL, origin) {
			return false
		}
	}
	return true
}

// localName turns the URL of a file served by serveFolder back into what a person
// knows: its path in the index folder (inside true), or its URL path, marked as
// outside the index folder. Other URLs are redacted.
func localName(dir, origin, rawURL string) (name string, inside bool) {
	prefix := origin + path.Dir(agentskills.IndexPath) + "/"
	if rest, ok := strings.CutPrefix(rawURL, prefix); ok {
		if p, err := url.PathUnescape(rest); err == nil {
			return filepath.Join(dir, filepath.FromSlash(p)), true
		}
	}
	if rest, ok := strings.CutPrefix(rawURL, origin); ok {
		p, err := url.PathUnescape(rest)
		if err != nil {
			p = rest
		}
		return strconv.Quote(termtext.Clean(p, 256)) + " (outside the index folder)", false
	}
	return discovery.Redact(rawURL), false
}

// localize replaces the loopback server's URLs in a message by the paths they serve
// (localName): the server is lint's own, and its URLs mean nothing to a person.
func localize(msg, dir, origin string) string {
	if dir == "" || origin == "" {
		return msg
	}
	re := regexp.MustCompile(regexp.QuoteMeta(origin) + `[^\s"',;)]*`)
	return re.ReplaceAllStringFunc(msg, func(u string) string {
		name, _ := localName(dir, origin, u)
		return name
	})
}

// serveFolder serves dir, read-only and confined to it (os.Root), at
// /.well-known/agent-skills/ on a loopback plain-http server: the discovery client
// then reads a local index's artifacts as it would a site's.
func serveFolder(dir string) (*httptest.Server, *os.Root, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	fsys := root.FS()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/agent-skills/{path...}", func(w http.ResponseWriter, r *http.Request) {
		p := r.PathValue("path")
		if !fs.ValidPath(p) {
			http.NotFound(w, r)
			return
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		switch {
		case strings.HasSuffix(p, ".md"):
			w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		case strings.HasSuffix(p, ".json"):
			w.Header().Set("Content-Type", "application/json")
		case strings.HasSuffix(p, ".zip"):
			w.Header().Set("Content-Type", "application/zip")
		case strings.HasSuffix(p, ".gz"), strings.HasSuffix(p, ".tgz"):
			w.Header().Set("Content-Type", "application/gzip")
		default:
			w.Header().Set("Content-Type", "application/octet-stream")
		}
		_, _ = w.Write(data)
	})
	ts := httptest.NewUnstartedServer(mux)
	ts.Config.ErrorLog = log.New(io.Discard, "", 0)
	ts.Start()
	return ts, root, nil
}

// clientFor returns the Client that fetches the artifacts of an index: for one read
// from the folder dir, lint's own, which reaches only lint's loopback server (it
// allows private origins for it, and grants no consent: artifacts on other origins
// are not fetched); for a fetched index (dir ""), the Linter's.
func (l *linter) clientFor(dir string) (*discovery.Client, error) {
	if dir == "" {
		if err := l.initClient(); err != nil {
			return nil, err
		}
		return l.client, nil
	}
	if l.local == nil {
		c, err := discovery.NewClient(&discovery.Options{InsecureAllowPrivateOrigins: true, Consent: discovery.DenyAll, UserAgent: l.opts.UserAgent})
		if err != nil {
			return nil, err
		}
		l.local = c
	}
	return l.local, nil
}

func (l *linter) initClient() error {
	if l.client != nil {
		return nil
	}
	c, err := discovery.NewClient(nil)
	if err != nil {
		return err
	}
	l.client = c
	return nil
}

// lintURL fetches and lints the document at a URL, or, for an origin, every
// well-known document it publishes.
func (l *linter) lintURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return &TargetError{Target: discovery.Redact(raw), Reason: "is not a URL with a host"}
	}
	if err := l.initClient(); err != nil {
		return err
	}
	origin := u.Scheme + "://" + u.Host
	if u.Path != "" && u.Path != "/" {
		_, err = l.lintFetched(raw, true)
		return err
	}
	found, foundIndex, late := false, false, false
	var redirects []crossRedirect
	tried := 0
	// The AI Catalog before the skills index, whose artifacts take the longest to
	// check: what the budget leaves unchecked is the artifacts, not a document.
	for _, p := range []string{discovery.GuidePath, discovery.MCPPath, aicatalog.WellKnownPath, agentskills.IndexPath, agentskills.LegacyIndexPath} {
		if p == agentskills.LegacyIndexPath && foundIndex {
			continue
		}
		tried++
		res, err := l.fetch(origin + p)
		var cr *crossRedirect
		switch {
		case errors.Is(err, context.Canceled):
			return err
		case err != nil && l.outOfTime():
			l.outOfTimeFile(discovery.Redact(origin + p))
			late = true
			continue
		case errors.As(err, &cr):
			redirects = append(redirects, *cr)
			continue
		case err != nil:
			// The origin cannot be reached (connection, TLS, refused): say so once,
			// not once per document.
			l.addFile(origin, KindOrigin)
			l.add(Problem{File: origin, Severity: diag.Error, Code: "unreachable",
				Message: fmt.Sprintf("cannot reach %s: %s; nothing was checked", origin, err)})
			return nil
		case !res.published():
			continue
		}
		found = true
		foundIndex = foundIndex || p == agentskills.IndexPath
		if err := l.lintBody(origin+p, res); err != nil {
			return err
		}
	}
	switch {
	case len(redirects) == tried && allSameTarget(redirects):
		l.addFile(origin, KindOrigin)
		l.add(Problem{File: origin, Severity: diag.Error, Code: "cross-origin-redirect",
			Message: fmt.Sprintf("%s redirects its well-known URLs to %s, another origin: not followed without consent; run with --yes to follow the redirect and check what %s serves", origin, redirects[0].to, redirects[0].to)})
	case len(redirects) > 0:
		for _, r := range redirects {
			l.addFile(r.from, "unknown")
			l.add(Problem{File: r.from, Severity: diag.Error, Code: "cross-origin-redirect", Message: r.message()})
		}
	case !found && !late:
		l.addFile(origin, KindOrigin)
		l.add(Problem{File: origin, Severity: diag.Error, Code: "nothing-published",
			Message: "the origin publishes no skills.md, mcp.json or skills index at /.well-known/"})
	}
	return nil
}

// outOfTime reports the document at file as not checked: the --budget ran out
// before it was read.
func (l *linter) outOfTimeFile(file string) {
	l.addFile(file, "unknown")
	l.add(Problem{File: file, Severity: diag.Error, Code: "budget", Message: l.notInTime()})
}

// outOfTime reports whether the deadline of the call's context has passed: what is
// left is reported as not checked in time.
func (l *linter) outOfTime() bool { return errors.Is(l.ctx.Err(), context.DeadlineExceeded) }

// notInTime is the message for something the deadline left unchecked: its cause (the
// wellknown command's says which --budget ran out).
func (l *linter) notInTime() string { return fmt.Sprintf("not checked: %v", context.Cause(l.ctx)) }

// allSameTarget reports whether every redirect went to the same origin.
func allSameTarget(rs []crossRedirect) bool {
	for _, r := range rs {
		if r.to != rs[0].to {
			return false
		}
	}
	return true
}

// crossRedirect is a redirect to another origin that lint did not follow (no --yes,
// and no terminal to ask on).
type crossRedirect struct {
	from string // the URL requested, redacted
	to   string // the other origin
}

func (e *crossRedirect) Error() string { return e.message() }

func (e crossRedirect) message() string {
	return fmt.Sprintf("redirects to %s, another origin: not followed without consent; run with --yes to follow it", e.to)
}

// fetched is the answer to a GET.
type fetched struct {
	data   []byte
	status int
	ctype  string
	header http.Header
}

// published reports whether the answer is a document: a 200 that is not an HTML page
// (clients read both a 404 and an HTML page as "not published").
func (f fetched) published() bool { return f.status == http.StatusOK && !f.html() }

func (f fetched) html() bool { return strings.HasPrefix(strings.ToLower(f.ctype), "text/html") }

// lintFetched fetches rawURL and lints it. It reports false when the document is not
// published there; with must, that is a problem too.
func (l *linter) lintFetched(rawURL string, must bool) (bool, error) {
	file := discovery.Redact(rawURL)
	res, err := l.fetch(rawURL)
	var cr *crossRedirect
	switch {
	case errors.Is(err, context.Canceled):
		return false, err
	case err != nil && l.outOfTime():
		l.outOfTimeFile(file)
		return false, nil
	case errors.As(err, &cr):
		l.addFile(file, "unknown")
		l.add(Problem{File: file, Severity: diag.Error, Code: "cross-origin-redirect", Message: cr.message()})
		return false, nil
	case err != nil:
		l.addFile(file, "unknown")
		l.add(Problem{File: file, Severity: diag.Error, Code: "fetch", Message: err.Error()})
		return false, nil
	case res.html() && res.status == http.StatusOK:
		if must {
			l.addFile(file, "unknown")
			l.add(Problem{File: file, Severity: diag.Error, Code: "not-published",
				Message: "an HTML page (HTTP 200, " + termtext.Clean(res.ctype, 64) + "), not a document: clients read this as nothing published"})
		}
		return false, nil
	case res.status != http.StatusOK:
		if must {
			l.addFile(file, "unknown")
			l.add(Problem{File: file, Severity: diag.Error, Code: "not-published", Message: fmt.Sprintf("HTTP %d: nothing published at this URL", res.status)})
		}
		return false, nil
	}
	return true, l.lintBody(rawURL, res)
}

// lintBody lints a fetched document by its kind; of an AI Catalog or a Server Card,
// also how it was served.
func (l *linter) lintBody(rawURL string, res fetched) error {
	data := res.data
	file := discovery.Redact(rawURL)
	u, _ := url.Parse(rawURL)
	kind := detectKind(path.Base(u.Path), data)
	if kind == KindAICatalog || kind == KindServerCard {
		l.checkServed(file, kind, &res)
	}
	if kind == "" {
		l.addFile(file, "unknown")
		l.add(Problem{File: file, Severity: diag.Error, Code: "unknown-kind", Message: "cannot tell what this document is: lint the URL of a skills.md, mcp.json, SKILL.md or index.json, or an origin"})
		return nil
	}
	return l.lintDoc(file, kind, data, "")
}

// fetch GETs rawURL through the discovery client's policy guard: https (http on
// loopback), the private-address guard, consent for other origins, at most five
// redirects, the body capped. A redirect to another origin is not followed without
// --yes or a terminal to ask on: the error is a *crossRedirect.
func (l *linter) fetch(rawURL string) (fetched, error) { return l.fetchAs(rawURL, "") }

// fetchAs is fetch, asking for the media type accept ("": none named).
func (l *linter) fetchAs(rawURL, accept string) (fetched, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fetched{}, err
	}
	origin := u.Scheme + "://" + u.Host
	o, err := discovery.ParseOrigin(origin)
	if err != nil {
		return fetched{}, err
	}
	rt, err := l.client.Guard(&discovery.Discovery{Origin: o}, nil)
	if err != nil {
		return fetched{}, err
	}
	canAsk := l.opts.FollowCrossOriginRedirects
	hc := &http.Client{Transport: rt, Timeout: 30 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("stopped after 5 redirects")
			}
			if to := req.URL.Scheme + "://" + req.URL.Host; to != origin && !canAsk {
				return &crossRedirect{from: discovery.Redact(rawURL), to: discovery.Redact(to)}
			}
			return nil
		}}
	ctx, cancel := context.WithTimeout(l.ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return fetched{}, err
	}
	if l.opts.UserAgent != "" {
		req.Header.Set("User-Agent", l.opts.UserAgent)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		var cr *crossRedirect
		if errors.As(err, &cr) {
			return fetched{}, cr
		}
		return fetched{}, fmt.Errorf("fetch %s: %w", discovery.Redact(rawURL), err)
	}
	defer resp.Body.Close()
	res := fetched{status: resp.StatusCode, ctype: resp.Header.Get("Content-Type"), header: resp.Header}
	if !res.published() {
		return res, nil
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxLintBytes+1))
	if err != nil {
		return fetched{}, fmt.Errorf("fetch %s: %w", discovery.Redact(rawURL), err)
	}
	if len(data) > maxLintBytes {
		return fetched{}, fmt.Errorf("fetch %s: larger than %d bytes", discovery.Redact(rawURL), maxLintBytes)
	}
	res.data = data
	return res, nil
}

// unverifiedWhy says why a fetched skill is unverified, as GetSkill's warning does
// (a v0.1.0 index publishes no digests; a v0.2.0 one read leniently gave none).
func unverifiedWhy(sk *discovery.Skill) string {
	for _, w := range sk.Warnings {
		if w.Code == "unverified" {
			return termtext.Clean(w.Message, 256)
		}
	}
	return "the index publishes no digest for it"
}
