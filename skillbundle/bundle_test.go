package skillbundle_test

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/skillbundle"
	"github.com/wellknown-dev/discovery/skilllock"
	"github.com/wellknown-dev/discovery/trust"
)

// write bundles the site (every skill) and returns the bundle's bytes.
func write(t *testing.T, s *site, opts *skillbundle.Options) []byte {
	t.Helper()
	if opts == nil {
		opts = &skillbundle.Options{}
	}
	if opts.Client == nil {
		opts.Client = s.onlineOptions()
	}
	var b bytes.Buffer
	if _, err := skillbundle.Write(context.Background(), &b, s.ts.URL, opts); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return b.Bytes()
}

// offline returns a Client that reads only the bundle: its own transport fails
// every request.
func offline(t *testing.T, b *skillbundle.Bundle, requireSigned bool, roots ...trust.Root) *discovery.Client {
	t.Helper()
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: &http.Client{Transport: failing{}}, WrapTransport: b.WrapTransport,
		InsecureAllowPrivateOrigins: true, TrustRoots: roots, RequireSignedSkills: requireSigned})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// getAll lists the bundle's index and fetches every skill, as an install does.
func getAll(t *testing.T, c *discovery.Client, b *skillbundle.Bundle) (map[string]*discovery.Skill, error) {
	t.Helper()
	ix, err := c.ListSkills(context.Background(), b.Source())
	if err != nil {
		return nil, err
	}
	out := map[string]*discovery.Skill{}
	for _, e := range ix.Index.Skills {
		sk, err := c.GetSkill(context.Background(), ix, e.Name)
		if err != nil {
			return out, err
		}
		out[e.Name] = sk
	}
	return out, nil
}

func TestBundleInstallsOfflineWithTheSameVerification(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.publish(t)
	root := s.sign(t, 1)
	data := write(t, s, nil) // no trust roots: the manifests are bundled all the same

	b, err := skillbundle.Read(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range b.Manifest.Files {
		paths = append(paths, "/"+f.Path)
		if !strings.HasPrefix(f.URL, s.ts.URL+"/") {
			t.Errorf("file %s names %s, not a URL of the origin", f.Path, f.URL)
		}
	}
	want := []string{agentskills.IndexPath, ledgerPath, ledgerPath + trust.ManifestSuffix, pdfPath, pdfPath + trust.ManifestSuffix}
	slices.Sort(want)
	if !slices.Equal(paths, want) || b.Manifest.Origin != s.ts.URL || b.Source() != s.ts.URL {
		t.Fatalf("bundle holds %v from %s (source %s), want %v", paths, b.Manifest.Origin, b.Source(), want)
	}
	// The index is stored as served, byte for byte.
	if got := served(t, b, agentskills.IndexPath); !bytes.Equal(got, s.get(agentskills.IndexPath)) {
		t.Error("the bundled index differs from the one served")
	}

	s.ts.Close() // the origin is gone; the client has no network either
	sks, err := getAll(t, offline(t, b, true, root), b)
	if err != nil {
		t.Fatalf("offline install: %v", err)
	}
	for name, sk := range sks {
		if !sk.Verified || sk.Publisher == nil || !sk.Publisher.Verified || sk.Publisher.Publisher != "Example Corp" {
			t.Errorf("%s: verified %v, publisher %+v", name, sk.Verified, sk.Publisher)
		}
		if !strings.HasPrefix(sk.Entry.URL, s.ts.URL+"/") {
			t.Errorf("%s: entry URL %s is not the origin's", name, sk.Entry.URL)
		}
	}
	if len(sks["ledger"].Files) != 2 {
		t.Errorf("ledger unpacked to %d files", len(sks["ledger"].Files))
	}
}

// served returns what the bundle's transport answers for path on its origin.
func served(t *testing.T, b *skillbundle.Bundle, path string) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.Manifest.Origin+path, nil)
	resp, err := b.WrapTransport(failing{}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	data, _ := io.ReadAll(resp.Body)
	return data
}

// entry is one member of a hand-made archive.
type entry struct {
	name string
	typ  byte
	body []byte
	size int64 // declared size when not len(body) (the body is then not written)
	link string
}

// rawTar writes entries as they are, however hostile.
func rawTar(t *testing.T, es ...entry) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, e := range es {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Name: e.name, Typeflag: typ, Mode: 0o644, Size: int64(len(e.body)), Linkname: e.link, Format: tar.FormatPAX}
		if typ != tar.TypeReg {
			h.Size = 0
		}
		if e.size != 0 {
			h.Size = e.size
			if err := tw.WriteHeader(h); err != nil {
				t.Fatal(err)
			}
			return b.Bytes() // a declared size with nothing behind it: the reader must stop at the header
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			tw.Write(e.body)
		}
	}
	tw.Close()
	return b.Bytes()
}

