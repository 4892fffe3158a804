package discovery

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/wellknown-dev/discovery/internal/lru"
)

// NewDiskCache returns a [Cache] that keeps responses as files under dir, created with
// mode 0700 if missing. Files are written with mode 0600: cached documents are public,
// but the cache tells which sites this user's agent consulted.
//
// Several Clients, in one process or in several, may share dir. Each entry is written
// to a temporary file and renamed into place, so a reader sees a whole entry or the
// previous one, never a mix; and each entry is framed with its key, its length and a
// SHA-256 checksum, so a truncated, torn or corrupted file is a cache miss, never a
// shorter document. Writes are best effort: the Cache interface has no error, and an
// entry that cannot be written is simply not there later.
func NewDiskCache(dir string) (Cache, error) {
	if dir == "" {
		return nil, fmt.Errorf("discovery: NewDiskCache: empty directory name")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("discovery: NewDiskCache: %w", err)
	}
	return &diskCache{dir: dir}, nil
}

type diskCache struct{ dir string }

// Entry framing: magic, key length (uint32), value length (uint64), SHA-256 of key and
// value, then the key and the value.
const (
	diskMagic    = "discv1\x00\x00"
	diskHeader   = len(diskMagic) + 4 + 8 + sha256.Size
	maxDiskEntry = 64 << 20 // larger files are not ours: a miss
)

func (d *diskCache) path(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(d.dir, hex.EncodeToString(sum[:]))
}

func frameSum(key string, value []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(key))
	h.Write(value)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// Get returns the entry stored under key; a missing, short, torn or corrupted file is
// a miss.
func (d *diskCache) Get(key string) ([]byte, bool) {
	f, err := os.Open(d.path(key))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() < int64(diskHeader) || st.Size() > maxDiskEntry {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxDiskEntry+1))
	if err != nil || len(data) < diskHeader || string(data[:len(diskMagic)]) != diskMagic {
		return nil, false
	}
	h := data[len(diskMagic):]
	klen, vlen := uint64(binary.BigEndian.Uint32(h)), binary.BigEndian.Uint64(h[4:])
	rest := data[diskHeader:]
	if klen > uint64(len(rest)) || vlen != uint64(len(rest))-klen {
		return nil, false
	}
	k, v := string(rest[:klen]), rest[klen:]
	if k != key || frameSum(k, v) != [sha256.Size]byte(h[12:12+sha256.Size]) {
		return nil, false
	}
	return v, true
}

// Set stores value under key, atomically.
func (d *diskCache) Set(key string, value []byte) {
	buf := make([]byte, diskHeader, diskHeader+len(key)+len(value))
	copy(buf, diskMagic)
	binary.BigEndian.PutUint32(buf[len(diskMagic):], uint32(len(key)))
	binary.BigEndian.PutUint64(buf[len(diskMagic)+4:], uint64(len(value)))
	sum := frameSum(key, value)
	copy(buf[len(diskMagic)+12:], sum[:])
	buf = append(append(buf, key...), value...)
	writeAtomic(d.dir, d.path(key), buf)
}

// Delete removes the entry stored under key.
func (d *diskCache) Delete(key string) { os.Remove(d.path(key)) }

// writeAtomic writes data to a temporary file in dir (mode 0600) and renames it to
// name, so readers see the old file or the new one, never part of one.
func writeAtomic(dir, name string, data []byte) {
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil || os.Rename(tmp.Name(), name) != nil {
		os.Remove(tmp.Name())
	}
}

// LastGood is a copy of a document that parsed and validated, kept to be served when a
// later fetch of the same URL fails.
type LastGood struct {
	// Kind is the kind of document the copy was saved as: "skills.md", "mcp.json" or
	// "skills-index". A copy is never served as another kind; "" (a copy stored by
	// the caller) is served as whatever kind asks for it, if it parses as that kind.
	Kind        string
	Body        []byte    // the document, exactly as fetched
	ContentType string    // the Content-Type it was served with
	SavedAt     time.Time // when it was fetched and validated
}

// LastGoodStore keeps the newest [LastGood] copy per document URL. The Client writes an
// entry only after the document parsed and validated, and deletes it when the server
// answers 404 or 410. A copy is served only as the kind of document it was saved as
// (LastGood.Kind). Implementations must be safe for concurrent use, and should not
// keep a reference to Body (the Client never modifies it either).
type LastGoodStore interface {
	// Load returns the entry for url, if any.
	Load(url string) (LastGood, bool)
	// Store records doc as the entry for url.
	Store(url string, doc LastGood)
	// Delete removes the entry for url.
	Delete(url string)
}

