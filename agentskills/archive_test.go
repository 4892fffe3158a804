package agentskills_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
)

const skillMD = "---\nname: demo\ndescription: A demo skill.\n---\n\n# Demo\n"

// entry is one member of a test archive.
type entry struct {
	name     string
	body     string
	typ      byte // tar type; 0: regular file
	link     string
	mode     int64 // 0: 0644
	zipMode  fs.FileMode
	zeroSize int64 // a body of this many zero bytes instead of body (bombs)
}

func tarGz(t testing.TB, entries []entry, trailer []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Linkname: e.link, Mode: e.mode}
		if e.typ == tar.TypeXGlobalHeader {
			h = &tar.Header{Typeflag: tar.TypeXGlobalHeader, PAXRecords: map[string]string{"comment": "4f1c2d3e"}}
		}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Mode == 0 && h.Typeflag != tar.TypeXGlobalHeader {
			h.Mode = 0o644
		}
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(e.body)) + e.zeroSize
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			io.WriteString(tw, e.body)
			if e.zeroSize > 0 {
				io.CopyN(tw, zeros{}, e.zeroSize)
			}
		}
	}
	tw.Close()
	zw.Close()
	return append(b.Bytes(), trailer...)
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func zipFile(t testing.TB, entries []entry, trailer []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.zipMode != 0 {
			h.SetMode(e.zipMode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, e.body)
		if e.zeroSize > 0 {
			io.CopyN(w, zeros{}, e.zeroSize)
		}
	}
	zw.Close()
	return append(b.Bytes(), trailer...)
}