// members reads a bundle written by Write back into its manifest and files.
func members(t *testing.T, data []byte) (skillbundle.Manifest, map[string][]byte) {
	t.Helper()
	var m skillbundle.Manifest
	files := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		if h.Name == skillbundle.ManifestName {
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatal(err)
			}
			continue
		}
		files[h.Name] = body
	}
	return m, files
}

// rebuild writes a bundle of m and files, with sizes and digests recomputed so that
// bundle.json is consistent with whatever the files now hold, and extra entries after.
func rebuild(t *testing.T, m skillbundle.Manifest, files map[string][]byte, extra ...entry) []byte {
	t.Helper()
	for i, f := range m.Files {
		m.Files[i].Size, m.Files[i].Digest = int64(len(files[f.Path])), skilllock.Digest(files[f.Path])
	}
	mj, _ := json.Marshal(m)
	es := []entry{{name: skillbundle.ManifestName, body: mj}}
	for _, f := range m.Files {
		es = append(es, entry{name: f.Path, body: files[f.Path]})
	}
	return rawTar(t, append(es, extra...)...)
}

func TestReadRefusesHostileBundles(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.publish(t)
	good := write(t, s, nil)
	m, files := members(t, good)
	mj, _ := json.Marshal(m)
	head := entry{name: skillbundle.ManifestName, body: mj}
	var all []entry
	for _, f := range m.Files {
		all = append(all, entry{name: f.Path, body: files[f.Path]})
	}
	with := func(es ...entry) []byte { return rawTar(t, append(append([]entry{head}, all...), es...)...) }
	other := m
	other.Files = slices.Clone(m.Files)
	other.Files[0].URL = "https://elsewhere.example/" + other.Files[0].Path
	otherJSON, _ := json.Marshal(other)
	tampered := m
	tampered.Files = slices.Clone(m.Files)
	tampered.Files[1].Digest = skilllock.Digest([]byte("other bytes"))
	tamperedJSON, _ := json.Marshal(tampered)

	tests := []struct {
		name string
		data []byte
		lim  *skillbundle.Limits
		want error
		says string
	}{
		{"not a tar archive", []byte("PK\x03\x04 a zip, say"), nil, skillbundle.ErrMalformed, "not a tar archive"},
		{"no bundle.json first", rawTar(t, all...), nil, skillbundle.ErrMalformed, "first entry"},
		{"dot-dot path", with(entry{name: "../../etc/cron.d/x", body: []byte("x")}), nil, skillbundle.ErrMalformed, `"../../etc/cron.d/x"`},
		{"absolute path", with(entry{name: "/etc/passwd", body: []byte("x")}), nil, skillbundle.ErrMalformed, `"/etc/passwd"`},
		{"backslash path", with(entry{name: `..\..\x`, body: []byte("x")}), nil, skillbundle.ErrMalformed, "not a clean relative path"},
		{"symlink", with(entry{name: "link", typ: tar.TypeSymlink, link: "/etc/passwd"}), nil, skillbundle.ErrMalformed, "not a regular file"},
		{"hard link", with(entry{name: "hard", typ: tar.TypeLink, link: m.Files[0].Path}), nil, skillbundle.ErrMalformed, "not a regular file"},
		{"duplicate name", with(entry{name: m.Files[0].Path, body: files[m.Files[0].Path]}), nil, skillbundle.ErrMalformed, "appears twice"},
		{"10 GB declared", with(entry{name: "huge.bin", size: 10 << 30}), nil, skillbundle.ErrTooLarge, "10737418240 bytes"},
		{"too many entries", good, &skillbundle.Limits{MaxFiles: 3}, skillbundle.ErrTooLarge, "files"},
		{"over the byte limit", good, &skillbundle.Limits{MaxBytes: 100}, skillbundle.ErrTooLarge, "bytes"},
		{"file on another origin", rawTar(t, append([]entry{{name: skillbundle.ManifestName, body: otherJSON}}, all...)...), nil, skillbundle.ErrMalformed, "elsewhere.example"},
		{"file differs from bundle.json", rawTar(t, append([]entry{{name: skillbundle.ManifestName, body: tamperedJSON}}, all...)...), nil, skillbundle.ErrMalformed, m.Files[1].Path},
		{"listed file missing", rawTar(t, append([]entry{head}, all[1:]...)...), nil, skillbundle.ErrMalformed, "does not hold"},
		{"unknown member", rawTar(t, append([]entry{{name: skillbundle.ManifestName, body: []byte(`{"version":1,"extra":true}`)}}, all...)...), nil, skillbundle.ErrMalformed, "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := skillbundle.Read(bytes.NewReader(tt.data), tt.lim)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) || b != nil {
				t.Fatalf("Read = %v, %v; want %v saying %q", b, err, tt.want, tt.says)
			}
		})
	}
}

