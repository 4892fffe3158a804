package skillsmd

import (
	"bytes"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

type parser struct {
	doc     *Document
	texts   []span     // each section's text in p.text, parallel to doc.Sections
	text    []byte     // the section texts, one after another
	scratch []byte     // reused by inline
	table   []byte     // reused by tableText
	urls    []linkRef  // reused by urlsIn
	urlRoot ast.Node   // the node urlsIn walks
	urlWalk ast.Walker // p.visitURL, made once
	visit   ast.Walker // p.visitLink, made once
	record  bool       // appendInline records the links it meets (once per block)
	src     []byte
	lines   []int
	section int    // index of the current section, -1 before the first
	kinds   []kind // kind of each section, parallel to doc.Sections
	stack   []open // enclosing headings, outermost first

	bases        []baseCandidate // statements of the API base, in document order
	placeholder  int             // first line where the base is only a placeholder, or 0
	baseNext     int             // strength of the heading naming the base, while its value is awaited; 0 otherwise
	baseLeft     int             // blocks after that heading still to read for the value
	leadIn       bool            // the line just scanned was a base label without its value
	endpoints    []endpoint      // absolute endpoint URLs, for a base no label states (see inferBase)
	inferred     bool            // doc.BaseURL came from inferBase
	endpointLine int             // line of the block holding the first endpoint, or 0
	vars         []varValue      // upper-case variables assigned an absolute URL (see templateBase)
	varUses      []varUse        // template variables that start endpoints
	varLine      int             // doc.BaseURL came from templateBase: line of the variable's first use
}

// open is a heading whose section is still open, for kind inheritance.
type open struct {
	level int
	kind  kind
}

// lineOf returns the 1-based line of byte offset off.
func (p *parser) lineOf(off int) int {
	return sort.Search(len(p.lines), func(i int) bool { return p.lines[i] > off })
}

// offsetOf returns the first source offset inside n, or -1.
func offsetOf(n ast.Node) int {
	if pos := n.Pos(); pos >= 0 {
		return pos
	}
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
		return p.lineOf(min(off, len(p.src)))
	}
	return 1
}

// current returns the section content goes to, creating the Level 0 preamble section
// when content comes before any heading.
func (p *parser) current() *Section {
	if p.section < 0 {
		p.doc.Sections = append(p.doc.Sections, Section{Line: 1})
		p.kinds = append(p.kinds, kindPreamble)
		p.section = 0
	}
	return &p.doc.Sections[p.section]
}

// kind returns the kind of the current section.
func (p *parser) kind() kind {
	if p.section < 0 {
		return kindPreamble
	}
	return p.kinds[p.section]
}

// block adds one top-level block to the document.
func (p *parser) block(n ast.Node) {
	p.leadIn = false // a lead-in line's value in the same paragraph is read by scanLines
	switch b := n.(type) {
	case *ast.Heading:
		title := strings.TrimSpace(p.inline(b))
		if p.setextSentence(b, title) {
			p.paragraph(b) // a paragraph above a rule, not a heading
			return
		}
		if b.Level == 1 && p.doc.Title == "" && len(p.doc.Sections) == 0 {
			p.doc.Title = title
			return
		}
		if b.Level == 1 && p.doc.Title == "" && !p.hasLevel(1) {
			// The document's first H1 comes after a few H2 sections (a "Files" table
			// put first): it is still the title. It also opens a section, so that what
			// follows it is not filed under the section before it.
			p.doc.Title = title
		}
		p.heading(title, b.Level, p.lineOfNode(b))
	case *ast.Paragraph, *ast.Blockquote:
		p.paragraph(b)
	case *ast.List:
		s := p.current()
		p.record = true
		items := p.listItems(b)
		p.record = false
		if p.baseNext > 0 {
			lines := make([]string, len(items))
			for i, it := range items {
				lines[i] = it.text
			}
			p.baseFromNext(lines, func() int { return p.lineOfNode(b) })
		}
		tier := p.tier()
		for _, it := range items {
			s.Items = append(s.Items, it.text)
			node := it.node
			p.scanLine(it.text, tier, true, func() int { return p.lineOfNode(node) })
			p.noteEndpoints(it.text, node)
			p.mcpIn(it.text, false)
		}
		p.typedItems(items)
	case *east.Table:
		p.current()
		p.record = true
		t := p.tableText(b)
		p.record = false
		if p.baseNext > 0 {
			p.baseFromTable(t)
		}
		p.addText(t)
		p.tableRows(t, b)
		p.noteEndpoints(t, b)
		p.mcpIn(t, false)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		code := strings.TrimRight(p.rawLines(b), "\n")
		if p.baseNext > 0 {
			first, _, _ := strings.Cut(strings.TrimSpace(code), "\n")
			p.baseFromNext([]string{first}, func() int { return p.lineOfNode(b) })
		}
		p.addText(code)
		if p.kind() == kindAuth {
			p.authHeaders(code)
		}
		p.noteEndpoints(code, b)
		p.mcpIn(code, true)
	case *ast.HTMLBlock:
		p.rawHTML(p.rawLines(b), p.lineOfNode(b))
	case *ast.ThematicBreak:
		// A rule carries no content.
	default:
		p.current()
		p.record = true
		t := strings.TrimSpace(p.blockText(b))
		p.record = false
		p.addText(t)
	}
}

