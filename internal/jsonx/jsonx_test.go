package jsonx

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRelax(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		ok   bool
		want string // the deviations, joined with "; "
	}{
		{"standard", `{"a": [1, 2]}`, false, ""},
		{"broken", `{"a": [1, 2}`, false, ""},
		{"single quotes", `{'a': 1}`, false, ""},
		{"bom", "\ufeff{\"a\": 1}", true, "a UTF-8 byte order mark at the start"},
		{"bom and broken", "\ufeff{\"a\": }", false, ""},
		{"line comment", "{\n  // the server\n  \"a\": 1\n}", true, "a comment (at line 2, column 3)"},
		{"comments with commas inside", "{\"a\": 1 /* x, y // z */, \"b\": 2 // p, q\n}", true,
			"2 comments (the first at line 1, column 9)"},
		{"trailing commas", "{\"a\": [1, 2,],\n \"b\": {\"c\": 3,},\n}", true,
			"3 trailing commas (the first at line 1, column 12)"},
		{"slashes and commas in strings", `{"u": "https://a.example.com/x,y", "v": "/*,*/",}`, true,
			"a trailing comma (at line 1, column 48)"},
		{"escaped quote", `{"a": "say \"//\",", /* c */ "b": 1}`, true, "a comment (at line 1, column 22)"},
		{"all three", "\ufeff{\r\n// c\r\n\"a\": 1,\r\n}", true,
			"a UTF-8 byte order mark at the start; a comment (at line 2, column 1); a trailing comma (at line 3, column 7)"},
		{"too deep", strings.Repeat("[", MaxDepth+1) + "1," + strings.Repeat("]", MaxDepth+1), false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := []byte(tc.in)
			out, devs, ok := Relax(in)
			if string(in) != tc.in {
				t.Fatal("Relax modified its input")
			}
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (%v)", ok, tc.ok, devs)
			}
			if !ok {
				if string(out) != tc.in || devs != nil {
					t.Errorf("not ok, but out %q, devs %v", out, devs)
				}
				return
			}
			if !json.Valid(out) || len(out) != len(in) {
				t.Errorf("out %q: valid %v, length %d, want %d", out, json.Valid(out), len(out), len(in))
			}
			var got []string
			for _, d := range devs {
				got = append(got, d.String())
			}
			if s := strings.Join(got, "; "); s != tc.want {
				t.Errorf("deviations\n got %s\nwant %s", s, tc.want)
			}
		})
	}
}

func FuzzRelax(f *testing.F) {
	for _, s := range []string{`{"a": 1,}`, "\ufeff{}", "{/* c */}", "[1, // x\n 2]", `{"a": "//"}`, "{", "[[[,]]]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := string(data)
		out, devs, ok := Relax(data)
		if string(data) != in {
			t.Fatal("input modified")
		}
		if !ok {
			if len(devs) != 0 || string(out) != in {
				t.Fatal("not ok but changed")
			}
			return
		}
		if len(devs) == 0 || len(out) != len(data) || !json.Valid(out) {
			t.Fatalf("ok with devs %v, %d bytes of %d, valid %v", devs, len(out), len(data), json.Valid(out))
		}
		for _, d := range devs {
			if d.Offset < 0 || d.Offset >= len(data) || d.Line < 1 || d.Column < 1 || d.Count < 1 {
				t.Fatalf("bad deviation %+v", d)
			}
		}
	})
}
