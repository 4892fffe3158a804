package skillbundle

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/skilllock"
)

// ManifestName is the name of the bundle's own manifest, the first entry of the archive.
const ManifestName = "bundle.json"

// Version is the bundle format this package reads and writes.
const Version = 1

// Default limits of [Read] and [Write].
const (
	// DefaultMaxBytes bounds the bytes of all files of a bundle together: sixteen
	// skills at the per-skill limit of a network install (agentskills.DefaultMaxBytes).
	DefaultMaxBytes = 256 << 20
	// DefaultMaxFiles bounds the number of archive entries of a bundle, its manifest,
	// folders and files it does not list included.
	DefaultMaxFiles = 4096
	// maxManifestBytes bounds bundle.json.
	maxManifestBytes = 4 << 20
	// maxPathBytes bounds an entry name.
	maxPathBytes = 1024
)

// Sentinel errors.
var (
	// ErrMalformed is returned for a bundle that is not valid: not a tar archive, no
	// bundle.json first, unknown members, entries that are not regular files (links,
	// devices), unsafe or duplicate names, a file whose bytes differ from what
	// bundle.json records, a listed file missing.
	ErrMalformed = errors.New("skillbundle: malformed bundle")
	// ErrTooLarge is returned for a bundle, or a site being bundled, that goes over
	// [Limits]: total bytes or number of entries.
	ErrTooLarge = errors.New("skillbundle: bundle too large")
	// ErrNotInBundle is the error of a request a bundle's transport cannot answer: a
	// URL on another origin than the bundle's. (A URL on the bundle's origin that it
	// does not hold is answered 404 Not Found.)
	ErrNotInBundle = errors.New("skillbundle: not in the bundle")
	// ErrLockMismatch is returned by [Write] when, bundling from a lock, the site
	// serves other files than the lock records.
	ErrLockMismatch = errors.New("skillbundle: the site does not serve what the lock records")
)

// Limits bound what [Read] accepts and what [Write] fetches. The zero value means the
// defaults; negative values are treated as the defaults too.
type Limits struct {
	// MaxBytes bounds the bytes of all files together. 0: [DefaultMaxBytes].
	MaxBytes int64
	// MaxFiles bounds the number of entries. 0: [DefaultMaxFiles].
	MaxFiles int
}

func (l *Limits) orDefault() Limits {
	var out Limits
	if l != nil {
		out = *l
	}
	if out.MaxBytes <= 0 {
		out.MaxBytes = DefaultMaxBytes
	}
	if out.MaxFiles <= 0 {
		out.MaxFiles = DefaultMaxFiles
	}
	return out
}

// Manifest is the content of bundle.json: where the bundle's files came from. It is
// a table of contents, not a trust anchor: what an install accepts is decided by the
// bundled index's digests and the publishers' signatures, as for a network install.
type Manifest struct {
	// Version is the format version, [Version].
	Version int `json:"version"`
	// Origin is the origin every file was served by, "https://host[:port]".
	Origin string `json:"origin"`
	// Index is the URL of the skills index the bundle was made from.
	Index string `json:"index"`
	// Files lists every file of the bundle, sorted by path.
	Files []File `json:"files"`
}

// File is one file of a bundle, stored exactly as the origin served it.
type File struct {
	// Path is the archive entry's name: the URL's path without its leading slash, so
	// that unpacking a bundle gives a folder a static web server can serve as a mirror.
	Path string `json:"path"`
	// URL is the URL the file was served at, on Manifest.Origin.
	URL string `json:"url"`
	// ContentType is the Content-Type it was served with; "" when none.
	ContentType string `json:"contentType,omitempty"`
	// Size is its length in bytes.
	Size int64 `json:"size"`
	// Digest is its SHA-256 digest, "sha256:<hex>".
	Digest string `json:"digest"`

	data []byte // while writing: the bytes
}

// Bundle is a bundle read and checked by [Read]: its manifest and the bytes of its
// files, held in memory. It is immutable and safe for concurrent use.
type Bundle struct {
	// Manifest is the bundle's manifest.
	Manifest Manifest
	// Warnings name entries of the archive that bundle.json does not list: they are
	// ignored, never served and never installed.
	Warnings []string
	files    map[string]*stored // by Path
}

type stored struct {
	data  []byte
	ctype string
}

