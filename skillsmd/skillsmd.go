// Package skillsmd parses /.well-known/skills.md documents: the short Markdown guide a
// site publishes for AI agents (skill-discovery, 2026-06-13).
//
// Parse is a pure function over bytes: no I/O, no logging. It reads any Markdown, not
// only the layout the spec's generator writes: every section is kept in order with its
// heading level, whatever its heading says. Everything in a Document comes from the
// published file and is untrusted data, never instructions.
package skillsmd

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/adrg/frontmatter"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
	"go.yaml.in/yaml/v3"

	"github.com/wellknown-dev/discovery/diag"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Document is a parsed skills.md. It is plain data, safe to read concurrently.
//
// # BaseURL
//
// The API base as written ("https://x/api/v1" or "/api/v1"; see ResolveBase), taken
// from, in this order:
//   - a label ("Base URL:", "**API Base:**", a lead-in such as "API base for
//     agents:" whose value is on the next line or block, or one whose value is an
//     example in brackets: "`ACME_API_URL` — the API base (e.g. URL)"; a "Base URL:"
//     item whose nested item holds the value), the production environment's URL
//     ("**Production URL:** x", a Production row beside Staging and Local ones, a
//     "**Mainnet**:" bullet beside a Testnet one), a label with a qualifier in
//     brackets ("API (Worker): x"), a table row (also an environment variable's row
//     whose description names the server: "| `X_SERVER` | Server URL | x |"),
//     a "Base URL" heading's section, or a frontmatter key (api_base, baseUrl...,
//     also under metadata; site_root, the root the guide's paths hang from, last);
//   - "/" from a sentence saying the base is the origin serving the document, or the
//     path a sentence says the API has there ("The API is this site's `/api`");
//   - failing those, with a WarnBaseInferred warning: the URL the document assigns to
//     the variable its endpoints start with ("POST {{ACME_API}}/x" and ACME_API =
//     "https://...", or a shell default "${ACME_API:-https://...}/x"); else the URL
//     (or the shared prefix of the URLs) of table rows naming a service's API on one
//     origin ("| Live API | https://x/api/pot/live |"); else the common prefix of the
//     absolute endpoint URLs (also "Endpoint: URL" items); else the URL of the one MCP,
//     JSON-RPC or GraphQL endpoint, or of the one MCP endpoint a document that writes
//     no other names.
//
// Never a documentation page, nor a URL on a placeholder host ("your-app.example", a
// name without a dot: a WarnBasePlaceholder warning). "" when none, when most
// endpoints start with a variable the document never assigns ("{HOST}/api/x", with a
// WarnBasePlaceholder warning), or when the stated bases name three or more hosts,
// one per service of a platform (a WarnBaseAmbiguous warning).
//
// # Auth
//
// The auth rules: the Auth section's items and paragraphs; the auth headers its code
// examples send ("X-Agent-Token header", "Authorization: Bearer"; never the value),
// and those a code block shows after a sentence introducing a header ("Every write
// call needs this header:"); then, found elsewhere: "Authentication: ..." label lines
// (also after another sentence on the line), sentences naming the auth header ("All
// routes use Authorization: Bearer ...", "Auth via x-key header") or saying none is
// needed ("No auth required."), table rows, an endpoints table's Auth column ("Auth
// (per endpoint): None, API Key") and frontmatter keys. When nothing states auth, the
// credential headers the guide's request examples send ("curl -H 'Authorization:
// Bearer $TOKEN'" gives "Authorization: Bearer"), never their values; failing those,
// sentences that name the credential the API takes with what to do with it ("The API
// authenticates with a bearer token.", "需要 apiKey"), and the row of an
// environment variable described as the API key ("API key (X_API_KEY)").
//
// # RiskyActions
//
// What needs the user's approval, and what is forbidden: the items and paragraphs of a
// risky section ("Risky actions", "Requires approval", "What agents cannot do", "Must
// not"), those of a prohibition or warning section ("Never", "Do not", "Safety",
// "Caution") unless they read as permissions, and those of a rules section ("Rules",
// "Guardrails") that read as cautions; then, wherever the guide puts them, the
// sentences that open with a prohibition ("NEVER send your key to another domain",
// "Keep the token in a vault; never commit it", "If x, do not y", "Agents must never
// z", "不要…", "不得…") or make an action wait for a person ("Confirm with the user
// before large payments", "Ask before deleting", "get explicit consent", "a human must
// approve", "--confirm"), a short list item whole, and the items a sentence ending in
// ":" introduces ("Get explicit consent before:"). Not a description ("The relay never
// reads x"), a question, advice ("Don't forget"), code, a table cell or a heading.
//
// # MCP
//
// The MCP server endpoints the document names, as written (an absolute URL or a
// path), once each: from an MCP label ("MCP endpoint: x"), a table row or frontmatter
// key naming MCP, or an endpoint, code-block URL, or URL or path in a line about MCP
// whose path ends in /mcp or /sse. Never a documentation page, a document such as
// "/mcp.md", nor a credential named for MCP. Data: never connected to.
//
// # Sections
//
// Every heading but the title, in document order. A title H1 that comes after other
// headings also opens a section, so that its text stays with it. Read as the headings
// their authors meant: a one-line "##Heading" without its space (and "#Title" opening
// a document without one), the headings a reader sees inside a quote or a list item,
// <h1> to <h6> elements, and "## Heading" lines that an HTML block swallowed for want
// of a blank line. The "# comment" lines of a TOML frontmatter are not headings.
type Document struct {
	Title       string         // text of the first H1 (an <h1> element counts), or ""
	Summary     string         // the first paragraph or blockquote before the first section
	Frontmatter map[string]any // YAML ("---") or TOML ("+++") frontmatter, JSON-compatible; nil when absent or broken

	// The typed view: what the known sections say, whatever their heading's wording
	// ("Safety", "Rules", "Do not", "Never"; "Auth", "Authentication"; "Limits", "Rate
	// limits"; "More info", "Links", "Docs", "Support"...). Subsections belong to their
	// parent's kind unless their own heading names another. Empty when the document
	// says nothing.
	Purpose      string     // what the API is for: the Purpose section, else the Summary
	BaseURL      string     // the API base as written, or "" (see BaseURL in the type's doc)
	API          []string   // the API section's items and paragraphs
	Auth         []string   // the auth rules (see Auth in the type's doc)
	SafeActions  []string   // actions the document calls safe
	RiskyActions []string   // what needs the user's approval, and prohibitions (see RiskyActions in the type's doc)
	Limits       []string   // rate limits and other limits
	MCP          []string   // MCP endpoints the document names, as written (see MCP in the type's doc)
	MoreInfo     []InfoLink // documentation, mcp.json, support and spec links
	SpecVersion  string     // the skill-discovery version the document says it follows
	SpecURL      string     // the specification it cites

	Sections []Section // every heading but the title, in document order (see Sections in the type's doc)
	Links    []Link    // every link, autolink and bare URL, in document order
	Warnings []Warning // what the parser had to interpret or flags as unsafe
}

