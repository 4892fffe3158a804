package mcpclient

import (
	"fmt"
	"strings"
	"testing"
)

// TestDiffJSON: changes are named by JSON Pointer, values escaped, text diffed by
// line, and everything bounded.
func TestDiffJSON(t *testing.T) {
	t.Parallel()
	many := func(prefix string) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range 200 {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"k%03d":"%s%d"`, i, prefix, i)
		}
		return b.String() + "}"
	}
	tests := []struct {
		name     string
		old, cur string
		want     []string // "field|old|new"
		diffHas  string
	}{
		{"unchanged, other order", `{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1.0}`, nil, ""},
		{"member added and removed", `{"a":1}`, `{"b":"x"}`, []string{`/a|1|`, `/b||"x"`}, ""},
		{"nested", `{"s":{"p":{"t":"string"}}}`, `{"s":{"p":{"t":"array"}}}`, []string{`/s/p/t|"string"|"array"`}, ""},
		{"array of another length", `{"r":[1]}`, `{"r":[1,2]}`, []string{`/r|[1]|[1,2]`}, ""},
		{"array element", `{"r":[1,{"u":"a"}]}`, `{"r":[1,{"u":"b"}]}`, []string{`/r/1/u|"a"|"b"`}, ""},
		{"pointer escapes", `{"a/b~c":1}`, `{"a/b~c":2}`, []string{`/a~1b~0c|1|2`}, ""},
		{"invisible character", `{"d":"read"}`, `{"d":"re\u200bad"}`, []string{`/d|"read"|"re\u200bad"`}, ""},
		{"text", `{"d":"one\ntwo\nthree"}`, `{"d":"one\n2\nthree"}`, []string{`/d|"one\ntwo\nthree"|"one\n2\nthree"`}, "@@\n one\n-two\n+2\n three\n"},
		{"not JSON", `{`, `{}`, []string{`|{|{}`}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := diffJSON([]byte(tc.old), []byte(tc.cur))
			var gs []string
			for _, c := range got {
				gs = append(gs, c.Field+"|"+c.Old+"|"+c.New)
			}
			if strings.Join(gs, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("changes:\n%s\nwant:\n%s", strings.Join(gs, "\n"), strings.Join(tc.want, "\n"))
			}
			if tc.diffHas != "" && got[0].Diff != tc.diffHas {
				t.Fatalf("diff:\n%s\nwant:\n%s", got[0].Diff, tc.diffHas)
			}
		})
	}
	t.Run("many changes are counted", func(t *testing.T) {
		t.Parallel()
		got := diffJSON([]byte(many("a")), []byte(many("b")))
		if len(got) != maxChanges+1 || got[maxChanges].Field != "(and 136 more changes)" {
			t.Fatalf("%d changes, last %+v", len(got), got[len(got)-1])
		}
	})
	t.Run("long texts are bounded", func(t *testing.T) {
		t.Parallel()
		a := strings.Repeat("same line\n", 3000) + strings.Repeat("old\n", 3000)
		b := strings.Repeat("same line\n", 3000) + strings.Repeat("new\n", 3000)
		d := unifiedDiff(a, b)
		if len(d) > maxDiffBytes+200 || !strings.HasSuffix(d, "… (diff cut)\n") || !strings.Contains(d, "-old") {
			t.Fatalf("diff of %d bytes ends %q", len(d), d[max(0, len(d)-40):])
		}
	})
}

// FuzzDiffJSON: any two documents compare without panic, within the bounds, and a
// document compared with itself has no changes.
func FuzzDiffJSON(f *testing.F) {
	f.Add([]byte(`{"a":1}`), []byte(`{"a":[1,{"b":"x\ny"}]}`))
	f.Add([]byte(`{"d":"one\ntwo"}`), []byte(`{"d":"one\n\u200btwo"}`))
	f.Add([]byte(`[]`), []byte(`null`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if len(a) > 1<<16 || len(b) > 1<<16 {
			return
		}
		cs := diffJSON(a, b)
		if len(cs) > maxChanges+1 {
			t.Fatalf("%d changes", len(cs))
		}
		for _, c := range cs {
			if len(c.Old) > maxShownValue+8 || len(c.New) > maxShownValue+8 || len(c.Diff) > maxDiffBytes+maxShownValue+64 {
				t.Fatalf("change over the bounds: %d, %d, %d bytes", len(c.Old), len(c.New), len(c.Diff))
			}
		}
		if ca, err := canonical(a); err == nil {
			if cs := diffJSON(ca, ca); len(cs) != 0 {
				t.Fatalf("a document differs from itself: %+v", cs)
			}
		}
	})
}
