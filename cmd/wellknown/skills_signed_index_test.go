package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/skilllock"
)

// TestSkillsSignedIndex: "wellknown sign" of the index alone makes every skill it lists
// publisher-verified: "skills list" shows the index's publisher (text and JSON),
// "skills install --require-signed" installs and locks the skills without manifests of
// their own, "lint" checks the manifest, and an index changed after signing is refused.
func TestSkillsSignedIndex(t *testing.T) {
	t.Parallel()
	keys := t.TempDir()
	edKey, edPub := writeKey(t, keys, true)
	s := newSite(t)
	publishNormal(t, s)

	public := t.TempDir()
	local := filepath.Join(public, filepath.FromSlash(agentskills.IndexPath))
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	index := s.docs[agentskills.IndexPath].body
	s.mu.Unlock()
	if err := os.WriteFile(local, index, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := wk(t, nil, public, "sign", "--key", edKey, "--base-url", s.ts.URL, "--root", public, local); r.code != 0 {
		t.Fatalf("sign the index:\n%s", r)
	}
	s.set(agentskills.IndexPath+".trust.json", []byte(mustRead(t, local+".trust.json")), "application/json")
	roots := writeFile(t, keys, "roots.yaml", "- publisher: Example Corp\n  origin: "+s.ts.URL+"\n  pem: |\n    "+strings.ReplaceAll(strings.TrimSpace(edPub), "\n", "\n    ")+"\n")

	r := wk(t, s, t.TempDir(), "skills", "list", s.ts.URL, "--trust-roots", roots)
	if r.code != 0 || !strings.Contains(r.stdout, "index publisher verified: Example Corp") || strings.Count(r.stdout, "(publisher verified: Example Corp") != 2 {
		t.Errorf("list of a signed index:\n%s", r)
	}
	r = wk(t, s, t.TempDir(), "skills", "list", s.ts.URL, "--trust-roots", roots, "--json")
	var l listPublisherJSON
	if err := json.Unmarshal([]byte(r.stdout), &l); err != nil || l.Publisher == nil || !l.Publisher.Verified || l.Publisher.Algorithm != "EdDSA" ||
		len(l.Skills) != 2 || l.Skills[0].Publisher == nil || !l.Skills[0].Publisher.Verified {
		t.Errorf("list --json of a signed index: %v\n%s", err, r)
	}
	if r := wk(t, s, t.TempDir(), "skills", "list", s.ts.URL); r.code != 0 || strings.Contains(r.stdout, "publisher") {
		t.Errorf("list without --trust-roots shows a publisher:\n%s", r)
	}

	dir := t.TempDir()
	r = wk(t, s, dir, "skills", "install", s.ts.URL, "--trust-roots", roots, "--require-signed")
	if r.code != 0 || strings.Count(r.stdout, "verified: Example Corp") != 2 {
		t.Fatalf("install of skills listed in a signed index:\n%s", r)
	}
	lock, err := skilllock.ReadFile(filepath.Join(dir, skilllock.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if sk, _ := lock.Lookup("ledger"); sk.Publisher == nil || !sk.Publisher.Verified || sk.Publisher.Identity != s.ts.URL+agentskills.IndexPath {
		t.Errorf("lock's publisher of ledger = %+v", sk.Publisher)
	}
	if r := wk(t, nil, public, "lint", "--explain", "--trust-roots", writeFile(t, keys, "roots.json", `[]`), local); !strings.Contains(r.stdout, "the index is signed") {
		t.Errorf("lint of the signed index:\n%s", r)
	}

	// The index changes after signing: its manifest no longer signs what is served.
	publishReworded(t, s)
	empty := t.TempDir()
	r = wk(t, s, empty, "skills", "install", s.ts.URL, "--trust-roots", roots, "--require-signed")
	if r.code != exitFailure || strings.Count(r.stdout, statusRefused) != 2 || !strings.Contains(r.stdout, "artifact digest does not match") {
		t.Errorf("install from an index changed after signing:\n%s", r)
	}
	if got := tree(t, empty); len(got) != 0 {
		t.Errorf("a refused install wrote %v", got)
	}
}

// listPublisherJSON reads the parts of "skills list --json" the test checks.
type listPublisherJSON struct {
	Publisher *struct {
		Verified  bool   `json:"verified"`
		Algorithm string `json:"algorithm"`
	} `json:"publisher"`
	Skills []struct {
		Publisher *struct {
			Verified bool `json:"verified"`
		} `json:"publisher"`
	} `json:"skills"`
}
