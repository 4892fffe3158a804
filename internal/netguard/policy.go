package netguard

import "context"

// policy is the one per-request value of this package: whether the request was made
// for an origin that may reach private addresses (the origin is private itself, and
// the Client allows private origins). It is immutable, and it rides in the request
// context only because net/http calls the dialer with that context. It also selects
// the connection pool (see Pools).
type policy struct{ privateOK bool }

type policyKey struct{}

var (
	strict = &policy{privateOK: false}
	lax    = &policy{privateOK: true}
)

// WithPolicy returns ctx carrying the dial policy of a request made for an origin
// that may (privateOK) or may not reach private addresses. It is set once per request:
// by the fetch pipeline for a discovery fetch, by the policy guard for an agent's call.
func WithPolicy(ctx context.Context, privateOK bool) context.Context {
	p := strict
	if privateOK {
		p = lax
	}
	return context.WithValue(ctx, policyKey{}, p)
}

// PrivateOK reports whether ctx carries a policy that lets its request reach any
// private address. A request without a policy gets the strict one.
func PrivateOK(ctx context.Context) bool {
	p, _ := ctx.Value(policyKey{}).(*policy)
	return p != nil && p.privateOK
}
