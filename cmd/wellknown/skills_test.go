package main

// Tests of "wellknown skills": they drive the binary built by TestMain (see
// main_test.go) against loopback httptest TLS servers, trusted through
// WELLKNOWN_CA_FILE, and check stdout, stderr, the exit status and the files written.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
)

// site is a loopback TLS origin whose documents a test can change between runs.
type site struct {
	ts   *httptest.Server
	mu   sync.Mutex
	docs map[string]siteDoc // path → document
	hits atomic.Int64       // requests served
}

type siteDoc struct {
	body  []byte
	ctype string
}

func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{docs: map[string]siteDoc{}}
	s.ts = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		d, ok := s.docs[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", d.ctype)
		w.Write(d.body)
	}))
	s.ts.Config.ErrorLog = log.New(io.Discard, "", 0) // clients that hang up mid-handshake
	s.ts.StartTLS()
	t.Cleanup(s.ts.Close)
	return s
}

func (s *site) set(path string, body []byte, ctype string) {
	s.mu.Lock()
	s.docs[path] = siteDoc{body, ctype}
	s.mu.Unlock()
}

func (s *site) reset() {
	s.mu.Lock()
	s.docs = map[string]siteDoc{}
	s.mu.Unlock()
}

// caFile writes the certificate of the httptest TLS servers (they all share one) as PEM.
func caFile(t *testing.T, ts *httptest.Server) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ca.pem")
	data := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// wkRun is one run of the binary.
type wkRun struct {
	stdout, stderr string
	code           int
}

// wk runs wellknown in dir with a private HOME, no terminal and the test CA.
func wk(t *testing.T, s *site, dir string, args ...string) wkRun {
	t.Helper()
	cmd := exec.Command(builtBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + filepath.Join(dir, "home"), "PATH=" + os.Getenv("PATH"), "TERM=xterm-256color"}
	if s != nil {
		cmd.Env = append(cmd.Env, caFileEnv+"="+caFile(t, s.ts))
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &errOut, strings.NewReader("")
	err := cmd.Run()
	r := wkRun{stdout: out.String(), stderr: errOut.String()}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("wellknown %s: %v", strings.Join(args, " "), err)
		}
		r.code = ee.ExitCode()
	}
	return r
}

func (r wkRun) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.stdout, r.stderr)
}

func skillText(name, desc, body string) []byte {
	return []byte("---\nname: " + name + "\ndescription: " + desc + "\n---\n\n" + body)
}

// member is one entry of a test archive.
type member struct {
	name string
	body string
	typ  byte   // 0: regular file
	link string // link target
	zero int64  // this many zero bytes instead of body (a bomb)
}

func tarGz(t *testing.T, ms ...member) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	for _, m := range ms {
		h := &tar.Header{Name: m.name, Typeflag: m.typ, Linkname: m.link, Mode: 0o644, Format: tar.FormatPAX}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(m.body)) + m.zero
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			io.WriteString(tw, m.body)
			if m.zero > 0 {
				io.CopyN(tw, zeroReader{}, m.zero)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return b.Bytes()
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// indexEntry is one v0.2.0 entry.
type indexEntry struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	URL         string `json:"url"`
	Digest      string `json:"digest"`
}

// publish serves a v0.2.0 index; each artifact is served at its URL (relative to
// /.well-known/agent-skills/) with its digest, unless the entry's Digest is set.
func (s *site) publish(t *testing.T, entries []indexEntry, artifacts map[string][]byte) {
	t.Helper()
	for i, e := range entries {
		body, ok := artifacts[e.Name]
		if !ok {
			continue
		}
		if e.Digest == "" {
			entries[i].Digest = agentskills.Digest(body)
		}
		ctype := "text/markdown"
		if e.Type == agentskills.TypeArchive {
			ctype = "application/gzip"
		}
		if !strings.Contains(e.URL, "://") {
			s.set("/.well-known/agent-skills/"+e.URL, body, ctype)
		}
	}
	data, err := json.Marshal(map[string]any{"$schema": agentskills.SchemaV020, "skills": entries})
	if err != nil {
		t.Fatal(err)
	}
	s.set(agentskills.IndexPath, data, "application/json")
}

var (
	invoiceMD  = skillText("invoice-check", "Check supplier invoices. Use when an invoice arrives.", "# Invoice check\n\nCompare each line.\n")
	ledgerMD   = skillText("ledger", "Export ledgers to CSV. Use for accounting data.", "# Ledger\n\nSee references/FORMAT.md.\n")
	ledgerRefs = "# Format\n\nComma separated.\n"
	// invoiceV2MD is invoice-check as the site changes it after an install.
	invoiceV2MD = skillText("invoice-check", "Check supplier invoices, v2.", "# Invoice check v2\n")
)

