package skills

import (
	"path/filepath"

	"github.com/wellknown-dev/discovery/internal/skillrules"
	"github.com/wellknown-dev/discovery/skilllock"
)

// recordedIndexes compares, for each skill of sub installed under root, the index
// digest its install record (.wellknown.json) holds with the one the lock records: a
// skill whose files match but that was installed from another index than the lock
// says (the lock edited by hand, or the folder installed again from a changed site)
// is reported as a changed record. Records or locks without an index digest (written
// by older versions) are not compared.
func recordedIndexes(root string, sub *skilllock.Lock) []skilllock.Problem {
	var out []skilllock.Problem
	for _, s := range sub.Skills {
		if s.IndexDigest == "" {
			continue
		}
		rec, err := ReadRecord(filepath.Join(root, s.Name))
		if err != nil || rec.IndexDigest == "" || rec.IndexDigest == s.IndexDigest {
			continue // a missing or unreadable record is wellknown's own, not the skill's
		}
		out = append(out, skilllock.Problem{Skill: s.Name, File: skillrules.RecordFile, Kind: skilllock.Changed,
			Detail: "installed from the index " + rec.IndexDigest + ", the lock records " + s.IndexDigest})
	}
	return out
}
