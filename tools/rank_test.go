package tools_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/catalog"
	"github.com/wellknown-dev/discovery/tools"
)

// deploySite publishes the skill "deploy" whose SKILL.md says word.
func deploySite(t *testing.T, word string) *site {
	t.Helper()
	md := fmt.Sprintf("---\nname: deploy\ndescription: Deploy.\n---\n# deploy\n\n%s\n", word)
	return newSite(t, map[string]doc{
		agentskills.IndexPath: {"application/json", fmt.Sprintf(`{"$schema": %q, "skills": [{"name": "deploy", "type": "skill-md", "description": "Deploy.", "url": "deploy/SKILL.md", "digest": %q}]}`,
			agentskills.SchemaV020, agentskills.Digest([]byte(md)))},
		"/.well-known/agent-skills/deploy/SKILL.md": {"text/markdown", md},
	})
}

// TestModelSiteNeverTakesHostName: the host adds its site (skill "deploy"); the model
// adds another site that also publishes "deploy" and whose origin sorts first. The
// bare name stays the host's, read_skill("deploy") reads the host's SKILL.md, and the
// model is told the name was taken.
func TestModelSiteNeverTakesHostName(t *testing.T) {
	t.Parallel()
	// "list_skills" is a host that adds its site with a tool call, before the model
	// makes any: the site the model adds later does not take its names either.
	for _, how := range []string{"catalog.AddWeb", "Toolset.AddSite", "list_skills"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			// The model's site is the one an order by origin would favour.
			evil, good, evilWord, goodWord := deploySite(t, "ONE"), deploySite(t, "TWO"), "ONE", "TWO"
			if evil.URL > good.URL {
				evil, good, evilWord, goodWord = good, evil, goodWord, evilWord
			}
			cat := catalog.New(nil)
			ts := tools.New(good.client, cat, nil) // httptest servers share one certificate
			switch how {
			case "catalog.AddWeb":
				if err := cat.AddWeb(t.Context(), good.client, good.URL); err != nil {
					t.Fatal(err)
				}
			case "Toolset.AddSite":
				if err := ts.AddSite(t.Context(), good.URL); err != nil {
					t.Fatal(err)
				}
			default:
				call(t, ts, tools.DefaultTextBudget, "list_skills", fmt.Sprintf(`{"origin": %q}`, good.URL))
			}
			res, _ := call(t, ts, tools.DefaultTextBudget, "list_skills", fmt.Sprintf(`{"origin": %q}`, evil.URL))
			evilHost := strings.TrimPrefix(evil.URL, "https://")
			if !strings.Contains(res.Text, "- "+evilHost+`/deploy: Deploy. [web `+evil.URL+`] (published as "deploy": that name belongs to a more trusted skill`) {
				t.Errorf("list_skills does not say the name was taken:\n%s", res.Text)
			}
			res, _ = call(t, ts, tools.DefaultTextBudget, "read_skill", `{"name": "deploy"}`)
			if !strings.Contains(res.Text, goodWord) || strings.Contains(res.Text, evilWord) {
				t.Errorf("read_skill(deploy):\n%s", res.Text)
			}
			if w := strings.Join(cat.Warnings(), "\n"); !strings.Contains(w, "would shadow") {
				t.Errorf("warnings: %s", w)
			}
			// The model asking for the host's site adds nothing.
			call(t, ts, tools.DefaultTextBudget, "list_skills", fmt.Sprintf(`{"origin": %q}`, good.URL))
			if n := len(cat.Entries()); n != 2 {
				t.Errorf("%d entries, want 2: %+v", n, cat.Entries())
			}
		})
	}
}

// TestAddSitePromotesModelSite: a site the model added first becomes the host's when
// the host adds it.
func TestAddSitePromotesModelSite(t *testing.T) {
	t.Parallel()
	s := deploySite(t, "GOOD")
	cat := catalog.New(nil)
	ts := tools.New(s.client, cat, nil)
	call(t, ts, tools.DefaultTextBudget, "list_skills", fmt.Sprintf(`{"origin": %q}`, s.URL))
	if e, _ := cat.Lookup("deploy"); !e.ByModel {
		t.Fatalf("entry %+v: want the model's", e)
	}
	if err := ts.AddSite(t.Context(), s.URL); err != nil {
		t.Fatal(err)
	}
	if e, _ := cat.Lookup("deploy"); e.ByModel || len(cat.Entries()) != 1 {
		t.Errorf("entries %+v: want one, the host's", cat.Entries())
	}
	if _, err := ts.Call(t.Context(), "list_skills", json.RawMessage(fmt.Sprintf(`{"origin": %q}`, s.URL))); err != nil {
		t.Error(err)
	}
	if len(cat.Entries()) != 1 {
		t.Errorf("entries %+v", cat.Entries())
	}
}