// publishNormal serves the normal v0.2.0 site: a skill-md skill and an archive skill.
func publishNormal(t *testing.T, s *site) {
	t.Helper()
	publishPair(t, s, "Check supplier invoices.", invoiceMD, ledgerArchive(t))
}

// publishNormalAs is publishNormal with invoice-check's description in the index.
func publishNormalAs(t *testing.T, s *site, invoiceDescription string) {
	t.Helper()
	publishPair(t, s, invoiceDescription, invoiceMD, ledgerArchive(t))
}

// ledgerArchive is the normal site's ledger archive: SKILL.md and references/FORMAT.md.
func ledgerArchive(t *testing.T) []byte {
	return tarGz(t, member{name: "SKILL.md", body: string(ledgerMD)}, member{name: "references/FORMAT.md", body: ledgerRefs})
}

// publishPair serves the normal site's two entries with these bodies: invoice-check
// (a skill-md described as invoiceDesc) and ledger (an archive).
func publishPair(t *testing.T, s *site, invoiceDesc string, invoice, ledger []byte) {
	t.Helper()
	s.publish(t, []indexEntry{
		{Name: "invoice-check", Type: "skill-md", Description: invoiceDesc, URL: "invoice-check/SKILL.md"},
		{Name: "ledger", Type: "archive", Description: "Export ledgers.", URL: "ledger.tar.gz"},
	}, map[string][]byte{"invoice-check": invoice, "ledger": ledger})
}

// publishInvoice serves an index of invoice-check alone, described as desc.
func publishInvoice(t *testing.T, s *site, desc string, md []byte) {
	t.Helper()
	s.publish(t, []indexEntry{{Name: "invoice-check", Type: "skill-md", Description: desc, URL: "invoice-check/SKILL.md"}},
		map[string][]byte{"invoice-check": md})
}

// installedSite is the normal site installed once into a fresh project folder by
// "skills install <origin> args...".
func installedSite(t *testing.T, args ...string) (*site, string) {
	t.Helper()
	s := newSite(t)
	publishNormal(t, s)
	dir := t.TempDir()
	if r := wk(t, s, dir, append([]string{"skills", "install", s.ts.URL}, args...)...); r.code != 0 {
		t.Fatalf("install:\n%s", r)
	}
	return s, dir
}

// tree lists every path under root (folders end with "/", symlinks with "@").
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			rel += "@"
		case d.IsDir():
			rel += "/"
		}
		out = append(out, rel)
		return nil
	})
	return out
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestSkillsListAndGet(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	publishNormal(t, s)
	dir := t.TempDir()

	r := wk(t, s, dir, "skills", "list", s.ts.URL)
	if r.code != 0 || !strings.Contains(r.stdout, "invoice-check") || !strings.Contains(r.stdout, "ledger") {
		t.Fatalf("list:\n%s", r)
	}
	r = wk(t, s, dir, "skills", "list", s.ts.URL, "--json")
	var l skillsListJSON
	if err := json.Unmarshal([]byte(r.stdout), &l); err != nil || r.code != 0 {
		t.Fatalf("list --json: %v\n%s", err, r)
	}
	if l.Version != "0.2.0" || len(l.Skills) != 2 || l.Skills[1].Type != "archive" || !l.Skills[0].Verified || l.Origin != s.ts.URL {
		t.Errorf("list --json = %+v", l)
	}
	for _, field := range []string{`"origin"`, `"index_url"`, `"version"`, `"skills"`, `"warnings"`, `"name"`, `"type"`, `"description"`, `"url"`, `"digest"`, `"verified"`} {
		if !strings.Contains(r.stdout, field) {
			t.Errorf("list --json has no %s field", field)
		}
	}

	r = wk(t, s, dir, "skills", "get", s.ts.URL, "ledger", "--json")
	var g skillsGetJSON
	if err := json.Unmarshal([]byte(r.stdout), &g); err != nil || r.code != 0 {
		t.Fatalf("get --json: %v\n%s", err, r)
	}
	wantFiles := []fileJSON{
		{Path: "SKILL.md", Size: int64(len(ledgerMD)), Digest: agentskills.Digest(ledgerMD)},
		{Path: "references/FORMAT.md", Size: int64(len(ledgerRefs)), Digest: agentskills.Digest([]byte(ledgerRefs))},
	}
	if !g.Verified || g.Name != "ledger" || !slices.Equal(g.Files, wantFiles) || g.SkillMD != string(ledgerMD) || g.Frontmatter["name"] != "ledger" {
		t.Errorf("get --json = %+v", g)
	}
	r = wk(t, s, dir, "skills", "get", s.ts.URL, "invoice-check")
	if r.code != 0 || !strings.Contains(r.stdout, "# Invoice check") || !strings.Contains(r.stdout, "verified sha256:") {
		t.Errorf("get:\n%s", r)
	}
	if got := tree(t, dir); len(got) != 0 {
		t.Errorf("list and get wrote %v", got)
	}

	// Usage errors and an origin without an index.
	for _, args := range [][]string{{"skills", "get", s.ts.URL, "../etc"}, {"skills", "get", s.ts.URL}, {"skills", "install"}, {"skills", "nope"},
		{"skills", "install", s.ts.URL, "--agent", "nope"}, {"skills", "install", s.ts.URL, "--dir", dir, "--global"}} {
		if r := wk(t, s, dir, args...); r.code != exitUsage {
			t.Errorf("%v: want exit %d\n%s", args, exitUsage, r)
		}
	}
	empty := newSite(t)
	if r := wk(t, empty, dir, "skills", "list", empty.ts.URL); r.code != exitNotFound {
		t.Errorf("list of an origin without an index: want exit %d\n%s", exitNotFound, r)
	}
	if r := wk(t, s, dir, "skills", "get", s.ts.URL, "absent"); r.code != exitFailure {
		t.Errorf("get of an unlisted skill: want exit 1\n%s", r)
	}
}

