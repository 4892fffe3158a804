package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/skilllock"
)

// TestSkillsLockIndexDigest: install records the digest of the index bytes as served;
// install --frozen refuses a site whose index changed even when the skills' files did
// not; verify names a skill installed from another index than the lock records.
func TestSkillsLockIndexDigest(t *testing.T) {
	t.Parallel()
	s, dir := installedSite(t)
	s.mu.Lock()
	served := agentskills.Digest(s.docs[agentskills.IndexPath].body)
	s.mu.Unlock()
	lockFile := filepath.Join(dir, skilllock.FileName)
	lock := mustRead(t, lockFile)
	l, err := skilllock.Parse([]byte(lock))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"invoice-check", "ledger"} {
		if sk, _ := l.Lookup(name); sk.IndexDigest != served {
			t.Errorf("%s: lock indexDigest = %q, want %q", name, sk.IndexDigest, served)
		}
	}

	// The lock says another index: verify names the skill's install record.
	other := agentskills.Digest([]byte("another index"))
	if err := os.WriteFile(lockFile, []byte(strings.Replace(lock, served, other, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := wk(t, s, dir, "skills", "verify"); r.code != exitLockMismatch || !strings.Contains(r.stdout, ".wellknown.json: changed") || !strings.Contains(r.stdout, other) {
		t.Errorf("verify of a lock recording another index:\n%s", r)
	}
	if err := os.WriteFile(lockFile, []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := wk(t, s, dir, "skills", "verify"); r.code != 0 {
		t.Errorf("verify of the lock as written:\n%s", r)
	}

	// The index changes (a description), the files do not: --frozen refuses.
	publishReworded(t, s)
	fresh := t.TempDir()
	if err := os.WriteFile(filepath.Join(fresh, skilllock.FileName), []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	r := wk(t, s, fresh, "skills", "install", s.ts.URL, "--frozen")
	if r.code != exitLockMismatch || !strings.Contains(r.stdout, "the index is served with other bytes") {
		t.Errorf("install --frozen of a changed index:\n%s", r)
	}
	if got := tree(t, fresh); len(got) != 1 {
		t.Errorf("install --frozen of a changed index wrote %v", got)
	}
}

// publishReworded publishes the normal site's skills, the same bytes, under an index
// that words a description otherwise: the index changes, the skills do not.
func publishReworded(t *testing.T, s *site) {
	t.Helper()
	publishNormalAs(t, s, "Check supplier invoices, reworded.")
}
