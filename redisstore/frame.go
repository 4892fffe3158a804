package redisstore

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash"
)

// A value in Redis is framed as: magic (8 bytes, one per kind of entry), meta (int64),
// key length (uint32), value length (uint64), SHA-256 of all that and of the key and
// the value (HMAC-SHA256 under Options.Secret when it is set), then the key and the
// value. meta is when a cache entry stops being fresh,
// or when a last good copy was saved (UnixNano; 0 for none).
const (
	magicCache    = "dcache1\x00"
	magicLastGood = "dlgood1\x00"
	magicLen      = 8
	frameFields   = magicLen + 8 + 4 + 8 // what the checksum covers before the key
	frameHeader   = frameFields + sha256.Size
)

// errCorrupt is why a value that Redis returned is not used: torn, corrupt, of another
// kind or for another key. It is reported in the EventStoreMiss, and the value is
// deleted.
var errCorrupt = errors.New("redisstore: unusable entry (torn, corrupt or for another key)")

// encodeFrame frames value for key.
func encodeFrame(secret []byte, magic, key string, meta int64, value []byte) []byte {
	buf := make([]byte, frameHeader, frameHeader+len(key)+len(value))
	putFields(buf, magic, key, meta, value)
	sum := frameSum(secret, buf[:frameFields], key, value)
	copy(buf[frameFields:], sum[:])
	return append(append(buf, key...), value...)
}

// frameChecksum returns the checksum encodeFrame writes for these arguments.
func frameChecksum(secret []byte, magic, key string, meta int64, value []byte) [sha256.Size]byte {
	var fields [frameFields]byte
	putFields(fields[:], magic, key, meta, value)
	return frameSum(secret, fields[:], key, value)
}

func putFields(buf []byte, magic, key string, meta int64, value []byte) {
	copy(buf, magic)
	binary.BigEndian.PutUint64(buf[magicLen:], uint64(meta))
	binary.BigEndian.PutUint32(buf[magicLen+8:], uint32(len(key)))
	binary.BigEndian.PutUint64(buf[magicLen+12:], uint64(len(value)))
}

// decodeFrame returns the meta and value of a frame for key, or errCorrupt.
func decodeFrame(secret []byte, magic, key string, data []byte) (meta int64, value []byte, err error) {
	if len(data) < frameHeader || len(data) > maxSharedValue+frameHeader+len(key) || string(data[:magicLen]) != magic {
		return 0, nil, errCorrupt
	}
	meta = int64(binary.BigEndian.Uint64(data[magicLen:]))
	klen := uint64(binary.BigEndian.Uint32(data[magicLen+8:]))
	vlen := binary.BigEndian.Uint64(data[magicLen+12:])
	rest := data[frameHeader:]
	if klen != uint64(len(key)) || klen > uint64(len(rest)) || vlen != uint64(len(rest))-klen {
		return 0, nil, errCorrupt
	}
	k, v := rest[:klen], rest[klen:]
	if string(k) != key || !hmac.Equal(sumOf(frameSum(secret, data[:frameFields], key, v)), data[frameFields:frameHeader]) {
		return 0, nil, errCorrupt
	}
	return meta, v, nil
}

// frameSum is the SHA-256 of a frame's fields, key and value, or their HMAC-SHA256
// under secret when it is set.
func frameSum(secret []byte, fields []byte, key string, value []byte) [sha256.Size]byte {
	var h hash.Hash
	if secret != nil {
		h = hmac.New(sha256.New, secret)
	} else {
		h = sha256.New()
	}
	h.Write(fields)
	h.Write([]byte(key))
	h.Write(value)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

func sumOf(s [sha256.Size]byte) []byte { return s[:] }
