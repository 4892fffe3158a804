package discovery_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery"
)

// TestParseOriginAsQuoted: origins as people and models paste them.
func TestParseOriginAsQuoted(t *testing.T) {
	for _, in := range []string{`"example.com"`, "'example.com'", "`example.com`", "<https://example.com>", "(https://example.com/x)",
		" <`https://example.com`> ", "example.com,", `"https://Example.com/path?q=1"`} {
		o, err := discovery.ParseOrigin(in)
		if err != nil || o.String() != "https://example.com" {
			t.Errorf("ParseOrigin(%s) = %v, %v", in, o, err)
		}
	}
	for _, in := range []string{"::1", "fe80::1", "2001:db8::1"} {
		_, err := discovery.ParseOrigin(in)
		if !errors.Is(err, discovery.ErrInvalidOrigin) || !strings.Contains(err.Error(), "bracket IPv6") {
			t.Errorf("ParseOrigin(%s): %v", in, err)
		}
	}
	if o, err := discovery.ParseOrigin("[::1]:8080"); err != nil || o.Host != "::1" {
		t.Errorf("[::1]:8080: %v, %v", o, err)
	}
}
