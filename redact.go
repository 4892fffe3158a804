package discovery

import (
	"strings"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// Redact returns s, text a site published, safe to show to a person, log or hand to a
// model: every credential the SDK's detectors find (API keys, tokens, JWTs, private
// keys, passwords in URLs, Basic and Bearer values, key=/token=/password=
// assignments) becomes "[redacted KIND]"; in every URL the userinfo, query and
// fragment become "…"; control, format and bidi characters are removed. Line breaks
// are kept. Every warning, error and consent request of this module is already
// redacted, and so is [skillsmd.Document.ForModel]; use Redact on document text you
// render yourself.
func Redact(s string) string {
	if !strings.Contains(s, "\n") {
		return secrets.Scrub(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = secrets.Scrub(strings.TrimSuffix(l, "\r"))
	}
	return strings.Join(lines, "\n")
}
