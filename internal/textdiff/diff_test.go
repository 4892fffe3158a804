package textdiff

import "testing"

func TestDiff(t *testing.T) {
	t.Parallel()
	if d := Diff("a", []byte("x\n"), "b", []byte("x\n")); d != nil {
		t.Errorf("Diff of equal texts = %q, want nil", d)
	}
	got := string(Diff("a/SKILL.md", []byte("one\ntwo\nthree\n"), "b/SKILL.md", []byte("one\n2\nthree\n")))
	want := "diff a/SKILL.md b/SKILL.md\n--- a/SKILL.md\n+++ b/SKILL.md\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
	if got != want {
		t.Errorf("Diff =\n%s\nwant\n%s", got, want)
	}
}
