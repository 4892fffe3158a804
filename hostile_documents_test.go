package discovery_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
)

// documentKinds are bodies of every document type the Client reads, plus pointers that
// name the site's own well-known URLs: served at every URL, they make one URL answer
// as several kinds.
func documentKinds() map[string]struct{ ctype, body string } {
	skillMD := "---\nname: any\ndescription: Any skill.\n---\n\n# Any\n"
	index := fmt.Sprintf(`{"$schema": %q, "skills": [
		{"name": "any", "type": "skill-md", "description": "d", "url": "/.well-known/skills.md", "digest": %q},
		{"name": "self", "type": "skill-md", "description": "d", "url": "/.well-known/agent-skills/index.json", "digest": %q},
		{"name": "arch", "type": "archive", "description": "d", "url": "/.well-known/mcp.json", "digest": %q}]}`,
		agentskills.SchemaV020, agentskills.Digest([]byte(skillMD)), agentskills.Digest([]byte("x")), agentskills.Digest([]byte("y")))
	return map[string]struct{ ctype, body string }{
		"skills.md":           {"text/markdown", "# Site\n\n## API\n\n- Base path: `/v1`\n\n## Risky actions\n\n- delete\n"},
		"mcp.json":            {"application/json", `{"servers": [{"name": "x", "url": "/mcp", "transport": "streamable-http"}]}`},
		"pointer to skills":   {"application/json", `{"$ref": "/.well-known/skills.md"}`},
		"pointer to index":    {"application/json", `{"serverCard": "/.well-known/agent-skills/index.json"}`},
		"pointer to itself":   {"application/json", `{"$ref": "/.well-known/mcp.json"}`},
		"pointer to legacy":   {"application/json", `{"$ref": "/.well-known/skills/index.json"}`},
		"skills index":        {"application/json", index},
		"SKILL.md":            {"text/markdown", skillMD},
		"html":                {"text/html", "<!doctype html><p>home</p>"},
		"binary":              {"application/octet-stream", "\x1f\x8b\x08\x00\x00garbage"},
		"json array":          {"application/json", `[1, 2, 3]`},
		"json with both keys": {"application/json", `{"skills": [], "servers": [], "$ref": "/.well-known/skills.md"}`},
	}
}

// TestEveryURLAnswersEveryKind: no site can crash the process. One Client
// meets a site whose well-known URLs answer, round after round, with every kind of
// document in every place, and runs every public entry point against it. Nothing may
// panic (a panic in a flight goroutine would kill the test binary), and a pointer that
// lands on a document that is not mcp.json is a warning.
func TestEveryURLAnswersEveryKind(t *testing.T) {
	t.Parallel()
	kinds := documentKinds()
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	paths := []string{discovery.GuidePath, discovery.MCPPath, agentskills.IndexPath, agentskills.LegacyIndexPath}
	var mu sync.Mutex
	serve := map[string]string{} // path → kind name; others: the fallback kind
	fallback := ""
	s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		k, ok := serve[r.URL.Path]
		if !ok {
			k = fallback
		}
		mu.Unlock()
		doc := kinds[k]
		w.Header().Set("Content-Type", doc.ctype)
		w.Header().Set("Cache-Control", "no-cache")
		fmt.Fprint(w, doc.body)
	}))
	c := newClient(t, s, &discovery.Options{Consent: discovery.AllowAll, MaxRetries: -1})
	round := func(t *testing.T) {
		ctx := t.Context()
		var wg sync.WaitGroup
		for range 2 { // concurrent calls share flights
			wg.Go(func() { _, _ = c.Discover(ctx, s.URL) })
			wg.Go(func() { _, _ = c.Structured(ctx, s.URL) })
			wg.Go(func() {
				ix, err := c.ListSkills(ctx, s.URL)
				if err != nil {
					return
				}
				for _, e := range ix.Index.Skills {
					_, _ = c.GetSkill(ctx, ix, e.Name)
				}
			})
		}
		wg.Wait()
		d, err := c.Structured(ctx, s.URL)
		if err == nil {
			resp, err := (&http.Client{Transport: guardOf(t, c, d, nil)}).Get(s.URL + discovery.MCPPath)
			if err == nil {
				resp.Body.Close()
			}
		}
	}
	// Every URL answers the same kind.
	for _, k := range names {
		t.Run("all "+k, func(t *testing.T) {
			mu.Lock()
			clear(serve)
			fallback = k
			mu.Unlock()
			round(t)
		})
	}
	// Each well-known path answers another kind: every rotation of every kind.
	for i := range names {
		t.Run(fmt.Sprintf("rotation %d", i), func(t *testing.T) {
			mu.Lock()
			for j, p := range paths {
				serve[p] = names[(i+j)%len(names)]
			}
			fallback = names[(i+len(paths))%len(names)]
			mu.Unlock()
			round(t)
		})
	}
	// The reported crash, exactly: skills.md is read, then mcp.json points to it.
	t.Run("pointer to the site's own skills.md", func(t *testing.T) {
		mu.Lock()
		clear(serve)
		serve[discovery.GuidePath], serve[discovery.MCPPath], fallback = "skills.md", "pointer to skills", "html"
		mu.Unlock()
		for range 2 {
			d, err := c.Structured(t.Context(), s.URL)
			if err != nil {
				t.Fatal(err)
			}
			if d.Guide == nil || d.Guide.Title != "Site" {
				t.Errorf("skills.md = %+v", d.Guide)
			}
			if !hasCode(d, discovery.WarnPointer) {
				t.Errorf("no pointer warning: %v", d.Warnings)
			}
		}
	})
	t.Run("pointer to the site's own skills index", func(t *testing.T) {
		mu.Lock()
		clear(serve)
		serve[agentskills.IndexPath], serve[discovery.MCPPath], fallback = "skills index", "pointer to index", "html"
		mu.Unlock()
		if _, err := c.ListSkills(t.Context(), s.URL); err != nil {
			t.Fatal(err)
		}
		d, err := c.Discover(t.Context(), s.URL)
		if err != nil {
			t.Fatal(err)
		}
		if !hasCode(d, discovery.WarnPointer) {
			t.Errorf("no pointer warning: %v", d.Warnings)
		}
	})
}