// InfoLink is a labelled link from a More Info-like section ("Docs: https://...").
type InfoLink struct {
	Kind  string // "docs", "mcp.json", "support", "spec", "source" or "other"
	Label string // the item's label or link text, such as "Docs"
	URL   string // as written: absolute, or a path to resolve against the origin
}

// Section is a heading and the content up to the next heading. Content that comes
// before the first heading (other than the title and summary) forms a section with
// Level 0 and an empty Heading, so nothing is dropped.
type Section struct {
	Heading string   // plain text of the heading
	Level   int      // 1 to 6; 0 for the content before the first heading
	Line    int      // 1-based line of the heading in the original document
	Text    string   // paragraphs, tables and code, as plain text separated by blank lines
	Items   []string // list items (nested ones flattened after their parent), as plain text
}

// Link is a hyperlink found in the document.
type Link struct {
	Text    string // link text ("" for an autolink)
	URL     string // destination as written
	Line    int    // 1-based line in the original document
	Section int    // index into Document.Sections, or -1 before the first section
}

// Warning is a diagnostic about the document. Line is 1-based, or 0 for the whole document.
type Warning struct {
	Line    int
	Code    string // stable identifier such as "frontmatter" or "unsafe-link"
	Message string
}

// Diagnostic returns w in the module's common shape (every skills.md diagnostic is a
// warning: the document is still read).
func (w Warning) Diagnostic() diag.Diagnostic {
	return diag.Diagnostic{Severity: diag.Warning, Code: w.Code, Line: w.Line, Message: w.Message}
}