func TestSkillsInstall(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	publishNormal(t, s)
	dir := t.TempDir()
	skills := filepath.Join(dir, ".claude", "skills")

	r := wk(t, s, dir, "skills", "install", s.ts.URL, "--agent", "claude")
	if r.code != 0 || strings.Count(r.stdout, "installed") != 2 {
		t.Fatalf("install:\n%s", r)
	}
	want := []string{".claude/", ".claude/skills/",
		".claude/skills/invoice-check/", ".claude/skills/invoice-check/.wellknown.json", ".claude/skills/invoice-check/SKILL.md",
		".claude/skills/ledger/", ".claude/skills/ledger/.wellknown.json", ".claude/skills/ledger/SKILL.md",
		".claude/skills/ledger/references/", ".claude/skills/ledger/references/FORMAT.md",
		// wk's private HOME is in dir: install remembers the origin typed to it there.
		"home/", "home/.config/", "home/.config/wellknown/", "home/.config/wellknown/installed-origins",
		"skills-lock.json"}
	if got := tree(t, dir); !slices.Equal(got, want) {
		t.Fatalf("files written:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := mustRead(t, filepath.Join(skills, "ledger", "references", "FORMAT.md")); got != ledgerRefs {
		t.Errorf("FORMAT.md = %q", got)
	}
	rec, err := readRecord(filepath.Join(skills, "ledger"))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Origin != s.ts.URL || rec.IndexURL != s.ts.URL+agentskills.IndexPath || rec.Type != "archive" || !rec.Verified ||
		!strings.HasPrefix(rec.Digest, "sha256:") || rec.Size != int64(len(ledgerMD)+len(ledgerRefs)) || len(rec.Files) != 2 || rec.InstalledAt.IsZero() {
		t.Errorf("record = %+v", rec)
	}
	for _, field := range []string{`"origin"`, `"index_url"`, `"digest"`, `"size"`, `"installed_at"`, `"files"`} {
		if !strings.Contains(mustRead(t, filepath.Join(skills, "ledger", recordFile)), field) {
			t.Errorf("record has no %s field", field)
		}
	}

	// Again, same digests: nothing to do, nothing written.
	r = wk(t, s, dir, "skills", "install", s.ts.URL, "--agent", "claude")
	if r.code != 0 || strings.Count(r.stdout, statusUnchanged) != 2 {
		t.Errorf("second install:\n%s", r)
	}

	// The site changes a skill: install refuses to overwrite without --force.
	s.reset()
	publishInvoice(t, s, "v2", invoiceV2MD)
	r = wk(t, s, dir, "skills", "install", s.ts.URL, "invoice-check", "--agent", "claude")
	if r.code != exitFailure || !strings.Contains(r.stdout, statusRefused) || !strings.Contains(r.stdout, "--force") {
		t.Errorf("install over an existing skill:\n%s", r)
	}
	if got := mustRead(t, filepath.Join(skills, "invoice-check", "SKILL.md")); got != string(invoiceMD) {
		t.Errorf("refused install changed SKILL.md to %q", got)
	}

	// --force replaces it, through a staging folder that is gone afterwards.
	r = wk(t, s, dir, "skills", "install", s.ts.URL, "invoice-check", "--agent", "claude", "--force", "--json")
	var res struct{ Results []skillResult }
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 || len(res.Results) != 1 || res.Results[0].Status != statusReplaced {
		t.Fatalf("install --force: %v\n%s", err, r)
	}
	if got := mustRead(t, filepath.Join(skills, "invoice-check", "SKILL.md")); got != string(invoiceV2MD) {
		t.Errorf("after --force SKILL.md = %q", got)
	}
	if got := tree(t, filepath.Join(dir, ".claude")); slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, ".wellknown-") }) {
		t.Errorf("staging or old folders left behind: %v", got)
	}
}

