package discovery

import (
	"bytes"
	"fmt"
	"os"
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