// errBadOrigin is returned by Resolve for an origin that is not an absolute URL.
var errBadOrigin = errors.New("skillsmd: origin is not an absolute URL")

// sortWarnings orders warnings by line, keeping the order of equal lines.
func sortWarnings(ws []Warning) {
	slices.SortStableFunc(ws, func(a, b Warning) int { return cmp.Compare(a.Line, b.Line) })
}

// String returns a readable form of the Warning.
func (w Warning) String() string {
	if w.Line > 0 {
		return fmt.Sprintf("line %d: %s: %s", w.Line, w.Code, w.Message)
	}
	return w.Code + ": " + w.Message
}

// Warning codes.
const (
	WarnFrontmatter  = "frontmatter"    // the YAML frontmatter does not parse; the body is still read
	WarnUnsafeLink   = "unsafe-link"    // a link with a javascript:, data:, file: or vbscript: scheme, or userinfo
	WarnCredential   = "credential"     // something that looks like a secret; the value is never repeated
	WarnNoAPI        = "no-api-section" // the document names endpoints but states no API section or base
	WarnTooLong      = "too-long"       // over MaxRecommendedSize: the spec asks for a short document
	WarnRawHTML      = "raw-html"       // a <script> or <iframe> element
	WarnTooComplex   = "too-complex"    // nesting or links beyond the parser's limits, read as text
	WarnStrayFence   = "stray-fence"    // a code fence that opens where the author closed one (its opening fence was lost), read as a closing fence
	WarnHeadingSpace = "heading-space"  // "##Setup": no space after the heading's "#" marks (CommonMark needs one), read as a heading
	// WarnBasePlaceholder: the document states its API base only as a template
	// ("{BASE_URL}", "https://<your-deployment>.example"), or writes most endpoints
	// after a variable it never assigns ("{HOST}/api/x"), so BaseURL is empty.
	WarnBasePlaceholder = "base-placeholder"
	// WarnBaseInferred: the document states no API base, so BaseURL is the common
	// prefix of the absolute endpoint URLs it documents ("GET https://x/api/a",
	// "curl https://x/api/b" give "https://x/api"). Any stated base outranks it.
	WarnBaseInferred = "base-inferred"
	// WarnBaseAmbiguous: the document states API bases on three or more hosts, one per
	// service of a platform ("Base URL" under each section), so none is its own and
	// BaseURL is empty.
	WarnBaseAmbiguous = "base-ambiguous"
)

// MaxRecommendedSize is the size above which a document gets a WarnTooLong warning.
const MaxRecommendedSize = 64 << 10

// SyntaxError reports a document that is not text: invalid UTF-8 or a NUL byte.
type SyntaxError struct {
	Offset int // byte offset of the offending byte
	Line   int // 1-based line
	Column int // 1-based byte column
	Msg    string
}

// Error implements the error interface.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("skillsmd: line %d, column %d (byte %d): %s", e.Line, e.Column, e.Offset, e.Msg)
}

// markdown is CommonMark with GFM tables. GFM's linkify extension is left out: its
// regular expressions doubled the parse time, and bare URLs are found by bareURLs.
var markdown = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(extension.Table))
})

// yamlFormat accepts "---" YAML frontmatter only, decoded with YAML v3.
var yamlFormat = frontmatter.NewFormat("---", "---", yaml.Unmarshal)

// Parse parses a skills.md document. It fails only on input that is not UTF-8 text
// (a [*SyntaxError] with the byte offset); every other oddity is a [Warning]. A UTF-8
// byte order mark and CRLF or mixed line endings are accepted. Parse does not limit
// the input size: cap it before calling.
func Parse(data []byte) (*Document, error) { return parse(data, nil) }

// parse is Parse; with ev, it also fills ev with the evidence (see Explain).
func parse(data []byte, ev *Evidence) (*Document, error) {
	if err := checkText(data); err != nil {
		return nil, err
	}
	src := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	src = normalizeNewlines(src)
	doc := &Document{}
	src = doc.readFrontmatter(src)

	src = doc.boundComplexity(src)
	root := markdown().Parser().Parse(text.NewReader(src))
	if fixed := doc.strayFences(root, src); fixed != nil {
		src = fixed
		root = markdown().Parser().Parse(text.NewReader(src))
	}
	doc.read(src, root, len(data), ev)
	return doc, nil
}

