package mcpclient_test

import (
	"fmt"
	"strings"
	"testing"

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
