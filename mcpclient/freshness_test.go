package mcpclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery/mcpclient"
)

func ttl(ms int64) *int64 { return &ms }

func (s *skillServer) calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, m := range s.methods {
		if m == method {
			n++
		}
	}
	return n
}

// TestListingsAreKeptForTheirTTL: skills/list and skills/get results are used again
// for their ttlMs, never past it, and not at all without one.
func TestListingsAreKeptForTheirTTL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		ttl       *int64
		wait      time.Duration
		wantLists int
		wantGets  int
	}{
		{"within the ttl", ttl(600_000), 0, 1, 1},
		{"past the ttl", ttl(1), 20 * time.Millisecond, 3, 3},
		{"no ttl (older protocol)", nil, 0, 3, 3},
		{"ttl 0", ttl(0), 0, 3, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := &skillServer{skills: threeSkills(), declare: true, ttlMs: tc.ttl, scope: mcpclient.ScopePrivate}
			s := connect(t, srv.start(t), nil)
			for range 3 {
				l, err := s.ListSkills(t.Context())
				if err != nil || len(l.Skills) != 3 {
					t.Fatalf("ListSkills = %+v, %v", l, err)
				}
				l.Skills[0].Name = "changed by the caller" // never reaches what is kept
				sk, err := s.GetSkill(t.Context(), "skill://beta/SKILL.md")
				if err != nil || sk.Name != "beta" {
					t.Fatalf("GetSkill = %+v, %v", sk, err)
				}
				time.Sleep(tc.wait)
			}
			lists, gets := srv.calls("skills/list"), srv.calls("skills/get")
			if l, _ := s.ListSkills(t.Context()); l.Skills[0].Name != "alpha" {
				t.Fatalf("a kept listing was changed by a caller: %q", l.Skills[0].Name)
			}
			if lists < tc.wantLists || (tc.wantLists == 1 && lists != 1) || gets < tc.wantGets || (tc.wantGets == 1 && gets != 1) {
				t.Fatalf("skills/list asked %d times, skills/get %d; want %d and %d", lists, gets, tc.wantLists, tc.wantGets)
			}
		})
	}
}

// TestListingScope: a public listing is shared through Options.Listings with another
// session to the same server; a private one never is.
func TestListingScope(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		scope string
		want  int // skills/list calls for two sessions
	}{{mcpclient.ScopePublic, 1}, {mcpclient.ScopePrivate, 2}, {"", 2}, {"shared-with-everyone", 2}} {
		t.Run("scope "+tc.scope, func(t *testing.T) {
			t.Parallel()
			srv := &skillServer{skills: threeSkills(), declare: true, ttlMs: ttl(600_000), scope: tc.scope}
			ts := srv.start(t)
			shared := &mcpclient.ListingCache{}
			for range 2 {
				s := connect(t, ts, &mcpclient.Options{Listings: shared})
				if _, err := s.ListSkills(t.Context()); err != nil {
					t.Fatal(err)
				}
			}
			if n := srv.calls("skills/list"); n != tc.want {
				t.Fatalf("skills/list asked %d times, want %d", n, tc.want)
			}
		})
	}
}

// TestListChangedDropsListings: notifications/resources/list_changed drops a listing
// kept for a long ttl, so the next ListSkills asks the server.
func TestListChangedDropsListings(t *testing.T) {
	t.Parallel()
	ss := &skillServer{skills: threeSkills(), declare: true, ttlMs: ttl(600_000), scope: mcpclient.ScopePublic, listChanged: true}
	srv := ss.server()
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	s := connect(t, ts, &mcpclient.Options{Listings: &mcpclient.ListingCache{}})
	if _, err := s.ListSkills(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListSkills(t.Context()); err != nil || ss.calls("skills/list") != 1 {
		t.Fatalf("before the change: %d calls, %v", ss.calls("skills/list"), err)
	}
	srv.AddResource(&mcp.Resource{URI: "skill://delta/SKILL.md", Name: "SKILL.md"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil })
	deadline := time.Now().Add(20 * time.Second)
	for ss.calls("skills/list") < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the listing was still served from the cache after list_changed")
		}
		time.Sleep(10 * time.Millisecond)
		if _, err := s.ListSkills(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDigestMismatchDropsKeptEntries: a file that fails verification proves the kept
// entry stale: GetSkill asks the server again instead of answering from it.
func TestDigestMismatchDropsKeptEntries(t *testing.T) {
	t.Parallel()
	srv := &skillServer{skills: threeSkills(), declare: true, ttlMs: ttl(600_000), scope: mcpclient.ScopePrivate}
	srv.serve = func(uri, c string) string { return c + "tampered" }
	s := connect(t, srv.start(t), nil)
	sk, err := s.GetSkill(t.Context(), "skill://beta/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadFile(t.Context(), sk, "SKILL.md"); err == nil {
		t.Fatal("a tampered file was returned")
	}
	if _, err := s.GetSkill(t.Context(), "skill://beta/SKILL.md"); err != nil || srv.calls("skills/get") != 2 {
		t.Fatalf("GetSkill after a mismatch: %d calls, %v; want the server asked again", srv.calls("skills/get"), err)
	}
}
