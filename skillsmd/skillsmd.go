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
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/adrg/frontmatter"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"go.yaml.in/yaml/v3"
)

// Document is a parsed skills.md. It is plain data, safe to read concurrently.
type Document struct {
	Title       string         // text of the first H1, or ""
	Summary     string         // the first paragraph or blockquote before the first section
	Frontmatter map[string]any // YAML frontmatter, JSON-compatible; nil when absent or broken
	BaseURL     string         // API base as written ("https://x/api/v1" or "/api/v1"); "" if none
	Sections    []Section      // every heading but the title, in document order
	Links       []Link         // every link and autolink, in document order
	Warnings    []Warning      // what the parser had to interpret or flags as unsafe
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

func (w Warning) String() string {
	if w.Line > 0 {
		return fmt.Sprintf("line %d: %s: %s", w.Line, w.Code, w.Message)
	}
	return w.Code + ": " + w.Message
}

// Warning codes.
const (
	WarnFrontmatter = "frontmatter" // the YAML frontmatter does not parse; the body is still read
	WarnUnsafeLink  = "unsafe-link" // a link with a javascript:, data:, file: or vbscript: scheme, or userinfo
)

// SyntaxError reports a document that is not text: invalid UTF-8 or a NUL byte.
type SyntaxError struct {
	Offset int // byte offset of the offending byte
	Line   int // 1-based line
	Column int // 1-based byte column
	Msg    string
}

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
func Parse(data []byte) (*Document, error) {
	if err := checkText(data); err != nil {
		return nil, err
	}
	src := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	src = normalizeNewlines(src)
	doc := &Document{}
	src = doc.readFrontmatter(src)

	root := markdown().Parser().Parse(text.NewReader(src))
	p := &parser{doc: doc, src: src, lines: lineStarts(src), section: -1}
	p.blocks(root)
	doc.BaseURL = findBaseURL(doc.Sections)
	return doc, nil
}

// checkText returns a *SyntaxError at the first invalid UTF-8 sequence or NUL byte.
func checkText(data []byte) error {
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
	if !bytes.HasPrefix(src, []byte("---")) {
		return src
	}
	first, _, ok := bytes.Cut(src, []byte("\n"))
	if !ok || len(bytes.TrimSpace(first)) != 3 {
		return src
	}
	end := -1 // offset just past the closing delimiter line
	for off := len(first) + 1; off < len(src); {
		line, _, _ := bytes.Cut(src[off:], []byte("\n"))
		next := off + len(line) + 1
		if t := string(bytes.TrimSpace(line)); t == "---" || t == "..." {
			end = min(next, len(src))
			break
		}
		off = next
	}
	if end < 0 {
		return src
	}
	var m map[string]any
	_, err := frontmatter.MustParse(bytes.NewReader(src[:end]), &m, yamlFormat)
	switch {
	case err != nil:
		d.Warnings = append(d.Warnings, Warning{Line: 1, Code: WarnFrontmatter,
			Message: "YAML frontmatter does not parse and was ignored: " + yamlMessage(err)})
	default:
		d.Frontmatter = jsonCompatible(m).(map[string]any)
	}
	blank := bytes.Repeat([]byte("\n"), bytes.Count(src[:end], []byte("\n")))
	return append(blank, src[end:]...)
}

// yamlMessage shortens a YAML error to one line.
func yamlMessage(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return strings.TrimPrefix(msg, "yaml: ")
}

// jsonCompatible converts YAML values into what encoding/json can marshal:
// map[any]any becomes map[string]any and time.Time becomes an RFC 3339 string.
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
	case time.Time:
		return t.Format(time.RFC3339)
	}
	return v
}

// lineStarts returns the offset of the start of each line.
func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

type parser struct {
	doc     *Document
	src     []byte
	lines   []int
	section int // index of the current section, -1 before the first
}

// lineOf returns the 1-based line of byte offset off.
func (p *parser) lineOf(off int) int {
	return sort.Search(len(p.lines), func(i int) bool { return p.lines[i] > off })
}

// offsetOf returns the first source offset inside n, or -1.
func offsetOf(n ast.Node) int {
	if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
		return n.Lines().At(0).Start
	}
	if t, ok := n.(*ast.Text); ok {
		return t.Segment.Start
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if off := offsetOf(c); off >= 0 {
			return off
		}
	}
	return -1
}

