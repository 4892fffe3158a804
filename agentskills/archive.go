package agentskills

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"math"
	"mime"
	"os"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Format is an archive format.
type Format int

const (
	// FormatUnknown: neither the Content-Type nor the URL suffix says.
	FormatUnknown Format = iota
	// FormatTarGz is a gzip-compressed tar (.tar.gz, .tgz, application/gzip).
	FormatTarGz
	// FormatZip is a zip file (.zip, application/zip).
	FormatZip
)

// String returns a readable form of the Format.
func (f Format) String() string {
	switch f {
	case FormatTarGz:
		return "tar.gz"
	case FormatZip:
		return "zip"
	}
	return "unknown"
}

// FormatOf picks the format from the Content-Type, else (missing or
// application/octet-stream) from the URL's suffix.
func FormatOf(contentType, rawURL string) Format {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch strings.ToLower(mt) {
	case "application/gzip", "application/x-gzip", "application/x-tar+gzip", "application/x-gtar", "application/x-compressed-tar":
		return FormatTarGz
	case "application/zip", "application/x-zip-compressed":
		return FormatZip
	}
	p := strings.ToLower(rawURL)
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	switch {
	case strings.HasSuffix(p, ".tar.gz"), strings.HasSuffix(p, ".tgz"):
		return FormatTarGz
	case strings.HasSuffix(p, ".zip"):
		return FormatZip
	}
	return FormatUnknown
}

// Limits bound what an archive may unpack to. The zero value gives the defaults; each
// limit is enforced while reading, so a bomb stops at the limit.
//
// Every byte unpacked counts, not only file contents: tar headers and padding, PAX
// records and global headers, GNU long names, and zip names, extra fields and
// comments. This metadata may take the unpacked total past MaxBytes by at most
// 8 KiB per MaxEntries (4 MiB by default), plus 1 MiB of padding after a tar
// archive's end, and it counts toward MaxRatio. Every header counts toward
// MaxEntries, PAX global headers and the root folder included. An entry name may
// have at most 4096 bytes.
type Limits struct {
	MaxBytes   int64 // total size of the files; 0: 16 MiB (the SEP-2640 skill limit)
	MaxEntries int   // headers: files, folders and PAX global headers; 0: 512
	MaxDepth   int   // path segments; 0: 16
	MaxRatio   int64 // unpacked bytes (metadata included) per compressed byte read, checked past 1 MiB; 0: 100
}

// Default limits.
const (
	DefaultMaxBytes   = 16 << 20
	DefaultMaxEntries = 512
	DefaultMaxDepth   = 16
	DefaultMaxRatio   = 100
	ratioFloor        = 1 << 20 // small archives compress well and are harmless

	// maxName caps an entry's name, inclusive: Linux's PATH_MAX. archive/tar accepts
	// PAX path records and GNU long names of up to 1 MiB, zip names of up to 64 KiB.
	maxName = 4096
	// metaPerEntry is the metadata one entry may add to the unpacked stream: a tar
	// header, a PAX header with its records (a name of up to maxName bytes among them)
	// or a GNU long name, and padding; or a zip name, extra field and comment.
	metaPerEntry = 8 << 10
	// metaEnd is the tar end-of-archive marker and the zero padding tolerated after it.
	metaEnd    = 1024 + trailerMax
	trailerMax = 1 << 20
)

// budget returns the most bytes an archive in format f may unpack to, metadata included.
func (l Limits) budget(f Format) int64 {
	if l.MaxEntries > (math.MaxInt64-metaEnd)/metaPerEntry {
		return math.MaxInt64
	}
	meta := int64(l.MaxEntries) * metaPerEntry
	if f == FormatTarGz {
		meta += metaEnd
	}
	return l.MaxBytes + min(meta, math.MaxInt64-l.MaxBytes)
}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultMaxEntries
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxRatio <= 0 {
		l.MaxRatio = DefaultMaxRatio
	}
	return l
}

// File is one regular file of a skill.
type File struct {
	Path string // relative, "/" separators, as in the archive
	Data []byte
}

// Archive is an unpacked skill folder, in memory. Files keep the archive's order.
type Archive struct {
	Files []File
	Dirs  []string
}