func TestSkillsInstallV010(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	rules := "# Rules\n\nTotals must match.\n"
	s.set(agentskills.LegacyIndexPath, []byte(`{"skills":[{"name":"invoice-check","description":"Check invoices.","files":["SKILL.md","references/RULES.md"]}]}`), "application/json")
	s.set("/.well-known/skills/invoice-check/SKILL.md", invoiceMD, "text/markdown")
	s.set("/.well-known/skills/invoice-check/references/RULES.md", []byte(rules), "text/markdown")
	dir := t.TempDir()
	r := wk(t, s, dir, "skills", "install", s.ts.URL)
	if r.code != 0 || !strings.Contains(r.stdout, "unverified") {
		t.Fatalf("install from a v0.1.0 index:\n%s", r)
	}
	got := mustRead(t, filepath.Join(dir, ".agents", "skills", "invoice-check", "references", "RULES.md"))
	if got != rules {
		t.Errorf("RULES.md = %q", got)
	}
	rec, err := readRecord(filepath.Join(dir, ".agents", "skills", "invoice-check"))
	if err != nil || rec.Verified || rec.IndexVersion != "0.1.0" || rec.Digest != "" {
		t.Errorf("record = %+v, %v", rec, err)
	}
	// The record names a loopback origin: a planted record must not make update reach
	// into the private network unless the person says so. (Planted: this person never
	// installed from the origin, so the list install keeps in their home lacks it.)
	forgetInstalledOrigins(t, dir)
	before := s.hits.Load()
	if r := wk(t, s, dir, "skills", "update"); r.code == 0 || !strings.Contains(r.stdout+r.stderr, "private") || s.hits.Load() != before {
		t.Errorf("update of a loopback origin without --allow-private (%d requests):\n%s", s.hits.Load()-before, r)
	}
	// update compares the files themselves: unchanged, then updated.
	if r := wk(t, s, dir, "skills", "update", "--allow-private"); r.code != 0 || !strings.Contains(r.stdout, statusUnchanged) {
		t.Errorf("update of an unchanged v0.1.0 skill:\n%s", r)
	}
	s.set("/.well-known/skills/invoice-check/references/RULES.md", []byte("# Rules\n\nNew rules.\n"), "text/markdown")
	if r := wk(t, s, dir, "--yes", "skills", "update", "--allow-private"); r.code != 0 || !strings.Contains(r.stdout, statusUpdated) {
		t.Errorf("update of a changed v0.1.0 skill:\n%s", r)
	}
}

