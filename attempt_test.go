package discovery_test

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery"
)

// TestAttemptTimeoutInConnectIsRetried: an attempt whose deadline passes while the
// connection is still being set up (a slow dial or TLS handshake) is retried like
// any other timed-out attempt, never taken for the caller giving up.
func TestAttemptTimeoutInConnectIsRetried(t *testing.T) {
	var dials atomic.Int32
	hooks := discovery.TestHooks{
		RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond,
		Lookup: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("203.0.113.7")}, nil
		},
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			dials.Add(1)
			<-ctx.Done() // a connection that never completes
			return nil, ctx.Err()
		},
	}
	c, err := discovery.NewClientWithHooks(&discovery.Options{
		HTTPClient:     &http.Client{Transport: &http.Transport{}},
		AttemptTimeout: 50 * time.Millisecond,
	}, hooks)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Discover(t.Context(), "https://example.com")
	if err == nil {
		t.Fatal("Discover succeeded without a connection")
	}
	if n := dials.Load(); n != 3 {
		t.Errorf("%d connection attempts, want 3 (retried after each attempt timeout): %v", n, err)
	}
}

// TestAttemptTimeoutReportedAsCanceled: a transport that reports an attempt cut by
// its deadline as context.Canceled (net/http can, depending on where the request
// was) is still retried: only the caller's own cancellation stops the retries.
func TestAttemptTimeoutReportedAsCanceled(t *testing.T) {
	var attempts atomic.Int32
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		attempts.Add(1)
		<-r.Context().Done()
		return nil, context.Canceled
	})
	hooks := discovery.TestHooks{
		RetryWaitMin: time.Millisecond, RetryWaitMax: time.Millisecond,
		Lookup: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("203.0.113.7")}, nil
		},
	}
	c, err := discovery.NewClientWithHooks(&discovery.Options{
		HTTPClient:     &http.Client{Transport: base},
		AttemptTimeout: 50 * time.Millisecond,
	}, hooks)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Discover(t.Context(), "https://example.com"); err == nil {
		t.Fatal("Discover succeeded")
	}
	if n := attempts.Load(); n != 3 {
		t.Errorf("%d attempts, want 3", n)
	}
}
