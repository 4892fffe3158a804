package families

import "github.com/wellknown-dev/discovery/agentskills"

// Verifiable reports whether everything a client fetches for e is checked against a
// digest the index publishes: each file of a file list, or the one artifact of a
// skill-md or archive entry. IndexEntry.HasDigests is not enough: it is true for an
// interim file list whose SKILL.md has a digest even when a lenient read dropped
// another file's placeholder, and that file is fetched unchecked.
func Verifiable(e *agentskills.IndexEntry) bool {
	if len(e.Files) > 0 {
		for _, f := range e.Files {
			if f.Digest == "" {
				return false
			}
		}
		return true
	}
	return e.Digest != ""
}