// TestSkillsHostile serves artifacts that must be refused: nothing may be written,
// inside the project or outside it, and an installed skill is left as it was.
func TestSkillsHostile(t *testing.T) {
	t.Parallel()
	md := string(skillText("evil", "Evil.", "# Evil\n"))
	tests := []struct {
		name    string
		archive func(t *testing.T, outside string) []byte
		digest  string // "" : the artifact's own
		want    string // in stdout
	}{
		{"traversal", func(t *testing.T, _ string) []byte {
			return tarGz(t, member{name: "SKILL.md", body: md}, member{name: "../../../../../escaped.txt", body: "x"})
		}, "", `".." segment`},
		{"absolute path", func(t *testing.T, outside string) []byte {
			return tarGz(t, member{name: "SKILL.md", body: md}, member{name: filepath.Join(outside, "absolute.txt"), body: "x"})
		}, "", "absolute path"},
		{"symlink", func(t *testing.T, outside string) []byte {
			return tarGz(t, member{name: "SKILL.md", body: md}, member{name: "link", typ: tar.TypeSymlink, link: outside})
		}, "", "symbolic link"},
		{"hard link", func(t *testing.T, outside string) []byte {
			return tarGz(t, member{name: "SKILL.md", body: md}, member{name: "hard", typ: tar.TypeLink, link: "/etc/passwd"})
		}, "", "hard link"},
		{"gzip bomb", func(t *testing.T, _ string) []byte {
			return tarGz(t, member{name: "SKILL.md", body: md}, member{name: "zeros.bin", zero: 64 << 20})
		}, "", "unpacks to more than"},
		{"tampered digest", func(t *testing.T, _ string) []byte {
			return tarGz(t, member{name: "SKILL.md", body: md})
		}, agentskills.Digest([]byte("the published content")), "digest mismatch"},
		{"escape sequence in a file name", func(t *testing.T, _ string) []byte {
			return tarGz(t, member{name: "SKILL.md", body: md}, member{name: "notes\x1b]0;PWNED\x07.md", body: "x"})
		}, "", "control or invisible character"},
		{"reserved record name", func(t *testing.T, _ string) []byte {
			return tarGz(t, member{name: "SKILL.md", body: md}, member{name: recordFile, body: `{"format":1,"name":"evil","origin":"https://attacker.example"}`})
		}, "", "reserves"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSite(t)
			sandbox := t.TempDir()
			project, outside := filepath.Join(sandbox, "a", "b", "project"), filepath.Join(sandbox, "outside")
			for _, d := range []string{project, outside} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			before := tree(t, sandbox)
			s.publish(t, []indexEntry{{Name: "evil", Type: "archive", Description: "Evil.", URL: "evil.tar.gz", Digest: tc.digest}},
				map[string][]byte{"evil": tc.archive(t, outside)})
			r := wk(t, s, project, "skills", "install", s.ts.URL, "--agent", "claude")
			if r.code != exitFailure || !strings.Contains(r.stdout, statusRefused) || !strings.Contains(r.stdout, tc.want) {
				t.Errorf("install:\n%s", r)
			}
			if got := tree(t, sandbox); !slices.Equal(got, before) {
				t.Errorf("files written: %v, want none (before: %v)", got, before)
			}

			// Over an installed skill with --force: the old folder stays as it was.
			publishGood := func() {
				s.reset()
				s.publish(t, []indexEntry{{Name: "evil", Type: "skill-md", Description: "Good.", URL: "evil/SKILL.md"}},
					map[string][]byte{"evil": []byte(md)})
			}
			publishGood()
			if r := wk(t, s, project, "skills", "install", s.ts.URL, "--agent", "claude"); r.code != 0 {
				t.Fatalf("good install:\n%s", r)
			}
			installed := tree(t, sandbox)
			s.reset()
			s.publish(t, []indexEntry{{Name: "evil", Type: "archive", Description: "Evil.", URL: "evil.tar.gz", Digest: tc.digest}},
				map[string][]byte{"evil": tc.archive(t, outside)})
			r = wk(t, s, project, "skills", "install", s.ts.URL, "--agent", "claude", "--force")
			if r.code != exitFailure || !strings.Contains(r.stdout, statusRefused) {
				t.Errorf("install --force:\n%s", r)
			}
			if got := tree(t, sandbox); !slices.Equal(got, installed) {
				t.Errorf("install --force of a hostile archive changed the files: %v, want %v", got, installed)
			}
			if got := mustRead(t, filepath.Join(project, ".claude", "skills", "evil", "SKILL.md")); got != md {
				t.Errorf("SKILL.md = %q", got)
			}
		})
	}
}

