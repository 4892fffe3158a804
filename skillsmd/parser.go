package skillsmd

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

type parser struct {
	doc      *Document
	texts    []span          // each section's text in p.text, parallel to doc.Sections
	text     strings.Builder // the section texts, one after another
	strs     strings.Builder // the other strings the Document keeps, one after another (see str)
	scratch  []byte          // reused by inline
	table    []byte          // reused by tableText
	raw      []byte          // reused by rawLines
	norm     []byte          // reused by normalize
	items    []item          // reused by block for the items of a list
	urls     []linkRef       // reused by urlsIn
	record   bool            // appendInline records the links it meets (once per block)
	inCode   bool            // appendInline is inside a code span: no escapes nor entities
	authNext bool            // the paragraph just read introduces a header: the next code block is read for it
	riskNext bool            // the paragraph just read introduces a list of risky actions (see riskyLeadIn)
	refs     []linkRef       // what urlsIn would find in the text recorded in the current block
	known    knownURLs       // a node whose URLs are in refs, for urlsIn
	src      []byte
	line     int // line of offset lineAt, for lineOf
	lineAt   int
	section  int    // index of the current section, -1 before the first
	kinds    []kind // kind of each section, parallel to doc.Sections
	stack    []open // enclosing headings, outermost first

	bases        []baseCandidate // statements of the API base, in document order
	placeholder  int             // first line where the base is only a placeholder, or 0
	baseNext     int             // strength of the heading naming the base, while its value is awaited; 0 otherwise
	baseLeft     int             // blocks after that heading still to read for the value
	leadIn       bool            // the line just scanned was a base label without its value
	endpoints    []endpoint      // absolute endpoint URLs, for a base no label states (see inferBase)
	inferred     bool            // doc.BaseURL came from inferBase
	mcpBase      bool            // doc.BaseURL came from mcpOnlyBase
	endpointLine int             // line of the block holding the first endpoint, or 0
	vars         []varValue      // upper-case variables assigned an absolute URL (see templateBase)
	varUses      []varUse        // template variables that start endpoints
	varLine      int             // doc.BaseURL came from templateBase: line of the variable's first use
	apiRows      []string        // URLs of table rows naming an API ("| Orchestrator API | URL |"), see apiRowsBase
	exampleAuth  []string        // auth headers the request examples send outside the auth section (see requestAuth)
	credAuth     []string        // sentences naming the credential the API takes, outside the auth section (see addCred)
	credWeak     bool            // credAuth holds only sentences that mention a key the API hands out (see addCred)
	credDropped  []string        // when explaining: such sentences outranked (see addCred)
	fromRows     bool            // doc.BaseURL came from apiRowsBase
	explain      bool            // record the evidence (Explain)
	asides       []BaseEvidence  // when explaining: candidates for the base set aside
	authEv       []AuthEvidence  // when explaining: each auth rule added, and where from
	ambiguous    bool            // the stated bases name more than maxBaseHosts hosts: none is the document's

	// The Document's lists, gathered in reused buffers and copied out once, each in
	// one allocation, by flushLists: they are only ever appended to while the
	// document is read (addAuth reads auth).
	links                          []Link
	moreInfo                       []InfoLink
	api, auth, safe, risky, limits []string
	itemTexts                      []string // the sections' items, one section after another
	itemSpans                      []span   // each section's items in itemTexts, parallel to doc.Sections
}

// parsers keeps parsers between calls to Parse, for their buffers. None of them is
// kept by a Document: its strings are in p.text and p.strs, which are never reused,
// and its lists are copied out (flushLists).
var parsers = sync.Pool{New: func() any { return new(parser) }}

// newParser returns a parser for src, from the pool.
func newParser(d *Document, src []byte) *parser {
	p := parsers.Get().(*parser)
	p.doc, p.src, p.line, p.section = d, src, 1, -1
	if p.scratch == nil {
		// The byte buffers, in one allocation; each grows on its own if it must.
		buf := make([]byte, 3*scratchSize)
		p.scratch = buf[:0:scratchSize]
		p.table = buf[scratchSize : scratchSize : 2*scratchSize]
		p.raw = buf[2*scratchSize : 2*scratchSize]
	}
	return p
}

// scratchSize is the initial size of each of the parser's reused byte buffers.
const scratchSize = 512