func TestArchives(t *testing.T) {
	t.Parallel()
	ok := []entry{{name: "SKILL.md", body: skillMD}, {name: "references/", typ: tar.TypeDir}, {name: "references/RULES.md", body: "# Rules\n"}}
	many := []entry{{name: "SKILL.md", body: skillMD}}
	for i := range 512 {
		many = append(many, entry{name: "f/" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "-" + itoa(i)})
	}
	deep := "SKILL.md"
	deepDir := strings.Repeat("d/", 17) + "x.md"
	tests := []struct {
		name    string
		tar     []entry // built as tar.gz
		zip     []entry // built as zip (when set)
		trailer []byte
		raw     []byte // used as is (tar.gz)
		want    error  // nil: accepted
		reason  string // part of the error
	}{
		{name: "valid tar.gz", tar: ok},
		{name: "valid zip", zip: []entry{{name: "SKILL.md", body: skillMD}, {name: "references/RULES.md", body: "# Rules\n"}}},
		{name: "./ prefixes", tar: []entry{{name: "./", typ: tar.TypeDir}, {name: "./SKILL.md", body: skillMD}}},
		{name: "pax global header (git archive)", tar: []entry{{name: "pax_global_header", typ: tar.TypeXGlobalHeader}, {name: "SKILL.md", body: skillMD}}},
		{name: "traversal", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "../evil.txt", body: "x"}}, want: agentskills.ErrUnsafeArchive, reason: ".."},
		{name: "traversal inside", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "a/../../evil.txt", body: "x"}}, want: agentskills.ErrUnsafeArchive, reason: ".."},
		{name: "absolute path", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "/etc/evil", body: "x"}}, want: agentskills.ErrUnsafeArchive, reason: "absolute"},
		{name: "backslash", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "..\\evil", body: "x"}}, want: agentskills.ErrUnsafeArchive, reason: "backslash"},
		{name: "drive letter", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "C:evil", body: "x"}}, want: agentskills.ErrUnsafeArchive, reason: "drive"},
		{name: "escape sequence in a name", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "a\x1b[2Jb.md", body: "x"}}, want: agentskills.ErrUnsafeArchive, reason: "control"},
		{name: "bidi override in a name", zip: []entry{{name: "SKILL.md", body: skillMD}, {name: "evil\u202egnp.md", body: "x"}}, want: agentskills.ErrUnsafeArchive, reason: "invisible"},
		{name: "invalid UTF-8 in a name", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "a\xffb.md", body: "x"}}, want: agentskills.ErrUnsafeArchive, reason: "UTF-8"},
		{name: "symlink escape", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "link", typ: tar.TypeSymlink, link: "/etc/passwd"}}, want: agentskills.ErrUnsafeArchive, reason: "symbolic link"},
		{name: "symlink then a file through it", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "dir", typ: tar.TypeSymlink, link: "/tmp"}, {name: "dir/evil", body: "x"}}, want: agentskills.ErrUnsafeArchive, reason: "symbolic link"},
		{name: "hardlink escape", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "hl", typ: tar.TypeLink, link: "../../etc/passwd"}}, want: agentskills.ErrUnsafeArchive, reason: "hard link"},
		{name: "device node", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "null", typ: tar.TypeChar}}, want: agentskills.ErrUnsafeArchive, reason: "device"},
		{name: "block device", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "sda", typ: tar.TypeBlock}}, want: agentskills.ErrUnsafeArchive, reason: "device"},
		{name: "FIFO", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "fifo", typ: tar.TypeFifo}}, want: agentskills.ErrUnsafeArchive, reason: "FIFO"},
		{name: "case collision overwriting SKILL.md", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "skill.md", body: "---\nname: evil\n---\n"}}, want: agentskills.ErrUnsafeArchive, reason: "collides"},
		{name: "NFC/NFD collision", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "caf\u00e9.md", body: "a"}, {name: "cafe\u0301.md", body: "b"}}, want: agentskills.ErrUnsafeArchive, reason: "collides"},
		{name: "duplicate entry", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "SKILL.md", body: "---\nname: evil\n---\n"}}, want: agentskills.ErrUnsafeArchive, reason: "duplicate"},
		{name: "file where a folder is", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "a", body: "x"}, {name: "a/b", body: "y"}}, want: agentskills.ErrUnsafeArchive, reason: "which is a file"},
		{name: "setuid, setgid and sticky bits", tar: []entry{{name: "SKILL.md", body: skillMD, mode: 0o7755}, {name: "run.sh", body: "#!/bin/sh\n", mode: 0o4755}}},
		{name: "tar bomb", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "bomb", zeroSize: 64 << 20}}, want: agentskills.ErrArchiveTooLarge, reason: "more than"},
		{name: "tar bomb under the size limit", tar: []entry{{name: "SKILL.md", body: skillMD}, {name: "bomb", zeroSize: 15 << 20}}, want: agentskills.ErrArchiveTooLarge, reason: "ratio"},
		{name: "zip bomb under the size limit", zip: []entry{{name: "SKILL.md", body: skillMD}, {name: "bomb", zeroSize: 15 << 20}}, want: agentskills.ErrArchiveTooLarge, reason: "ratio"},
		{name: "zip bomb", zip: []entry{{name: "SKILL.md", body: skillMD}, {name: "bomb", zeroSize: 64 << 20}}, want: agentskills.ErrArchiveTooLarge},
		{name: "too many entries", tar: many, want: agentskills.ErrArchiveTooLarge, reason: "entries"},
		{name: "too deep", tar: []entry{{name: deep, body: skillMD}, {name: deepDir, body: "x"}}, want: agentskills.ErrArchiveTooLarge, reason: "deeper"},
		{name: "SKILL.md in a wrapper folder", tar: []entry{{name: "demo/", typ: tar.TypeDir}, {name: "demo/SKILL.md", body: skillMD}}, want: agentskills.ErrUnsafeArchive, reason: "wrapper folder"},
		{name: "no SKILL.md", tar: []entry{{name: "README.md", body: "x"}}, want: agentskills.ErrUnsafeArchive, reason: "no SKILL.md"},
		{name: "data after the tar.gz", tar: ok, trailer: []byte("garbage"), want: agentskills.ErrUnsafeArchive, reason: "after the end"},
		{name: "data after the zip", zip: []entry{{name: "SKILL.md", body: skillMD}}, trailer: []byte("garbage"), want: agentskills.ErrUnsafeArchive, reason: "after the end"},
		{name: "zip symlink", zip: []entry{{name: "SKILL.md", body: skillMD}, {name: "link", body: "/etc/passwd", zipMode: fs.ModeSymlink | 0o777}}, want: agentskills.ErrUnsafeArchive, reason: "symbolic link"},
		{name: "zip traversal", zip: []entry{{name: "SKILL.md", body: skillMD}, {name: "../evil", body: "x"}}, want: agentskills.ErrUnsafeArchive, reason: ".."},
		{name: "not gzip", raw: []byte("plain text"), want: agentskills.ErrUnsafeArchive, reason: "gzip"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data, format := tc.raw, agentskills.FormatTarGz
			switch {
			case tc.zip != nil:
				data, format = zipFile(t, tc.zip, tc.trailer), agentskills.FormatZip
			case tc.tar != nil:
				data = tarGz(t, tc.tar, tc.trailer)
			}
			checkExtract(t, data, format, tc.want, tc.reason)
		})
	}
	t.Run("truncated", func(t *testing.T) {
		t.Parallel()
		data := tarGz(t, append(ok, entry{name: "big.md", body: strings.Repeat("abcdefgh", 4096)}), nil)
		checkExtract(t, data[:len(data)/2], agentskills.FormatTarGz, agentskills.ErrUnsafeArchive, "")
		z := zipFile(t, ok[:1], nil)
		checkExtract(t, z[:len(z)-30], agentskills.FormatZip, agentskills.ErrUnsafeArchive, "")
	})
}

