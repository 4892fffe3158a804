package redisstore

import (
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wellknown-dev/discovery/internal/lru"
)

// The rollback rule (see the package documentation): with Options.Secret, a process
// never uses a value older than one it, or the fleet, has already accepted under the
// same key. Sealed values carry a version; each process remembers the newest version
// per key (versions), the fleet keeps an authenticated mark per key that writers only
// raise (writeSealedScript), and readShared refuses a value below either, or older
// than the longest such a value may live in Redis.

// ErrRolledBack is the cause in a [RollbackError].
var ErrRolledBack = errors.New("redisstore: entry older than one already accepted")

// RollbackError reports a value in Redis that was refused because it is older than
// one this process or the fleet had already accepted under the same key (or older
// than the longest such a value may live): an old value written back by something
// that can write to the Redis, or a Redis restored from an old snapshot. It is the
// Err of an [discovery.EventStoreDegraded] event, logged at Warn; the value is not
// used, and is deleted. errors.Is(err, ErrRolledBack) reports true.
type RollbackError struct {
	URL     string    // the entry's URL, redacted: no userinfo, query or fragment
	Doc     string    // the kind of entry: "cache" or "last-good"
	Version time.Time // when the refused value was written
	Newest  time.Time // the newest version accepted before it; zero when it was refused for its age alone
}

func (e *RollbackError) Error() string {
	if e.Newest.IsZero() {
		return fmt.Sprintf("redisstore: %s entry for %s written at %s is too old to be in Redis: refused as rolled back",
			e.Doc, e.URL, e.Version.UTC().Format(time.RFC3339Nano))
	}
	return fmt.Sprintf("redisstore: %s entry for %s written at %s is older than the one accepted at %s: refused as rolled back",
		e.Doc, e.URL, e.Version.UTC().Format(time.RFC3339Nano), e.Newest.UTC().Format(time.RFC3339Nano))
}

// Unwrap returns ErrRolledBack.
func (e *RollbackError) Unwrap() error { return ErrRolledBack }

// seenBudget bounds the memory of accepted versions: about 8,000 keys.
const seenBudget = 1 << 20

// versions is a process's memory of the newest version accepted or written per Redis
// key. It is safe for concurrent use (lru.Cache is); two goroutines raising one key
// at once may leave the lower of their versions, which only makes the rule weaker by
// that much, never refuses a good value.
type versions struct{ c *lru.Cache[int64] }

func newVersions() versions { return versions{lru.New[int64](seenBudget)} }

// newest returns the newest version remembered for rkey, 0 when none.
func (v versions) newest(rkey string) int64 {
	n, _ := v.c.Get(rkey)
	return n
}

// raise remembers version for rkey unless a newer one is remembered.
func (v versions) raise(rkey string, version int64) {
	if version > v.newest(rkey) {
		v.c.Set(rkey, version, int64(len(rkey))+48)
	}
}

// nextVersion returns the version for a value about to be written under rkey: now,
// or just above the newest version this process has seen there, whichever is larger
// (another process's clock may run ahead of ours).
func (s *Store) nextVersion(rkey string) int64 {
	return max(s.now().UnixNano(), s.seen.newest(rkey)+1)
}

// markTTL is how long a version mark lives: as long as any value it guards may.
func (s *Store) markTTL() time.Duration { return max(s.maxTTL, s.maxStale, time.Millisecond) }

// writeSealedScript stores a sealed value and raises its key's version mark, in one
// step, unless the mark already holds this version or a newer one: then it returns
// the mark, and stores nothing. KEYS: the value's key, the mark's key. ARGV: the
// value, its ttl (ms), the new mark, the mark's ttl (ms), and "1" to store whatever
// the mark says (for a mark that failed authentication: forged, so it is not the
// fleet's). Marks begin with their version in fixed-width digits, so comparing the
// strings compares the versions.
var writeSealedScript = redis.NewScript(fmt.Sprintf(`local cur = redis.call("GET", KEYS[2])
if ARGV[5] ~= "1" and cur and #cur == %d and string.sub(cur, 1, %d) >= string.sub(ARGV[3], 1, %d) then
	return cur
end
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
redis.call("SET", KEYS[2], ARGV[3], "PX", ARGV[4])
return 1`, markLen, markDigits, markDigits))

// deleteSameScript deletes KEYS[1] if its bytes ARGV[2] to ARGV[3] (counting from 1,
// as Lua does) are ARGV[1]: a checksummed value's checksum, or a sealed value's
// version. A newer value written meanwhile stays.
var deleteSameScript = redis.NewScript(`local v = redis.call("GET", KEYS[1])
if v and string.sub(v, tonumber(ARGV[2]), tonumber(ARGV[3])) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)