// release returns p to the pool with its buffers emptied, and cleared of what would
// keep a Document or its tree alive. Buffers grown large by a large document are
// dropped rather than kept.
func (p *parser) release() {
	*p = parser{
		// Emptied more than once while the document is read: cleared in full.
		items: reuse(p.items[:cap(p.items)]), urls: reuse(p.urls[:cap(p.urls)]), refs: reuse(p.refs[:cap(p.refs)]),
		scratch: reuse(p.scratch), table: reuse(p.table), raw: reuse(p.raw), norm: reuse(p.norm),
		kinds: reuse(p.kinds), texts: reuse(p.texts), stack: reuse(p.stack[:cap(p.stack)]),
		bases: reuse(p.bases), endpoints: reuse(p.endpoints), vars: reuse(p.vars), varUses: reuse(p.varUses),
		links: reuse(p.links), moreInfo: reuse(p.moreInfo), apiRows: reuse(p.apiRows), exampleAuth: reuse(p.exampleAuth),
		credAuth: reuse(p.credAuth),
		api:      reuse(p.api), auth: reuse(p.auth), safe: reuse(p.safe), risky: reuse(p.risky), limits: reuse(p.limits),
		itemTexts: reuse(p.itemTexts), itemSpans: reuse(p.itemSpans),
	}
	parsers.Put(p)
}

// reuse returns s emptied for its next use, or nil if it is large. It zeroes s up to
// its length: a buffer holds nothing beyond its length when it is only appended to
// (or, above, when it is given in full), and is zero there after a release.
func reuse[T any](s []T) []T {
	if cap(s) > maxReused {
		return nil
	}
	clear(s)
	return s[:0]
}

// maxReused is the most elements a buffer keeps for reuse.
const maxReused = 8 << 10

// flushLists copies the lists into the Document, each in one allocation (the
// strings, in one for all): a list stays nil when empty.
func (p *parser) flushLists() {
	d := p.doc
	d.Links, d.MoreInfo = cloneList(p.links), cloneList(p.moreInfo)
	if len(p.auth) == 0 {
		// The guide states no auth rule but its request examples send a credential
		// header ("curl -H 'Authorization: Bearer …'"): that is how to authenticate.
		p.auth = append(p.auth, p.exampleAuth...)
	}
	if len(p.auth) == 0 {
		// Nor do its examples, but a sentence names the credential the API takes
		// ("The API authenticates with a bearer token.", "需要 apiKey").
		p.auth = append(p.auth, p.credAuth...)
		for _, a := range p.credAuth {
			p.noteAuth(a, fromProse)
		}
	}
	n := len(p.api) + len(p.auth) + len(p.safe) + len(p.risky) + len(p.limits) + len(p.itemTexts)
	if n == 0 {
		return
	}
	all := make([]string, 0, n)
	cut := func(l []string) []string {
		if len(l) == 0 {
			return nil
		}
		start := len(all)
		all = append(all, l...)
		return all[start:len(all):len(all)] // full: an append by the caller reallocates
	}
	d.API, d.Auth, d.SafeActions, d.RiskyActions, d.Limits = cut(p.api), cut(p.auth), cut(p.safe), cut(p.risky), cut(p.limits)
	for i, sp := range p.itemSpans {
		d.Sections[i].Items = cut(p.itemTexts[sp.start:sp.end])
	}
}

// cloneList returns a copy of l with no spare room, or nil if l is empty.
func cloneList[T any](l []T) []T {
	if len(l) == 0 {
		return nil
	}
	return append(make([]T, 0, len(l)), l...)
}

// addItem appends a list item to the current section.
func (p *parser) addItem(t string) {
	for len(p.itemSpans) < len(p.doc.Sections) {
		p.itemSpans = append(p.itemSpans, span{len(p.itemTexts), len(p.itemTexts)})
	}
	sp := &p.itemSpans[p.section]
	if sp.end == sp.start {
		sp.start = len(p.itemTexts)
	}
	p.itemTexts = append(p.itemTexts, t)
	sp.end = len(p.itemTexts)
}

// open is a heading whose section is still open, for kind inheritance.
type open struct {
	level int
	kind  kind
}