// read fills d from the parsed tree of src; size is the length of the document as
// given to Parse. With ev, the evidence for the base and auth is recorded in it.
func (d *Document) read(src []byte, root ast.Node, size int, ev *Evidence) {
	p := newParser(d, src)
	defer p.release()
	p.explain = ev != nil
	if n := countHeadings(root); n > 0 { // one allocation for the sections, not many
		d.Sections = make([]Section, 0, n+1)
		p.text.Grow(len(src))
	}
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		p.block(n)
		if _, ok := n.(*ast.Heading); ok {
			p.collectLinks(n) // other blocks record their links while their text is read
		}
	}
	p.finish()
	p.diagnose(size)
	if ev != nil {
		p.explainTo(ev)
	}
}

// Structure limits. goldmark's time grows with the square of blockquote nesting, of
// the link openers ("](") on one line, and of consecutive link reference definitions;
// 1 MiB of "> ", "[a](" or "[a]: /u" lines would take seconds to minutes.
// Real documents stay far below these limits.
const (
	maxQuoteDepth    = 32  // blockquote markers read at the start of a line
	maxLinksPerLine  = 64  // "](" link openers read on one line
	maxDefinitionRun = 256 // consecutive lines starting with "[": goldmark re-reads its paragraph per definition
	complexityAdvice = "the document's structure goes beyond what is parsed; the rest is read as text"
)

// boundComplexity replaces, byte for byte with spaces (so offsets and line numbers do
// not move), the blockquote markers beyond maxQuoteDepth, the "(" of link openers
// beyond maxLinksPerLine on each line, and every maxDefinitionRun-th line of a run of
// link reference definitions, with one warning naming the first line touched. The
// input is read in place and copied only when something must change.
func (d *Document) boundComplexity(src []byte) []byte {
	// Fast path: a document with too few markers to reach any limit needs no line walk
	// (counting is vectorised; this is nearly every real document).
	if bytes.Count(src, []byte(">")) <= maxQuoteDepth && bytes.Count(src, linkOpener) <= maxLinksPerLine &&
		bytes.Count(src, []byte("]:")) < maxDefinitionRun {
		return src
	}
	var edits []int // offsets to blank; rare
	first, line, defRun := 0, 1, 0
	for start := 0; start < len(src); line++ {
		end := start + bytes.IndexByte(src[start:], '\n')
		if end < start {
			end = len(src)
		}
		l := src[start:end]
		before := len(edits)
		// Leading blockquote markers: up to three spaces, '>', an optional space, again.
		for depth, i := 0, 0; i < len(l); {
			j := i
			for j < len(l) && j-i < 3 && l[j] == ' ' {
				j++
			}
			if j >= len(l) || l[j] != '>' {
				break
			}
			if depth++; depth > maxQuoteDepth {
				edits = append(edits, start+j)
			}
			if i = j + 1; i < len(l) && l[i] == ' ' {
				i++
			}
		}
		// Runs of link reference definitions: every maxDefinitionRun-th line becomes
		// blank, which ends the paragraph goldmark keeps re-reading.
		lead := bytes.TrimLeft(l, " ")
		switch {
		case len(bytes.TrimSpace(l)) == 0:
			defRun = 0
		case len(lead) > 0 && lead[0] == '[' && len(l)-len(lead) <= 3 && isDefinitionStart(lead):
			if defRun++; defRun >= maxDefinitionRun {
				for k := range l {
					if l[k] != '\r' {
						edits = append(edits, start+k)
					}
				}
				defRun = 0
			}
		}
		// Link openers.
		for opens, k := 0, bytes.Index(l, linkOpener); k >= 0; {
			if opens++; opens > maxLinksPerLine {
				edits = append(edits, start+k+1)
			}
			next := bytes.Index(l[k+2:], linkOpener)
			if next < 0 {
				break
			}
			k += 2 + next
		}
		if first == 0 && len(edits) > before {
			first = line
		}
		start = end + 1
	}
	if len(edits) == 0 {
		return src
	}
	out := bytes.Clone(src)
	for _, e := range edits {
		out[e] = ' '
	}
	d.Warnings = append(d.Warnings, Warning{Line: first, Code: WarnTooComplex, Message: complexityAdvice})
	return out
}

