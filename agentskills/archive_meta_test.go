package agentskills_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery/agentskills"
)

// Archive metadata (tar headers and padding, PAX records and global headers, GNU long
// names, zip names, extra fields and comments) counts toward the limits like file
// contents. The hostile archives here unpack to hundreds of MiB or more; they are
// built in milliseconds by deflating each repeated piece once (see gzipJoin).

// maxName is the longest entry name ReadArchive accepts, in bytes; the cap is inclusive.
const maxName = 4096

// deflatePiece compresses p on its own (an empty window, flushed to a byte boundary),
// so the result may follow any other piece in a deflate stream.
func deflatePiece(t testing.TB, p []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	fw, err := flate.NewWriter(&b, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(p); err != nil {
		t.Fatal(err)
	}
	if err := fw.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gzipJoin builds one gzip member out of pieces deflated separately. Its zero value
// is not usable; call newGzipJoin.
type gzipJoin struct {
	out  bytes.Buffer
	crc  uint32
	size uint32 // unpacked size modulo 2³², as gzip records it
}

func newGzipJoin() *gzipJoin {
	g := &gzipJoin{}
	g.out.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}) // magic, deflate, no flags or mtime, unknown OS
	return g
}

// add appends raw n times; z is deflatePiece(raw).
func (g *gzipJoin) add(raw, z []byte, n int) {
	for range n {
		g.out.Write(z)
		g.crc = crc32.Update(g.crc, crc32.IEEETable, raw)
		g.size += uint32(len(raw))
	}
}

// piece appends raw once.
func (g *gzipJoin) piece(t testing.TB, raw []byte) { g.add(raw, deflatePiece(t, raw), 1) }

// bytes ends the stream with the end-of-archive marker and returns the gzip file.
func (g *gzipJoin) bytes(t testing.TB) []byte {
	t.Helper()
	g.piece(t, make([]byte, 1024)) // two zero blocks end a tar archive
	var end bytes.Buffer
	fw, _ := flate.NewWriter(&end, flate.BestCompression)
	if err := fw.Close(); err != nil { // a final empty block
		t.Fatal(err)
	}
	b := append(g.out.Bytes(), end.Bytes()...)
	b = binary.LittleEndian.AppendUint32(b, g.crc)
	return binary.LittleEndian.AppendUint32(b, g.size)
}

// tarBlocks returns the blocks write produces, padded, without the end-of-archive marker.
func tarBlocks(t testing.TB, write func(tw *tar.Writer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	if err := write(tw); err != nil {
		t.Fatal(err)
	}
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// writeFile writes a regular file; h gives its name, format and PAX records.
func writeFile(tw *tar.Writer, h *tar.Header, body string) error {
	h.Typeflag, h.Mode, h.Size = tar.TypeReg, 0o644, int64(len(body))
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err := io.WriteString(tw, body)
	return err
}

func skillBlocks(t testing.TB) []byte {
	t.Helper()
	return tarBlocks(t, func(tw *tar.Writer) error { return writeFile(tw, &tar.Header{Name: "SKILL.md"}, skillMD) })
}

// gzipTar builds a tar.gz of SKILL.md and the entries write adds.
func gzipTar(t testing.TB, write func(tw *tar.Writer) error) []byte {
	t.Helper()
	g := newGzipJoin()
	g.piece(t, skillBlocks(t))
	g.piece(t, tarBlocks(t, write))
	return g.bytes(t)
}

// letters returns n pseudo-random letters: text that deflate barely compresses.
func letters(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(rng.IntN(26))
	}
	return string(b)
}

// paxPathNames is a tar.gz of SKILL.md and n empty files whose PAX path records are
// size bytes each, distinct in their last four bytes.
func paxPathNames(t testing.TB, n, size int) []byte {
	t.Helper()
	run := strings.Repeat("a", size-4)
	unit := tarBlocks(t, func(tw *tar.Writer) error {
		return writeFile(tw, &tar.Header{Name: run + "0000", Format: tar.FormatPAX}, "")
	})
	at := bytes.Index(unit, []byte(run+"0000")) + len(run)
	head, tail := unit[:at], bytes.Clone(unit[at:])
	zhead := deflatePiece(t, head)
	g := newGzipJoin()
	g.piece(t, skillBlocks(t))
	for i := range n {
		copy(tail, fmt.Sprintf("%04d", i))
		g.add(head, zhead, 1)
		g.piece(t, tail)
	}
	return g.bytes(t)
}

// globalHeaders is a tar.gz of SKILL.md and n PAX global headers, each carrying a
// comment record of comment.
func globalHeaders(t testing.TB, n int, comment string) []byte {
	t.Helper()
	unit := tarBlocks(t, func(tw *tar.Writer) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeXGlobalHeader, PAXRecords: map[string]string{"comment": comment}})
	})
	g := newGzipJoin()
	g.piece(t, skillBlocks(t))
	g.add(unit, deflatePiece(t, unit), n)
	return g.bytes(t)
}