func itoa(i int) string { return strconv.Itoa(i) }

// checkExtract extracts into a private folder and asserts the outcome, and that nothing
// was written outside it (or at all, when rejected).
func checkExtract(t *testing.T, data []byte, format agentskills.Format, want error, reason string) {
	t.Helper()
	parent := t.TempDir()
	target := filepath.Join(parent, "target")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(target)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	files, err := agentskills.ExtractArchive(data, format, root, agentskills.Limits{})
	if want == nil {
		if err != nil {
			t.Fatalf("rejected: %v", err)
		}
		got, _ := os.ReadFile(filepath.Join(target, "SKILL.md"))
		if string(got) != skillMD || len(files) == 0 {
			t.Errorf("extracted %v, SKILL.md %q", files, got)
		}
		_ = filepath.WalkDir(target, func(p string, d fs.DirEntry, err error) error {
			if info, _ := d.Info(); err == nil && !d.IsDir() && info.Mode().Perm()&^0o644 != 0 {
				t.Errorf("%s kept mode %v", p, info.Mode())
			}
			return nil
		})
	} else {
		var ae *agentskills.ArchiveError
		if !errors.Is(err, want) || !errors.As(err, &ae) || !strings.Contains(err.Error(), reason) {
			t.Fatalf("error = %v, want %v with %q", err, want, reason)
		}
		if left, _ := os.ReadDir(target); len(left) != 0 {
			t.Errorf("a rejected archive wrote %d entries", len(left))
		}
	}
	if all, _ := os.ReadDir(parent); len(all) != 1 {
		t.Errorf("something was written beside the target: %v", all)
	}
}

func TestFormatOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ct, url string
		want    agentskills.Format
	}{
		{"application/gzip", "https://x/a", agentskills.FormatTarGz},
		{"application/zip; charset=binary", "https://x/a.tar.gz", agentskills.FormatZip},
		{"application/octet-stream", "https://x/a.tgz?v=1", agentskills.FormatTarGz},
		{"", "https://x/a.ZIP", agentskills.FormatZip},
		{"", "https://x/a.tar", agentskills.FormatUnknown},
	} {
		if got := agentskills.FormatOf(tc.ct, tc.url); got != tc.want {
			t.Errorf("FormatOf(%q, %q) = %v, want %v", tc.ct, tc.url, got, tc.want)
		}
	}
}