// ReadFile reads and checks the bundle at path; see [Read].
func ReadFile(path string, lim *Limits) (*Bundle, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := Read(f, lim)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// Read reads a bundle (an uncompressed tar archive) and checks it as a whole before
// returning anything: bundle.json first and well formed, every entry a regular file
// (or a folder, skipped) with a clean relative name met once, each declared size
// within lim before it is read, every listed file present with the size and digest
// bundle.json records. Entries bundle.json does not list are skipped and named in
// Bundle.Warnings. Nothing is written anywhere: the files stay in memory, to be
// served to a Client by [Bundle.WrapTransport], which verifies them as it verifies a
// network install.
func Read(r io.Reader, lim *Limits) (*Bundle, error) {
	l := lim.orDefault()
	tr := tar.NewReader(r)
	hdr, err := tr.Next()
	if err != nil {
		return nil, fmt.Errorf("%w: not a tar archive: %v", ErrMalformed, err)
	}
	if hdr.Name != ManifestName || hdr.Typeflag != tar.TypeReg {
		return nil, fmt.Errorf("%w: the first entry is %s, not %s", ErrMalformed, quote(hdr.Name), ManifestName)
	}
	if hdr.Size > maxManifestBytes {
		return nil, fmt.Errorf("%w: %s declares %d bytes (limit %d)", ErrTooLarge, ManifestName, hdr.Size, maxManifestBytes)
	}
	raw, err := io.ReadAll(io.LimitReader(tr, maxManifestBytes))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMalformed, ManifestName, err)
	}
	m, err := parseManifest(raw, l)
	if err != nil {
		return nil, err
	}
	b := &Bundle{Manifest: *m, files: make(map[string]*stored, len(m.Files))}
	if err := b.readEntries(tr, l); err != nil {
		return nil, err
	}
	for _, f := range m.Files {
		if b.files[f.Path] == nil {
			return nil, fmt.Errorf("%w: %s lists %s, which the archive does not hold", ErrMalformed, ManifestName, quote(f.Path))
		}
	}
	return b, nil
}

// readEntries reads the entries after bundle.json into b.files: only regular files
// (folders skipped) with clean names met once, each declared size checked against
// what is left of l before it is read, each listed file checked against bundle.json,
// others skipped and warned about.
func (b *Bundle) readEntries(tr *tar.Reader, l Limits) error {
	want := make(map[string]File, len(b.Manifest.Files))
	for _, f := range b.Manifest.Files {
		want[f.Path] = f
	}
	seen := map[string]bool{ManifestName: true}
	budget, entries := l.MaxBytes, 1
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		if entries++; entries > l.MaxFiles {
			return fmt.Errorf("%w: more than %d entries", ErrTooLarge, l.MaxFiles)
		}
		name := strings.TrimSuffix(hdr.Name, "/")
		if err := checkPath(name); err != nil {
			return fmt.Errorf("%w: entry %s: %v", ErrMalformed, quote(hdr.Name), err)
		}
		if seen[name] {
			return fmt.Errorf("%w: entry %s appears twice", ErrMalformed, quote(name))
		}
		seen[name] = true
		switch hdr.Typeflag {
		case tar.TypeDir:
			continue
		case tar.TypeReg:
		default:
			return fmt.Errorf("%w: entry %s is not a regular file (type %q): links and devices are refused", ErrMalformed, quote(name), hdr.Typeflag)
		}
		if hdr.Size < 0 || hdr.Size > budget {
			return fmt.Errorf("%w: entry %s declares %d bytes, over the %d bytes a bundle may hold", ErrTooLarge, quote(name), hdr.Size, l.MaxBytes)
		}
		budget -= hdr.Size
		f, listed := want[name]
		if !listed {
			b.Warnings = append(b.Warnings, fmt.Sprintf("%s is not listed in %s: ignored, not installed", quote(name), ManifestName))
			if _, err := io.Copy(io.Discard, io.LimitReader(tr, hdr.Size)); err != nil {
				return fmt.Errorf("%w: entry %s: %v", ErrMalformed, quote(name), err)
			}
			continue
		}
		data, err := io.ReadAll(io.LimitReader(tr, hdr.Size))
		if err != nil {
			return fmt.Errorf("%w: entry %s: %v", ErrMalformed, quote(name), err)
		}
		if int64(len(data)) != f.Size || skilllock.Digest(data) != f.Digest {
			return fmt.Errorf("%w: %s (%s) does not match the size and digest %s records", ErrMalformed, quote(name), f.URL, ManifestName)
		}
		b.files[name] = &stored{data: data, ctype: f.ContentType}
	}
}