var linkOpener = []byte("](")

// strayFences finds the code fences that open where the author closed one: the
// opening fence of a shell block was lost, so its closing "```" opens a block that
// swallows the sections after it. Such a block has no info string and holds both a
// fence line with one ("```bash": the author's next block, which cannot close it) and
// an ATX heading of level two or more ("## Troubleshooting"). strayFences returns a
// copy of src with each such opening line blanked byte for byte (offsets and lines do
// not move), with a warning, or nil when there is none (the common case, found
// without a copy).
func (d *Document) strayFences(root ast.Node, src []byte) []byte {
	var stray []int // offsets of the fence lines to blank
	var buf []byte  // a line of a fence, read without Segment.Value: see appendSegment
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		fc, ok := n.(*ast.FencedCodeBlock)
		if !ok || fc.Info != nil || fc.Lines().Len() < 2 {
			continue
		}
		fence, heading := false, false
		for i := 0; i < fc.Lines().Len() && !(fence && heading); i++ {
			buf = appendSegment(buf[:0], src, fc.Lines().At(i))
			l := bytes.TrimLeft(buf, " ")
			switch {
			case len(l) > 3 && (bytes.HasPrefix(l, []byte("```")) || bytes.HasPrefix(l, []byte("~~~"))) &&
				isInfoLetter(bytes.TrimLeft(l, "`~")):
				fence = true
			case bytes.HasPrefix(l, []byte("##")) && len(bytes.TrimLeft(l, "#")) > 1 && bytes.TrimLeft(l, "#")[0] == ' ':
				heading = true
			}
		}
		if !fence || !heading {
			continue
		}
		// The opening line is the line before the first content line.
		first := fc.Lines().At(0).Start
		open := bytes.LastIndexByte(src[:max(first-1, 0)], '\n') + 1
		stray = append(stray, open)
	}
	if len(stray) == 0 {
		return nil
	}
	out := bytes.Clone(src)
	for _, o := range stray {
		for i := o; i < len(out) && out[i] != '\n'; i++ {
			out[i] = ' '
		}
	}
	line := 1 + bytes.Count(src[:stray[0]], []byte("\n"))
	d.Warnings = append(d.Warnings, Warning{Line: line, Code: WarnStrayFence,
		Message: "a code fence opens where a block seems to close (it holds headings and another fence); it was read as a stray closing fence"})
	return out
}

// isInfoLetter reports an info string that starts with a letter, as "bash" does.
func isInfoLetter(b []byte) bool {
	return len(b) > 0 && (b[0]|0x20 >= 'a' && b[0]|0x20 <= 'z')
}

// isDefinitionStart reports a line that opens a link reference definition: "[label]:".
func isDefinitionStart(line []byte) bool {
	i := bytes.IndexByte(line, ']')
	return i > 0 && i+1 < len(line) && line[i+1] == ':'
}

// countHeadings counts the top-level headings, to size the section slices.
func countHeadings(root ast.Node) int {
	n := 0
	for c := root.FirstChild(); c != nil; c = c.NextSibling() {
		if c.Kind() == ast.KindHeading {
			n++
		}
	}
	return n
}

// checkText returns a *SyntaxError at the first invalid UTF-8 sequence or NUL byte.
func checkText(data []byte) error {
	if utf8.Valid(data) && bytes.IndexByte(data, 0) < 0 {
		return nil // the common case, checked at memory speed
	}
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if c == 0 {
				return syntaxErr(data, i, "NUL byte")
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return syntaxErr(data, i, "invalid UTF-8")
		}
		i += n
	}
	return nil
}

func syntaxErr(data []byte, off int, msg string) *SyntaxError {
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return &SyntaxError{Offset: off, Line: line, Column: col, Msg: msg}
}

// normalizeNewlines turns CRLF and lone CR into LF; the line count is unchanged.
func normalizeNewlines(b []byte) []byte {
	if bytes.IndexByte(b, '\r') < 0 {
		return b
	}
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	return bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
}

