package discovery

import (
	"context"
	"net"
	"net/netip"
	"time"

	"github.com/wellknown-dev/discovery/internal/netguard"
)

// TestHooks replace name resolution, the connect step and the backoff bounds for the
// tests of package discovery_test. They exist only in test builds.
type TestHooks struct {
	Lookup       func(ctx context.Context, host string) ([]netip.Addr, error)
	Dial         func(ctx context.Context, network, address string) (net.Conn, error)
	RetryWaitMin time.Duration
	RetryWaitMax time.Duration
}

// NewClientWithHooks is NewClient with test hooks.
func NewClientWithHooks(opts *Options, h TestHooks) (*Client, error) {
	return newClient(opts, testHooks{lookup: h.Lookup, dial: h.Dial, retryWaitMin: h.RetryWaitMin, retryWaitMax: h.RetryWaitMax})
}

// IsPrivate exposes the address classifier.
func IsPrivate(a netip.Addr) bool { return netguard.IsPrivate(a) }

// PrivatePartition begins the keys of a private origin's documents (see IsPrivateKey).
const PrivatePartition = privatePartition
