package mcpclient_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/mcpclient"
	"github.com/wellknown-dev/discovery/servercard"
)

// TestCardCheckedAgainstTheServer: the Server Card a server came from is compared
// with what the server reports once connected; each disagreement is a warning on the
// session, and the session is used all the same (a card is advisory).
func TestCardCheckedAgainstTheServer(t *testing.T) {
	t.Parallel()
	srv := &skillServer{skills: threeSkills(), declare: true}
	ts := srv.start(t)
	card := func(name, version, transport string) *servercard.Card {
		t.Helper()
		c, err := servercard.Parse(fmt.Appendf(nil, `{"$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
			"name": %q, "version": %q, "description": "Test skills.",
			"remotes": [{"type": %q, "url": %q}]}`, name, version, transport, ts.URL), servercard.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	tests := []struct {
		name string
		card *servercard.Card
		want []string // codes of the warnings, in order
	}{
		{"no card", nil, nil},
		{"agrees", card("dev.wellknown/go-test-skills", "1", "streamable-http"), nil},
		{"another name", card("com.example/weather", "1", "streamable-http"), []string{"name-mismatch"}},
		{"another version and transport", card("dev.wellknown/go-test-skills", "2.0.0", "sse"), []string{"version-mismatch", "transport-mismatch"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := connect(t, ts, &mcpclient.Options{Card: tc.card})
			if len(s.Warnings) != len(tc.want) {
				t.Fatalf("warnings %q, want %v", s.Warnings, tc.want)
			}
			for i, code := range tc.want {
				if !strings.Contains(s.Warnings[i], code) {
					t.Errorf("warning %d = %q, want %s", i, s.Warnings[i], code)
				}
			}
			if _, err := s.ListSkills(t.Context()); err != nil {
				t.Fatalf("the session is usable whatever the card says: %v", err)
			}
		})
	}
}

// TestConnectComparesTheCardItCameFrom checks that Connect, given a server that is one
// of the Discovery's card remotes, compares that card with the server without being
// told to.
func TestConnectComparesTheCardItCameFrom(t *testing.T) {
	t.Parallel()
	srv := &skillServer{skills: threeSkills(), declare: true}
	ts := srv.start(t)
	card, err := servercard.Parse(fmt.Appendf(nil, `{"$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
		"name": "com.example/weather", "version": "1", "description": "Test skills.",
		"remotes": [{"type": "streamable-http", "url": %q}]}`, ts.URL), servercard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o, err := discovery.ParseOrigin(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	d := &discovery.Discovery{Origin: o, All: &discovery.Published{Cards: []discovery.Card{{Identifier: "urn:air:example.com:mcp:weather", URL: ts.URL, Card: card}}}}
	servers := d.All.Cards[0].Servers()
	if len(servers) != 1 {
		t.Fatalf("card servers = %+v", servers)
	}
	s, err := mcpclient.Connect(t.Context(), localClient(t, nil), d, servers[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "name-mismatch") {
		t.Errorf("warnings %q, want the card's name-mismatch", s.Warnings)
	}
}