// readFrontmatter decodes a leading YAML frontmatter block into d.Frontmatter and
// returns src with that block replaced by blank lines, so that line numbers in the
// Markdown stay those of the original document. A block that does not parse is a
// warning; an unclosed "---" is not frontmatter (it is a thematic break).
func (d *Document) readFrontmatter(src []byte) []byte {
	if bytes.HasPrefix(src, []byte("+++")) {
		return d.readTOMLFrontmatter(src)
	}
	if !bytes.HasPrefix(src, []byte("---")) {
		return d.readUnopenedFrontmatter(src)
	}
	first, _, ok := bytes.Cut(src, []byte("\n"))
	if !ok || len(bytes.TrimSpace(first)) != 3 {
		return src
	}
	end := closingLine(src, len(first)+1, func(t string) bool { return t == "---" || t == "..." })
	if end < 0 {
		return src
	}
	var m map[string]any
	_, err := frontmatter.MustParse(bytes.NewReader(src[:end]), &m, yamlFormat)
	if err != nil {
		if out, ok := d.readUnclosedFrontmatter(src, len(first)+1); ok {
			return out
		}
	}
	switch {
	case err != nil:
		d.Warnings = append(d.Warnings, Warning{Line: 1, Code: WarnFrontmatter,
			Message: "YAML frontmatter does not parse and was ignored: " + yamlMessage(err)})
	default:
		d.Frontmatter, _ = jsonCompatible(m).(map[string]any)
	}
	blank := bytes.Repeat([]byte("\n"), bytes.Count(src[:end], []byte("\n")))
	return append(blank, src[end:]...)
}

// readTOMLFrontmatter reads a TOML frontmatter, the Hugo form: a first line "+++", the
// TOML, and a closing "+++" line. The site renders none of it; Markdown would read its
// "# comment" lines as headings and its keys as text. The block is blanked as
// readFrontmatter blanks YAML, with a warning when it does not decode; without a
// closing line it is not a frontmatter and src is returned unchanged.
func (d *Document) readTOMLFrontmatter(src []byte) []byte {
	first, _, ok := bytes.Cut(src, []byte("\n"))
	if !ok || len(bytes.TrimSpace(first)) != 3 {
		return src
	}
	end := closingLine(src, len(first)+1, func(t string) bool { return t == "+++" })
	if end < 0 {
		return src
	}
	var m map[string]any
	// The library's default formats are YAML, TOML and JSON; a block that starts with
	// "+++" is only ever read as TOML.
	if _, err := frontmatter.MustParse(bytes.NewReader(src[:end]), &m); err != nil {
		d.Warnings = append(d.Warnings, Warning{Line: 1, Code: WarnFrontmatter,
			Message: "TOML frontmatter does not parse and was ignored"})
	} else {
		d.Frontmatter, _ = jsonCompatible(m).(map[string]any)
	}
	blank := bytes.Repeat([]byte("\n"), bytes.Count(src[:end], []byte("\n")))
	return append(blank, src[end:]...)
}

// readUnclosedFrontmatter reads a frontmatter whose closing "---" line is missing,
// so that the next "---" found (a thematic break far below) does not swallow the
// title and sections: when the block up to that line is not YAML, the lines from
// body (just after the opening line) to the first blank line are tried alone. It
// reports false, changing nothing, unless they decode to a mapping.
func (d *Document) readUnclosedFrontmatter(src []byte, body int) ([]byte, bool) {
	end := bytes.Index(src[body:], []byte("\n\n"))
	if end < 0 {
		return nil, false
	}
	end += body + 1 // just past the last frontmatter line
	var m map[string]any
	if err := yaml.Unmarshal(src[body:end], &m); err != nil || len(m) == 0 {
		return nil, false
	}
	d.Frontmatter, _ = jsonCompatible(m).(map[string]any)
	d.Warnings = append(d.Warnings, Warning{Line: 1, Code: WarnFrontmatter,
		Message: "the frontmatter has no closing \"---\" line; it was read up to the first blank line"})
	blank := bytes.Repeat([]byte("\n"), bytes.Count(src[:end], []byte("\n")))
	return append(blank, src[end:]...), true
}

// maxUnopenedLines bounds the lines read for a frontmatter without its opening line.
const maxUnopenedLines = 64