// gnuLongNames is a tar.gz of SKILL.md and one file whose GNU long-name record of
// size bytes comes n times: archive/tar keeps the last and discards the others.
func gnuLongNames(t testing.TB, n, size int) []byte {
	t.Helper()
	unit := tarBlocks(t, func(tw *tar.Writer) error {
		return writeFile(tw, &tar.Header{Name: strings.Repeat("g", size), Format: tar.FormatGNU}, "x")
	})
	record := unit[:512+(size+1+511)/512*512] // the 'L' header, then the name and a NUL, padded
	g := newGzipJoin()
	g.piece(t, skillBlocks(t))
	g.add(record, deflatePiece(t, record), n-1)
	g.piece(t, unit)
	return g.bytes(t)
}

// paxComments is a tar.gz of SKILL.md and n small files, each with a PAX comment
// record of size incompressible bytes.
func paxComments(t testing.TB, n, size int) []byte {
	t.Helper()
	return gzipTar(t, func(tw *tar.Writer) error {
		for i := range n {
			h := &tar.Header{Name: "f" + itoa(i), PAXRecords: map[string]string{"comment": letters(size, uint64(i))}}
			if err := writeFile(tw, h, "x"); err != nil {
				return err
			}
		}
		return nil
	})
}

// zipWith builds a zip of SKILL.md and the files add writes.
func zipWith(t testing.TB, add func(zw *zip.Writer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	w, err := zw.Create("SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, skillMD)
	if err := add(zw); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// zipFalseSize is a zip whose file unpacks to size zero bytes from a deflate stream
// of a few KiB, while its headers declare declared compressed bytes. When pad is set,
// the archive really holds that many bytes (the stream, then junk); otherwise the
// declared size runs past the end of the archive.
func zipFalseSize(t testing.TB, size int, declared uint64, pad bool) []byte {
	t.Helper()
	var z bytes.Buffer
	fw, _ := flate.NewWriter(&z, flate.BestCompression)
	io.CopyN(fw, zeros{}, int64(size))
	fw.Close()
	crc := crc32.Update(0, crc32.IEEETable, make([]byte, size))
	return zipWith(t, func(zw *zip.Writer) error {
		h := &zip.FileHeader{Name: "bomb", Method: zip.Deflate, CRC32: crc, CompressedSize64: declared, UncompressedSize64: uint64(size)}
		w, err := zw.CreateRaw(h)
		if err != nil {
			return err
		}
		w.Write(z.Bytes())
		if pad {
			_, err = w.Write(make([]byte, int(declared)-z.Len()))
		}
		return err
	})
}

// zipNamed is a zip of SKILL.md and a file named name.
func zipNamed(t testing.TB, name string) []byte {
	t.Helper()
	return zipWith(t, func(zw *zip.Writer) error {
		w, err := zw.Create(name)
		io.WriteString(w, "x")
		return err
	})
}

// zipFat is a zip of SKILL.md and n files whose extra field and comment are as large
// as zip allows (64 KiB each).
func zipFat(t testing.TB, n int) []byte {
	t.Helper()
	extra := binary.LittleEndian.AppendUint16(binary.LittleEndian.AppendUint16(nil, 0xcafe), 0xffff-4)
	extra = append(extra, letters(0xffff-4, 7)...)
	return zipWith(t, func(zw *zip.Writer) error {
		for i := range n {
			w, err := zw.CreateHeader(&zip.FileHeader{Name: "f" + itoa(i), Method: zip.Deflate, Extra: extra, Comment: letters(0xffff, uint64(i))})
			if err != nil {
				return err
			}
			io.WriteString(w, "x")
		}
		return nil
	})
}

// TestArchiveMetadataLimits: metadata counts toward the byte budget, the compression
// ratio and the entry limit, and names are capped at 4096 bytes, while reading: a
// hostile archive is refused before it allocates much.
//
// It is not parallel on purpose: it measures the process-wide TotalAlloc, and a
// top-level test that does not call t.Parallel runs alone.
func TestArchiveMetadataLimits(t *testing.T) { //nolint:paralleltest // measures TotalAlloc
	small := agentskills.Limits{MaxBytes: 64 << 10, MaxEntries: 8}
	tests := []struct {
		name   string
		build  func(t testing.TB) []byte
		format agentskills.Format
		lim    agentskills.Limits
		want   error  // nil: accepted
		reason string // part of the error
	}{
		{
			name:  "500 PAX path names of 1 MiB",
			build: func(t testing.TB) []byte { return paxPathNames(t, 500, 1<<20-64) },
			want:  agentskills.ErrArchiveTooLarge, reason: "ratio",
		},
		{
			name:  "PAX path name of 4097 bytes",
			build: func(t testing.TB) []byte { return paxPathNames(t, 1, maxName+1) },
			want:  agentskills.ErrArchiveTooLarge, reason: "longer than 4096 bytes",
		},
		{
			name:  "PAX path name of 4096 bytes",
			build: func(t testing.TB) []byte { return paxPathNames(t, 1, maxName) },
		},
		{
			name:  "1500 PAX global headers of 1 MiB",
			build: func(t testing.TB) []byte { return globalHeaders(t, 1500, strings.Repeat("x", 1<<20-64)) },
			want:  agentskills.ErrArchiveTooLarge, reason: "ratio",
		},
		{
			name:  "PAX global headers past the entry limit",
			build: func(t testing.TB) []byte { return globalHeaders(t, 600, "4f1c2d3e") },
			want:  agentskills.ErrArchiveTooLarge, reason: "more than 512 entries",
		},
		{
			name:  "incompressible PAX global headers past the byte budget",
			build: func(t testing.TB) []byte { return globalHeaders(t, 4, letters(512<<10, 1)) },
			lim:   small, want: agentskills.ErrArchiveTooLarge, reason: "headers included",
		},
		{
			name:  "incompressible PAX records past the byte budget",
			build: func(t testing.TB) []byte { return paxComments(t, 6, 256<<10) },
			lim:   small, want: agentskills.ErrArchiveTooLarge, reason: "headers included",
		},
		{
			name:  "GNU long name of 4097 bytes",
			build: func(t testing.TB) []byte { return gnuLongNames(t, 1, maxName+1) },
			want:  agentskills.ErrArchiveTooLarge, reason: "longer than 4096 bytes",
		},
		{
			name:  "GNU long name of 4096 bytes",
			build: func(t testing.TB) []byte { return gnuLongNames(t, 1, maxName) },
		},
		{
			name:  "400 GNU long-name records of 512 KiB before one file",
			build: func(t testing.TB) []byte { return gnuLongNames(t, 400, 512<<10) },
			want:  agentskills.ErrArchiveTooLarge, reason: "ratio",
		},
		{
			name:   "zip declaring a false compressed size inside the archive",
			build:  func(t testing.TB) []byte { return zipFalseSize(t, 15<<20, 256<<10, true) },
			format: agentskills.FormatZip, want: agentskills.ErrArchiveTooLarge, reason: "ratio",
		},
		{
			name:   "zip declaring a false compressed size past the archive",
			build:  func(t testing.TB) []byte { return zipFalseSize(t, 15<<20, 1<<30, false) },
			format: agentskills.FormatZip, want: agentskills.ErrArchiveTooLarge, reason: "ratio",
		},
		{
			name:   "zip name of 64 KiB",
			build:  func(t testing.TB) []byte { return zipNamed(t, strings.Repeat("z", 1<<16-1)) },
			format: agentskills.FormatZip, want: agentskills.ErrArchiveTooLarge, reason: "longer than 4096 bytes",
		},
		{
			name:   "zip name of 4096 bytes",
			build:  func(t testing.TB) []byte { return zipNamed(t, strings.Repeat("z", maxName)) },
			format: agentskills.FormatZip,
		},
		{
			name:   "zip extra fields and comments past the byte budget",
			build:  func(t testing.TB) []byte { return zipFat(t, 4) },
			format: agentskills.FormatZip, lim: small, want: agentskills.ErrArchiveTooLarge, reason: "headers included",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { //nolint:paralleltest // measures TotalAlloc
			data := tc.build(t)
			format := tc.format
			if format == agentskills.FormatUnknown {
				format = agentskills.FormatTarGz
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := agentskills.ReadArchive(data, format, tc.lim)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes packed; %v, %d KiB allocated", len(data), took, alloc>>10)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			var ae *agentskills.ArchiveError
			if !errors.Is(err, tc.want) || !errors.As(err, &ae) || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("error = %.300v, want %v with %q", err, tc.want, tc.reason)
			}
			if ae != nil && len(ae.Entry) > maxName {
				t.Errorf("the error quotes a name of %d bytes", len(ae.Entry))
			}
			if alloc > 64<<20 {
				t.Errorf("allocated %d MiB before refusing, want under 64 MiB", alloc>>20)
			}
		})
	}
}

// TestArchiveFullBudget: an archive at every default limit at once (512 entries,
// 16 MiB of barely compressible contents, names long enough to need PAX records or
// GNU long names) still reads in each format: metadata has its own allowance.
func TestArchiveFullBudget(t *testing.T) {
	t.Parallel()
	const entries, total = agentskills.DefaultMaxEntries, agentskills.DefaultMaxBytes
	text := letters(1<<20, 42)
	name := func(i int) string { return "references/" + strings.Repeat("r", 150) + "/f" + itoa(i) + ".md" }
	// body gives file i (of the entries-1 after SKILL.md) its share of the budget.
	body := func(i int) string {
		n := (total - len(skillMD)) / (entries - 1)
		if i == entries-2 {
			n = total - len(skillMD) - n*(entries-2)
		}
		off := i * 4099 % (len(text) - n)
		return text[off : off+n]
	}
	tests := []struct {
		name   string
		format agentskills.Format
		build  func(t testing.TB) []byte
	}{
		{"tar.gz, PAX", agentskills.FormatTarGz, func(t testing.TB) []byte { return fullTar(t, tar.FormatPAX, entries, name, body) }},
		{"tar.gz, GNU", agentskills.FormatTarGz, func(t testing.TB) []byte { return fullTar(t, tar.FormatGNU, entries, name, body) }},
		{"zip", agentskills.FormatZip, func(t testing.TB) []byte {
			return zipWith(t, func(zw *zip.Writer) error {
				for i := range entries - 1 {
					w, err := zw.CreateHeader(&zip.FileHeader{Name: name(i), Method: zip.Deflate, Comment: "c"})
					if err != nil {
						return err
					}
					io.WriteString(w, body(i))
				}
				return nil
			})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, err := agentskills.ReadArchive(tc.build(t), tc.format, agentskills.Limits{})
			if err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if a.Size() != total || len(a.Files) != entries {
				t.Errorf("read %d files, %d bytes; want %d, %d", len(a.Files), a.Size(), entries, total)
			}
		})
	}
}

func fullTar(t testing.TB, format tar.Format, entries int, name func(int) string, body func(int) string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	if err := writeFile(tw, &tar.Header{Name: "SKILL.md", Format: format}, skillMD); err != nil {
		t.Fatal(err)
	}
	for i := range entries - 1 {
		if err := writeFile(tw, &tar.Header{Name: name(i), Format: format}, body(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