// parseManifest decodes bundle.json strictly and checks that every file is on the
// bundle's origin, at the path its URL names, once.
func parseManifest(raw []byte, l Limits) (*Manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMalformed, ManifestName, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: %s: data after the object", ErrMalformed, ManifestName)
	}
	if m.Version != Version {
		return nil, fmt.Errorf("%w: %s: version %d (this package reads %d)", ErrMalformed, ManifestName, m.Version, Version)
	}
	origin, err := parseOrigin(m.Origin)
	if err != nil || origin != m.Origin {
		return nil, fmt.Errorf("%w: %s: origin %s is not an origin (scheme://host[:port])", ErrMalformed, ManifestName, quote(m.Origin))
	}
	if len(m.Files) >= l.MaxFiles {
		return nil, fmt.Errorf("%w: %s lists %d files (limit %d)", ErrTooLarge, ManifestName, len(m.Files), l.MaxFiles-1)
	}
	paths := make(map[string]bool, len(m.Files))
	var total int64
	for _, f := range m.Files {
		p, err := pathOn(m.Origin, f.URL)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: file %s: %v", ErrMalformed, ManifestName, quote(f.URL), err)
		}
		if p != f.Path {
			return nil, fmt.Errorf("%w: %s: file %s is stored as %s, not at its URL's path", ErrMalformed, ManifestName, quote(f.URL), quote(f.Path))
		}
		if paths[p] {
			return nil, fmt.Errorf("%w: %s lists %s twice", ErrMalformed, ManifestName, quote(p))
		}
		paths[p] = true
		if !validDigest(f.Digest) || f.Size < 0 {
			return nil, fmt.Errorf("%w: %s: file %s: bad size or digest", ErrMalformed, ManifestName, quote(p))
		}
		if total += f.Size; total > l.MaxBytes {
			return nil, fmt.Errorf("%w: %s lists more than %d bytes", ErrTooLarge, ManifestName, l.MaxBytes)
		}
	}
	if _, err := pathOn(m.Origin, m.Index); err != nil || !paths[mustPath(m.Origin, m.Index)] {
		return nil, fmt.Errorf("%w: %s: the index %s is not one of its files", ErrMalformed, ManifestName, quote(m.Index))
	}
	return &m, nil
}

func mustPath(origin, u string) string {
	p, _ := pathOn(origin, u)
	return p
}

// parseOrigin returns the origin of an absolute http(s) URL as "scheme://host[:port]",
// lower case, without a default port.
func parseOrigin(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	return originOf(u)
}

// originOf is u's origin as discovery.ParseOrigin writes it (the form of
// SkillsIndex.Origin), for an absolute http(s) URL without userinfo.
func originOf(u *url.URL) (string, error) {
	scheme := strings.ToLower(u.Scheme)
	if (scheme != "https" && scheme != "http") || u.Host == "" || u.User != nil {
		return "", errors.New("not an absolute http(s) URL without userinfo")
	}
	o, err := discovery.ParseOrigin(scheme + "://" + u.Host)
	if err != nil {
		return "", err
	}
	return o.String(), nil
}

// pathOn returns the archive path of rawURL, which must be on origin, without query or
// fragment: its path without the leading slash.
func pathOn(origin, rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", errors.New("does not parse")
	}
	o, err := originOf(u)
	if err != nil {
		return "", err
	}
	if o != origin {
		return "", fmt.Errorf("is on %s, not on the bundle's origin %s", o, origin)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return "", errors.New("has a query or fragment")
	}
	p := strings.TrimPrefix(u.Path, "/")
	if err := checkPath(p); err != nil {
		return "", err
	}
	if p == ManifestName {
		return "", errors.New("its path is the bundle's own " + ManifestName)
	}
	return p, nil
}

// checkPath accepts a slash-separated relative path without "." or ".." elements,
// backslashes, colons or control characters: a name that stays inside any folder it
// is unpacked into, on every system.
func checkPath(p string) error {
	if len(p) > maxPathBytes {
		return errors.New("name too long")
	}
	if !fs.ValidPath(p) || p == "." || strings.ContainsAny(p, "\\:") ||
		strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }) {
		return errors.New("not a clean relative path (absolute, \"..\", backslash, colon or control character)")
	}
	return nil
}

func validDigest(d string) bool {
	h, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	return strings.Trim(h, "0123456789abcdef") == ""
}

// quote prints a name taken from a bundle: Go-quoted, so it cannot forge lines or
// terminal escapes, and clipped.
func quote(s string) string {
	if len(s) > 256 {
		s = s[:256] + "…"
	}
	return strconv.Quote(s)
}
