package mcpclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gowebpki/jcs"
)

// Change is one member that differs between the definition a user approved (the pin)
// and the one the server serves now. Every value in it came from the server:
// untrusted, to show, never to follow.
type Change struct {
	// Field is the JSON Pointer (RFC 6901) of the member in the definition:
	// "/description", "/inputSchema/properties/path/type", "/annotations".
	Field string
	// Old and New are the values as canonical JSON, shortened, with every character
	// that is not printable ASCII escaped (an invisible or look-alike character shows
	// as \u200b): "" when the member is absent on that side.
	Old, New string
	// Diff is a unified diff of the two texts when both are strings of several lines
	// or long ones, "" otherwise. It is bounded; its lines are escaped like Old and New.
	Diff string
}

// Bounds of what a diff shows: a definition may be as large as a listing allows, and
// the person asked must be able to read the answer.
const (
	maxChanges     = 64      // changes reported; then one that counts the rest
	maxShownValue  = 512     // characters of Old and New
	maxDiffBytes   = 8 << 10 // of one unified diff
	maxDiffCells   = 1 << 20 // lines(old) × lines(new) the LCS may visit
	textDiffLength = 80      // a string at least this long (or with a newline) gets a Diff
)

// canonical returns v (a value, or JSON bytes) in the JSON Canonicalization Scheme
// (RFC 8785): what a pin binds to, so that the same definition always hashes the same
// whatever its member order or number spelling.
func canonical(v any) ([]byte, error) {
	raw, ok := v.([]byte)
	if !ok {
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	return jcs.Transform(raw)
}

// diffJSON compares two JSON documents member by member and returns the changes, at
// most maxChanges of them and then one that says how many more there are.
func diffJSON(old, cur []byte) []Change {
	var a, b any
	if json.Unmarshal(old, &a) != nil || json.Unmarshal(cur, &b) != nil {
		return []Change{{Field: "", Old: show(old), New: show(cur)}}
	}
	d := &differ{}
	d.walk("", a, b)
	if d.total == 0 {
		// Equal as Go values; a pin compares canonical bytes, which may still differ
		// (numbers beyond float64 precision): show the whole of both.
		ca, errA := canonical(old)
		cb, errB := canonical(cur)
		if errA == nil && errB == nil && !bytes.Equal(ca, cb) {
			d.add(Change{Old: show(ca), New: show(cb)})
		}
	}
	if n := d.total - len(d.out); n > 0 {
		d.out = append(d.out, Change{Field: fmt.Sprintf("(and %d more changes)", n)})
	}
	return d.out
}

// differ collects the changes walk finds: the first maxChanges, and how many in all.
type differ struct {
	out   []Change
	total int
}

func (d *differ) add(c Change) {
	if d.total++; len(d.out) < maxChanges {
		d.out = append(d.out, c)
	}
}

// walk adds the changes between a and b at pointer p. Objects are compared
// member by member, arrays of the same length element by element; any other
// difference is one change of the whole value.
func (d *differ) walk(p string, a, b any) {
	ma, aok := a.(map[string]any)
	mb, bok := b.(map[string]any)
	if aok && bok {
		keys := make([]string, 0, len(ma)+len(mb))
		for k := range ma {
			keys = append(keys, k)
		}
		for k := range mb {
			if _, ok := ma[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			va, ina := ma[k]
			vb, inb := mb[k]
			q := p + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
			switch {
			case !ina:
				d.add(Change{Field: q, New: showValue(vb)})
			case !inb:
				d.add(Change{Field: q, Old: showValue(va)})
			default:
				d.walk(q, va, vb)
			}
		}
		return
	}
	la, aok := a.([]any)
	lb, bok := b.([]any)
	if aok && bok && len(la) == len(lb) {
		for i := range la {
			d.walk(p+"/"+strconv.Itoa(i), la[i], lb[i])
		}
		return
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if bytes.Equal(ja, jb) {
		return
	}
	c := Change{Field: p, Old: showValue(a), New: showValue(b)}
	sa, aok := a.(string)
	sb, bok := b.(string)
	if aok && bok && (strings.Contains(sa+sb, "\n") || len(sa) >= textDiffLength || len(sb) >= textDiffLength) {
		c.Diff = unifiedDiff(sa, sb)
	}
	d.add(c)
}

// showValue returns v as JSON for a person: escaped and shortened.
func showValue(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return show(data)
}

// show escapes every character that is not printable ASCII, so that a change hidden in
// an invisible character, a right-to-left override or a homoglyph is visible, and
// shortens the result to maxShownValue characters.
func show(data []byte) string {
	var b strings.Builder
	for _, r := range string(data) {
		if b.Len() >= maxShownValue {
			b.WriteString("…")
			break
		}
		switch {
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// unifiedDiff returns a unified diff of two texts, line by line ("-" removed, "+"
// added, " " kept; hunks without context lines far from a change are left out),
// bounded to maxDiffBytes. When the texts have too many lines to compare within
// maxDiffCells, the whole old text is shown removed and the new one added.
func unifiedDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	// Lines equal at both ends need no LCS.
	pre := 0
	for pre < len(la) && pre < len(lb) && la[pre] == lb[pre] {
		pre++
	}
	suf := 0
	for suf < len(la)-pre && suf < len(lb)-pre && la[len(la)-1-suf] == lb[len(lb)-1-suf] {
		suf++
	}
	ma, mb := la[pre:len(la)-suf], lb[pre:len(lb)-suf]
	var ops []byte // ' ', '-', '+' per line, in order
	var lines []string
	emit := func(op byte, s string) { ops = append(ops, op); lines = append(lines, s) }
	for _, s := range la[:pre] {
		emit(' ', s)
	}
	if len(ma)*len(mb) > maxDiffCells {
		for _, s := range ma {
			emit('-', s)
		}
		for _, s := range mb {
			emit('+', s)
		}
	} else {
		lcsDiff(ma, mb, emit)
	}
	for _, s := range la[len(la)-suf:] {
		emit(' ', s)
	}
	return render(ops, lines)
}

// lcsDiff emits the lines of a and b as kept, removed or added, following a longest
// common subsequence.
func lcsDiff(a, b []string, emit func(byte, string)) {
	n, m := len(a), len(b)
	// t[i][j]: length of the LCS of a[i:] and b[j:].
	t := make([][]int, n+1)
	for i := range t {
		t[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			emit(' ', a[i])
			i++
			j++
		case i < n && (j == m || t[i+1][j] >= t[i][j+1]):
			emit('-', a[i])
			i++
		default:
			emit('+', b[j])
			j++
		}
	}
}

// render writes the changed lines with up to diffContext kept lines around them,
// "@@" between groups, escaped, bounded to maxDiffBytes.
func render(ops []byte, lines []string) string {
	const diffContext = 2
	keep := make([]bool, len(ops))
	for i, op := range ops {
		if op == ' ' {
			continue
		}
		for k := max(0, i-diffContext); k <= min(len(ops)-1, i+diffContext); k++ {
			keep[k] = true
		}
	}
	var sb strings.Builder
	gap := true
	for i, op := range ops {
		if !keep[i] {
			gap = true
			continue
		}
		if gap {
			sb.WriteString("@@\n")
			gap = false
		}
		sb.WriteByte(op)
		sb.WriteString(show([]byte(lines[i])))
		sb.WriteByte('\n')
		if sb.Len() > maxDiffBytes {
			sb.WriteString("… (diff cut)\n")
			break
		}
	}
	return sb.String()
}
