package tools

import (
	"cmp"
	"strings"
	"sync"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/internal/fence"
	"github.com/wellknown-dev/discovery/mcpjson"
	"github.com/wellknown-dev/discovery/skillsmd"
)

// maxMemo bounds the skills.md renderings a Toolset keeps.
const maxMemo = 64

// skillsRender is what discover_site shows of one skills.md for one origin.
type skillsRender struct {
	text     string // discovery.Discovery.ForModel, within the budget; its nonce is replaced on each use
	nonce    string // the nonce in text; "" when it could not be found (then text is not reused)
	title    string
	baseURL  string
	sections []string
}

type memoKey struct {
	doc    *skillsmd.Document
	mcp    *mcpjson.Document
	origin string
}

// memo keeps skills.md renderings. The discovery Client hands out the same parsed
// Document while the body it was parsed from is unchanged (a fresh cache hit, a
// 304), so a pointer identifies the content; the few held are dropped together when
// the bound is reached.
type memo struct {
	mu sync.Mutex // guards m
	m  map[memoKey]*skillsRender
}

// renderSite renders d for discover_site: Discovery.ForModel within the budget (skills.md
// with its unmapped sections, mcp.json's servers and tools), and the summary fields. A
// rendering is computed once per pair of documents and origin; each call gets it with
// a fresh nonce, exactly as a new ForModel call would render it.
func (t *Toolset) renderSite(d *discovery.Discovery, origin string) skillsRender {
	// The guide's references resolve against where it was served from (after a
	// redirect, another origin), so that is part of the key.
	guideBase := cmp.Or(d.GuideURL, origin)
	key := memoKey{d.Guide, d.MCP, origin + " " + guideBase}
	t.memo.mu.Lock()
	r, ok := t.memo.m[key]
	t.memo.mu.Unlock()
	if ok && r.nonce != "" {
		out := *r
		out.text = renonce(r.text, r.nonce)
		return out
	}
	r = &skillsRender{}
	if doc := d.Guide; doc != nil {
		r.title = clean(doc.Title, maxField)
		if u, err := doc.ResolveBase(guideBase); err == nil && u != nil {
			r.baseURL = clean(u.String(), maxField)
		} else if doc.BaseURL != "" {
			r.baseURL = clean(doc.BaseURL, maxField)
		}
		for _, s := range doc.Sections {
			if s.Heading != "" && len(r.sections) < maxListed {
				r.sections = append(r.sections, clean(s.Heading, maxField))
			}
		}
	}
	r.text = d.ForModel(&discovery.ModelOptions{Budget: t.budget * 3 / 4})
	r.nonce = guidanceNonce(r.text)
	t.memo.mu.Lock()
	if t.memo.m == nil || len(t.memo.m) >= maxMemo {
		t.memo.m = map[memoKey]*skillsRender{}
	}
	t.memo.m[key] = r
	t.memo.mu.Unlock()
	return *r
}

// guidanceNonce returns the nonce of a ForModel rendering: the suffix of its fence's
// tag name, which appears exactly three times (the opening tag, the label, the
// closing tag). It returns "" for a rendering of another form.
func guidanceNonce(text string) string {
	const open = "<untrusted-site-guidance-"
	if !strings.HasPrefix(text, open) {
		return ""
	}
	rest := text[len(open):]
	end := strings.IndexAny(rest, " >\n")
	if end < fence.NonceLen {
		return ""
	}
	nonce := rest[:end]
	if strings.Count(text, nonce) != 3 || !strings.Contains(text, "</untrusted-site-guidance-"+nonce+">") {
		return ""
	}
	return nonce
}

// renonce returns text with its nonce old replaced by a fresh one that text does not
// contain.
func renonce(text, old string) string {
	n := fence.Nonce()
	for strings.Contains(text, n) {
		n = fence.Nonce()
	}
	return strings.ReplaceAll(text, old, n)
}