// Size returns the total size of the files.
func (a *Archive) Size() int64 {
	var n int64
	for _, f := range a.Files {
		n += int64(len(f.Data))
	}
	return n
}

// Get returns the file at p, if any.
func (a *Archive) Get(p string) ([]byte, bool) {
	for _, f := range a.Files {
		if f.Path == p {
			return f.Data, true
		}
	}
	return nil, false
}

// ReadArchive unpacks a skill archive into memory, refusing anything unsafe:
// absolute paths, ".." segments, backslashes, drive letters, NUL, control and
// invisible (Unicode Cf) characters and invalid UTF-8 in names; names
// over 4096 bytes; symlinks, hard links, devices, FIFOs and anything but regular
// files and folders; two entries that collide after Unicode NFC normalisation and
// case folding; data after the end of the archive; a SKILL.md that is not at the
// root. Modes (setuid, setgid, sticky, executable) are never kept. Limits, metadata
// included, are enforced while reading. The error is an *ArchiveError wrapping
// ErrUnsafeArchive or ErrArchiveTooLarge.
// Verify the archive's digest before calling it.
func ReadArchive(data []byte, format Format, lim Limits) (*Archive, error) {
	lim = lim.withDefaults()
	r := &reader{lim: lim, budget: lim.budget(format), keys: map[string]string{}, dirKeys: map[string]bool{}, arch: &Archive{}}
	var err error
	switch format {
	case FormatTarGz:
		err = r.tarGz(data)
	case FormatZip:
		err = r.zip(data)
	default:
		err = &ArchiveError{Reason: "unknown archive format (want .tar.gz or .zip)", Err: ErrUnsafeArchive}
	}
	if err != nil {
		return nil, err
	}
	if err := r.checkRoot(); err != nil {
		return nil, err
	}
	return r.arch, nil
}

// ExtractArchive unpacks a skill archive into root, a directory opened with
// os.OpenRoot that the caller keeps private (the model, its tools and other users
// must not be able to write it). The whole archive is read and checked in memory
// first, so a rejected archive writes nothing; files are then created exclusively
// (never overwritten) with mode 0644, folders with 0755. It returns the files written.
func ExtractArchive(data []byte, format Format, root *os.Root, lim Limits) ([]string, error) {
	a, err := ReadArchive(data, format, lim)
	if err != nil {
		return nil, err
	}
	for _, d := range a.Dirs {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("agentskills: extract %s: %w", d, err)
		}
	}
	var written []string
	for _, f := range a.Files {
		if dir := path.Dir(f.Path); dir != "." {
			if err := root.MkdirAll(dir, 0o755); err != nil {
				return written, fmt.Errorf("agentskills: extract %s: %w", f.Path, err)
			}
		}
		fh, err := root.OpenFile(f.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return written, fmt.Errorf("agentskills: extract %s: %w", f.Path, err)
		}
		_, werr := fh.Write(f.Data)
		if cerr := fh.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return written, fmt.Errorf("agentskills: extract %s: %w", f.Path, werr)
		}
		written = append(written, f.Path)
	}
	return written, nil
}

type reader struct {
	lim      Limits
	arch     *Archive
	entries  int               // headers seen, against MaxEntries
	total    int64             // file contents read, against MaxBytes
	unpacked int64             // every byte unpacked, metadata included, against budget and MaxRatio
	budget   int64             // lim.budget(format)
	packed   func() int64      // compressed bytes read from the archive so far
	stop     error             // the limit the unpacked stream broke, once it has
	keys     map[string]string // folded path → original, for collisions
	dirKeys  map[string]bool   // folded folder paths (explicit and implied)
}

func unsafe(entry, reason string) error {
	return &ArchiveError{Entry: clip(entry), Reason: reason, Err: ErrUnsafeArchive}
}

func tooLarge(entry, reason string) error {
	return &ArchiveError{Entry: clip(entry), Reason: reason, Err: ErrArchiveTooLarge}
}

