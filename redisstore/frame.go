package redisstore

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"errors"
)

// Without Options.Secret, a value in Redis is framed as: magic (8 bytes, one per kind
// of entry), meta (int64), key length (uint32), value length (uint64), SHA-256 of all
// that and of the key and the value, then the key and the value. meta is when a cache
// entry stops being fresh, or when a last good copy was saved (UnixNano; 0 for none).
// With a Secret, values are sealed instead (see seal.go).
const (
	magicCache    = "dcache1\x00"
	magicLastGood = "dlgood1\x00"
	magicLen      = 8
	frameFields   = magicLen + 8 + 4 + 8 // what the checksum covers before the key
	frameHeader   = frameFields + sha256.Size
)

// errCorrupt is why a value that Redis returned is not used: torn, corrupt, of another
// kind, for another key, or (with a Secret) not sealed under it. It is reported in the EventStoreMiss, and the value is
// deleted.
var errCorrupt = errors.New("redisstore: unusable entry (torn, corrupt or for another key)")

// encodeFrame frames value for key.
func encodeFrame(magic, key string, meta int64, value []byte) []byte {
	buf := make([]byte, frameHeader, frameHeader+len(key)+len(value))
	putFields(buf, magic, key, meta, value)
	sum := frameSum(buf[:frameFields], key, value)
	copy(buf[frameFields:], sum[:])
	return append(append(buf, key...), value...)
}

// frameChecksum returns the checksum encodeFrame writes for these arguments.
func frameChecksum(magic, key string, meta int64, value []byte) [sha256.Size]byte {
	var fields [frameFields]byte
	putFields(fields[:], magic, key, meta, value)
	return frameSum(fields[:], key, value)
}

func putFields(buf []byte, magic, key string, meta int64, value []byte) {
	copy(buf, magic)
	binary.BigEndian.PutUint64(buf[magicLen:], uint64(meta))
	binary.BigEndian.PutUint32(buf[magicLen+8:], uint32(len(key)))
	binary.BigEndian.PutUint64(buf[magicLen+12:], uint64(len(value)))
}

// decodeFrame returns the meta and value of a frame for key, or errCorrupt.
func decodeFrame(magic, key string, data []byte) (meta int64, value []byte, err error) {
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
	if string(k) != key || subtle.ConstantTimeCompare(sumOf(frameSum(data[:frameFields], key, v)), data[frameFields:frameHeader]) != 1 {
		return 0, nil, errCorrupt
	}
	return meta, v, nil
}

// frameSum is the SHA-256 of a frame's fields, key and value.
func frameSum(fields []byte, key string, value []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write(fields)
	h.Write([]byte(key))
	h.Write(value)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

func sumOf(s [sha256.Size]byte) []byte { return s[:] }
