package redisstore

import (
	"context"
	"encoding/binary"
	"errors"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wellknown-dev/discovery"
)

// kind describes one kind of entry in Redis: the cache's responses or the last good
// copies.
type kind struct {
	doc    string        // the Doc of its events
	prefix string        // of its keys, after Options.Prefix
	magic  string        // of its checksummed values
	sealed string        // of its sealed values
	maxAge time.Duration // the longest one of its values may live in Redis
}

func (s *Store) cacheKind() kind {
	return kind{doc: docCache, prefix: "c:", magic: magicCache, sealed: magicSealedCache, maxAge: s.maxTTL}
}

func (s *Store) lastGoodKind() kind {
	return kind{doc: docLastGood, prefix: "lg:", magic: magicLastGood, sealed: magicSealedLastGood, maxAge: s.maxStale}
}

// shared is a value read from Redis.
type shared struct {
	meta    int64
	value   []byte
	version int64 // 0 for a checksummed value
}

// readShared reads the value of kind k stored for name. A missing, unusable or rolled
// back value is a miss (reported), and an unusable or rolled back one is deleted.
func (s *Store) readShared(k kind, name string) (shared, bool) {
	if s.seal != nil {
		return s.readSealed(k, name)
	}
	rkey := s.key(k.prefix, name)
	data, err := roundTrip(context.Background(), s, op[[]byte]{doc: k.doc, key: name}, func(ctx context.Context) ([]byte, error) {
		return s.rdb.Get(ctx, rkey).Bytes()
	})
	switch {
	case errors.Is(err, redis.Nil):
		s.miss(k.doc, name, nil)
		return shared{}, false
	case err != nil:
		return shared{}, false // reported by roundTrip, or skipped by the breaker
	}
	meta, value, err := decodeFrame(k.magic, name, data)
	if err != nil {
		s.miss(k.doc, name, err)
		s.deleteShared(k, name)
		return shared{}, false
	}
	return shared{meta: meta, value: value}, true
}

// readSealed reads a sealed value and its key's version mark (one MGET: both keys
// share a hash tag, so a Cluster keeps them on one node), and applies the rollback
// rule.
func (s *Store) readSealed(k kind, name string) (shared, bool) {
	rkey, mkey := s.key(k.prefix, name), s.key("v:"+k.prefix, name)
	vals, err := roundTrip(context.Background(), s, op[[]any]{doc: k.doc, key: name}, func(ctx context.Context) ([]any, error) {
		return s.rdb.MGet(ctx, rkey, mkey).Result()
	})
	if err != nil {
		return shared{}, false // reported by roundTrip, or skipped by the breaker
	}
	data, _ := vals[0].(string)
	if vals[0] == nil {
		s.miss(k.doc, name, nil)
		return shared{}, false
	}
	version, meta, value, err := s.seal.open(k.sealed, rkey, name, []byte(data))
	if err != nil {
		s.miss(k.doc, name, err)
		s.deleteShared(k, name)
		return shared{}, false
	}
	newest := s.seen.newest(rkey)
	if m, ok := vals[1].(string); ok {
		if mv, ok := s.seal.readMark(mkey, m); ok {
			newest = max(newest, mv)
		}
	}
	if version < newest || s.now().Sub(time.Unix(0, version)) > k.maxAge {
		rb := &RollbackError{URL: redactKey(name), Doc: k.doc, Version: time.Unix(0, version)}
		if version < newest {
			rb.Newest = time.Unix(0, newest)
		}
		s.emit(discovery.Event{Kind: discovery.EventStoreDegraded, URL: redactKey(name), Doc: k.doc, Err: rb})
		s.deleteSame(k, name, rkey, versionBytes(version), magicLen+1, sealedHeader)
		return shared{}, false
	}
	s.seen.raise(rkey, version)
	return shared{meta: meta, value: value, version: version}, true
}

// writeShared stores meta and value for name in Redis for ttl: checksummed, or sealed
// at version (see nextVersion) with Options.Secret. It returns the version the value
// was stored at (it may be raised above version to stay above the fleet's mark), 0
// when it was not stored.
func (s *Store) writeShared(k kind, name string, version, meta int64, value []byte, ttl time.Duration) int64 {
	rkey := s.key(k.prefix, name)
	if s.seal == nil {
		data := encodeFrame(k.magic, name, meta, value)
		roundTrip(context.Background(), s, op[struct{}]{doc: k.doc, key: name}, func(ctx context.Context) (struct{}, error) {
			return struct{}{}, s.rdb.Set(ctx, rkey, data, ttl).Err()
		})
		return 0
	}
	mkey := s.key("v:"+k.prefix, name)
	force := "0"
	// At most three tries: the mark may be newer (another writer, whose clock runs
	// ahead: write above it), then forged (overwrite it).
	for range 3 {
		data := s.seal.seal(k.sealed, rkey, name, version, meta, value)
		mark := s.seal.mark(mkey, version)
		res, err := roundTrip(context.Background(), s, op[any]{doc: k.doc, key: name}, func(ctx context.Context) (any, error) {
			return writeSealedScript.Run(ctx, s.rdb, []string{rkey, mkey}, data, max(ttl.Milliseconds(), 1), mark,
				s.markTTL().Milliseconds(), force).Result()
		})
		if err != nil {
			return 0
		}
		cur, refused := res.(string)
		if !refused {
			s.seen.raise(rkey, version)
			return version
		}
		if mv, ok := s.seal.readMark(mkey, cur); ok {
			s.seen.raise(rkey, mv)
			version = max(version, mv+1)
		} else {
			force = "1"
		}
	}
	return 0
}

// deleteShared deletes the value of kind k stored for name. Its version mark stays,
// so that an older value written back is still refused.
func (s *Store) deleteShared(k kind, name string) {
	rkey := s.key(k.prefix, name)
	roundTrip(context.Background(), s, op[struct{}]{doc: k.doc, key: name}, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, s.rdb.Del(ctx, rkey).Err()
	})
}

// deleteSame deletes the value of kind k stored for name (under rkey) if its bytes
// from..to (from 1, inclusive) are want: only the value the caller judged, never one
// written since.
func (s *Store) deleteSame(k kind, name, rkey string, want []byte, from, to int) {
	roundTrip(context.Background(), s, op[int64]{doc: k.doc, key: name}, func(ctx context.Context) (int64, error) {
		return deleteSameScript.Run(ctx, s.rdb, []string{rkey}, want, strconv.Itoa(from), strconv.Itoa(to)).Int64()
	})
}

func versionBytes(version int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(version)) }
