package discoveryotel_test

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestCoreDoesNotImportOpenTelemetry checks that programs using package discovery
// without discoveryotel do not link OpenTelemetry.
func TestCoreDoesNotImportOpenTelemetry(t *testing.T) {
	t.Parallel()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	out, err := exec.CommandContext(t.Context(), gobin, "list", "-deps", "github.com/wellknown-dev/discovery").Output()
	if err != nil {
		var stderr string
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("go list -deps: %v\n%s", err, stderr)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages, too few to be the real list: %q", len(deps), out)
	}
	for _, dep := range deps {
		if strings.Contains(dep, "opentelemetry") {
			t.Errorf("package discovery depends on %s", dep)
		}
	}
}
