package jsonx

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// A quote inside a comment must not hide the nesting after it from the depth bound:
// hujson parses recursively and has no limit of its own.
func TestRelaxDepthQuoteInComment(t *testing.T) {
	t.Parallel()
	const n = 200000
	for _, prefix := range []string{"// \"\n", "/* \" */"} {
		in := prefix + strings.Repeat("[", n) + "1," + strings.Repeat("]", n)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, _, ok := Relax([]byte(in))
		runtime.ReadMemStats(&after)
		if ok {
			t.Errorf("prefix %q: Relax accepted %d levels of nesting (max %d); stack in use %d MiB", prefix, n, MaxDepth, after.StackInuse>>20)
		}
	}
}

// FuzzRelaxDepth: whatever Relax accepts nests no deeper than MaxDepth, read as JSON.
func FuzzRelaxDepth(f *testing.F) {
	for _, s := range []string{"// \"\n[[1,]]", "/* \" */[[1,]]", "[1, // x\n [2,]]", `{"a": "/*", "b": [1,]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, _, ok := Relax(data)
		if !ok {
			return
		}
		d, most := 0, 0
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch tok {
			case json.Delim('['), json.Delim('{'):
				d++
				most = max(most, d)
			case json.Delim(']'), json.Delim('}'):
				d--
			}
		}
		if most > MaxDepth {
			t.Fatalf("Relax accepted nesting %d > %d", most, MaxDepth)
		}
	})
}
