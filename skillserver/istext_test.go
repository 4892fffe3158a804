package skillserver

import (
	"strings"
	"testing"
)

// TestIsText: UTF-8 without NUL is served as text, anything else as a blob; the test
// is made at every read of every file, and copies nothing.
func TestIsText(t *testing.T) { //nolint:paralleltest // counts allocations
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"", true},
		{"# Rules\n\nBe careful.\n", true},
		{"é 中 😀", true},
		{"a\x00b", false},
		{"\xff\xfe", false},
		{"ok \xed\xa0\x80", false}, // an encoded surrogate
		{"cut \xe4\xb8", false},
	} {
		if got := isText([]byte(tc.in)); got != tc.want {
			t.Errorf("isText(%q) = %v; want %v", tc.in, got, tc.want)
		}
	}
	b := []byte(strings.Repeat("file 1: abcdefgh\n", 2000))
	if n := testing.AllocsPerRun(20, func() { isText(b) }); n != 0 {
		t.Errorf("isText allocates %v times per call; want 0", n)
	}
}
