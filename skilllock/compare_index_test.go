package skilllock

import (
	"slices"
	"testing"
)

// TestCompareIndexDigest: an index served with other bytes than the lock records is a
// change; a lock or a served record without an index digest compares nothing.
func TestCompareIndexDigest(t *testing.T) {
	t.Parallel()
	files := map[string]string{"SKILL.md": Digest([]byte("a"))}
	rec := func(index string) *Lock {
		return &Lock{Version: Version, Skills: []Skill{{Name: "pdf", Source: "https://example.com/pdf/SKILL.md", IndexDigest: index, Files: files}}}
	}
	one, two := Digest([]byte("index 1")), Digest([]byte("index 2"))
	tests := []struct {
		name           string
		locked, served *Lock
		want           []Problem
	}{
		{"same index", rec(one), rec(one), nil},
		{"index changed", rec(one), rec(two), []Problem{{Skill: "pdf", Kind: Changed, Detail: "the index is served with other bytes (" + two + ")"}}},
		{"lock without index digest", rec(""), rec(two), nil},
		{"served without index digest", rec(one), rec(""), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Compare(tc.locked, tc.served); !slices.Equal(got, tc.want) {
				t.Errorf("Compare() = %v, want %v", got, tc.want)
			}
		})
	}
}
