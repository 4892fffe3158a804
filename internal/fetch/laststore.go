package fetch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/wellknown-dev/discovery/internal/lru"
)

// Copy is a last good copy of a document: the root's LastGood, field for field (the
// root converts between the two).
type Copy struct {
	Kind        string
	Body        []byte
	ContentType string
	SavedAt     time.Time
}

// MemoryCopies keeps the newest Copy per URL in memory, bounded by a byte budget
// (least recently used entries go first), safe for concurrent use.
type MemoryCopies struct{ c *lru.Cache[Copy] }

// NewMemoryCopies returns a MemoryCopies of maxBytes.
func NewMemoryCopies(maxBytes int64) *MemoryCopies { return &MemoryCopies{lru.New[Copy](maxBytes)} }

// Load returns the copy for url, if any.
func (m *MemoryCopies) Load(url string) (Copy, bool) { return m.c.Get(url) }

// Store records doc as the copy for url, keeping its own copy of the body.
func (m *MemoryCopies) Store(url string, doc Copy) {
	if old, ok := m.c.Get(url); ok && bytes.Equal(old.Body, doc.Body) {
		doc.Body = old.Body // the same document again: only SavedAt moves
	} else {
		doc.Body = bytes.Clone(doc.Body)
	}
	m.c.Set(url, doc, int64(len(url)+len(doc.Body)+len(doc.Kind)+len(doc.ContentType)+64))
}

// Delete removes the copy for url.
func (m *MemoryCopies) Delete(url string) { m.c.Delete(url) }

// DiskCopies keeps each copy as a file under a directory (see the root's
// NewDiskLastGood), written atomically and named by the SHA-256 of the URL; the URL
// is stored inside and checked on load, and a checksum of the body too. Writes are
// best effort. Safe for concurrent use.
type DiskCopies struct{ dir string }

// NewDiskCopies returns the DiskCopies of dir, which must exist.
func NewDiskCopies(dir string) *DiskCopies { return &DiskCopies{dir: dir} }

type diskEntry struct {
	URL         string    `json:"url"` // the store's key
	Kind        string    `json:"kind,omitempty"`
	ContentType string    `json:"content_type"`
	SavedAt     time.Time `json:"saved_at"`
	Body        []byte    `json:"body"`
	SHA256      string    `json:"sha256"` // of Body: a corrupted file is a miss
}

func (d *DiskCopies) path(url string) string {
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(d.dir, hex.EncodeToString(sum[:])+".json")
}

// Load returns the copy for url, if any.
func (d *DiskCopies) Load(url string) (Copy, bool) {
	data, err := os.ReadFile(d.path(url))
	if err != nil {
		return Copy{}, false
	}
	var e diskEntry
	if json.Unmarshal(data, &e) != nil || e.URL != url {
		return Copy{}, false
	}
	if sum := sha256.Sum256(e.Body); e.SHA256 != hex.EncodeToString(sum[:]) {
		return Copy{}, false
	}
	return Copy{Kind: e.Kind, Body: e.Body, ContentType: e.ContentType, SavedAt: e.SavedAt}, true
}

// Store records doc as the copy for url.
func (d *DiskCopies) Store(url string, doc Copy) {
	sum := sha256.Sum256(doc.Body)
	data, err := json.Marshal(diskEntry{URL: url, Kind: doc.Kind, ContentType: doc.ContentType, SavedAt: doc.SavedAt, Body: doc.Body,
		SHA256: hex.EncodeToString(sum[:])})
	if err != nil {
		return
	}
	writeAtomic(d.dir, d.path(url), data)
}

// Delete removes the copy for url.
func (d *DiskCopies) Delete(url string) { os.Remove(d.path(url)) }