// lineOf returns the 1-based line of byte offset off (0 for a negative offset). Lines
// are counted on demand from the offset asked before, which is nearly always a little
// before off (blocks and their links come in document order): the document is counted
// about once, with a vectorised count, instead of indexed line by line up front.
func (p *parser) lineOf(off int) int {
	if off < 0 {
		return 0
	}
	off = min(off, len(p.src))
	if off >= p.lineAt {
		p.line += bytes.Count(p.src[p.lineAt:off], newline)
	} else {
		p.line -= bytes.Count(p.src[off:p.lineAt], newline)
	}
	p.lineAt = off
	return p.line
}

var newline = []byte("\n")

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
		return p.lineOf(off)
	}
	return 1
}

// str returns a copy of b that the Document may keep. The copies are made one after
// another in a few large buffers instead of one allocation each (a document has
// hundreds of strings): a strings.Builder, whose String views the bytes written so
// far, which it never changes. A full builder is dropped for a fresh one rather than
// grown, so that it is not copied.
func (p *parser) str(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if p.strs.Cap()-p.strs.Len() < len(b) {
		p.strs = strings.Builder{}
		p.strs.Grow(max(len(b), strChunk, min(len(p.src)/2, maxStrChunk)))
	}
	start := p.strs.Len()
	p.strs.Write(b)
	return p.strs.String()[start:]
}

// strChunk and maxStrChunk bound the buffers str allocates, which are sized after
// the document: its other strings take a fraction of its size.
const (
	strChunk    = 1 << 10
	maxStrChunk = 64 << 10
)

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
	authNext, riskNext := p.authNext, p.riskNext
	p.authNext, p.riskNext = false, false
	p.refs, p.known = p.refs[:0], knownURLs{}
	switch b := n.(type) {
	case *ast.Heading:
		title := strings.TrimSpace(p.inline(b))
		if p.setextSentence(b, title) {
			p.paragraph(b) // a paragraph above a rule, not a heading
			return
		}
		p.titleOrHeading(title, b.Level, p.lineOfNode(b))
	case *ast.Paragraph:
		if level, title := p.unspacedHeading(b); level > 0 {
			// "##Contact": an ATX heading without the space CommonMark requires, which
			// the original Markdown and many renderers still read as a heading.
			if level == 1 {
				p.titleOrHeading(title, level, p.lineOfNode(b)) // "#Acme Shop" opening the document
			} else {
				p.heading(title, level, p.lineOfNode(b))
			}
			p.collectLinks(b)
			return
		}
		p.paragraph(b)
	case *ast.Blockquote:
		if hasHeadingChild(b) {
			p.nested(b) // "> ## Note": a heading inside a quote is still a heading
			return
		}
		p.paragraph(b)
	case *ast.List:
		if hasHeadingItem(b) {
			for it := b.FirstChild(); it != nil; it = it.NextSibling() {
				p.nested(it) // "- ## Step": a heading inside a list item is still a heading
			}
			return
		}
		p.current()
		p.record = true
		items := p.appendItems(p.items[:0], b)
		p.items = items
		p.record = false
		if p.baseNext > 0 {
			lines := make([]string, len(items))
			for i, it := range items {
				lines[i] = it.text
			}
			p.baseFromNext(lines, func() int { return p.lineOfNode(b) })
		}
		tier := p.tier()
		var leadItem ast.Node // an item that ended with a base label and no value ("- Base URL:")
		for _, it := range items {
			p.addItem(it.text)
			node := it.node
			if leadItem != nil && p.leadIn && p.baseNext > 0 && node.Parent() != nil && node.Parent().Parent() == leadItem {
				// "- Base URL:" whose nested item holds the value.
				p.leadIn = false
				p.baseFromNext([]string{it.text}, func() int { return p.lineOfNode(node) })
			}
			leadItem = nil
			p.leadIn = false
			p.scanLine(it.text, tier, true, func() int { return p.lineOfNode(node) })
			if p.leadIn {
				leadItem = node
			}
			p.scanProductionLabel(it.text, tier)
			p.authProse(it.text)
			p.noteURLs(it.text, node, false)
		}
		p.typedItems(items, riskNext)
	case *east.Table:
		p.current()
		p.record = true
		t := p.addText(unsafeString(p.tableText(b))) // copied into the section text, and read there
		p.record = false
		if p.baseNext > 0 {
			p.baseFromTable(t)
		}
		p.tableRows(t, b)
		p.noteURLs(t, b, false)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		code := p.addText(unsafeString(bytes.TrimRight(p.rawLines(b), "\n")))
		if p.baseNext > 0 {
			first, _, _ := strings.Cut(strings.TrimSpace(code), "\n")
			p.baseFromNext([]string{first}, func() int { return p.lineOfNode(b) })
		}
		if authNext || p.kind() == kindAuth {
			p.authHeaders(code, fromAuthCode)
		} else {
			p.requestAuth(code)
		}
		p.noteURLs(code, b, true)
	case *ast.HTMLBlock:
		raw := unsafeString(p.rawLines(b))
		p.rawHTML(raw, p.lineOfNode(b))
		p.htmlHeadings(b, raw)
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

// titleOrHeading takes a heading's text: the document's title, or a section.
func (p *parser) titleOrHeading(title string, level, line int) {
	if level == 1 && p.doc.Title == "" && len(p.doc.Sections) == 0 {
		p.doc.Title = title
		return
	}
	if level == 1 && p.doc.Title == "" && !p.hasLevel(1) {
		// The document's first H1 comes after a few H2 sections (a "Files" table
		// put first): it is still the title. It also opens a section, so that what
		// follows it is not filed under the section before it.
		p.doc.Title = title
	}
	p.heading(title, level, line)
}

// hasHeadingChild reports a block with a heading among its children.
func hasHeadingChild(n ast.Node) bool {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c.Kind() == ast.KindHeading {
			return true
		}
	}
	return false
}