func TestBundleIsVerifiedAsTheOrigin(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.publish(t)
	root := s.sign(t, 1)
	m, files := members(t, write(t, s, nil))
	idx := strings.TrimPrefix(agentskills.IndexPath, "/")

	t.Run("an extra file is ignored, warned about and never served", func(t *testing.T) {
		b, err := skillbundle.Read(bytes.NewReader(rebuild(t, m, files, entry{name: ".well-known/agent-skills/evil/SKILL.md", body: []byte("---\nname: evil\n---\n")})), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Warnings) != 1 || !strings.Contains(b.Warnings[0], "evil/SKILL.md") || !strings.Contains(b.Warnings[0], "not installed") {
			t.Errorf("warnings = %q", b.Warnings)
		}
		if got := served(t, b, "/.well-known/agent-skills/evil/SKILL.md"); got != nil {
			t.Errorf("the extra file was served: %q", got)
		}
		if sks, err := getAll(t, offline(t, b, true, root), b); err != nil || len(sks) != 2 {
			t.Errorf("install with an extra file: %d skills, %v", len(sks), err)
		}
	})

	t.Run("index digests that do not match the files", func(t *testing.T) {
		f := cloneFiles(files)
		f[strings.TrimPrefix(pdfPath, "/")] = []byte("---\nname: pdf\ndescription: Swapped.\n---\n")
		b, err := skillbundle.Read(bytes.NewReader(rebuild(t, m, f)), nil)
		if err != nil {
			t.Fatal(err) // bundle.json is consistent: the index is what refuses it
		}
		_, err = getAll(t, offline(t, b, false), b)
		if !errors.Is(err, agentskills.ErrDigestMismatch) || !strings.Contains(err.Error(), pdfPath) {
			t.Errorf("install of a swapped artifact = %v, want a digest mismatch naming %s", err, pdfPath)
		}
	})

	t.Run("a swapped index and artifact, signed by the origin's key no more", func(t *testing.T) {
		f := cloneFiles(files)
		swapped := []byte("---\nname: pdf\ndescription: Swapped.\n---\n")
		f[strings.TrimPrefix(pdfPath, "/")] = swapped
		var ix map[string]any
		json.Unmarshal(f[idx], &ix)
		ix["skills"].([]any)[0].(map[string]any)["digest"] = agentskills.Digest(swapped)
		f[idx], _ = json.Marshal(ix)
		b, err := skillbundle.Read(bytes.NewReader(rebuild(t, m, f)), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = getAll(t, offline(t, b, true, root), b)
		if !errors.Is(err, trust.ErrDigestMismatch) {
			t.Errorf("install of a re-indexed artifact under --require-signed = %v, want the signature's digest refusing it", err)
		}
	})

	t.Run("a signature from a key not in the trust roots", func(t *testing.T) {
		b, err := skillbundle.Read(bytes.NewReader(rebuild(t, m, files)), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = getAll(t, offline(t, b, true, rootFor(t, s.ts.URL, 2)), b)
		var ve *trust.VerifyError
		if !errors.As(err, &ve) || !errors.Is(err, trust.ErrUnknownKey) {
			t.Errorf("install with another pinned key = %v, want ErrUnknownKey", err)
		}
	})

	t.Run("a dropped signature under require-signed", func(t *testing.T) {
		mm := m
		mm.Files = slices.DeleteFunc(slices.Clone(m.Files), func(f skillbundle.File) bool { return strings.HasSuffix(f.Path, trust.ManifestSuffix) })
		b, err := skillbundle.Read(bytes.NewReader(rebuild(t, mm, files)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := getAll(t, offline(t, b, true, root), b); !errors.Is(err, trust.ErrUnsigned) {
			t.Errorf("install without the signatures = %v, want ErrUnsigned", err)
		}
	})

	t.Run("other origins are never fetched", func(t *testing.T) {
		b, _ := skillbundle.Read(bytes.NewReader(rebuild(t, m, files)), nil)
		req, _ := http.NewRequest(http.MethodGet, "https://elsewhere.example/x", nil)
		if _, err := b.WrapTransport(nil).RoundTrip(req); !errors.Is(err, skillbundle.ErrNotInBundle) {
			t.Errorf("request to another origin = %v", err)
		}
	})
}

func cloneFiles(m map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestWriteFromLock(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.publish(t)
	lock := &skilllock.Lock{}
	lock.Put(skilllock.Skill{Name: "pdf", Source: s.ts.URL + pdfPath, Files: map[string]string{"SKILL.md": skilllock.Digest(pdfMD)}})

	var buf bytes.Buffer
	m, err := skillbundle.Write(context.Background(), &buf, s.ts.URL, &skillbundle.Options{Client: s.onlineOptions(), Lock: lock})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Files {
		if strings.Contains(f.Path, "ledger") {
			t.Errorf("a skill the lock does not record was bundled: %s", f.Path)
		}
	}

	// The site now serves another pdf: nothing is written.
	other := []byte("---\nname: pdf\ndescription: Changed.\n---\n")
	s.set(pdfPath, other, "text/markdown")
	s.setIndex(t, map[string][]byte{"pdf": other, "ledger": s.get(ledgerPath)})
	buf.Reset()
	_, err = skillbundle.Write(context.Background(), &buf, s.ts.URL, &skillbundle.Options{Client: s.onlineOptions(), Lock: lock})
	if !errors.Is(err, skillbundle.ErrLockMismatch) || !strings.Contains(err.Error(), "pdf/SKILL.md: changed") || buf.Len() != 0 {
		t.Errorf("Write from a lock the site no longer matches = %v (%d bytes written)", err, buf.Len())
	}
	if _, err := skillbundle.Write(context.Background(), &buf, s.ts.URL, &skillbundle.Options{Client: s.onlineOptions(), Lock: lock, Names: []string{"ledger"}}); err == nil {
		t.Error("Write of a name the lock does not record succeeded")
	}
}

func TestWriteIsBounded(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.publish(t)
	var buf bytes.Buffer
	_, err := skillbundle.Write(context.Background(), &buf, s.ts.URL, &skillbundle.Options{Client: s.onlineOptions(), Limits: skillbundle.Limits{MaxBytes: 200}})
	if !errors.Is(err, skillbundle.ErrTooLarge) || buf.Len() != 0 {
		t.Errorf("Write over the limit = %v (%d bytes written)", err, buf.Len())
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	if _, err := skillbundle.ReadFile(filepath.Join(t.TempDir(), "missing.tar"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile of a missing file = %v", err)
	}
}

func TestWriteFromLockReportsASkillNoLongerServed(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.publish(t)
	lock := &skilllock.Lock{}
	lock.Put(skilllock.Skill{Name: "pdf", Source: s.ts.URL + pdfPath, Files: map[string]string{"SKILL.md": skilllock.Digest(pdfMD)}})
	lock.Put(skilllock.Skill{Name: "gone", Source: s.ts.URL + "/.well-known/agent-skills/gone/SKILL.md", Files: map[string]string{"SKILL.md": skilllock.Digest(nil)}})
	var buf bytes.Buffer
	_, err := skillbundle.Write(context.Background(), &buf, s.ts.URL, &skillbundle.Options{Client: s.onlineOptions(), Lock: lock})
	if !errors.Is(err, skillbundle.ErrLockMismatch) || !strings.Contains(err.Error(), "gone: missing (no longer served)") || buf.Len() != 0 {
		t.Errorf("Write from a lock with a skill the index no longer lists = %v", err)
	}
}

func TestBundleOfAnIndexUnderAPath(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.set("/docs"+pdfPath, pdfMD, "text/markdown")
	s.set("/docs"+agentskills.IndexPath, []byte(`{"$schema": "`+agentskills.SchemaV020+`", "skills": [{"name": "pdf", "type": "skill-md",
		"description": "Read PDF files.", "url": "pdf/SKILL.md", "digest": "`+agentskills.Digest(pdfMD)+`"}]}`), "application/json")
	var buf bytes.Buffer
	if _, err := skillbundle.Write(context.Background(), &buf, s.ts.URL+"/docs", &skillbundle.Options{Client: s.onlineOptions()}); err != nil {
		t.Fatal(err)
	}
	b, err := skillbundle.Read(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.Source() != s.ts.URL+"/docs" {
		t.Errorf("Source() = %s", b.Source())
	}
	sks, err := getAll(t, offline(t, b, false), b)
	if err != nil || sks["pdf"] == nil || sks["pdf"].Entry.URL != s.ts.URL+"/docs"+pdfPath {
		t.Errorf("offline install of a path-scoped index: %v", err)
	}
}
