package netguard

import (
	"crypto/tls"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestHintPlainHTTP: only an https request to a loopback host that got an http answer
// gets the hint; every other error is returned as it is.
func TestHintPlainHTTP(t *testing.T) {
	t.Parallel()
	httpAnswer := tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake", RecordHeader: [5]byte{'H', 'T', 'T', 'P', '/'}}
	otherAnswer := tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake", RecordHeader: [5]byte{'S', 'S', 'H', '-', '2'}}
	other := errors.New("connection refused")
	for _, tc := range []struct {
		url  string
		err  error
		hint string // "" for none
	}{
		{"https://127.0.0.1:8080/x", httpAnswer, "try http://127.0.0.1:8080"},
		{"https://localhost:3000/.well-known/skills.md", httpAnswer, "try http://localhost:3000"},
		{"https://[::1]:9/mcp", httpAnswer, "try http://[::1]:9"},
		{"https://example.com/x", httpAnswer, ""},   // not loopback: no guess
		{"https://10.0.0.1:8080/x", httpAnswer, ""}, // private, not loopback
		{"http://127.0.0.1:8080/x", httpAnswer, ""},
		{"https://127.0.0.1:22/x", otherAnswer, ""}, // not an http server
		{"https://127.0.0.1:8080/x", other, ""},
		{"https://127.0.0.1:8080/x", nil, ""},
	} {
		u, _ := url.Parse(tc.url)
		got := hintPlainHTTP(u, tc.err)
		if tc.hint == "" {
			if got != tc.err {
				t.Errorf("%s, %v: got %v, want the error unchanged", tc.url, tc.err, got)
			}
			continue
		}
		var rec tls.RecordHeaderError
		if got == nil || !strings.Contains(got.Error(), tc.hint) || !errors.Is(got, http.ErrSchemeMismatch) || !errors.As(got, &rec) {
			t.Errorf("%s: got %v, want %q wrapping ErrSchemeMismatch and the TLS error", tc.url, got, tc.hint)
		}
	}
}