// hasHeadingItem reports a list with a heading at the top of one of its items.
func hasHeadingItem(l *ast.List) bool {
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		if hasHeadingChild(it) {
			return true
		}
	}
	return false
}

// nested reads the children of a quote or list item that holds a heading as blocks
// of their own, in order: a reader sees the heading ("> ## Note", "- ## Step 1") and
// the text under it, so the heading opens a section as any other does. The text of a
// tight list item (a text block) is read as a paragraph.
func (p *parser) nested(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c.Kind() == ast.KindTextBlock {
			p.current()
			p.record = true
			t := strings.TrimSpace(p.inline(c))
			p.record = false
			p.addText(t)
			p.scanLine(t, p.tier(), true, func() int { return p.lineOfNode(c) })
			p.authProse(t)
			p.noteURLs(t, c, false)
			continue
		}
		p.block(c)
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
	var t string
	if b.Kind() == ast.KindBlockquote {
		// A quote may hold lists, which urlsIn leaves out: its URLs are not known.
		t = strings.TrimSpace(p.blockText(b))
	} else {
		// The text is read once, then copied where the Document keeps it.
		p.scratch = p.appendInline(p.scratch[:0], b)
		p.known = knownURLs{b, span{0, len(p.refs)}}
		if tb := bytes.TrimSpace(p.scratch); summary {
			t = p.str(tb)
		} else {
			t = p.addText(unsafeString(tb))
		}
	}
	p.record = false
	if p.baseNext > 0 {
		first, _, _ := strings.Cut(t, "\n")
		p.baseFromNext([]string{first}, func() int { return p.lineOfNode(b) })
	}
	p.scanParagraph(b, t, p.tier(), true)
	p.authProse(t)
	p.authNext = headerLeadIn(t)
	p.riskNext = riskyLeadIn(t)
	p.sameOriginBase(t, p.tier())
	p.originPathBase(t, p.tier())
	p.noteURLs(t, b, false)
	if summary {
		p.doc.Summary = t
		p.proseRisk(t, false)
		return
	}
	if b.Kind() == ast.KindBlockquote {
		p.addText(t)
	}
	p.typedText(t, b)
	p.proseRisk(t, false)
}