func (p *parser) lineOfNode(n ast.Node) int {
	if off := offsetOf(n); off >= 0 {
		return p.lineOf(off)
	}
	return 0
}

// current returns the section content goes to, creating the Level 0 preamble section
// when content comes before any heading.
func (p *parser) current() *Section {
	if p.section < 0 {
		p.doc.Sections = append(p.doc.Sections, Section{Line: 1})
		p.section = 0
	}
	return &p.doc.Sections[p.section]
}

func (p *parser) blocks(root ast.Node) {
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		p.block(n)
		p.collectLinks(n)
	}
}

// block adds one top-level block to the document.
func (p *parser) block(n ast.Node) {
	{
		switch b := n.(type) {
		case *ast.Heading:
			title := strings.TrimSpace(p.inline(b))
			if b.Level == 1 && p.doc.Title == "" && len(p.doc.Sections) == 0 {
				p.doc.Title = title
				return
			}
			p.doc.Sections = append(p.doc.Sections, Section{Heading: title, Level: b.Level, Line: p.lineOfNode(b)})
			p.section = len(p.doc.Sections) - 1
		case *ast.Paragraph, *ast.Blockquote:
			t := strings.TrimSpace(p.blockText(b))
			if p.section < 0 && p.doc.Summary == "" {
				p.doc.Summary = t
				return
			}
			p.addText(t)
		case *ast.List:
			s := p.current()
			s.Items = append(s.Items, p.listItems(b)...)
		case *east.Table:
			p.addText(p.tableText(b))
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			p.addText(strings.TrimRight(p.rawLines(b), "\n"))
		case *ast.HTMLBlock, *ast.ThematicBreak:
			// Raw HTML is not rendered or kept; a rule carries no content.
		default:
			p.addText(strings.TrimSpace(p.blockText(b)))
		}
	}
}

func (p *parser) addText(t string) {
	if t == "" {
		return
	}
	s := p.current()
	if s.Text != "" {
		s.Text += "\n\n"
	}
	s.Text += t
}

// listItems returns the text of each item of l, nested items after their parent.
func (p *parser) listItems(l *ast.List) []string {
	var items []string
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		var own []string
		var nested []string
		for c := it.FirstChild(); c != nil; c = c.NextSibling() {
			if sub, ok := c.(*ast.List); ok {
				nested = append(nested, p.listItems(sub)...)
				continue
			}
			if t := strings.TrimSpace(p.blockText(c)); t != "" {
				own = append(own, t)
			}
		}
		if len(own) > 0 {
			items = append(items, strings.Join(own, " "))
		}
		items = append(items, nested...)
	}
	return items
}

// blockText returns the plain text of a block and its descendants.
func (p *parser) blockText(n ast.Node) string {
	switch b := n.(type) {
	case *ast.Paragraph, *ast.TextBlock, *ast.Heading:
		return p.inline(b)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		return p.rawLines(b)
	case *ast.HTMLBlock:
		return ""
	case *ast.List:
		return strings.Join(p.listItems(b), "\n")
	case *east.Table:
		return p.tableText(b)
	}
	var parts []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t := strings.TrimSpace(p.blockText(c)); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}

func (p *parser) rawLines(n ast.Node) string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(p.src))
	}
	return b.String()
}

// tableText renders a table as one line per row, cells separated by " | ".
func (p *parser) tableText(t *east.Table) string {
	var rows []string
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, strings.TrimSpace(p.inline(c)))
		}
		rows = append(rows, strings.Join(cells, " | "))
	}
	return strings.Join(rows, "\n")
}

// inline returns the plain text of n's inline content: emphasis and code spans lose
// their markers, links keep their text, raw HTML is dropped.
func (p *parser) inline(n ast.Node) string {
	var b strings.Builder
	p.writeInline(&b, n)
	return b.String()
}

func (p *parser) writeInline(b *strings.Builder, n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Value(p.src))
			switch {
			case t.HardLineBreak():
				b.WriteByte('\n')
			case t.SoftLineBreak():
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.AutoLink:
			b.Write(t.URL(p.src))
		case *ast.RawHTML:
		default:
			p.writeInline(b, c)
		}
	}
}

