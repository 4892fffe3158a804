package discovery

import (
	"context"
	"time"
)

// Sharing fetches across a fleet (the waiting is the pipeline's: internal/fetch).

// DefaultFleetWait is the wait used when Options.FleetWait is zero.
const DefaultFleetWait = 3 * time.Second

// FleetLock is a lock shared by the processes of a fleet, with an expiry so a holder
// that dies blocks nobody past it (package redisstore implements it with SET NX PX).
// Implementations must be safe for concurrent use and must bound each call in time;
// an error is not a failure of the discovery: the process fetches for itself.
type FleetLock interface {
	// TryLock tries once to take the lock named key for ttl. When it is taken it
	// returns acquired true and the function that releases it (only if still held by
	// this taker).
	TryLock(ctx context.Context, key string, ttl time.Duration) (release func(), acquired bool, err error)
	// Held reports whether anyone holds the lock named key. A lock released a moment
	// ago may be reported not held while TryLock still cannot take it: a store may
	// keep a short "done" marker (redisstore keeps one for a second), so a process
	// that just missed the answer asks the shared cache instead of fetching again.
	Held(ctx context.Context, key string) (bool, error)
}