// unspacedHeading reads a one-line paragraph of two to six "#" followed directly by a
// letter ("##致每一只龙虾", "###Setup") as the heading its author meant, and returns
// its level and text; 0 otherwise. One "#" only at the very start of a document
// without a title, before words ("#Acme Shop"): elsewhere "#hashtag" lines are
// common, and a title is too important to guess. Each is reported (WarnHeadingSpace).
func (p *parser) unspacedHeading(b *ast.Paragraph) (int, string) {
	lines := b.Lines()
	if lines.Len() != 1 {
		return 0, ""
	}
	seg := lines.At(0)
	raw := p.src[seg.Start:seg.Stop]
	if len(raw) < 3 || raw[0] != '#' || len(raw) > maxUnspacedHeading {
		return 0, "" // the common case: one byte read
	}
	if raw[1] != '#' && (p.doc.Title != "" || b.PreviousSibling() != nil || !bytes.ContainsRune(raw, ' ')) {
		return 0, ""
	}
	level := 0
	for level < len(raw) && raw[level] == '#' {
		level++
	}
	if level > 6 {
		return 0, ""
	}
	r, _ := utf8.DecodeRune(raw[level:])
	if !unicode.IsLetter(r) {
		return 0, ""
	}
	t := strings.TrimSpace(p.inline(b))
	t = strings.TrimSpace(strings.TrimRight(strings.TrimLeft(t, "#"), "# "))
	if t == "" {
		return 0, ""
	}
	p.warn(p.lineOfNode(b), WarnHeadingSpace, fmt.Sprintf("%q has no space after its %s: read as a level-%d heading (write %q)",
		string(raw), strings.Repeat("#", level), level, strings.Repeat("#", level)+" "+t))
	return level, t
}

// maxUnspacedHeading bounds the length of a line unspacedHeading reads as a heading.
const maxUnspacedHeading = 120

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
	norm := p.normalize(title)
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

// addText appends t to the current section's text and returns that copy of t, which
// the Document may keep (t may be a view of a reused buffer). Text only ever goes to
// the last section, so every section's text is one run of p.text; flushTexts cuts
// them out of one string.
func (p *parser) addText(t string) string {
	if t == "" {
		return ""
	}
	p.current()
	for len(p.texts) < len(p.doc.Sections) {
		p.texts = append(p.texts, span{p.text.Len(), p.text.Len()})
	}
	sp := &p.texts[p.section]
	if sp.end > sp.start {
		p.text.WriteString("\n\n")
	} else {
		sp.start = p.text.Len()
	}
	start := p.text.Len()
	p.text.WriteString(t)
	sp.end = p.text.Len()
	return p.text.String()[start:]
}

// span is a run of bytes: [start, end).
type span struct{ start, end int }

// flushTexts moves the section texts into the document: the strings view p.text,
// without a copy.
func (p *parser) flushTexts() {
	all := p.text.String()
	for i, sp := range p.texts {
		p.doc.Sections[i].Text = all[sp.start:sp.end]
	}
}

// item is one list item: its plain text and its node, for link extraction.
type item struct {
	text string
	node ast.Node
	refs span // its URLs in p.refs (a single text block), else unknownURLs: see knownURLs
}

// unknownURLs is the refs of an item whose URLs urlsIn must find.
var unknownURLs = span{-1, -1}

// appendItems appends the items of l to dst, nested items after their parent.
func (p *parser) appendItems(dst []item, l *ast.List) []item {
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		if c := it.FirstChild(); c != nil && c.NextSibling() == nil && c.Kind() != ast.KindList {
			// The common item: one text block, no nested list.
			start := len(p.refs)
			if t := strings.TrimSpace(p.blockText(c)); t != "" {
				refs := unknownURLs
				if k := c.Kind(); k == ast.KindParagraph || k == ast.KindTextBlock || k == ast.KindHeading {
					refs = span{start, len(p.refs)}
				}
				dst = append(dst, item{t, it, refs})
			}
			continue
		}
		// The item goes before the items of its nested lists: its slot is kept while
		// its children are read in order (their links are recorded in that order).
		slot := len(dst)
		dst = append(dst, item{refs: unknownURLs})
		var own []string
		for c := it.FirstChild(); c != nil; c = c.NextSibling() {
			if sub, ok := c.(*ast.List); ok {
				dst = p.appendItems(dst, sub)
				continue
			}
			if t := strings.TrimSpace(p.blockText(c)); t != "" {
				own = append(own, t)
			}
		}
		if len(own) > 0 {
			dst[slot] = item{strings.Join(own, " "), it, unknownURLs}
		} else {
			dst = append(dst[:slot], dst[slot+1:]...)
		}
	}
	return dst
}