// TestSkillsUpdate: update sees a changed digest, a skill gone from the index, and a
// skill changed on disk.
func TestSkillsUpdate(t *testing.T) {
	t.Parallel()
	s, dir := installedSite(t, "--agent", "codex")
	skills := filepath.Join(dir, ".codex", "skills")
	oldDigest := agentskills.Digest(invoiceMD)

	r := wk(t, s, dir, "skills", "update", "--allow-private")
	if r.code != 0 || strings.Count(r.stdout, statusUnchanged) != 2 {
		t.Errorf("update with nothing changed:\n%s", r)
	}

	s.reset()
	publishInvoice(t, s, "v2", invoiceV2MD)
	r = wk(t, s, dir, "--yes", "skills", "update", "--allow-private", "--json")
	var res struct{ Results []skillResult }
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 {
		t.Fatalf("update: %v\n%s", err, r)
	}
	status := map[string]skillResult{}
	for _, x := range res.Results {
		status[x.Name] = x
	}
	if x := status["invoice-check"]; x.Status != statusUpdated || x.PreviousDigest != oldDigest || x.Digest != agentskills.Digest(invoiceV2MD) {
		t.Errorf("invoice-check: %+v", x)
	}
	if x := status["ledger"]; x.Status != statusRemovedUpstream {
		t.Errorf("ledger: %+v", x)
	}
	if got := mustRead(t, filepath.Join(skills, "invoice-check", "SKILL.md")); got != string(invoiceV2MD) {
		t.Errorf("updated SKILL.md = %q", got)
	}
	if _, err := os.Stat(filepath.Join(skills, "ledger", "SKILL.md")); err != nil {
		t.Errorf("a skill removed upstream was removed locally: %v", err)
	}

	// A skill changed on disk is not replaced without --force.
	edited := filepath.Join(skills, "invoice-check", "SKILL.md")
	if err := os.WriteFile(edited, []byte("my own edits\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v3 := skillText("invoice-check", "Check supplier invoices, v3.", "# Invoice check v3\n")
	s.reset()
	publishInvoice(t, s, "v3", v3)
	r = wk(t, s, dir, "skills", "update", "--allow-private", "invoice-check")
	if r.code != exitFailure || !strings.Contains(r.stdout, "changed since install") {
		t.Errorf("update of an edited skill:\n%s", r)
	}
	if got := mustRead(t, edited); got != "my own edits\n" {
		t.Errorf("edits overwritten: %q", got)
	}
	r = wk(t, s, dir, "--yes", "skills", "update", "--allow-private", "invoice-check", "--force")
	if r.code != 0 || !strings.Contains(r.stdout, statusUpdated) || mustRead(t, edited) != string(v3) {
		t.Errorf("update --force:\n%s", r)
	}
	if r := wk(t, s, dir, "skills", "update", "--allow-private", "absent"); r.code != exitFailure {
		t.Errorf("update of a skill not installed:\n%s", r)
	}
}

func TestSkillsLocal(t *testing.T) {
	t.Parallel()
	s, dir := installedSite(t, "invoice-check", "--agent", "claude")
	// A skill copied by hand, and one that is broken.
	for name, text := range map[string]string{"by-hand": string(skillText("by-hand", "Mine.", "# Mine\n")), "broken": "no frontmatter\n"} {
		p := filepath.Join(dir, ".claude", "skills", name)
		os.MkdirAll(p, 0o755)
		os.WriteFile(filepath.Join(p, "SKILL.md"), []byte(text), 0o644)
	}
	r := wk(t, nil, dir, "skills", "local", "--json")
	var out struct {
		Skills      []localSkillJSON
		Diagnostics []diagnosticJSON
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 {
		t.Fatalf("local: %v\n%s", err, r)
	}
	byName := map[string]localSkillJSON{}
	for _, l := range out.Skills {
		byName[l.Name] = l
	}
	if l := byName["invoice-check"]; l.Installed == nil || l.Installed.Origin != s.ts.URL || l.Scope != "project" || l.Agent != "claude" || l.Modified != "" {
		t.Errorf("invoice-check: %+v", l)
	}
	if l, ok := byName["by-hand"]; !ok || l.Installed != nil {
		t.Errorf("by-hand: %+v", l)
	}
	if _, ok := byName["broken"]; ok || !slices.ContainsFunc(out.Diagnostics, func(d diagnosticJSON) bool { return strings.Contains(d.Where, "broken") }) {
		t.Errorf("broken skill: listed or no diagnostic: %+v", out)
	}
	os.WriteFile(filepath.Join(dir, ".claude", "skills", "invoice-check", "notes.txt"), []byte("x"), 0o644)
	r = wk(t, nil, dir, "skills", "local")
	if r.code != 0 || !strings.Contains(r.stdout, "changed since install: notes.txt was added") || !strings.Contains(r.stdout, "not installed by wellknown") {
		t.Errorf("local:\n%s", r)
	}
	// --agent narrows the scan; --global reads HOME.
	if r := wk(t, nil, dir, "skills", "local", "--agent", "codex"); r.code != 0 || !strings.Contains(r.stdout, "no skills found") {
		t.Errorf("local --agent codex:\n%s", r)
	}
	if r := wk(t, s, dir, "skills", "install", s.ts.URL, "ledger", "--global"); r.code != 0 {
		t.Fatalf("install --global:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "home", ".agents", "skills", "ledger", "SKILL.md")); err != nil {
		t.Errorf("install --global: %v", err)
	}
	if r := wk(t, nil, dir, "skills", "local", "--global"); r.code != 0 || !strings.Contains(r.stdout, ".agents/skills (the cross-client folder") || !strings.Contains(r.stdout, "ledger  user  ") {
		t.Errorf("local --global:\n%s", r)
	}
}

// TestSkillsCrossOrigin: an artifact on another origin is not fetched without consent.
func TestSkillsCrossOrigin(t *testing.T) {
	t.Parallel()
	s, cdn := newSite(t), newSite(t)
	cdn.set("/ledger.tar.gz", tarGz(t, member{name: "SKILL.md", body: string(ledgerMD)}), "application/gzip")
	s.publish(t, []indexEntry{{Name: "ledger", Type: "archive", Description: "Ledgers.", URL: cdn.ts.URL + "/ledger.tar.gz",
		Digest: agentskills.Digest(cdn.docs["/ledger.tar.gz"].body)}}, nil)
	dir := t.TempDir()
	r := wk(t, s, dir, "skills", "install", s.ts.URL)
	if r.code != exitFailure || !strings.Contains(r.stdout, statusRefused) || !strings.Contains(r.stderr, "consent denied") || !strings.Contains(r.stderr, "--yes") {
		t.Errorf("install without consent:\n%s", r)
	}
	if n := cdn.hits.Load(); n != 0 {
		t.Errorf("the other origin got %d requests without consent", n)
	}
	if got := tree(t, dir); len(got) != 0 {
		t.Errorf("files written: %v", got)
	}
	r = wk(t, s, dir, "--yes", "skills", "install", s.ts.URL)
	if r.code != 0 || !strings.Contains(r.stdout, statusInstalled) || !strings.Contains(r.stderr, "consent granted") {
		t.Errorf("install --yes:\n%s", r)
	}
}

// TestSkillsEscapes: escape sequences in published names and descriptions never reach
// the output, in text or JSON.
func TestSkillsEscapes(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	evilDesc := "Nice skill\x1b]0;PWNED\x07\x1b[2J\u009b31m\x1b[38;5;201mred\r\nline two"
	md := []byte("---\nname: nice\ndescription: \"Nice\\e[31m \\x9b\"\n---\n\n# Nice \x1b[5mblink\n")
	s.publish(t, []indexEntry{
		{Name: "nice", Type: "skill-md", Description: evilDesc, URL: "nice/SKILL.md"},
		{Name: "bad\x1b[31m-name", Type: "skill-md", Description: evilDesc, URL: "nice/SKILL.md", Digest: agentskills.Digest(md)},
	}, map[string][]byte{"nice": md})
	dir := t.TempDir()
	runs := map[string]wkRun{
		"list":         wk(t, s, dir, "skills", "list", s.ts.URL),
		"list --json":  wk(t, s, dir, "skills", "list", s.ts.URL, "--json"),
		"get":          wk(t, s, dir, "skills", "get", s.ts.URL, "nice"),
		"get --json":   wk(t, s, dir, "skills", "get", s.ts.URL, "nice", "--json"),
		"install":      wk(t, s, dir, "skills", "install", s.ts.URL),
		"local":        wk(t, s, dir, "skills", "local", "--agent", "agents"),
		"local --json": wk(t, s, dir, "skills", "local", "--json"),
	}
	for name, r := range runs {
		for _, bad := range []string{"\x1b", "\u009b", "\x9b", "\x07", "\r", `\u001b`, `\u009b`} {
			if strings.Contains(r.stdout+r.stderr, bad) {
				t.Errorf("%s: output holds %q:\n%s", name, bad, r)
			}
		}
	}
	if r := runs["install"]; r.code != exitFailure || !strings.Contains(r.stdout, "not a valid skill name") || !strings.Contains(r.stdout, "installed") {
		t.Errorf("install: want nice installed and the invalid name refused:\n%s", r)
	}
	if got := tree(t, filepath.Join(dir, ".agents", "skills")); !slices.Equal(got, []string{"nice/", "nice/.wellknown.json", "nice/SKILL.md"}) {
		t.Errorf("installed: %v", got)
	}
}

// TestSkillsInstallRefusesLinkedAgentFolder: a project whose .claude is a symbolic link
// (a cloned repository can commit one pointing anywhere) gets nothing written
// through it, by install or update.
func TestSkillsInstallRefusesLinkedAgentFolder(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	publishNormal(t, s)
	sandbox := t.TempDir()
	project, elsewhere := filepath.Join(sandbox, "project"), filepath.Join(sandbox, "elsewhere")
	for _, d := range []string{project, elsewhere} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(elsewhere, filepath.Join(project, ".claude")); err != nil {
		t.Fatal(err)
	}
	before := tree(t, sandbox)
	r := wk(t, s, project, "skills", "install", s.ts.URL, "--agent", "claude")
	if r.code == 0 || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf("install through a linked .claude:\n%s", r)
	}
	if got := tree(t, sandbox); !slices.Equal(got, before) {
		t.Errorf("files written: %v, want none", got)
	}
	r = wk(t, s, project, "skills", "update", "--agent", "claude", "--allow-private")
	if r.code == 0 || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf("update through a linked .claude:\n%s", r)
	}
}

// installJSON decodes "skills install --json" (and update) output.
func installJSON(t *testing.T, r wkRun) map[string]skillResult {
	t.Helper()
	var out struct{ Results []skillResult }
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("--json: %v\n%s", err, r)
	}
	m := map[string]skillResult{}
	for _, x := range out.Results {
		m[x.Name] = x
	}
	return m
}

// refused results are not "verified" and name no dir; a SKILL.md
// named otherwise than its index entry is refused and cannot shadow the real skill.
func TestInstallResultsTellTheTruth(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	okMD := skillText("ok-skill", "The real skill. Use it.", "# OK\n")
	s.publish(t, []indexEntry{
		{Name: "aaa", Type: "skill-md", Description: "Takes over ok-skill.", URL: "aaa/SKILL.md"},
		{Name: "ok-skill", Type: "skill-md", Description: "The real one.", URL: "ok-skill/SKILL.md"},
		{Name: "tampered", Type: "skill-md", Description: "Wrong digest.", URL: "tampered/SKILL.md",
			Digest: agentskills.Digest([]byte("something else"))},
	}, map[string][]byte{
		"aaa":      skillText("ok-skill", "An impostor.", "# Evil\n"),
		"ok-skill": okMD,
		"tampered": skillText("tampered", "Tampered.", "# T\n"),
	})
	dir := t.TempDir()
	r := wk(t, s, dir, "skills", "install", s.ts.URL, "--json")
	if r.code != exitFailure {
		t.Fatalf("install: want exit 1:\n%s", r)
	}
	res := installJSON(t, r)
	for _, name := range []string{"aaa", "tampered"} {
		x := res[name]
		if x.Status != statusRefused || x.Verified || x.Dir != "" || len(x.Files) > 0 {
			t.Errorf("%s: want refused, not verified, no dir: %+v", name, x)
		}
	}
	if x := res["ok-skill"]; x.Status != statusInstalled || !x.Verified || x.Dir == "" {
		t.Errorf("ok-skill: %+v", x)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".agents", "skills", "aaa")); err == nil {
		t.Errorf("the impostor aaa was written")
	}
	if !strings.Contains(res["aaa"].Message, `"ok-skill"`) {
		t.Errorf("aaa: the refusal does not name the SKILL.md's name: %+v", res["aaa"])
	}
	// Installing again: ok-skill is unchanged (verified, with its dir); the others
	// still refused, with no dir.
	res = installJSON(t, wk(t, s, dir, "skills", "install", s.ts.URL, "--json"))
	if x := res["ok-skill"]; x.Status != statusUnchanged || !x.Verified || x.Dir == "" {
		t.Errorf("ok-skill again: %+v", x)
	}
	if x := res["tampered"]; x.Verified || x.Dir != "" {
		t.Errorf("tampered again: %+v", x)
	}
	// skills local shows ok-skill from its own folder only.
	r = wk(t, nil, dir, "skills", "local", "--json")
	var local struct{ Skills []localSkillJSON }
	if err := json.Unmarshal([]byte(r.stdout), &local); err != nil {
		t.Fatal(err)
	}
	if len(local.Skills) != 1 || filepath.Base(local.Skills[0].Dir) != "ok-skill" {
		t.Errorf("local: %+v", local.Skills)
	}
}