// FuzzReadArchive: no panic on any bytes, and an accepted archive is safe.
func FuzzReadArchive(f *testing.F) {
	f.Add(tarGz(f, []entry{{name: "SKILL.md", body: skillMD}, {name: "a/b.md", body: "x"}}, nil), true)
	f.Add(zipFile(f, []entry{{name: "SKILL.md", body: skillMD}}, nil), false)
	// One small instance of each hostile metadata shape (see archive_meta_test.go).
	f.Add(paxPathNames(f, 2, maxName+1), true)
	f.Add(tarGz(f, append([]entry{{name: "SKILL.md", body: skillMD}}, slices.Repeat([]entry{{typ: tar.TypeXGlobalHeader}}, 520)...), nil), true)
	f.Add(gnuLongNames(f, 3, maxName+1), true)
	f.Add(paxComments(f, 2, 1<<10), true)
	f.Add(zipFalseSize(f, 1<<20-64, 1<<30, false), false) // read whole: the fuzz limits keep it under the ratio floor
	f.Add(zipNamed(f, strings.Repeat("z", maxName+1)), false)
	f.Fuzz(func(t *testing.T, data []byte, isTar bool) {
		format := agentskills.FormatZip
		if isTar {
			format = agentskills.FormatTarGz
		}
		a, err := agentskills.ReadArchive(data, format, agentskills.Limits{MaxBytes: 1 << 20})
		if err != nil {
			return
		}
		if _, ok := a.Get("SKILL.md"); !ok || a.Size() > 1<<20 {
			t.Fatalf("accepted an archive without SKILL.md or over the limit")
		}
		for _, f := range a.Files {
			if len(f.Path) > maxName || strings.HasPrefix(f.Path, "/") || strings.Contains("/"+f.Path+"/", "/../") || strings.ContainsAny(f.Path, "\\\x00") {
				t.Fatalf("unsafe path accepted: %q", f.Path)
			}
		}
	})
}

// BenchmarkUnpackTarGz unpacks a 16 MiB (512 × 32 KiB) skill into memory, beside
// BenchmarkGunzipRaw (compress/gzip alone over the same bytes).
func unpackBenchData(b *testing.B) []byte {
	b.Helper()
	es := []entry{{name: "SKILL.md", body: skillMD}}
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. 0123456789\n", 600)[:32<<10]
	for i := range 510 {
		es = append(es, entry{name: "references/f" + itoa(i) + ".md", body: text})
	}
	return tarGz(b, es, nil)
}

func BenchmarkUnpackTarGz(b *testing.B) {
	data := unpackBenchData(b)
	a, err := agentskills.ReadArchive(data, agentskills.FormatTarGz, agentskills.Limits{MaxRatio: 1000})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(a.Size())
	for b.Loop() {
		if _, err := agentskills.ReadArchive(data, agentskills.FormatTarGz, agentskills.Limits{MaxRatio: 1000}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGunzipRaw(b *testing.B) {
	data := unpackBenchData(b)
	zr, _ := gzip.NewReader(bytes.NewReader(data))
	n, _ := io.Copy(io.Discard, zr)
	b.SetBytes(n)
	for b.Loop() {
		zr, _ := gzip.NewReader(bytes.NewReader(data))
		if _, err := io.Copy(io.Discard, zr); err != nil {
			b.Fatal(err)
		}
	}
}

// TestArchiveDigestFirst: a tampered archive is refused by its digest before it is
// opened, and nothing is written.
func TestArchiveDigestFirst(t *testing.T) {
	t.Parallel()
	good := tarGz(t, []entry{{name: "SKILL.md", body: skillMD}}, nil)
	published := agentskills.Digest(good)
	tampered := tarGz(t, []entry{{name: "SKILL.md", body: strings.Replace(skillMD, "demo skill", "evil skill", 1)}}, nil)
	target := t.TempDir()
	root, err := os.OpenRoot(target)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	unpack := func(data []byte) error {
		if err := agentskills.Verify(data, -1, published); err != nil {
			return err
		}
		_, err := agentskills.ExtractArchive(data, agentskills.FormatTarGz, root, agentskills.Limits{})
		return err
	}
	if err := unpack(tampered); !errors.Is(err, agentskills.ErrDigestMismatch) {
		t.Fatalf("tampered archive: %v", err)
	}
	if left, _ := os.ReadDir(target); len(left) != 0 {
		t.Fatalf("a tampered archive wrote %d entries", len(left))
	}
	if err := unpack(good); err != nil {
		t.Fatalf("good archive: %v", err)
	}
	// Extracting again never overwrites what is there.
	if _, err := agentskills.ExtractArchive(good, agentskills.FormatTarGz, root, agentskills.Limits{}); err == nil {
		t.Error("a second extraction overwrote the first")
	}
}
