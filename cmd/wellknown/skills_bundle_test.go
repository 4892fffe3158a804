package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/skillbundle"
	"github.com/wellknown-dev/discovery/skilllock"
)

// pinnedRoots writes a trust roots file pinning pub (PEM) for origin.
func pinnedRoots(t *testing.T, dir, origin, pub string) string {
	t.Helper()
	return writeFile(t, dir, "roots.yaml", "roots:\n  - publisher: Example Corp\n    origin: "+origin+"\n    pem: |\n      "+
		strings.ReplaceAll(strings.TrimSpace(pub), "\n", "\n      ")+"\n")
}

// signedNormalSite is the normal site with every artifact signed by a new key, and a
// trust roots file pinning that key for the site.
func signedNormalSite(t *testing.T) (*site, string) {
	t.Helper()
	keys := t.TempDir()
	key, pub := writeKey(t, keys, false)
	s := newSite(t)
	publishNormal(t, s)
	signSite(t, s, key)
	return s, pinnedRoots(t, keys, s.ts.URL, pub)
}

func TestSkillsBundleInstallsOffline(t *testing.T) {
	t.Parallel()
	keys := t.TempDir()
	key, pub := writeKey(t, keys, false)
	_, otherPub := writeKey(t, t.TempDir(), false)
	s := newSite(t)
	publishNormal(t, s)
	signSite(t, s, key)
	roots := pinnedRoots(t, keys, s.ts.URL, pub)

	work := t.TempDir()
	bundle := filepath.Join(work, "skills.tar")
	if r := wk(t, s, work, "skills", "bundle", s.ts.URL, "-o", bundle); r.code != 0 || !strings.Contains(r.stdout, "wrote "+bundle+": 5 files") {
		t.Fatalf("bundle:\n%s", r)
	}

	// Installed with no request to the site, verified with the pinned key, locked with
	// the origin's URLs.
	dir := t.TempDir()
	before := s.hits.Load()
	r := wk(t, s, dir, "skills", "install", "--from-bundle", bundle, "--trust-roots", roots, "--require-signed")
	if r.code != 0 || strings.Count(r.stdout, "verified: Example Corp") != 2 {
		t.Fatalf("install --from-bundle:\n%s", r)
	}
	if n := s.hits.Load() - before; n != 0 {
		t.Errorf("install --from-bundle made %d requests to the site", n)
	}
	l, err := skilllock.ReadFile(filepath.Join(dir, skilllock.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if inv, _ := l.Lookup("invoice-check"); inv.Source != s.ts.URL+"/.well-known/agent-skills/invoice-check/SKILL.md" {
		t.Errorf("the lock's source is %q, not the origin's URL", inv.Source)
	}
	if r := wk(t, s, dir, "skills", "verify"); r.code != 0 {
		t.Errorf("verify after install --from-bundle:\n%s", r)
	}
	if r := wk(t, s, dir, "skills", "install", "--from-bundle", bundle, "--frozen"); r.code != 0 || s.hits.Load() != before {
		t.Errorf("install --from-bundle --frozen against the lock it wrote:\n%s", r)
	}
	if r := wk(t, s, dir, "skills", "update"); r.code != 0 || strings.Count(r.stdout, "unchanged") != 2 {
		t.Errorf("update against the origin after install --from-bundle:\n%s", r)
	}

	// A bundle of the skills of a lock: exactly the locked versions.
	locked := filepath.Join(work, "locked.tar")
	if r := wk(t, s, dir, "skills", "bundle", filepath.Join(dir, skilllock.FileName), "-o", locked, "--skill", "invoice-check"); r.code != 0 ||
		!strings.Contains(r.stdout, "3 files") || strings.Contains(r.stdout, "ledger") {
		t.Errorf("bundle from a lock:\n%s", r)
	}

	// Signed by a key the roots do not pin: refused, nothing written.
	wrong := pinnedRoots(t, t.TempDir(), s.ts.URL, otherPub)
	empty := t.TempDir()
	r = wk(t, s, empty, "skills", "install", "--from-bundle", bundle, "--trust-roots", wrong, "--require-signed")
	if r.code != exitFailure || strings.Count(r.stdout, statusRefused) != 2 || !strings.Contains(r.stdout, "signing key not found") || !strings.Contains(r.stdout, "from the bundle, offline") {
		t.Errorf("install --from-bundle with another pinned key:\n%s", r)
	}
	if got := tree(t, empty); len(got) != 0 {
		t.Errorf("a refused install wrote %v", got)
	}

	// The site is gone: the bundle still installs.
	s.ts.Close()
	if r := wk(t, s, t.TempDir(), "skills", "install", "--from-bundle", bundle, "invoice-check", "--trust-roots", roots, "--require-signed"); r.code != 0 || !strings.Contains(r.stdout, statusInstalled) {
		t.Errorf("install --from-bundle with the site down:\n%s", r)
	}
}

// hostileBundle rewrites bundle: each entry through edit (nil drops it), then extra.
func hostileBundle(t *testing.T, bundle string, edit func(h *tar.Header, body []byte) []byte, extra ...[2]string) string {
	t.Helper()
	f, err := os.Open(bundle)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	tr, tw := tar.NewReader(f), tar.NewWriter(&out)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		if body = edit(h, body); body == nil {
			continue
		}
		h.Size = int64(len(body))
		tw.WriteHeader(h)
		tw.Write(body)
	}
	for _, e := range extra {
		tw.WriteHeader(&tar.Header{Name: e[0], Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(e[1]))})
		tw.Write([]byte(e[1]))
	}
	tw.Close()
	p := filepath.Join(t.TempDir(), "hostile.tar")
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSkillsInstallRefusesHostileBundles(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	publishNormal(t, s)
	work := t.TempDir()
	bundle := filepath.Join(work, "skills.tar")
	if r := wk(t, s, work, "skills", "bundle", s.ts.URL, "-o", bundle); r.code != 0 {
		t.Fatalf("bundle:\n%s", r)
	}
	same := func(_ *tar.Header, b []byte) []byte { return b }
	// The artifact and bundle.json agree, but the index's digest does not.
	swapped := []byte("---\nname: invoice-check\ndescription: Swapped.\n---\n")
	swap := func(h *tar.Header, b []byte) []byte {
		switch h.Name {
		case ".well-known/agent-skills/invoice-check/SKILL.md":
			return swapped
		case skillbundle.ManifestName:
			var m skillbundle.Manifest
			json.Unmarshal(b, &m)
			for i, f := range m.Files {
				if f.Path == ".well-known/agent-skills/invoice-check/SKILL.md" {
					m.Files[i].Size, m.Files[i].Digest = int64(len(swapped)), skilllock.Digest(swapped)
				}
			}
			b, _ = json.Marshal(m)
		}
		return b
	}
	tests := []struct {
		name, bundle, says string
	}{
		{"dot-dot path", hostileBundle(t, bundle, same, [2]string{"../../outside.txt", "x"}), `"../../outside.txt"`},
		{"absolute path", hostileBundle(t, bundle, same, [2]string{"/tmp/outside.txt", "x"}), `"/tmp/outside.txt"`},
		{"duplicate name", hostileBundle(t, bundle, same, [2]string{".well-known/agent-skills/ledger.tar.gz", "x"}), "appears twice"},
		{"index digest mismatch", hostileBundle(t, bundle, swap), "invoice-check/SKILL.md: agentskills: digest mismatch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			r := wk(t, s, dir, "skills", "install", "--from-bundle", tt.bundle)
			if r.code != exitFailure || !strings.Contains(r.stdout+r.stderr, tt.says) {
				t.Errorf("install --from-bundle:\n%s", r)
			}
			// Only the mismatching skill is refused; a bundle that does not read writes nothing.
			if got := strings.Join(tree(t, dir), " "); strings.Contains(got, "invoice-check") || (tt.name != "index digest mismatch" && got != "") {
				t.Errorf("a refused bundle wrote %v", got)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "outside.txt")); err == nil {
				t.Error("a file was written outside the target")
			}
		})
	}

	// An extra file: warned about, never installed.
	dir := t.TempDir()
	r := wk(t, s, dir, "skills", "install", "--from-bundle", hostileBundle(t, bundle, same, [2]string{".well-known/agent-skills/evil/SKILL.md", "---\nname: evil\n---\n"}))
	if r.code != 0 || !strings.Contains(r.stderr, "evil/SKILL.md") || !strings.Contains(r.stderr, "not installed") || strings.Contains(strings.Join(tree(t, dir), " "), "evil") {
		t.Errorf("install --from-bundle with an extra file:\n%s\n%v", r, tree(t, dir))
	}
	if r := wk(t, s, dir, "skills", "install", "--from-bundle", bundle, "--mirror", s.ts.URL); r.code != exitUsage {
		t.Errorf("--from-bundle with --mirror:\n%s", r)
	}
}

