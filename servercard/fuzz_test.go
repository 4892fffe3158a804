package servercard_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/servercard"
)

func seeds(f *testing.F) {
	for _, dir := range []string{"testdata", upstreamDir + "/valid", upstreamDir + "/invalid"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
}

// FuzzParse: no panic in either mode; diagnostics have pointers; every kept remote
// has a known transport, and a concrete one an https (or loopback http) URL; filling a
// template never yields anything but such a URL; the result re-encodes.
func FuzzParse(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mode := range []servercard.Mode{servercard.Lenient, servercard.Strict} {
			c, err := servercard.Parse(data, servercard.Options{URL: "https://example.com/mcp/server-card", Mode: mode})
			var ve *servercard.ValidationError
			if errors.As(err, &ve) {
				for _, d := range ve.Diagnostics {
					if !validPointer(d.Where) || d.Message == "" {
						t.Fatalf("bad diagnostic %+v", d)
					}
				}
				continue
			}
			if err != nil {
				continue
			}
			for _, d := range c.Diagnostics {
				if !validPointer(d.Where) || d.Message == "" {
					t.Fatalf("bad diagnostic %+v", d)
				}
			}
			for _, r := range c.Remotes {
				if r.Type != servercard.TransportSSE && r.Type != servercard.TransportStreamableHTTP {
					t.Fatalf("transport %q kept", r.Type)
				}
				if r.Connectable() && !strings.HasPrefix(r.URL, "https://") && !strings.HasPrefix(r.URL, "http://") {
					t.Fatalf("connectable URL %q", r.URL)
				}
				values := map[string]string{}
				for _, v := range r.URLVars {
					values[v] = "x"
				}
				if u, err := r.Expand(values); err == nil && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
					t.Fatalf("Expand gave %q", u)
				}
				servercard.Compare(c, servercard.ServerInfo{Name: "x", URL: "https://x.example.com/mcp"})
			}
			if _, err := json.Marshal(c); err != nil {
				t.Fatalf("result does not re-encode: %v", err)
			}
		}
	})
}

func validPointer(p string) bool { return p == "" || strings.HasPrefix(p, "/") }