// the symlink hint names the real folder; local lists each agent's
// skills under that agent.
func TestSkillsFoldersPerAgent(t *testing.T) {
	t.Parallel()
	s, dir := installedSite(t, "invoice-check")
	if r := wk(t, s, dir, "skills", "install", s.ts.URL, "invoice-check", "--agent", "claude"); r.code != 0 {
		t.Fatalf("install --agent claude:\n%s", r)
	}
	r := wk(t, nil, dir, "skills", "local", "--json")
	var local struct{ Skills []localSkillJSON }
	if err := json.Unmarshal([]byte(r.stdout), &local); err != nil {
		t.Fatal(err)
	}
	agents := map[string]bool{}
	for _, sk := range local.Skills {
		if sk.Name == "invoice-check" {
			agents[sk.Agent] = true
		}
	}
	if !agents["agents"] || !agents["claude"] {
		t.Errorf("local: want invoice-check under agents and claude:\n%s", r)
	}

	other := t.TempDir()
	proj := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proj, ".agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(proj, ".agents", "skills")); err != nil {
		t.Fatal(err)
	}
	r = wk(t, s, proj, "skills", "install", s.ts.URL, "invoice-check")
	if r.code != exitFailure || !strings.Contains(r.stdout, other) || strings.Contains(r.stdout, "points to with --dir") {
		t.Errorf("symlinked skills folder: want the real folder named:\n%s", r)
	}
}

// forgetInstalledOrigins removes the list of origins "skills install" keeps in the
// private HOME wk gives dir: the records in dir now look planted by a cloned repository.
func forgetInstalledOrigins(t *testing.T, dir string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(dir, "home", ".config", "wellknown")); err != nil {
		t.Fatal(err)
	}
}

// TestSkillsUpdateAcceptsWhatInstallAccepted: an origin the person installed from
// (here on loopback) is updated without --allow-private; the same records, planted
// for someone who never installed from it, still need the flag.
func TestSkillsUpdateAcceptsWhatInstallAccepted(t *testing.T) {
	t.Parallel()
	s, dir := installedSite(t)
	if r := wk(t, s, dir, "skills", "update"); r.code != 0 || strings.Count(r.stdout, statusUnchanged) != 2 {
		t.Errorf("update of an origin install accepted:\n%s", r)
	}
	forgetInstalledOrigins(t, dir)
	before := s.hits.Load()
	if r := wk(t, s, dir, "skills", "update"); r.code != exitFailure || !strings.Contains(r.stdout, "--allow-private") || s.hits.Load() != before {
		t.Errorf("update of planted records:\n%s", r)
	}
}
