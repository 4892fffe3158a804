package servercard_test

import (
	"testing"

	"github.com/wellknown-dev/discovery/servercard"
)

// TestCompare: the card against what the connected server reports.
func TestCompare(t *testing.T) {
	t.Parallel()
	doc := []byte(`{` + minimal + `, "name": "com.example/weather", "version": "1.4.0", "title": "Weather", "remotes": [
	  {"type": "streamable-http", "url": "https://weather.example.com/mcp", "supportedProtocolVersions": ["2025-06-18", "2025-11-25"]},
	  {"type": "sse", "url": "https://{region}.weather.example.com/sse", "variables": {"region": {}}}
	]}`)
	card, err := servercard.Parse(doc, servercard.Options{Mode: servercard.Strict})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		got   servercard.ServerInfo
		codes []string
	}{
		{"all agree", servercard.ServerInfo{Name: "com.example/weather", Version: "1.4.0", Title: "Weather", ProtocolVersion: "2025-11-25",
			Transport: servercard.TransportStreamableHTTP, URL: "https://Weather.Example.com:443/mcp/"}, nil},
		{"short name", servercard.ServerInfo{Name: "Weather", Version: "v1.4.0"}, nil},
		{"nothing reported", servercard.ServerInfo{}, nil},
		{"template endpoint", servercard.ServerInfo{URL: "https://eu.weather.example.com/sse", Transport: servercard.TransportSSE}, nil},
		{"name", servercard.ServerInfo{Name: "com.evil/weather"}, []string{"name-mismatch"}},
		{"version", servercard.ServerInfo{Version: "2.0.0"}, []string{"version-mismatch"}},
		{"title", servercard.ServerInfo{Title: "Storms"}, []string{"title-mismatch"}},
		{"endpoint", servercard.ServerInfo{URL: "https://other.example.com/mcp"}, []string{"endpoint-mismatch"}},
		{"template host escape", servercard.ServerInfo{URL: "https://evil.example/x.weather.example.com/sse"}, []string{"endpoint-mismatch"}},
		{"transport", servercard.ServerInfo{URL: "https://weather.example.com/mcp", Transport: servercard.TransportSSE}, []string{"transport-mismatch"}},
		{"protocol", servercard.ServerInfo{URL: "https://weather.example.com/mcp", ProtocolVersion: "2024-11-05"}, []string{"protocol-version-mismatch"}},
		{"several", servercard.ServerInfo{Name: "x", Version: "9"}, []string{"name-mismatch", "version-mismatch"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ds := servercard.Compare(card, tc.got)
			if len(ds) != len(tc.codes) {
				t.Fatalf("Compare() = %v, want codes %q", ds, tc.codes)
			}
			for i, d := range ds {
				if d.Code != tc.codes[i] || d.Severity != servercard.Warning {
					t.Errorf("diagnostic %d = %v, want warning %q", i, d, tc.codes[i])
				}
			}
		})
	}
	if servercard.Compare(nil, servercard.ServerInfo{Name: "x"}) != nil {
		t.Error("Compare(nil) is not nil")
	}
	// A hand-built remote with a broken template never matches (and never loops).
	broken := &servercard.Card{Remotes: []servercard.Remote{{Type: servercard.TransportSSE, URL: "https://{a.example/", URLVars: []string{"a"}}}}
	if ds := servercard.Compare(broken, servercard.ServerInfo{URL: "https://x.example/"}); len(ds) != 1 {
		t.Errorf("broken template: %v", ds)
	}
}
