package families

import (
	"fmt"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/internal/fetch"
)

// MaxSkillFile bounds one SKILL.md fetched from a v0.1.0 or interim index.
const MaxSkillFile = 1 << 20

// ArtifactFunc fetches the skill artifact at url (as the index lists it), capped at
// limit bytes, under the caller's policy (origin, consent, time budget); it returns
// the body and its Content-Type.
type ArtifactFunc func(url string, limit int64) ([]byte, string, error)

// SkillFiles fetches, through get, the files of the skill entry lists, each checked
// against its digest when the index gives one (an archive is never read without one):
// a v0.1.0 or interim file list (one request per file), an archive (unpacked in
// memory, SKILL.md first) or a single SKILL.md.
func SkillFiles(entry *agentskills.IndexEntry, get ArtifactFunc) ([]agentskills.File, error) {
	verify := func(data []byte, digest, u string) error {
		if err := agentskills.Verify(data, -1, digest); err != nil {
			return fmt.Errorf("discovery: %s: %w", fetch.RedactURL(u), err)
		}
		return nil
	}
	var files []agentskills.File
	switch {
	case len(entry.Files) > 0:
		var total int64
		for i, f := range entry.Files {
			if i >= agentskills.DefaultMaxEntries {
				return nil, fmt.Errorf("%w: more than %d files", agentskills.ErrArchiveTooLarge, agentskills.DefaultMaxEntries)
			}
			data, _, err := get(f.URL, MaxSkillFile)
			if err != nil {
				return nil, err
			}
			if f.Digest != "" {
				if err := verify(data, f.Digest, f.URL); err != nil {
					return nil, err
				}
			}
			if total += int64(len(data)); total > agentskills.DefaultMaxBytes {
				return nil, fmt.Errorf("%w: files total more than %d bytes", agentskills.ErrArchiveTooLarge, agentskills.DefaultMaxBytes)
			}
			files = append(files, agentskills.File{Path: f.Path, Data: data})
		}
	case entry.Type == agentskills.TypeArchive:
		data, ctype, err := get(entry.URL, agentskills.DefaultMaxBytes)
		if err != nil {
			return nil, err
		}
		if err := verify(data, entry.Digest, entry.URL); err != nil {
			return nil, err
		}
		a, err := agentskills.ReadArchive(data, agentskills.FormatOf(ctype, entry.URL), agentskills.Limits{})
		if err != nil {
			return nil, fmt.Errorf("discovery: %s: %w", fetch.RedactURL(entry.URL), err)
		}
		if md, ok := a.Get(agentskills.SkillFile); ok {
			files = append(files, agentskills.File{Path: agentskills.SkillFile, Data: md})
		}
		for _, f := range a.Files {
			if f.Path != agentskills.SkillFile {
				files = append(files, f)
			}
		}
	default:
		data, _, err := get(entry.URL, MaxSkillFile)
		if err != nil {
			return nil, err
		}
		if entry.Digest != "" { // "": an index read leniently that gives none (labelled unverified)
			if err := verify(data, entry.Digest, entry.URL); err != nil {
				return nil, err
			}
		}
		files = []agentskills.File{{Path: agentskills.SkillFile, Data: data}}
	}
	return files, nil
}

// Verifiable reports whether everything SkillFiles fetches for e is checked against a
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