func TestSkillsBundleFromLockRefusesAChangedSite(t *testing.T) {
	t.Parallel()
	s, dir := installedSite(t)
	s.publish(t, []indexEntry{{Name: "invoice-check", Type: "skill-md", Description: "Changed.", URL: "invoice-check/SKILL.md"}},
		map[string][]byte{"invoice-check": skillText("invoice-check", "Changed.", "# Changed\n")})
	out := filepath.Join(dir, "skills.tar")
	r := wk(t, s, dir, "skills", "bundle", skilllock.FileName, "-o", out)
	if r.code != exitLockMismatch || !strings.Contains(r.stderr, "invoice-check/SKILL.md: changed") || !strings.Contains(r.stderr, "nothing written") {
		t.Errorf("bundle from a lock the site no longer matches:\n%s", r)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the bundle was written")
	}
	if r := wk(t, s, dir, "skills", "bundle", s.ts.URL); r.code != exitUsage {
		t.Errorf("bundle without -o:\n%s", r)
	}
}

func TestSkillsInstallFromMirror(t *testing.T) {
	t.Parallel()
	s, roots := signedNormalSite(t)
	mirror := newSite(t)
	for _, p := range []string{"/.well-known/agent-skills/invoice-check/SKILL.md", "/.well-known/agent-skills/ledger.tar.gz"} {
		s.mu.Lock()
		d := s.docs[p]
		s.mu.Unlock()
		mirror.set("/m"+p, d.body, d.ctype) // no index, no signatures on the mirror
	}

	dir := t.TempDir()
	r := wk(t, s, dir, "skills", "install", s.ts.URL, "--mirror", mirror.ts.URL+"/m", "--trust-roots", roots, "--require-signed")
	if r.code != 0 || strings.Count(r.stdout, "verified: Example Corp") != 2 || mirror.hits.Load() != 2 {
		t.Fatalf("install --mirror (mirror hits %d):\n%s", mirror.hits.Load(), r)
	}
	if r := wk(t, s, dir, "skills", "verify"); r.code != 0 {
		t.Errorf("verify after install --mirror:\n%s", r)
	}

	// Other bytes on the mirror: refused, naming the file and the mirror.
	mirror.set("/m/.well-known/agent-skills/invoice-check/SKILL.md", skillText("invoice-check", "Evil.", "# Evil\n"), "text/markdown")
	empty := t.TempDir()
	r = wk(t, s, empty, "skills", "install", s.ts.URL, "invoice-check", "--mirror", mirror.ts.URL+"/m")
	if r.code != exitFailure || !strings.Contains(r.stdout, "invoice-check/SKILL.md: agentskills: digest mismatch") || !strings.Contains(r.stdout, "from the mirror "+mirror.ts.URL+"/m") {
		t.Errorf("install --mirror of other bytes:\n%s", r)
	}
	if got := tree(t, empty); len(got) != 0 {
		t.Errorf("a refused install wrote %v", got)
	}
	if r := wk(t, s, empty, "skills", "install", s.ts.URL, "--mirror", "http://mirror.example"); r.code != exitUsage {
		t.Errorf("install --mirror over plain http:\n%s", r)
	}
}