// collectLinks records every link and autolink inside block n, in the current section.
func (p *parser) collectLinks(n ast.Node) {
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch l := c.(type) {
		case *ast.Link:
			p.addLink(strings.TrimSpace(p.inline(l)), string(l.Destination), p.lineOfNode(l))
		case *ast.AutoLink:
			p.addLink("", string(l.URL(p.src)), p.lineOf(l.Pos()))
		case *ast.Text:
			if _, inLink := l.Parent().(*ast.Link); !inLink {
				p.bareURLs(l)
			}
		case *ast.CodeSpan, *ast.FencedCodeBlock, *ast.CodeBlock:
			return ast.WalkSkipChildren, nil // code is not a link
		}
		return ast.WalkContinue, nil
	})
}

// bareURLs records the http and https URLs written as plain text in t (GFM's
// "extended autolinks"): the URL runs to the first space or '<', without trailing
// punctuation.
func (p *parser) bareURLs(t *ast.Text) {
	seg := t.Segment.Value(p.src)
	for off := 0; ; {
		i := bytes.Index(seg[off:], []byte("http"))
		if i < 0 {
			return
		}
		start := off + i
		rest := seg[start:]
		if !bytes.HasPrefix(rest, []byte("https://")) && !bytes.HasPrefix(rest, []byte("http://")) ||
			start > 0 && isURLByte(seg[start-1]) {
			off = start + 4
			continue
		}
		end := start
		for end < len(seg) && seg[end] > ' ' && seg[end] != '<' && seg[end] < 0x7f {
			end++
		}
		u := strings.TrimRight(string(seg[start:end]), ".,:;!?*_~'\"")
		u = trimUnbalanced(u)
		if strings.Contains(u[strings.Index(u, "//")+2:], ".") || strings.Contains(u, "localhost") {
			p.addLink("", u, p.lineOf(t.Segment.Start+start))
		}
		off = end
	}
}

// isURLByte reports bytes that may not precede a bare URL (it would be mid-word).
func isURLByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// trimUnbalanced drops a trailing ')' that has no '(' in the URL, as GFM does.
func trimUnbalanced(u string) string {
	for strings.HasSuffix(u, ")") && strings.Count(u, "(") < strings.Count(u, ")") {
		u = u[:len(u)-1]
	}
	return u
}

func (p *parser) addLink(txt, dest string, line int) {
	if line == 0 {
		line = 1
	}
	p.doc.Links = append(p.doc.Links, Link{Text: txt, URL: dest, Line: line, Section: p.section})
	if why := unsafeURL(dest); why != "" {
		p.doc.Warnings = append(p.doc.Warnings, Warning{Line: line, Code: WarnUnsafeLink, Message: why})
	}
}

// unsafeURL says why a link must not be followed, or "".
func unsafeURL(dest string) string {
	u, err := url.Parse(strings.TrimSpace(dest))
	if err != nil {
		return ""
	}
	switch s := strings.ToLower(u.Scheme); s {
	case "javascript", "data", "file", "vbscript":
		return fmt.Sprintf("link uses the %s: scheme; it must not be followed", s)
	}
	if u.User != nil {
		return "link carries userinfo (credentials in the URL); it must not be followed"
	}
	return ""
}

// baseLabel matches "Base URL: x", "Base path: x", "API base: x", "API base URL: x" and
// "Base: x" at the start of an item or line (bold markers are already stripped).
var baseLabel = regexp.MustCompile(`(?i)^\s*(?:api\s+)?base(?:\s+(?:url|path|uri))?\s*[:=]\s*(\S+)`)

// findBaseURL returns the API base the document states, preferring a section whose
// heading mentions the API.
func findBaseURL(sections []Section) string {
	var fallback string
	for _, s := range sections {
		api := strings.Contains(strings.ToLower(s.Heading), "api")
		lines := append([]string(nil), s.Items...)
		lines = append(lines, strings.Split(s.Text, "\n")...)
		for _, l := range lines {
			m := baseLabel.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			v := strings.Trim(m[1], "`<>\"'")
			v = strings.TrimRight(v, ".,;)")
			if !plausibleBase(v) {
				continue
			}
			if api {
				return v
			}
			if fallback == "" {
				fallback = v
			}
		}
	}
	return fallback
}

// plausibleBase accepts an absolute http(s) URL or an absolute path.
func plausibleBase(v string) bool {
	if strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "//") {
		return true
	}
	u, err := url.Parse(v)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.User == nil
}
