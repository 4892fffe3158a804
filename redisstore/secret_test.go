package redisstore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery"
)

// TestSecretAuthenticatesValues: with Options.Secret, only processes that share it
// read each other's values; a value framed without it (forged by anything else that
// can write to Redis, even at the right key) is a miss, and is deleted.
func TestSecretAuthenticatesValues(t *testing.T) {
	t.Parallel()
	secret := []byte("0123456789abcdef0123456789abcdef")
	mr, rdb, _ := newMini(t)
	a, _, _, _ := newStore(t, rdb, &Options{Secret: secret})
	b, _, _, _ := newStore(t, rdb, &Options{Secret: []byte(string(secret))})
	plain, _, _, _ := newStore(t, rdb, nil)

	a.LastGood().Store(testURL, lastGood(t0, "# Skills\n"))
	if got, ok := b.LastGood().Load(testURL); !ok || string(got.Body) != "# Skills\n" {
		t.Fatalf("a process with the same Secret: Load = %+v, %v", got, ok)
	}
	if got, ok := plain.LastGood().Load(testURL); ok {
		t.Fatalf("a process without the Secret read %+v", got)
	}

	// The key does not show the URL's plain hash.
	k := a.key("lg:", testURL)
	sum := sha256.Sum256([]byte(testURL))
	if strings.Contains(k, hex.EncodeToString(sum[:])) {
		t.Errorf("key %s is the URL's SHA-256", k)
	}

	// A forged value at the right key: framed with a checksum, or sealed with another secret.
	other, err := newSealer([]byte("fedcba9876543210fedcba9876543210"))
	if err != nil {
		t.Fatal(err)
	}
	forgedBody := encodeLastGood(lastGood(t0, "# Forged\n"))
	for name, forged := range map[string][]byte{
		"checksum":     encodeFrame(magicLastGood, testURL, t0.UnixNano(), forgedBody),
		"other secret": other.seal(magicSealedLastGood, k, testURL, t0.UnixNano(), t0.UnixNano(), forgedBody),
	} {
		c, _, ev, _ := newStore(t, rdb, &Options{Secret: secret})
		mr.Set(k, string(forged))
		if got, ok := c.LastGood().Load(testURL); ok {
			t.Fatalf("%s: forged value served: %+v", name, got)
		}
		if mr.Exists(k) {
			t.Errorf("%s: the forged value is still in Redis", name)
		}
		if e, ok := ev.last(discovery.EventStoreMiss); !ok || !errors.Is(e.Err, errCorrupt) {
			t.Errorf("%s: EventStoreMiss = %+v, %v", name, e, ok)
		}
	}

	// The HTTP cache tier too.
	ck := a.key("c:", testURL)
	mr.Set(ck, string(encodeFrame(magicCache, testURL, 0, []byte("HTTP/1.1 200 OK\r\n\r\nforged"))))
	if v, ok := a.Cache().Get(testURL); ok {
		t.Errorf("forged cache entry served: %q", v)
	}
}

func TestSecretTooShort(t *testing.T) {
	t.Parallel()
	_, rdb, _ := newMini(t)
	for _, n := range []int{1, MinSecretLen - 1} {
		if _, err := New(rdb, &Options{Secret: make([]byte, n)}); err == nil || !strings.Contains(err.Error(), "Options.Secret") {
			t.Errorf("a %d-byte Secret: err = %v", n, err)
		}
	}
	if _, err := New(rdb, &Options{Secret: make([]byte, MinSecretLen)}); err != nil {
		t.Errorf("a %d-byte Secret: %v", MinSecretLen, err)
	}
}
