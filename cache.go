package discovery

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gregjones/httpcache/diskcache"
	"github.com/peterbourgon/diskv"
)

// NewDiskCache returns a [Cache] that keeps responses as files under dir, created with
// mode 0700 if missing. Files are written with mode 0600: cached documents are public,
// but the cache tells which sites this user's agent consulted.
func NewDiskCache(dir string) (Cache, error) {
	if dir == "" {
		return nil, fmt.Errorf("discovery: NewDiskCache: empty directory name")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("discovery: NewDiskCache: %w", err)
	}
	d := diskv.New(diskv.Options{
		BasePath:     dir,
		CacheSizeMax: 1 << 20, // in-memory copy of the hottest entries
		FilePerm:     0o600,
		PathPerm:     0o700,
	})
	return diskcache.NewWithDiskv(d), nil
}

// LastGood is a copy of a document that parsed and validated, kept to be served when a
// later fetch of the same URL fails.
type LastGood struct {
	Body        []byte    // the document, exactly as fetched
	ContentType string    // the Content-Type it was served with
	SavedAt     time.Time // when it was fetched and validated
}

// LastGoodStore keeps the newest [LastGood] copy per document URL. The Client writes an
// entry only after the document parsed and validated, and deletes it when the server
// answers 404 or 410. Implementations must be safe for concurrent use, and should not
// keep a reference to Body (the Client never modifies it either).
type LastGoodStore interface {
	// Load returns the entry for url, if any.
	Load(url string) (LastGood, bool)
	// Store records doc as the entry for url.
	Store(url string, doc LastGood)
	// Delete removes the entry for url.
	Delete(url string)
}

// NewMemoryLastGood returns an in-memory [LastGoodStore], safe for concurrent use.
func NewMemoryLastGood() LastGoodStore { return &memoryLastGood{entries: make(map[string]LastGood)} }

type memoryLastGood struct {
	mu      sync.RWMutex // guards entries
	entries map[string]LastGood
}

// Load returns the entry for url, if any.
func (m *memoryLastGood) Load(url string) (LastGood, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	e, ok := m.entries[url]
	return e, ok
}

// Store records doc as the entry for url, keeping a copy of its body.
func (m *memoryLastGood) Store(url string, doc LastGood) {
	doc.Body = bytes.Clone(doc.Body)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries[url] = doc
}

// Delete removes the entry for url.
func (m *memoryLastGood) Delete(url string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.entries, url)
}

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
	URL         string    `json:"url"`
	ContentType string    `json:"content_type"`
	SavedAt     time.Time `json:"saved_at"`
	Body        []byte    `json:"body"`
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
	return LastGood{Body: e.Body, ContentType: e.ContentType, SavedAt: e.SavedAt}, true
}

// Store records doc as the entry for url.
func (d *diskLastGood) Store(url string, doc LastGood) {
	data, err := json.Marshal(diskEntry{URL: url, ContentType: doc.ContentType, SavedAt: doc.SavedAt, Body: doc.Body})
	if err != nil {
		return
	}
	tmp, err := os.CreateTemp(d.dir, ".tmp-*") // mode 0600
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil || os.Rename(tmp.Name(), d.path(url)) != nil {
		os.Remove(tmp.Name())
	}
}

// Delete removes the entry for url.
func (d *diskLastGood) Delete(url string) { os.Remove(d.path(url)) }
