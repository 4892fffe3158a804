package redisstore

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
)

// With Options.Secret, a value in Redis is sealed rather than checksummed:
//
//	magic (8 bytes, one per kind of entry), version (int64), AES-256-GCM(meta, value)
//
// where the AES-GCM part is a random 96-bit nonce, the ciphertext and the tag, and
// its additional data is the magic, the version, the Redis key and the name (the URL)
// the value is stored under. So a value reveals neither its URL nor its response, a
// value that anything without the Secret wrote or changed fails to open, and one
// moved under another key (another URL, another kind, another Prefix) fails too. The
// version, which the rollback rule compares (see rollback.go), is authenticated with
// the rest but left in clear, so a Lua script can compare it.
const (
	magicSealedCache    = "scache1\x00"
	magicSealedLastGood = "slgood1\x00"
	sealedHeader        = magicLen + 8
	sealedOverhead      = sealedHeader + 12 + 16 + 8 // header, nonce, tag, meta
)

// sealer holds the keys derived from Options.Secret. Each job has its own key, drawn
// from the Secret with HKDF-SHA256, so no key serves two purposes.
type sealer struct {
	aead    cipher.AEAD // AES-256-GCM with random nonces: values
	nameKey []byte      // HMAC-SHA256: key names, so keys do not show URLs
	markKey []byte      // HMAC-SHA256: the fleet's version marks
}

// Labels of the keys derived from the Secret. Changing one makes every entry a miss.
const (
	infoSeal = "discovery redisstore v1 value encryption"
	infoName = "discovery redisstore v1 key names"
	infoMark = "discovery redisstore v1 version marks"
)

func newSealer(secret []byte) (*sealer, error) {
	derive := func(info string) ([]byte, error) { return hkdf.Key(sha256.New, secret, nil, info, 32) }
	encKey, err := derive(infoSeal)
	if err != nil {
		return nil, fmt.Errorf("redisstore: deriving keys from Options.Secret: %w", err)
	}
	nameKey, err := derive(infoName)
	if err != nil {
		return nil, fmt.Errorf("redisstore: deriving keys from Options.Secret: %w", err)
	}
	markKey, err := derive(infoMark)
	if err != nil {
		return nil, fmt.Errorf("redisstore: deriving keys from Options.Secret: %w", err)
	}
	block, err := aes.NewCipher(encKey)
	if err != nil {
		return nil, fmt.Errorf("redisstore: %w", err)
	}
	aead, err := cipher.NewGCMWithRandomNonce(block)
	if err != nil {
		return nil, fmt.Errorf("redisstore: %w", err)
	}
	return &sealer{aead: aead, nameKey: nameKey, markKey: markKey}, nil
}

// name returns the hex HMAC of a URL, for its key.
func (k *sealer) name(name string) string {
	h := hmac.New(sha256.New, k.nameKey)
	h.Write([]byte(name))
	return hex.EncodeToString(h.Sum(nil))
}

// additional returns the data a sealed value is bound to besides its content.
func additional(magic string, version int64, rkey, name string) []byte {
	ad := make([]byte, 0, sealedHeader+4+len(rkey)+len(name))
	ad = append(ad, magic...)
	ad = binary.BigEndian.AppendUint64(ad, uint64(version))
	ad = binary.BigEndian.AppendUint32(ad, uint32(len(rkey)))
	ad = append(ad, rkey...)
	return append(ad, name...)
}

// seal returns the sealed value of meta and value, for name under rkey, at version.
func (k *sealer) seal(magic, rkey, name string, version, meta int64, value []byte) []byte {
	plain := make([]byte, 8, 8+len(value))
	binary.BigEndian.PutUint64(plain, uint64(meta))
	plain = append(plain, value...)
	out := make([]byte, sealedHeader, sealedOverhead+len(value))
	copy(out, magic)
	binary.BigEndian.PutUint64(out[magicLen:], uint64(version))
	return k.aead.Seal(out, nil, plain, additional(magic, version, rkey, name))
}

// open returns the version, meta and value of a sealed value for name under rkey, or
// errCorrupt: torn, changed, sealed under another Secret, or for another key or kind.
func (k *sealer) open(magic, rkey, name string, data []byte) (version, meta int64, value []byte, err error) {
	if len(data) < sealedOverhead || len(data) > maxSharedValue+sealedOverhead || string(data[:magicLen]) != magic {
		return 0, 0, nil, errCorrupt
	}
	version = int64(binary.BigEndian.Uint64(data[magicLen:]))
	plain, err := k.aead.Open(nil, nil, data[sealedHeader:], additional(magic, version, rkey, name))
	if err != nil || len(plain) < 8 {
		return 0, 0, nil, errCorrupt
	}
	return version, int64(binary.BigEndian.Uint64(plain)), plain[8:], nil
}

// A version mark is the newest version the fleet has written under a key, as 20
// decimal digits (so a Lua script compares marks as strings), then the hex
// HMAC-SHA256 of the mark's key and that version.
const (
	markDigits = 20
	markLen    = markDigits + 2*sha256.Size
)

// mark returns the mark of version for the mark key mkey.
func (k *sealer) mark(mkey string, version int64) string {
	digits := fmt.Sprintf("%0*d", markDigits, uint64(version))
	return digits + k.markSum(mkey, digits)
}

// readMark returns the version in mark, if mark is authentic for mkey.
func (k *sealer) readMark(mkey, mark string) (int64, bool) {
	if len(mark) != markLen {
		return 0, false
	}
	digits := mark[:markDigits]
	if !hmac.Equal([]byte(k.markSum(mkey, digits)), []byte(mark[markDigits:])) {
		return 0, false
	}
	v, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}

func (k *sealer) markSum(mkey, digits string) string {
	h := hmac.New(sha256.New, k.markKey)
	h.Write([]byte(mkey))
	h.Write([]byte{0})
	h.Write([]byte(digits))
	return hex.EncodeToString(h.Sum(nil))
}