// paragraph adds a paragraph or a blockquote (or a setext heading read as a
// paragraph, see setextSentence).
func (p *parser) paragraph(b ast.Node) {
	summary := p.section < 0 && p.doc.Summary == ""
	if !summary {
		p.current() // links belong to the section the text goes to
	}
	p.record = true
	t := strings.TrimSpace(p.blockText(b))
	p.record = false
	if p.baseNext > 0 {
		first, _, _ := strings.Cut(t, "\n")
		p.baseFromNext([]string{first}, func() int { return p.lineOfNode(b) })
	}
	p.scanParagraph(b, t, p.tier(), true)
	p.sameOriginBase(t, p.tier())
	p.noteEndpoints(t, b)
	p.mcpIn(t, false)
	if summary {
		p.doc.Summary = t
		return
	}
	p.addText(t)
	p.typedText(t, b)
}

// setextSentence reports a setext H2 ("text" over a "---" line) whose text is a
// sentence: longer than 80 bytes or ending with ".". CommonMark makes it a heading,
// but its author meant a paragraph followed by a rule.
func (p *parser) setextSentence(h *ast.Heading, title string) bool {
	if h.Level != 2 || h.Lines().Len() == 0 || len(title) <= 80 && !strings.HasSuffix(title, ".") {
		return false
	}
	start := h.Lines().At(0).Start
	ls := bytes.LastIndexByte(p.src[:start], '\n') + 1
	return !bytes.HasPrefix(bytes.TrimLeft(p.src[ls:start], " \t"), []byte("#")) // an ATX "## ..." heading is meant
}

// heading opens a section and works out its kind: its own, else its parent's.
func (p *parser) heading(title string, level, line int) {
	for len(p.stack) > 0 && p.stack[len(p.stack)-1].level >= level {
		p.stack = p.stack[:len(p.stack)-1]
	}
	norm := normalizeHeading(title)
	k := classifyNormalized(norm)
	p.baseHeading(norm)
	if k == kindOther && len(p.stack) > 0 {
		k = p.stack[len(p.stack)-1].kind
	}
	p.stack = append(p.stack, open{level, k})
	p.doc.Sections = append(p.doc.Sections, Section{Heading: title, Level: level, Line: line})
	p.kinds = append(p.kinds, k)
	p.section = len(p.doc.Sections) - 1
}

// addText appends t to the current section's text. Text only ever goes to the last
// section, so every section's text is one run of p.text; flushTexts cuts them out of
// one string.
func (p *parser) addText(t string) {
	if t == "" {
		return
	}
	p.current()
	for len(p.texts) < len(p.doc.Sections) {
		p.texts = append(p.texts, span{len(p.text), len(p.text)})
	}
	sp := &p.texts[p.section]
	if sp.end > sp.start {
		p.text = append(p.text, "\n\n"...)
	} else {
		sp.start = len(p.text)
	}
	p.text = append(p.text, t...)
	sp.end = len(p.text)
}