// blockText returns the plain text of a block and its descendants.
func (p *parser) blockText(n ast.Node) string {
	switch b := n.(type) {
	case *ast.Paragraph, *ast.TextBlock, *ast.Heading:
		return p.inline(b)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		return p.str(p.rawLines(b))
	case *ast.HTMLBlock:
		return ""
	case *ast.List:
		var lines []string
		for _, it := range p.appendItems(nil, b) {
			lines = append(lines, it.text)
		}
		return strings.Join(lines, "\n")
	case *east.Table:
		return p.str(p.tableText(b))
	}
	var parts []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t := strings.TrimSpace(p.blockText(c)); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}

// rawLines returns the source lines of a code or HTML block, as goldmark's
// Segment.Value gives them (padding, and a newline the last line lacks), in a buffer
// the next call reuses.
func (p *parser) rawLines(n ast.Node) []byte {
	lines := n.Lines()
	b := p.raw[:0]
	for i := 0; i < lines.Len(); i++ {
		b = appendSegment(b, p.src, lines.At(i))
	}
	p.raw = b
	return b
}

// appendSegment appends seg.Value(src) to b, without the allocation Value makes for
// a padded segment, and without its append of the newline a last line lacks, which
// writes past the end of src when src has room: src may be the caller's data.
func appendSegment(b, src []byte, seg text.Segment) []byte {
	start := len(b)
	for i := 0; i < seg.Padding; i++ {
		b = append(b, ' ')
	}
	b = append(b, src[seg.Start:seg.Stop]...)
	if seg.ForceNewline && len(b) > start && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	return b
}

// escapable reports text that holds a backslash escape or an entity reference, which
// a renderer shows decoded: "1\\. Setup" as "1. Setup", "Q&amp;A" as "Q&A".
func escapable(t []byte) bool {
	return bytes.IndexByte(t, '\\') >= 0 || bytes.IndexByte(t, '&') >= 0
}

// appendUnescaped appends the text of seg as a reader sees it: backslash escapes of
// ASCII punctuation and entity references decoded, as goldmark's renderer does.
func appendUnescaped(b, src []byte, seg text.Segment) []byte {
	for i := 0; i < seg.Padding; i++ {
		b = append(b, ' ')
	}
	v := util.UnescapePunctuations(src[seg.Start:seg.Stop])
	v = util.ResolveNumericReferences(v)
	v = util.ResolveEntityNames(v)
	b = append(b, v...)
	if seg.ForceNewline && len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	return b
}

// tableText renders a table as one line per row, cells separated by " | ", in a
// buffer the next call reuses.
func (p *parser) tableText(t *east.Table) []byte {
	b := p.table[:0]
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		if len(b) > 0 {
			b = append(b, '\n')
		}
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			if c.PreviousSibling() != nil {
				b = append(b, " | "...)
			}
			start := len(b)
			b = p.appendInline(b, c)
			if cell := b[start:]; len(cell) > 0 && (mayBeSpace(cell[0]) || mayBeSpace(cell[len(cell)-1])) {
				b = b[:start+copy(cell, bytes.TrimSpace(cell))]
			}
		}
	}
	p.table = b
	return b
}

