package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestListJSON(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), &out, "", "", true, false); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var l listJSON
	if err := json.Unmarshal(out.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	if l.Version != "0.2.0" || len(l.Skills) != 2 || l.Skills[1].Type != "archive" || !strings.HasPrefix(l.Skills[0].Digest, "sha256:") ||
		!strings.HasSuffix(l.IndexURL, "/.well-known/agent-skills/index.json") || l.Warnings == nil {
		t.Errorf("%+v", l)
	}
}

func TestGetJSON(t *testing.T) {
	for _, name := range []string{"invoice-check", "ledger"} {
		var out bytes.Buffer
		if code := run(context.Background(), &out, "", name, true, false); code != 0 {
			t.Fatalf("%s: exit %d", name, code)
		}
		var s skillJSON
		if err := json.Unmarshal(out.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		if s.Skill.Name != name || s.Skill.Frontmatter["name"] != name || !s.Skill.Verified || s.Skill.Files[0].Path != "SKILL.md" || s.Skill.Files[0].Size == 0 {
			t.Errorf("%+v", s)
		}
		if name == "ledger" && (len(s.Skill.Files) != 2 || s.Skill.Files[1].Path != "references/FORMAT.md") {
			t.Errorf("archive files %+v", s.Skill.Files)
		}
	}
}

func TestExitCodes(t *testing.T) {
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	tampered := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/agent-skills/index.json":
			w.Write([]byte(`{"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json", "skills": [{"name": "x", "type": "skill-md",
				"description": "d", "url": "x/SKILL.md", "digest": "sha256:0000000000000000000000000000000000000000000000000000000000000000"}]}`))
		case "/.well-known/agent-skills/x/SKILL.md":
			w.Write([]byte("---\nname: x\ndescription: d\n---\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer tampered.Close()
	for _, tc := range []struct {
		origin, get string
		want        int
	}{
		{notFound.URL, "", 3},
		{tampered.URL, "", 0},
		{tampered.URL, "x", 1}, // digest mismatch
		{tampered.URL, "missing", 1},
	} {
		var out bytes.Buffer
		if code := run(context.Background(), &out, tc.origin, tc.get, true, false); code != tc.want {
			t.Errorf("run(%s, %q) = %d, want %d", tc.origin, tc.get, code, tc.want)
		}
	}
}
