package redisstore

import (
	"bytes"
	"encoding/binary"
	"math"
	"time"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/internal/lru"
)

// lastGoodTier is the Store's discovery.LastGoodStore: a local tier in front of Redis.
type lastGoodTier struct {
	s     *Store
	local discovery.LastGoodStore
}

// Load returns the newest copy for url of the two tiers. The Client loads only when a
// fetch failed, so Redis is asked even when the local tier has a copy: another process
// may have saved a newer one.
func (l *lastGoodTier) Load(url string) (discovery.LastGood, bool) {
	local, lok := l.local.Load(url)
	if !l.shared() || l.s.localOnly(url) {
		return local, lok
	}
	shared, sok := l.sharedLoad(url)
	switch {
	case sok && (!lok || shared.SavedAt.After(local.SavedAt)):
		l.local.Store(url, shared)
		return shared, true
	case lok:
		return local, true
	}
	return discovery.LastGood{}, false
}

// Store records doc for url in both tiers; in Redis until it is MaxStale old.
func (l *lastGoodTier) Store(url string, doc discovery.LastGood) {
	l.local.Store(url, doc)
	if !l.shared() || l.s.localOnly(url) {
		return
	}
	ttl := l.s.maxStale - l.s.now().Sub(doc.SavedAt)
	if doc.SavedAt.IsZero() || ttl < time.Millisecond || len(doc.Body) > maxSharedValue ||
		len(doc.Kind) > math.MaxUint16 || len(doc.ContentType) > math.MaxUint16 {
		return // too old to be served, or too large: local only
	}
	k := l.s.lastGoodKind()
	var version int64
	if l.s.seal != nil {
		version = l.s.nextVersion(l.s.key(k.prefix, url))
	}
	l.s.writeShared(k, url, version, doc.SavedAt.UnixNano(), encodeLastGood(doc), ttl)
}

// Delete removes the copy for url from both tiers.
func (l *lastGoodTier) Delete(url string) {
	l.local.Delete(url)
	if l.shared() && !l.s.localOnly(url) {
		l.sharedDelete(url)
	}
}

func (l *lastGoodTier) shared() bool { return l.s.maxStale > 0 }

func (l *lastGoodTier) sharedDelete(url string) { l.s.deleteShared(l.s.lastGoodKind(), url) }

func (l *lastGoodTier) sharedLoad(url string) (discovery.LastGood, bool) {
	sh, ok := l.s.readShared(l.s.lastGoodKind(), url)
	if !ok {
		return discovery.LastGood{}, false
	}
	doc, err := decodeLastGood(sh.value)
	if err != nil {
		l.s.miss(docLastGood, url, err)
		l.sharedDelete(url)
		return discovery.LastGood{}, false
	}
	doc.SavedAt = fromUnixNano(sh.meta)
	return doc, true
}

// encodeLastGood lays out a copy as: Kind length (uint16), Kind, ContentType length
// (uint16), ContentType, Body. SavedAt travels in the frame's meta.
func encodeLastGood(doc discovery.LastGood) []byte {
	buf := make([]byte, 0, 4+len(doc.Kind)+len(doc.ContentType)+len(doc.Body))
	buf = binary.BigEndian.AppendUint16(buf, uint16(len(doc.Kind)))
	buf = append(buf, doc.Kind...)
	buf = binary.BigEndian.AppendUint16(buf, uint16(len(doc.ContentType)))
	buf = append(buf, doc.ContentType...)
	return append(buf, doc.Body...)
}

func decodeLastGood(b []byte) (discovery.LastGood, error) {
	var doc discovery.LastGood
	for _, f := range []*string{&doc.Kind, &doc.ContentType} {
		if len(b) < 2 {
			return discovery.LastGood{}, errCorrupt
		}
		n := int(binary.BigEndian.Uint16(b))
		if len(b) < 2+n {
			return discovery.LastGood{}, errCorrupt
		}
		*f, b = string(b[2:2+n]), b[2+n:]
	}
	doc.Body = b
	return doc, nil
}

// memoryLastGood is the default local tier: in memory, bounded by a budget of bytes,
// least recently used copies evicted first.
type memoryLastGood struct {
	c *lru.Cache[discovery.LastGood]
}

func newMemoryLastGood(budget int64) memoryLastGood {
	return memoryLastGood{lru.New[discovery.LastGood](budget)}
}

// Load returns the copy for url, if any.
func (m memoryLastGood) Load(url string) (discovery.LastGood, bool) { return m.c.Get(url) }

// Store records a copy of doc for url.
func (m memoryLastGood) Store(url string, doc discovery.LastGood) {
	doc.Body = bytes.Clone(doc.Body)
	m.c.Set(url, doc, int64(len(url)+len(doc.Kind)+len(doc.ContentType)+len(doc.Body)+64))
}

// Delete removes the copy for url.
func (m memoryLastGood) Delete(url string) { m.c.Delete(url) }

// noLastGood is the LastGoodStore of a Store not made by New: it keeps nothing.
type noLastGood struct{}

func (noLastGood) Load(string) (discovery.LastGood, bool) { return discovery.LastGood{}, false }
func (noLastGood) Store(string, discovery.LastGood)       {}
func (noLastGood) Delete(string)                          {}