// mayBeSpace reports whether c may begin or end white space as bytes.TrimSpace
// sees it: an ASCII blank, or any byte of a multi-byte rune.
func mayBeSpace(c byte) bool {
	return c >= utf8.RuneSelf || c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// inline returns the plain text of n's inline content: emphasis and code spans lose
// their markers, links keep their text, raw HTML is dropped.
func (p *parser) inline(n ast.Node) string {
	p.scratch = p.appendInline(p.scratch[:0], n)
	return p.str(p.scratch)
}

func (p *parser) appendInline(b []byte, n ast.Node) []byte {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch t := c.(type) {
		case *ast.Text:
			if g := t.Segment; p.record && g.Stop-g.Start+g.Padding+1 >= len("http://x.y") { // see mayHoldURL
				p.bareURLs(t, p.addBareLink)
			}
			if p.inCode || !escapable(p.src[t.Segment.Start:t.Segment.Stop]) {
				b = appendSegment(b, p.src, t.Segment)
			} else {
				b = appendUnescaped(b, p.src, t.Segment)
			}
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
				u := p.str(t.URL(p.src))
				p.addLink("", u, p.lineOf(t.Pos()))
				p.refs = append(p.refs, linkRef{url: u})
			}
			b = append(b, t.URL(p.src)...)
		case *ast.Link:
			rec := p.record
			p.record = false // text inside a link is not a bare URL
			start, warned := len(b), len(p.doc.Warnings)
			b = p.appendInline(b, t)
			p.record = rec
			if rec { // the link's text is what was just appended: read once
				r := linkRef{p.str(bytes.TrimSpace(b[start:])), p.str(t.Destination), span{warned, len(p.doc.Warnings)}}
				p.addLink(r.text, r.url, p.lineOfNode(t))
				p.refs = append(p.refs, r)
			}
		case *ast.CodeSpan:
			rec, code := p.record, p.inCode
			p.record, p.inCode = false, true // code is not a link, and keeps its backslashes
			start := len(b)
			b = p.appendInline(b, t)
			p.record, p.inCode = rec, code
			if rec {
				if u := codeURL(b[start:]); u != nil {
					p.refs = append(p.refs, linkRef{url: p.str(u)})
				}
			}
		case *ast.RawHTML:
			if t.Segments.Len() > 0 {
				var raw []byte
				for i := 0; i < t.Segments.Len(); i++ {
					raw = appendSegment(raw, p.src, t.Segments.At(i))
				}
				p.rawHTML(unsafeString(raw), p.lineOf(t.Segments.At(0).Start))
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
	switch l := n.(type) {
	case *ast.Link:
		p.addLink(strings.TrimSpace(p.inline(l)), p.str(l.Destination), p.lineOfNode(l))
	case *ast.AutoLink:
		p.addLink("", p.str(l.URL(p.src)), p.lineOf(l.Pos()))
	case *ast.Text:
		if _, inLink := l.Parent().(*ast.Link); !inLink {
			p.bareURLs(l, p.addBareLink)
		}
	case *ast.CodeSpan, *ast.FencedCodeBlock, *ast.CodeBlock:
		return // code is not a link
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		p.collectLinks(c)
	}
}

func (p *parser) addBareLink(u string, off int) {
	p.addLink("", u, p.lineOf(off))
	p.refs = append(p.refs, linkRef{url: u})
}

// bareURLs calls found for each http or https URL written as plain text in t (GFM's
// "extended autolinks"): the URL runs to the first space or '<', without trailing
// punctuation.
func (p *parser) bareURLs(t *ast.Text, found func(u string, off int)) {
	if !mayHoldURL(p.src, t.Segment) {
		return
	}
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
		u := trimUnbalanced(strings.TrimRight(p.str(seg[start:end]), ".,:;!?*_~'\""))
		if host := u[strings.Index(u, "//")+2:]; strings.Contains(host, ".") || strings.HasPrefix(host, "localhost") {
			found(u, t.Segment.Start+start)
		}
		off = end
	}
}

// mayHoldURL is bareURLs' first test, made on the source in place: most text
// segments are too short for a URL (even with the newline Value may add) or hold no ':'.
func mayHoldURL(src []byte, g text.Segment) bool {
	return g.Stop-g.Start+g.Padding+1 >= len("http://x.y") && (g.Padding != 0 || bytes.IndexByte(src[g.Start:g.Stop], ':') >= 0)
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
	p.links = append(p.links, Link{Text: txt, URL: dest, Line: line, Section: p.section})
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
	i := 0
	for i < len(dest) && dest[i] != ':' && dest[i] != '/' && dest[i] != '?' && dest[i] != '#' {
		i++
	}
	if i > 0 && i < len(dest) && dest[i] == ':' {
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

// htmlHeadings opens the sections a reader sees in an HTML block, in order: <h1> to
// <h6> elements ("<h1 align="center">Acme</h1>", the title of many READMEs), and in a
// block of other tags ("<div>", "<br>", "<details>") the lines that are ATX headings
// of two to six "#" which the block swallowed because no blank line ends it first: a
// renderer prints those as text, but their author meant headings, as with
// "##Heading" (unspacedHeading; one "#" is left alone there too). Comments and <pre>,
// <code>, <script>, <style> and <textarea> elements hold no headings.
func (p *parser) htmlHeadings(b *ast.HTMLBlock, raw string) {
	if b.HTMLBlockType != ast.HTMLBlockType6 && b.HTMLBlockType != ast.HTMLBlockType7 {
		return // comments, <pre> and <script> blocks, declarations
	}
	if strings.IndexByte(raw, '#') < 0 && !strings.Contains(raw, "<h") && !strings.Contains(raw, "<H") {
		return // the common case: no heading can be in it
	}
	low := strings.ToLower(raw)
	type found struct {
		off, level int
		text       string
	}
	var hs []found
	hidden := -1 // while in a comment or a <pre>-like element: where its closing tag starts the search
	closeTag := ""
	atLine := true // off starts a line
	for off := 0; off < len(raw); {
		if hidden >= 0 {
			k := strings.Index(low[off:], closeTag)
			if k < 0 {
				break
			}
			off, hidden = off+k+len(closeTag), -1
			atLine = false
			continue
		}
		if atLine {
			eol := strings.IndexByte(raw[off:], '\n')
			if eol < 0 {
				eol = len(raw) - off
			}
			if level, t := atxLine(raw[off : off+eol]); level >= 2 {
				hs = append(hs, found{off, level, t})
			}
			atLine = false
		}
		k := strings.IndexAny(low[off:], "<\n")
		if k < 0 {
			break
		}
		off += k
		if low[off] == '\n' {
			off++
			atLine = true
			continue
		}
		tag := low[off:]
		switch {
		case strings.HasPrefix(tag, "<!--"):
			hidden, closeTag, off = off, "-->", off+4
		case hiddenTag(tag):
			name := tag[1:strings.IndexAny(tag+">", " \t\n>/")]
			hidden, closeTag, off = off, "</"+name, off+1
		default:
			level, ok := headingTag(tag)
			if !ok {
				off++
				continue
			}
			open := strings.IndexByte(tag, '>')
			closing := strings.Index(tag, "</h"+string(rune('0'+level)))
			if open < 0 || closing < open {
				off++
				continue
			}
			if t := htmlText(raw[off+open+1 : off+closing]); t != "" {
				hs = append(hs, found{off, level, t})
			}
			off += closing + len("</h1")
		}
	}
	first := p.lineOfNode(b)
	for _, h := range hs {
		p.titleOrHeading(h.text, h.level, first+strings.Count(raw[:h.off], "\n"))
	}
}

// hiddenTag reports the start of an element whose content is not read as headings.
func hiddenTag(tag string) bool {
	for _, name := range [...]string{"pre", "code", "script", "style", "textarea"} {
		if strings.HasPrefix(tag[1:], name) && len(tag) > len(name)+1 && strings.IndexByte(" \t>/", tag[len(name)+1]) >= 0 {
			return true
		}
	}
	return false
}

// headingTag reads an opening <h1> to <h6> tag at the start of tag (lower-cased).
func headingTag(tag string) (int, bool) {
	if len(tag) < 4 || tag[1] != 'h' || tag[2] < '1' || tag[2] > '6' || strings.IndexByte(" \t\n>", tag[3]) < 0 {
		return 0, false
	}
	return int(tag[2] - '0'), true
}

// htmlText returns the text a reader sees in an element's content: tags dropped,
// entity references decoded, blanks collapsed.
func htmlText(inner string) string {
	var b strings.Builder
	for i := 0; i < len(inner); {
		if inner[i] == '<' {
			if j := strings.IndexByte(inner[i:], '>'); j >= 0 {
				i += j + 1
				b.WriteByte(' ')
				continue
			}
		}
		b.WriteByte(inner[i])
		i++
	}
	t := string(util.ResolveEntityNames(util.ResolveNumericReferences([]byte(b.String()))))
	return strings.Join(strings.Fields(t), " ")
}

// atxLine reads a line that is an ATX heading ("## Setup", "### Step 2 ###") and
// returns its level and plain text; 0 otherwise.
func atxLine(l string) (int, string) {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 || !strings.HasPrefix(t, "#") {
		return 0, ""
	}
	level := 0
	for level < len(t) && t[level] == '#' {
		level++
	}
	if level > 6 || level == len(t) || t[level] != ' ' && t[level] != '\t' {
		return 0, ""
	}
	text := strings.TrimSpace(t[level:])
	if k := strings.TrimRight(text, "#"); k != text && (k == "" || strings.HasSuffix(k, " ") || strings.HasSuffix(k, "\t")) {
		text = strings.TrimSpace(k) // a closing sequence
	}
	text = strings.TrimSpace(stripMarkup(text))
	if text == "" || text[0] == '<' {
		return 0, ""
	}
	return level, string(util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations([]byte(text)))))
}
