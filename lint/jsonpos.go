package lint

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jsonPositions maps the RFC 6901 JSON pointers of a JSON document to the byte
// offsets where they start: a member's offset is its key's, an array element's is the
// element's. It is a best-effort scanner for locating diagnostics; the document is
// assumed to be valid JSON (on a syntax error the map holds what was seen so far).
type jsonPositions struct {
	src []byte
	at  map[string]int
}

func newJSONPositions(src []byte) *jsonPositions {
	p := &jsonPositions{src: src, at: map[string]int{}}
	i := p.ws(0)
	if len(src) >= 3 && string(src[:3]) == "\xef\xbb\xbf" {
		i = p.ws(3)
	}
	p.at[""] = i
	p.value(i, "", 0)
	return p
}

// lineCol returns the 1-based line and column (in characters) of pointer, or of its
// nearest ancestor that exists; 0, 0 when none does.
func (p *jsonPositions) lineCol(pointer string) (int, int) {
	for {
		if off, ok := p.at[pointer]; ok {
			return offsetLineCol(p.src, off)
		}
		if pointer == "" {
			return 0, 0
		}
		i := strings.LastIndexByte(pointer, '/')
		if i < 0 {
			pointer = ""
		} else {
			pointer = pointer[:i]
		}
	}
}

// offsetLineCol returns the 1-based line and character column of byte offset off.
func offsetLineCol(src []byte, off int) (int, int) {
	off = min(off, len(src))
	line, start := 1, 0
	for i := 0; i < off; i++ {
		if src[i] == '\n' {
			line, start = line+1, i+1
		}
	}
	return line, utf8.RuneCount(src[start:off]) + 1
}

func (p *jsonPositions) ws(i int) int {
	for i < len(p.src) {
		switch p.src[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// value scans the value at i, recording the pointers inside it, and returns the offset
// after it.
func (p *jsonPositions) value(i int, ptr string, depth int) int {
	if i >= len(p.src) || depth > 1000 {
		return len(p.src)
	}
	switch p.src[i] {
	case '{':
		i = p.ws(i + 1)
		for i < len(p.src) && p.src[i] != '}' {
			keyStart := i
			end := p.str(i)
			var key string
			if err := json.Unmarshal(p.src[keyStart:end], &key); err != nil {
				return len(p.src)
			}
			child := ptr + "/" + escapePointer(key)
			if _, dup := p.at[child]; !dup {
				p.at[child] = keyStart
			}
			i = p.ws(end)
			if i < len(p.src) && p.src[i] == ':' {
				i = p.ws(i + 1)
			}
			i = p.ws(p.value(i, child, depth+1))
			if i < len(p.src) && p.src[i] == ',' {
				i = p.ws(i + 1)
			}
		}
		return i + 1
	case '[':
		i = p.ws(i + 1)
		for n := 0; i < len(p.src) && p.src[i] != ']'; n++ {
			child := ptr + "/" + strconv.Itoa(n)
			p.at[child] = i
			i = p.ws(p.value(i, child, depth+1))
			if i < len(p.src) && p.src[i] == ',' {
				i = p.ws(i + 1)
			}
		}
		return i + 1
	case '"':
		return p.str(i)
	}
	for i < len(p.src) && !strings.ContainsRune(" \t\r\n,]}", rune(p.src[i])) {
		i++
	}
	return i
}

// str returns the offset after the string that starts at i.
func (p *jsonPositions) str(i int) int {
	for i++; i < len(p.src); i++ {
		switch p.src[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(p.src)
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