// span is a run of bytes: [start, end).
type span struct{ start, end int }

// flushTexts moves the section texts into the document. p.text is written no more
// after this point, so the strings view it without a copy.
func (p *parser) flushTexts() {
	all := unsafeString(p.text)
	p.text = nil
	for i, sp := range p.texts {
		p.doc.Sections[i].Text = all[sp.start:sp.end]
	}
}

// item is one list item: its plain text and its node, for link extraction.
type item struct {
	text string
	node ast.Node
}

// listItems returns the items of l, nested items after their parent.
func (p *parser) listItems(l *ast.List) []item {
	var items []item
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		if c := it.FirstChild(); c != nil && c.NextSibling() == nil && c.Kind() != ast.KindList {
			// The common item: one text block, no nested list.
			if t := strings.TrimSpace(p.blockText(c)); t != "" {
				items = append(items, item{t, it})
			}
			continue
		}
		var own []string
		var nested []item
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
			items = append(items, item{strings.Join(own, " "), it})
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
		var lines []string
		for _, it := range p.listItems(b) {
			lines = append(lines, it.text)
		}
		return strings.Join(lines, "\n")
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

// rawLines returns the source lines of a code or HTML block. Lines that follow each
// other in the source (a fence at the margin) are one slice, copied once.
func (p *parser) rawLines(n ast.Node) string {
	lines := n.Lines()
	if lines.Len() == 0 {
		return ""
	}
	contiguous := true
	for i := 0; i < lines.Len() && contiguous; i++ {
		seg := lines.At(i)
		contiguous = seg.Padding == 0 && !seg.ForceNewline && (i == 0 || seg.Start == lines.At(i-1).Stop)
	}
	if first, last := lines.At(0), lines.At(lines.Len()-1); contiguous {
		return string(p.src[first.Start:last.Stop])
	}
	var b strings.Builder
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(p.src))
	}
	return b.String()
}

// tableText renders a table as one line per row, cells separated by " | ". The text
// is built in a reused buffer and copied out once.
func (p *parser) tableText(t *east.Table) string {
	b := p.table[:0]
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		if len(b) > 0 {
			b = append(b, '\n')
		}
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			if c != r.FirstChild() {
				b = append(b, " | "...)
			}
			start := len(b)
			b = p.appendInline(b, c)
			b = b[:start+copy(b[start:], bytes.TrimSpace(b[start:]))]
		}
	}
	p.table = b
	return string(b)
}

// inline returns the plain text of n's inline content: emphasis and code spans lose
// their markers, links keep their text, raw HTML is dropped.
func (p *parser) inline(n ast.Node) string {
	p.scratch = p.appendInline(p.scratch[:0], n)
	return string(p.scratch)
}

func (p *parser) appendInline(b []byte, n ast.Node) []byte {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch t := c.(type) {
		case *ast.Text:
			if p.record {
				p.bareURLs(t, p.addBareLink)
			}
			b = append(b, t.Value(p.src)...)
			switch {
			case t.HardLineBreak():
				b = append(b, '\n')
			case t.SoftLineBreak():
				b = append(b, ' ')
			}
		case *ast.String:
			b = append(b, t.Value...)
		case *ast.AutoLink:
			if p.record {
				p.addLink("", string(t.URL(p.src)), p.lineOf(t.Pos()))
			}
			b = append(b, t.URL(p.src)...)
		case *ast.Link:
			rec := p.record
			p.record = false // text inside a link is not a bare URL
			start := len(b)
			b = p.appendInline(b, t)
			p.record = rec
			if rec { // the link's text is what was just appended: read once
				p.addLink(strings.TrimSpace(string(b[start:])), string(t.Destination), p.lineOfNode(t))
			}
		case *ast.CodeSpan:
			rec := p.record
			p.record = false // code is not a link
			b = p.appendInline(b, t)
			p.record = rec
		case *ast.RawHTML:
			var raw strings.Builder
			for i := 0; i < t.Segments.Len(); i++ {
				seg := t.Segments.At(i)
				raw.Write(seg.Value(p.src))
			}
			if t.Segments.Len() > 0 {
				p.rawHTML(raw.String(), p.lineOf(t.Segments.At(0).Start))
			}
		default:
			b = p.appendInline(b, c)
		}
	}
	return b
}