// clip shortens a name over maxName bytes, so an error never quotes a huge name.
func clip(s string) string {
	if len(s) <= maxName {
		return s
	}
	i := 64
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// count adds n unpacked bytes (contents or metadata) and checks the byte budget and
// the compression ratio, measured against the compressed bytes actually read, never
// against sizes the archive declares. The first limit broken stops the reader for good.
func (r *reader) count(entry string, n int) error {
	if r.stop != nil {
		return r.stop
	}
	r.unpacked += int64(n)
	switch {
	case r.unpacked > r.budget:
		r.stop = tooLarge(entry, fmt.Sprintf("unpacks to more than %d bytes, headers included", r.budget))
	case r.unpacked > ratioFloor && r.unpacked/max(r.packed(), 1) > r.lim.MaxRatio:
		r.stop = tooLarge(entry, fmt.Sprintf("compression ratio over %d:1", r.lim.MaxRatio))
	}
	return r.stop
}

// broken turns a read error into an *ArchiveError: the limit the stream broke, if
// it did (archive/tar may wrap or replace the error a meter returns), else what+err.
func (r *reader) broken(entry, what string, err error) error {
	if r.stop != nil {
		return r.stop
	}
	return unsafe(entry, what+err.Error())
}

// entry counts one header (a file, a folder or a PAX global header) against MaxEntries.
func (r *reader) entry(name string) error {
	r.entries++
	if r.entries > r.lim.MaxEntries {
		return tooLarge(name, fmt.Sprintf("more than %d entries", r.lim.MaxEntries))
	}
	return nil
}

// meter counts every byte a decompressor yields with reader.count. For tar.gz it
// sits under archive/tar, which consumes PAX records, GNU long names and padding
// itself and hands back only the final header: counted above tar, those bytes would
// escape every limit (archive/tar allows 1 MiB per record, with no total).
type meter struct {
	src   io.Reader
	r     *reader
	entry string // the entry being read, for errors; "" while tar reads headers
}

func (m *meter) Read(p []byte) (int, error) {
	if m.r.stop != nil {
		return 0, m.r.stop
	}
	// Ask for at most one byte past the budget, so that a bomb stops right there.
	if left := m.r.budget - m.r.unpacked; int64(len(p)) > left {
		p = p[:left+1]
	}
	n, err := m.src.Read(p)
	if cerr := m.r.count(m.entry, n); cerr != nil {
		return n, cerr
	}
	return n, err
}

// countingReaderAt counts the bytes read from a zip archive: the compressed bytes
// actually consumed, whatever CompressedSize64 says.
type countingReaderAt struct {
	r *bytes.Reader
	n int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

var folder = cases.Fold()

// name checks an entry name and returns its clean form ("" for the root folder).
func (r *reader) name(raw string, isDir bool) (string, error) {
	switch {
	case len(raw) > maxName:
		return "", tooLarge(raw, fmt.Sprintf("name longer than %d bytes", maxName))
	case strings.ContainsRune(raw, 0):
		return "", unsafe(raw, "NUL in the name")
	case strings.ContainsFunc(raw, func(r rune) bool {
		return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
	}):
		// A name that moves a terminal's cursor, hides text or reads differently
		// than it is stored (bidi overrides, zero-width characters) is not a file
		// name anyone meant to publish.
		return "", unsafe(raw, "control or invisible character in the name")
	case !utf8.ValidString(raw):
		return "", unsafe(raw, "name is not UTF-8")
	case strings.Contains(raw, "\\"):
		return "", unsafe(raw, "backslash in the name")
	case strings.HasPrefix(raw, "/"):
		return "", unsafe(raw, "absolute path")
	case len(raw) >= 2 && raw[1] == ':':
		return "", unsafe(raw, "drive letter")
	}
	p := strings.TrimPrefix(raw, "./")
	if isDir {
		p = strings.TrimSuffix(p, "/")
	}
	if p == "" || p == "." {
		if isDir {
			return "", nil
		}
		return "", unsafe(raw, "empty file name")
	}
	segs := strings.Split(p, "/")
	for _, s := range segs {
		switch s {
		case "..":
			return "", unsafe(raw, "\"..\" segment")
		case "", ".":
			return "", unsafe(raw, "empty or \".\" segment")
		}
	}
	if len(segs) > r.lim.MaxDepth {
		return "", tooLarge(raw, fmt.Sprintf("deeper than %d levels", r.lim.MaxDepth))
	}
	return p, nil
}

// add records an entry, already counted with reader.entry, after the collision checks.
func (r *reader) add(p string, isDir bool) error {
	key := folder.String(norm.NFC.String(p))
	if prev, dup := r.keys[key]; dup {
		if prev == p {
			return unsafe(p, "duplicate entry")
		}
		return unsafe(p, fmt.Sprintf("collides with %q after Unicode normalisation and case folding", prev))
	}
	if isDir {
		r.dirKeys[key] = true
		r.keys[key] = p
		r.arch.Dirs = append(r.arch.Dirs, p)
		return nil
	}
	if r.dirKeys[key] {
		return unsafe(p, "a file where a folder is")
	}
	for d := path.Dir(key); d != "."; d = path.Dir(d) {
		if prev, isFile := r.keys[d]; isFile && !r.dirKeys[d] {
			return unsafe(p, fmt.Sprintf("inside %q, which is a file", prev))
		}
		r.dirKeys[d] = true
	}
	r.keys[key] = p
	return nil
}

// read reads one file's content, whose header declares size bytes, within MaxBytes.
// src is metered (see meter), which enforces the byte budget and the compression
// ratio as it goes. The declared size is checked against MaxBytes before anything is
// allocated, and the reader must end exactly there.
func (r *reader) read(p string, src io.Reader, size int64) error {
	if size < 0 || size > r.lim.MaxBytes-r.total {
		return tooLarge(p, fmt.Sprintf("unpacks to more than %d bytes", r.lim.MaxBytes))
	}
	buf := make([]byte, size)
	n, err := io.ReadFull(src, buf)
	r.total += int64(n)
	if err != nil {
		return r.broken(p, "truncated or corrupt: ", err)
	}
	// Nothing may follow the declared size (zip checks its CRC at EOF).
	var one [1]byte
	if n, err := src.Read(one[:]); n != 0 || err != io.EOF {
		if err != nil && err != io.EOF {
			return r.broken(p, "truncated or corrupt: ", err)
		}
		return unsafe(p, "more data than the header declares")
	}
	r.arch.Files = append(r.arch.Files, File{Path: p, Data: buf})
	return nil
}

func (r *reader) tarGz(data []byte) error {
	br := bytes.NewReader(data) // a ByteReader: flate reads it directly, no buffering
	zr, err := gzip.NewReader(br)
	if err != nil {
		return unsafe("", "not gzip data: "+err.Error())
	}
	zr.Multistream(false) // a second gzip member is data after the end
	r.packed = func() int64 { return int64(len(data) - br.Len()) }
	// Every decompressed byte goes through m, under tar: headers, PAX records, GNU
	// long names, global headers, padding and contents alike.
	m := &meter{src: zr, r: r}
	tr := tar.NewReader(m)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return r.broken("", "truncated or corrupt tar: ", err)
		}
		if err := r.entry(h.Name); err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeXGlobalHeader:
			continue // pax metadata (git archive writes one); counted, then skipped
		//lint:ignore SA1019 old tar writers still emit TypeRegA ('\x00') for regular files
		case tar.TypeReg, tar.TypeRegA:
			p, err := r.name(h.Name, false)
			if err != nil {
				return err
			}
			if err := r.add(p, false); err != nil {
				return err
			}
			m.entry = p
			err = r.read(p, tr, h.Size)
			m.entry = ""
			if err != nil {
				return err
			}
		case tar.TypeDir:
			p, err := r.name(h.Name, true)
			if err != nil {
				return err
			}
			if p == "" {
				continue
			}
			if err := r.add(p, true); err != nil {
				return err
			}
		case tar.TypeSymlink:
			return unsafe(h.Name, "symbolic link (links are never followed or created)")
		case tar.TypeLink:
			return unsafe(h.Name, "hard link (links are never followed or created)")
		case tar.TypeChar, tar.TypeBlock:
			return unsafe(h.Name, "device file")
		case tar.TypeFifo:
			return unsafe(h.Name, "FIFO")
		default:
			return unsafe(h.Name, fmt.Sprintf("entry type %q is not a regular file or folder", h.Typeflag))
		}
	}
	// After the end-of-archive marker only zero padding may follow (up to trailerMax),
	// then nothing.
	rest := io.LimitReader(m, trailerMax)
	var buf [16 << 10]byte
	for {
		n, err := rest.Read(buf[:])
		if slices.ContainsFunc(buf[:n], func(b byte) bool { return b != 0 }) {
			return unsafe("", "data after the end of the tar archive")
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return r.broken("", "corrupt gzip stream: ", err)
		}
	}
	if br.Len() > 0 {
		return unsafe("", "data after the end of the gzip stream")
	}
	return nil
}

