package diag_test

import (
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/diag"
	"github.com/wellknown-dev/discovery/mcpjson"
	"github.com/wellknown-dev/discovery/skillsmd"
)

// The module's four diagnostic types share one shape, and its two severity names are
// one type.
func TestOneShape(t *testing.T) {
	var (
		_ diag.Severity = mcpjson.SeverityError
		_ diag.Severity = agentskills.Warning
	)
	if mcpjson.SeverityError != agentskills.Error || mcpjson.SeverityWarning != agentskills.Warning {
		t.Fatal("the severities differ")
	}
	for _, tc := range []struct {
		d    interface{ Diagnostic() diag.Diagnostic }
		want string
	}{
		{skillsmd.Warning{Line: 3, Code: "unsafe-link", Message: "m"}, ":3: warning: unsafe-link: m"},
		{mcpjson.Problem{Pointer: "/servers/0/url", Message: "m", Severity: mcpjson.SeverityError}, "/servers/0/url: error: m"},
		{agentskills.Diagnostic{Severity: agentskills.Warning, Code: "name", Where: "/skills/1", Message: "m"}, "/skills/1: warning: name: m"},
		{discovery.Warning{Code: "stale", URL: "https://a.example/x", Line: 2, Message: "m"}, "https://a.example/x:2: warning: stale: m"},
	} {
		if got := tc.d.Diagnostic().String(); got != tc.want {
			t.Errorf("%T: %q, want %q", tc.d, got, tc.want)
		}
	}
}

// TestSeverityNames checks the names severities print and encode as.
func TestSeverityNames(t *testing.T) {
	t.Parallel()
	for s, want := range map[diag.Severity]string{diag.Error: "error", diag.Warning: "warning", diag.Info: "info", 0: "Severity(0)"} {
		if got := s.String(); got != want {
			t.Errorf("%d: %q, want %q", int(s), got, want)
		}
		if b, _ := s.MarshalText(); string(b) != want {
			t.Errorf("%d: MarshalText %q, want %q", int(s), b, want)
		}
	}
	d := diag.Diagnostic{Severity: diag.Info, Code: "endpoint-rejected", Where: "/x", Message: "m"}
	if got := d.String(); got != "/x: info: endpoint-rejected: m" {
		t.Errorf("String %q", got)
	}
}