// collectLinks records every link, autolink and bare URL inside block n, in the
// current section.
func (p *parser) collectLinks(n ast.Node) {
	if p.visit == nil {
		p.visit = p.visitLink
	}
	_ = ast.Walk(n, p.visit)
}

func (p *parser) visitLink(c ast.Node, entering bool) (ast.WalkStatus, error) {
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
			p.bareURLs(l, p.addBareLink)
		}
	case *ast.CodeSpan, *ast.FencedCodeBlock, *ast.CodeBlock:
		return ast.WalkSkipChildren, nil // code is not a link
	}
	return ast.WalkContinue, nil
}

func (p *parser) addBareLink(u string, off int) { p.addLink("", u, p.lineOf(off)) }

// bareURLs calls found for each http or https URL written as plain text in t (GFM's
// "extended autolinks"): the URL runs to the first space or '<', without trailing
// punctuation.
func (p *parser) bareURLs(t *ast.Text, found func(u string, off int)) {
	seg := t.Segment.Value(p.src)
	if len(seg) < len("http://x.y") || bytes.IndexByte(seg, ':') < 0 {
		return // most text segments: no scheme separator at all
	}
	for off := 0; ; {
		i := bytes.Index(seg[off:], []byte("http"))
		if i < 0 {
			return
		}
		start := off + i
		rest := seg[start:]
		if !bytes.HasPrefix(rest, []byte("https://")) && !bytes.HasPrefix(rest, []byte("http://")) ||
			start > 0 && isWordByte(seg[start-1]) {
			off = start + 4
			continue
		}
		end := start
		for end < len(seg) && seg[end] > ' ' && seg[end] != '<' && seg[end] < 0x7f {
			end++
		}
		u := trimUnbalanced(strings.TrimRight(string(seg[start:end]), ".,:;!?*_~'\""))
		if host := u[strings.Index(u, "//")+2:]; strings.Contains(host, ".") || strings.HasPrefix(host, "localhost") {
			found(u, t.Segment.Start+start)
		}
		off = end
	}
}

// isWordByte reports bytes that may not precede a bare URL (it would be mid-word).
func isWordByte(c byte) bool {
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
		p.warn(line, WarnUnsafeLink, why)
	}
}

func (p *parser) warn(line int, code, msg string) {
	p.doc.Warnings = append(p.doc.Warnings, Warning{Line: line, Code: code, Message: msg})
}

// rawHTML flags script and iframe elements; raw HTML is otherwise dropped.
func (p *parser) rawHTML(html string, line int) {
	l := strings.ToLower(html)
	for _, tag := range []string{"<script", "<iframe"} {
		if strings.Contains(l, tag) {
			p.warn(line, WarnRawHTML, fmt.Sprintf("raw %s> element; it is not rendered or followed", tag))
		}
	}
}

// unsafeURL says why a link must not be followed, or "".
func unsafeURL(dest string) string {
	dest = strings.TrimSpace(dest)
	// The scheme runs to the first ':' before any '/', '?' or '#' (RFC 3986 §3.1).
	if i := strings.IndexAny(dest, ":/?#"); i > 0 && dest[i] == ':' {
		switch s := strings.ToLower(dest[:i]); s {
		case "javascript", "data", "file", "vbscript":
			return fmt.Sprintf("link uses the %s: scheme; it must not be followed", s)
		}
	}
	if !strings.Contains(dest, "@") {
		return "" // no userinfo possible: skip the full parse
	}
	if u, err := url.Parse(dest); err == nil && u.User != nil {
		return "link carries userinfo (credentials in the URL); it must not be followed"
	}
	return ""
}

// hasLevel reports whether a section of the given heading level is already open.
func (p *parser) hasLevel(level int) bool {
	for _, s := range p.doc.Sections {
		if s.Level == level {
			return true
		}
	}
	return false
}