// DefaultMemoryLastGoodBytes bounds [NewMemoryLastGood]: URLs and bodies, least
// recently used entries evicted first.
const DefaultMemoryLastGoodBytes = 32 << 20

// NewMemoryLastGood returns an in-memory [LastGoodStore] bounded to
// DefaultMemoryLastGoodBytes, safe for concurrent use.
func NewMemoryLastGood() LastGoodStore { return NewMemoryLastGoodSize(DefaultMemoryLastGoodBytes) }

// NewMemoryLastGoodSize is NewMemoryLastGood with a budget of maxBytes.
func NewMemoryLastGoodSize(maxBytes int64) LastGoodStore {
	return memoryLastGood{lru.New[LastGood](maxBytes)}
}

type memoryLastGood struct{ c *lru.Cache[LastGood] }

// Load returns the entry for url, if any.
func (m memoryLastGood) Load(url string) (LastGood, bool) { return m.c.Get(url) }

// Store records doc as the entry for url, keeping a copy of its body.
func (m memoryLastGood) Store(url string, doc LastGood) {
	if old, ok := m.c.Get(url); ok && bytes.Equal(old.Body, doc.Body) {
		doc.Body = old.Body // the same document again: only SavedAt moves
	} else {
		doc.Body = bytes.Clone(doc.Body)
	}
	m.c.Set(url, doc, int64(len(url)+len(doc.Body)+len(doc.Kind)+len(doc.ContentType)+64))
}

// Delete removes the entry for url.
func (m memoryLastGood) Delete(url string) { m.c.Delete(url) }

// NewDiskLastGood returns a [LastGoodStore] that keeps each copy as a file under dir
// (created with mode 0700 if missing), so the last good documents survive a restart.
// Files are written with mode 0600, atomically (a temporary file renamed into place),
// and named by the SHA-256 of the URL; the URL is stored inside and checked on load.
// Writes are best effort: the store interface has no error, and a copy that cannot
// be written is simply not there later. Safe for concurrent use.
func NewDiskLastGood(dir string) (LastGoodStore, error) {
	if dir == "" {
		return nil, fmt.Errorf("discovery: NewDiskLastGood: empty directory name")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("discovery: NewDiskLastGood: %w", err)
	}
	return &diskLastGood{dir: dir}, nil
}

type diskLastGood struct{ dir string }

type diskEntry struct {
	URL         string    `json:"url"` // the store's key
	Kind        string    `json:"kind,omitempty"`
	ContentType string    `json:"content_type"`
	SavedAt     time.Time `json:"saved_at"`
	Body        []byte    `json:"body"`
	SHA256      string    `json:"sha256"` // of Body: a corrupted file is a miss
}

func (d *diskLastGood) path(url string) string {
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(d.dir, hex.EncodeToString(sum[:])+".json")
}

// Load returns the entry for url, if any.
func (d *diskLastGood) Load(url string) (LastGood, bool) {
	data, err := os.ReadFile(d.path(url))
	if err != nil {
		return LastGood{}, false
	}
	var e diskEntry
	if json.Unmarshal(data, &e) != nil || e.URL != url {
		return LastGood{}, false
	}
	if sum := sha256.Sum256(e.Body); e.SHA256 != hex.EncodeToString(sum[:]) {
		return LastGood{}, false
	}
	return LastGood{Kind: e.Kind, Body: e.Body, ContentType: e.ContentType, SavedAt: e.SavedAt}, true
}

// Store records doc as the entry for url.
func (d *diskLastGood) Store(url string, doc LastGood) {
	sum := sha256.Sum256(doc.Body)
	data, err := json.Marshal(diskEntry{URL: url, Kind: doc.Kind, ContentType: doc.ContentType, SavedAt: doc.SavedAt, Body: doc.Body,
		SHA256: hex.EncodeToString(sum[:])})
	if err != nil {
		return
	}
	writeAtomic(d.dir, d.path(url), data)
}

// Delete removes the entry for url.
func (d *diskLastGood) Delete(url string) { os.Remove(d.path(url)) }
