package fetch

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"

	"github.com/wellknown-dev/discovery/internal/lru"
)

// MemoryCache is an in-memory Cache bounded by a byte budget (keys and values; least
// recently used entries go first), safe for concurrent use.
type MemoryCache struct{ c *lru.Cache[[]byte] }

// NewMemoryCache returns a MemoryCache of maxBytes.
func NewMemoryCache(maxBytes int64) *MemoryCache { return &MemoryCache{lru.New[[]byte](maxBytes)} }

// Get returns the response stored under key.
func (m *MemoryCache) Get(key string) ([]byte, bool) { return m.c.Get(key) }

// Set stores a response under key.
func (m *MemoryCache) Set(key string, value []byte) { m.c.Set(key, value, int64(len(key)+len(value))) }

// Delete removes key.
func (m *MemoryCache) Delete(key string) { m.c.Delete(key) }

// Cost returns the bytes held.
func (m *MemoryCache) Cost() int64 { return m.c.Cost() }

// Budget returns the bytes it may hold.
func (m *MemoryCache) Budget() int64 { return m.c.Budget() }

// TierBytes returns the budget of one of a Client's other in-memory tiers (the parse
// memo, the fast path, the copies kept for revalidation) beside the HTTP cache c: at
// most def, and at most half of c's budget when c is a MemoryCache. A Client given a
// small memory cache, as a scan of many origins that reads each document once, keeps
// little beside it as well: its memory stays flat however many origins it visits. A
// cache without a budget (on disk, the caller's own) leaves def.
func TierBytes(c Cache, def int64) int64 {
	if m, ok := c.(*MemoryCache); ok {
		return max(1, min(def, m.Budget()/2))
	}
	return def
}

// DiskCache keeps responses as files under a directory (see the root's NewDiskCache).
// Each entry is written to a temporary file and renamed into place, so a reader sees
// a whole entry or the previous one, never a mix; and each entry is framed with its
// key, its length and a SHA-256 checksum, so a truncated, torn or corrupted file is a
// miss, never a shorter document. Writes are best effort.
type DiskCache struct{ dir string }

// NewDiskCache returns the DiskCache of dir, which must exist.
func NewDiskCache(dir string) *DiskCache { return &DiskCache{dir: dir} }

// Entry framing: magic, key length (uint32), value length (uint64), SHA-256 of key and
// value, then the key and the value.
const (
	diskMagic    = "discv1\x00\x00"
	diskHeader   = len(diskMagic) + 4 + 8 + sha256.Size
	maxDiskEntry = 64 << 20 // larger files are not ours: a miss
)

func (d *DiskCache) path(key string) string {
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
func (d *DiskCache) Get(key string) ([]byte, bool) {
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
func (d *DiskCache) Set(key string, value []byte) {
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
func (d *DiskCache) Delete(key string) { os.Remove(d.path(key)) }

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
