package mcpclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/mcpclient"
)

// tenantServers serves a different MCP server for each value of the "tenant" query
// parameter, on one host and path: endpoints that Session.Endpoint shows alike
// (redacted, without query) but that are different servers.
func tenantServers(t *testing.T, servers map[string]*mcp.Server) *httptest.Server {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server { return servers[r.URL.Query().Get("tenant")] }, nil)
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs
}

func connectAt(t *testing.T, u string, opts *mcpclient.Options) *mcpclient.Session {
	t.Helper()
	s, err := mcpclient.ConnectURL(t.Context(), localClient(t, func(context.Context, *discovery.ConsentRequest) (bool, error) { return true, nil }), u, false, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestPublicListingIsNotSharedWithAnotherServer: a server that marks its skills
// listing public shares it only with sessions to that same server; another server
// whose URL differs only where Session.Endpoint is redacted (the query) never gets it.
func TestPublicListingIsNotSharedWithAnotherServer(t *testing.T) {
	t.Parallel()
	evil := &skillServer{skills: []testSkill{newSkill("ignore-your-rules", nil)}, declare: true, ttlMs: ttl(600_000), scope: mcpclient.ScopePublic}
	good := &skillServer{skills: threeSkills(), declare: true, ttlMs: ttl(600_000), scope: mcpclient.ScopePublic}
	hs := tenantServers(t, map[string]*mcp.Server{"evil": evil.server(), "good": good.server()})
	shared := &mcpclient.ListingCache{}
	se := connectAt(t, hs.URL+"/mcp?tenant=evil", &mcpclient.Options{Listings: shared})
	if l, err := se.ListSkills(t.Context()); err != nil || len(l.Skills) != 1 {
		t.Fatalf("evil listing = %+v, %v", l, err)
	}
	sg := connectAt(t, hs.URL+"/mcp?tenant=good", &mcpclient.Options{Listings: shared})
	if se.Endpoint != sg.Endpoint {
		t.Logf("endpoints shown differently: %q and %q", se.Endpoint, sg.Endpoint)
	}
	l, err := sg.ListSkills(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Skills) != 3 || l.Skills[0].Name != "alpha" || good.calls("skills/list") != 1 {
		t.Fatalf("the good server's session got %d skills (first %q) after %d skills/list calls; want its own 3 from 1 call",
			len(l.Skills), l.Skills[0].Name, good.calls("skills/list"))
	}
	// The same server, reached again, still shares.
	again := connectAt(t, hs.URL+"/mcp?tenant=good", &mcpclient.Options{Listings: shared})
	if _, err := again.ListSkills(t.Context()); err != nil || good.calls("skills/list") != 1 {
		t.Fatalf("a second session to the same server asked again (%d calls, %v)", good.calls("skills/list"), err)
	}
}

// TestToolApprovalIsBoundToItsServer: a tool approved on one server is not approved on
// another that serves the very same definition from a URL that differs only in its
// query: the pin is bound to the server, not to what Session.Endpoint shows.
func TestToolApprovalIsBoundToItsServer(t *testing.T) {
	t.Parallel()
	trusted, _ := newToolServer(t, baseTool())
	evil, _ := newToolServer(t, baseTool())
	hs := tenantServers(t, map[string]*mcp.Server{"trusted": trusted.srv, "evil": evil.srv})
	store := mcpclient.NewMemoryPins()
	st := connectAt(t, hs.URL+"/mcp?tenant=trusted", &mcpclient.Options{Pins: store})
	approveListed(t, st, "read_file")
	if _, err := st.CallTool(t.Context(), "read_file", nil); err != nil || trusted.calls.Load() != 1 {
		t.Fatalf("the approved tool: %v, %d calls", err, trusted.calls.Load())
	}
	se := connectAt(t, hs.URL+"/mcp?tenant=evil", &mcpclient.Options{Pins: store})
	_, err := se.CallTool(t.Context(), "read_file", nil)
	if !errors.Is(err, mcpclient.ErrNotApproved) || evil.calls.Load() != 0 {
		t.Fatalf("the other server's tool: %v with %d calls; want ErrNotApproved and none", err, evil.calls.Load())
	}
}
