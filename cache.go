package discovery

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/wellknown-dev/discovery/internal/fetch"
)

// The stores a Client keeps its answers in: the HTTP cache (serialised responses, for
// freshness and revalidation) and the last-good store (the newest copy of each
// document that parsed and validated). Their implementations are in internal/fetch
// (cachestore.go, laststore.go); this file holds the public interfaces and
// constructors.

// Cache stores serialised HTTP responses keyed by URL. Every gregjones/httpcache Cache
// satisfies it. Implementations must be safe for concurrent use.
type Cache interface {
	// Get returns the response stored under key, if any.
	Get(key string) (value []byte, ok bool)
	// Set stores a response under key.
	Set(key string, value []byte)
	// Delete removes the response stored under key.
	Delete(key string)
}

// DefaultMemoryCacheBytes bounds [NewMemoryCache] when it is given 0: serialised
// responses, least recently used evicted first.
const DefaultMemoryCacheBytes = 64 << 20

// NewMemoryCache returns an in-memory [Cache] of maxBytes (keys and values, least
// recently used out first), safe for concurrent use; 0: DefaultMemoryCacheBytes. A Client
// using it keeps at most half that in each other tier (parses, fresh answers, revalidation).
func NewMemoryCache(maxBytes int64) Cache {
	if maxBytes == 0 {
		maxBytes = DefaultMemoryCacheBytes
	}
	return fetch.NewMemoryCache(maxBytes)
}

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
	return fetch.NewDiskCache(dir), nil
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

// DefaultMemoryLastGoodBytes bounds [NewMemoryLastGood] when it is given 0: URLs and
// bodies, least recently used entries evicted first.
const DefaultMemoryLastGoodBytes = 32 << 20

// NewMemoryLastGood returns an in-memory [LastGoodStore] of maxBytes, safe for
// concurrent use. 0: DefaultMemoryLastGoodBytes.
func NewMemoryLastGood(maxBytes int64) LastGoodStore {
	if maxBytes == 0 {
		maxBytes = DefaultMemoryLastGoodBytes
	}
	return lastGoodStore{fetch.NewMemoryCopies(maxBytes)}
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
	return lastGoodStore{fetch.NewDiskCopies(dir)}, nil
}

// lastGoodStore is a LastGoodStore over one of internal/fetch's stores of copies.
type lastGoodStore struct{ s fetch.Copies }

// Load returns the entry for url, if any.
func (l lastGoodStore) Load(url string) (LastGood, bool) {
	c, ok := l.s.Load(url)
	return LastGood(c), ok
}

// Store records doc as the entry for url.
func (l lastGoodStore) Store(url string, doc LastGood) { l.s.Store(url, fetch.Copy(doc)) }

// Delete removes the entry for url.
func (l lastGoodStore) Delete(url string) { l.s.Delete(url) }

// lastGoodCopies is a LastGoodStore as the pipeline's store of copies.
type lastGoodCopies struct{ s LastGoodStore }

func (l lastGoodCopies) Load(key string) (fetch.Copy, bool) {
	lg, ok := l.s.Load(key)
	return fetch.Copy(lg), ok
}

func (l lastGoodCopies) Store(key string, c fetch.Copy) { l.s.Store(key, LastGood(c)) }
func (l lastGoodCopies) Delete(key string)              { l.s.Delete(key) }

// privatePartition begins every key a Client stores, in its [Cache] and its
// [LastGoodStore], for a document fetched for a private origin (see [IsPrivateKey]).
const privatePartition = fetch.PrivatePrefix

// IsPrivateKey reports whether key, as a Client stores it in its [Cache] or its
// [LastGoodStore], belongs to a document fetched for a private origin (localhost, a
// loopback or private IP literal). Such an origin names the machine's own network, so
// its answers must never be shared with another machine: a store shared by several
// machines (package redisstore's) keeps these keys local.
func IsPrivateKey(key string) bool { return strings.HasPrefix(key, privatePartition) }

// lgKey is the last-good store's key for the document at u fetched for origin o: the
// URL, in the private partition when o is a private origin, and in the HTTP cache's
// public partition otherwise (a Client with InsecureAllowPrivateHosts keeps its copies
// apart from Clients without that list, as its cached answers are).
func (c *Client) lgKey(o Origin, u string) string {
	if privateOrigin(o) {
		return privatePartition + u
	}
	return c.publicPartition + u
}