// readUnopenedFrontmatter reads a frontmatter whose opening "---" line is missing:
// the document starts with at least two "key: value" lines (indented lines may
// continue them), then a "---" line, with no blank line between. Markdown would make
// those lines a setext H2 heading before the title; a careful reader sees the
// frontmatter. It is read only when it decodes to a mapping, with a warning; src is
// returned with the block blanked, as readFrontmatter does.
func (d *Document) readUnopenedFrontmatter(src []byte) []byte {
	if len(src) == 0 || !isKeyLine(src) {
		return src // the common case: a heading or text first
	}
	keys, body, end := 0, 0, -1
	for off, n := 0, 0; off < len(src) && n < maxUnopenedLines; n++ {
		line, _, _ := bytes.Cut(src[off:], []byte("\n"))
		next := off + len(line) + 1
		switch {
		case string(bytes.TrimRight(line, " \t")) == "---":
			body, end = off, min(next, len(src))
		case isKeyLine(line):
			keys++
		case len(line) > 0 && (line[0] == ' ' || line[0] == '\t') && len(bytes.TrimSpace(line)) > 0:
			// a continuation of the previous key
		default:
			return src // a blank or other line: not a frontmatter
		}
		if end >= 0 {
			break
		}
		off = next
	}
	if end < 0 || keys < 2 {
		return src
	}
	var m map[string]any
	if err := yaml.Unmarshal(src[:body], &m); err != nil || len(m) < 2 {
		return src
	}
	d.Frontmatter, _ = jsonCompatible(m).(map[string]any)
	d.Warnings = append(d.Warnings, Warning{Line: 1, Code: WarnFrontmatter,
		Message: "the frontmatter has no opening \"---\" line; it was read as frontmatter, not as a heading"})
	blank := bytes.Repeat([]byte("\n"), bytes.Count(src[:end], []byte("\n")))
	return append(blank, src[end:]...)
}

// isKeyLine reports a line that starts with a YAML key: "name: x", "metadata:".
func isKeyLine(l []byte) bool {
	i := 0
	for i < len(l) && (l[i] >= 'a' && l[i] <= 'z' || l[i] >= 'A' && l[i] <= 'Z' || l[i] == '_' ||
		i > 0 && (l[i] >= '0' && l[i] <= '9' || l[i] == '-')) {
		i++
	}
	return i > 0 && i < len(l) && l[i] == ':' && (i+1 == len(l) || l[i+1] == ' ' || l[i+1] == '\n')
}

// yamlMessage renders a YAML error as one line that keeps the line number and the
// reason but never the document's text: YAML errors quote values and keys ("cannot
// decode !!str `ghp_...` as a !!int", "mapping key \"...\" already defined"), which
// may be credentials. The first of several unmarshal errors is kept.
func yamlMessage(err error) string {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg, _, _ = strings.Cut(msg, "\n")
	return secrets.ScrubError(strings.TrimPrefix(msg, "yaml: "))
}

// jsonCompatible converts YAML and TOML values into what encoding/json can marshal:
// map[any]any becomes map[string]any, arrays of tables []any, and dates and times
// strings (RFC 3339 for time.Time).
func jsonCompatible(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			return map[string]any{}
		}
		for k, e := range t {
			t[k] = jsonCompatible(e)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[fmt.Sprint(k)] = jsonCompatible(e)
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = jsonCompatible(e)
		}
		return t
	case []map[string]any: // TOML's arrays of tables ("[[feature]]")
		l := make([]any, len(t))
		for i, e := range t {
			l[i] = jsonCompatible(e)
		}
		return l
	case time.Time:
		return t.Format(time.RFC3339)
	case fmt.Stringer: // TOML's local dates and times
		return t.String()
	}
	return v
}

// closingLine returns the offset just past the first line of src at or after from
// whose trimmed text isClose accepts (a frontmatter's closing delimiter), or -1.
func closingLine(src []byte, from int, isClose func(string) bool) int {
	for off := from; off < len(src); {
		line, _, _ := bytes.Cut(src[off:], []byte("\n"))
		next := off + len(line) + 1
		if isClose(string(bytes.TrimSpace(line))) {
			return min(next, len(src))
		}
		off = next
	}
	return -1
}
