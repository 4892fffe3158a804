package families_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/internal/families"
)

const catalogURL = "https://docs.example.com/.well-known/ai-catalog.json"

var errRefused = errors.New("refused")

// walked parses and walks a catalog of entries (inline nested catalogs only).
func walked(t *testing.T, entries ...string) *aicatalog.Walked {
	t.Helper()
	c, err := aicatalog.Parse([]byte(`{"specVersion": "1.0", "entries": [`+strings.Join(entries, ",")+`]}`), aicatalog.Options{URL: catalogURL})
	if err != nil {
		t.Fatal(err)
	}
	w, err := aicatalog.Walk(t.Context(), c, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func entry(id, member, value string) string {
	return fmt.Sprintf(`{"identifier": %q, "type": "application/agent-skills+json", %q: %s}`, id, member, value)
}

const inlineIndex = `{"skills": [{"name": "s", "description": "A skill.", "url": "s/SKILL.md"}]}`

// IndexOf takes the first agent-skills entry of a walk, inline or through get, and
// warns of the others; inline data that is not an index is an error with its pointer.
func TestIndexOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		w         *aicatalog.Walked
		wantURL   string // "": no index
		wantSkill string // the skill's resolved URL
		wantErr   string
		wantWarn  string
	}{
		{name: "no walk"},
		{name: "no entry", w: walked(t, `{"identifier": "urn:x", "type": "application/a2a-agent-card+json", "url": "/a.json"}`)},
		{name: "inline: relative URLs against the catalog", w: walked(t, entry("urn:s", "data", inlineIndex)),
			wantURL: catalogURL, wantSkill: "https://docs.example.com/.well-known/s/SKILL.md"},
		{name: "by URL", w: walked(t, entry("urn:s", "url", `"/api/index.json"`)),
			wantURL: "https://docs.example.com/api/index.json", wantSkill: "https://docs.example.com/api/s/SKILL.md"},
		{name: "in an inline nested catalog", w: walked(t, `{"identifier": "urn:n", "type": "application/ai-catalog+json", "data": {"specVersion": "1.0", "entries": [`+entry("urn:s", "url", `"/api/index.json"`)+`]}}`),
			wantURL: "https://docs.example.com/api/index.json", wantSkill: "https://docs.example.com/api/s/SKILL.md"},
		{name: "two entries", w: walked(t, entry("urn:first", "url", `"/api/index.json"`), entry("urn:second", "data", inlineIndex)),
			wantURL: "https://docs.example.com/api/index.json", wantSkill: "https://docs.example.com/api/s/SKILL.md",
			wantWarn: `/entries/1: another agent-skills entry ("urn:second"), not read: the first one, "urn:first" at ` + catalogURL + `#/entries/0, is used`},
		{name: "inline data not an index", w: walked(t, entry("urn:s", "data", `{"servers": []}`)),
			wantErr: catalogURL + "#/entries/0/data is not an Agent Skills index"},
		{name: "another origin, refused", w: walked(t, entry("urn:s", "url", `"https://skills.other.example/index.json"`)),
			wantErr: "lists its index at https://skills.other.example/index.json (another origin: it is read only with consent"},
	}
	get := func(_ context.Context, u string) (*agentskills.Index, error) {
		if !strings.HasPrefix(u, "https://docs.example.com/") {
			return nil, errRefused
		}
		return agentskills.ParseIndex([]byte(inlineIndex), u, agentskills.Lenient)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := families.IndexOf(t.Context(), tc.w, get)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantURL == "" {
				if got != nil {
					t.Fatalf("got %+v, want none", got)
				}
				return
			}
			if got == nil || got.URL != tc.wantURL || got.Index.Skills[0].URL != tc.wantSkill {
				t.Fatalf("got %+v, want the index at %s listing %s", got, tc.wantURL, tc.wantSkill)
			}
			if w := fmt.Sprint(got.Warnings); !strings.Contains(w, tc.wantWarn) || tc.wantWarn == "" && strings.Contains(w, "another agent-skills entry") {
				t.Errorf("warnings %s, want %q", w, tc.wantWarn)
			}
		})
	}
}
