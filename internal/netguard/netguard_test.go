package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
)

func TestIsPrivate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1", true},
		{"10.1.2.3", true},
		{"169.254.169.254", true},
		{"::1", true},
		{"::ffff:127.0.0.1", true},
		{"64:ff9b::a9fe:a9fe", true}, // NAT64 form of 169.254.169.254
		{"2002:7f00:1::", true},      // 6to4 form of 127.0.0.1
		{"203.0.113.7", false},
		{"2606:4700::1111", false},
	}
	for _, tc := range tests {
		if got := IsPrivate(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("IsPrivate(%s) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}

var errRefused = errors.New("refused")

// TestDialPolicy: a private address is dialled only under a policy that allows it,
// or for a host named in Allow; a refusal is the caller's error.
func TestDialPolicy(t *testing.T) {
	t.Parallel()
	var dialled []string
	g := New(Config{
		Allow: map[string]bool{"intranet.example": true},
		Lookup: func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{netip.MustParseAddr("10.0.0.9")}, nil
		},
		Dial: func(_ context.Context, _, address string) (net.Conn, error) {
			dialled = append(dialled, address)
			return nil, errors.New("not connected in a test")
		},
		Refuse: func(host, addr string) error { return errRefused },
	})
	ctx := context.Background()
	if _, err := g.DialContext(ctx, "tcp", "db.example:443"); !errors.Is(err, errRefused) || len(dialled) != 0 {
		t.Errorf("no policy: %v, dialled %v", err, dialled)
	}
	if _, err := g.DialContext(WithPolicy(ctx, false), "tcp", "db.example:443"); !errors.Is(err, errRefused) || len(dialled) != 0 {
		t.Errorf("strict policy: %v, dialled %v", err, dialled)
	}
	if PrivateOK(WithPolicy(ctx, false)) || !PrivateOK(WithPolicy(ctx, true)) || PrivateOK(ctx) {
		t.Error("PrivateOK does not read WithPolicy")
	}
	g.DialContext(WithPolicy(ctx, true), "tcp", "db.example:443")
	g.DialContext(ctx, "tcp", "intranet.example:443")
	if len(dialled) != 2 || dialled[0] != "10.0.0.9:443" {
		t.Errorf("allowed dials went to %v", dialled)
	}
}