func (r *reader) zip(data []byte) error {
	// The ratio is measured against the bytes actually read (central directory, local
	// headers, compressed data), never against CompressedSize64, which may lie.
	ra := &countingReaderAt{r: bytes.NewReader(data)}
	zr, err := zip.NewReader(ra, int64(len(data)))
	if err != nil {
		return unsafe("", "not a zip archive: "+err.Error())
	}
	if err := zipEnd(data); err != nil {
		return err
	}
	r.packed = func() int64 { return ra.n }
	if err := r.count("", len(zr.Comment)); err != nil {
		return err
	}
	for _, f := range zr.File {
		// The central directory's name, extra field and comment are unpacked metadata.
		if err := r.count(f.Name, len(f.Name)+len(f.Extra)+len(f.Comment)); err != nil {
			return err
		}
		if err := r.entry(f.Name); err != nil {
			return err
		}
		mode := f.Mode()
		switch {
		case mode&fs.ModeSymlink != 0:
			return unsafe(f.Name, "symbolic link (links are never followed or created)")
		case mode&(fs.ModeDevice|fs.ModeCharDevice) != 0:
			return unsafe(f.Name, "device file")
		case mode&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeIrregular) != 0:
			return unsafe(f.Name, "not a regular file or folder")
		case mode.IsDir() || strings.HasSuffix(f.Name, "/"):
			p, err := r.name(f.Name, true)
			if err != nil {
				return err
			}
			if p != "" {
				if err := r.add(p, true); err != nil {
					return err
				}
			}
			continue
		}
		p, err := r.name(f.Name, false)
		if err != nil {
			return err
		}
		if err := r.add(p, false); err != nil {
			return err
		}
		// Declared sizes refuse an honest bomb before anything is allocated; the meter
		// then checks what the data really unpacks to, from what it really takes.
		if f.UncompressedSize64 > uint64(r.lim.MaxBytes) {
			return tooLarge(p, fmt.Sprintf("declares %d bytes, over %d", f.UncompressedSize64, r.lim.MaxBytes))
		}
		if f.UncompressedSize64 > ratioFloor && f.UncompressedSize64/max(f.CompressedSize64, 1) > uint64(r.lim.MaxRatio) {
			return tooLarge(p, fmt.Sprintf("compression ratio over %d:1", r.lim.MaxRatio))
		}
		rc, err := f.Open()
		if err != nil {
			return unsafe(p, "cannot read: "+err.Error())
		}
		err = r.read(p, &meter{src: rc, r: r, entry: p}, int64(f.UncompressedSize64))
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// zipEnd refuses bytes after the end-of-central-directory record and its comment.
func zipEnd(data []byte) error {
	const eocdLen = 22
	start := max(0, len(data)-(eocdLen+0xffff))
	i := bytes.LastIndex(data[start:], []byte("PK\x05\x06"))
	if i < 0 {
		return unsafe("", "no end of central directory")
	}
	i += start
	if i+eocdLen > len(data) {
		return unsafe("", "truncated end of central directory")
	}
	commentLen := int(data[i+20]) | int(data[i+21])<<8
	if i+eocdLen+commentLen != len(data) {
		return unsafe("", "data after the end of the zip archive")
	}
	return nil
}

// checkRoot requires SKILL.md at the archive root, named exactly.
func (r *reader) checkRoot() error {
	if _, ok := r.arch.Get(SkillFile); ok {
		return nil
	}
	for _, f := range r.arch.Files {
		if strings.EqualFold(path.Base(f.Path), SkillFile) {
			if dir := path.Dir(f.Path); dir != "." {
				return unsafe(f.Path, fmt.Sprintf("SKILL.md is in a wrapper folder %q; it must be at the archive root", dir))
			}
			return unsafe(f.Path, "the skill file must be named SKILL.md exactly")
		}
	}
	return unsafe("", "no SKILL.md at the archive root")
}
