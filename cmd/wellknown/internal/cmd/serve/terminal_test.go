package serve

import (
	"io"
	"strings"
	"testing"
)

// TestTerminalInput: lines of JSON pass through whole (a message split over reads,
// the last one without a line break included); lines that are not JSON are dropped,
// each reported once.
func TestTerminalInput(t *testing.T) {
	t.Parallel()
	long := `{"jsonrpc":"2.0","id":1,"method":"x","params":{"pad":"` + strings.Repeat("a", 10000) + `"}}`
	for _, tc := range []struct {
		name, in, want string
		skipped        int
	}{
		{"messages", "{\"id\":1}\n[1,2]\n", "{\"id\":1}\n[1,2]\n", 0},
		{"typed lines", "hello\n{\"id\":1}\r\n\nhelp me\n", "{\"id\":1}\r\n", 2}, // blank lines dropped silently
		{"no final line break", "oops\n{\"id\":2}", "{\"id\":2}", 1},
		{"long message", long + "\n", long + "\n", 0},
		{"only typing", "a\nb\nc", "", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n := 0
			got, err := io.ReadAll(newTerminalInput(strings.NewReader(tc.in), func() { n++ }))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want || n != tc.skipped {
				t.Errorf("read %q with %d skipped, want %q with %d", got, n, tc.want, tc.skipped)
			}
		})
	}
}
