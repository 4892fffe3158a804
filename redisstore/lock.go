package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// fleetLock is the Store's discovery.FleetLock.
type fleetLock struct{ s *Store }

// lockDone is the value a released lock keeps for its grace period. Tokens are hex,
// so no token is ever equal to it.
const lockDone = "done"

// releaseScript turns the lock into the "done" marker for ARGV[2] milliseconds, only
// if it still holds our token (ARGV[1]): a holder whose lock expired, and was taken by
// another process, must not release that one.
var releaseScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("SET", KEYS[1], "` + lockDone + `", "PX", ARGV[2]) and 1
end
return 0`)

// abandonScript deletes the lock only if it still holds our token: for a lock taken
// by a SET whose answer came too late to be used.
var abandonScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

// TryLock tries once to take the lock named key for ttl, with SET key token NX PX ttl
// and a random token. It is not acquired while another process holds the lock, nor
// during the grace period after a release (see [Store.FleetLock]). The release
// function acts only if the lock still holds that token; it may be called more than
// once, and it tries even while the breaker is open (the lock was taken moments ago).
// An error (Redis down or slow, or ErrUnavailable while the breaker is open) comes
// within Options.Timeout. A SET that Redis may have applied after all (its answer
// was late or lost) is undone in the background, so that a lock nobody knows it holds
// does not make the fleet wait for its expiry.
func (l *fleetLock) TryLock(ctx context.Context, key string, ttl time.Duration) (release func(), acquired bool, err error) {
	if ttl < time.Millisecond {
		return nil, false, fmt.Errorf("redisstore: TryLock: ttl %s is under a millisecond", ttl)
	}
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand panics rather)
	token := hex.EncodeToString(b[:])
	rkey := l.s.key("lock:", key)
	abandon := func() { l.run(key, abandonScript, rkey, token) }
	ok, err := roundTrip(ctx, l.s, op[bool]{doc: docLock, key: key, late: func(ok bool) {
		if ok {
			abandon() // taken after TryLock gave up: nobody would release it
		}
	}}, func(ctx context.Context) (bool, error) {
		return l.s.rdb.SetNX(ctx, rkey, token, ttl).Result()
	})
	if err != nil {
		if sent(err) {
			go abandon() // the SET may have been applied, its answer lost
		}
		return nil, false, fmt.Errorf("redisstore: TryLock %s: %w", redactKey(key), err)
	}
	if !ok {
		return nil, false, nil
	}
	grace := min(ttl, lockGrace)
	return sync.OnceFunc(func() { l.run(key, releaseScript, rkey, token, grace.Milliseconds()) }), true, nil
}

// sent reports whether a failed operation may have reached Redis: it was neither
// skipped by the breaker nor stopped at the connect step.
func sent(err error) bool {
	var opErr *net.OpError
	return !errors.Is(err, ErrUnavailable) && !(errors.As(err, &opErr) && opErr.Op == "dial")
}

// lockGrace is how long a released lock stays claimed: a process that read the cache
// just before the holder stored its answer, and tries the lock just after the
// release, must wait for nothing and read that answer rather than fetch again.
const lockGrace = time.Second

// run runs one of the lock scripts on rkey with token. Best effort: if Redis cannot be
// reached, the lock expires at its ttl.
func (l *fleetLock) run(key string, script *redis.Script, rkey string, args ...any) {
	roundTrip(context.Background(), l.s, op[int64]{doc: docLock, key: key, force: true}, func(ctx context.Context) (int64, error) {
		return script.Run(ctx, l.s.rdb, []string{rkey}, args...).Int64()
	})
}

// Held reports whether anyone holds the lock named key: it exists and is not a
// released lock's marker (one GET). An error comes within Options.Timeout.
func (l *fleetLock) Held(ctx context.Context, key string) (bool, error) {
	rkey := l.s.key("lock:", key)
	v, err := roundTrip(ctx, l.s, op[string]{doc: docLock, key: key}, func(ctx context.Context) (string, error) {
		return l.s.rdb.Get(ctx, rkey).Result()
	})
	switch {
	case errors.Is(err, redis.Nil):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("redisstore: Held %s: %w", redactKey(key), err)
	}
	return v != lockDone, nil
}

// noLock is the FleetLock of a Store not made by New: every call fails, so the Client
// fetches for itself.
type noLock struct{}

func (noLock) TryLock(context.Context, string, time.Duration) (func(), bool, error) {
	return nil, false, errNotNew
}

func (noLock) Held(context.Context, string) (bool, error) { return false, errNotNew }
