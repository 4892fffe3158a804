package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/skillserver"
)

func TestDemoJSON(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), &out, "", config{asJSON: true}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var j struct {
		Server struct{ Name, URL, Protocol string } `json:"server"`
		Skills []struct {
			Name, URI, Description string
			Files                  []struct {
				URI    string `json:"uri"`
				Size   int64  `json:"size"`
				Digest string `json:"digest"`
			} `json:"files"`
			Verified bool `json:"verified"`
		} `json:"skills"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(out.Bytes(), &j); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if j.Server.Name != "demo-skills" || !strings.HasSuffix(j.Server.URL, "/mcp") || j.Server.Protocol == "" || j.Warnings == nil {
		t.Errorf("server = %+v", j.Server)
	}
	if len(j.Skills) != 2 || j.Skills[0].Name != "invoice-check" || !j.Skills[0].Verified || len(j.Skills[0].Files) != 2 ||
		j.Skills[0].Files[0].Size != 183 || !strings.HasPrefix(j.Skills[0].Files[0].Digest, "sha256:d8783ab9") {
		t.Errorf("skills = %+v", j.Skills)
	}
}

func TestDemoGetRead(t *testing.T) {
	var out bytes.Buffer
	if code := run(context.Background(), &out, "", config{get: "invoice-check", read: "references/RULES.md"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"name: invoice-check", "(verified, from http://127.0.0.1:", "Totals must match"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// skillsDir writes two skills to a temporary folder.
func skillsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, files := range map[string]map[string]string{
		"alpha": {"SKILL.md": "---\nname: alpha\ndescription: A.\n---\n# A\n", "notes/n.md": "note\n"},
		"beta":  {"SKILL.md": "---\nname: beta\ndescription: B.\n---\n# B\n"},
	} {
		for p, c := range files {
			full := filepath.Join(dir, name, p)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func TestExitCodes(t *testing.T) {
	dir := skillsDir(t)
	srv, err := skillserver.New(os.DirFS(dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	empty, err := skillserver.New(os.DirFS(t.TempDir()), nil)
	if err != nil {
		t.Fatal(err)
	}
	emptyTS := httptest.NewServer(empty.Handler())
	defer emptyTS.Close()
	// An origin whose mcp.json lists the server.
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/mcp.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"servers": [{"name": "s", "url": %q, "transport": "streamable-http"}]}`, ts.URL+"/mcp")
	}))
	defer site.Close()
	nothing := httptest.NewServer(http.NotFoundHandler())
	defer nothing.Close()
	for _, tc := range []struct {
		name, target string
		cfg          config
		want         int
	}{
		{"list", ts.URL + "/mcp", config{}, 0},
		{"list all", ts.URL + "/mcp", config{all: true}, 0},
		{"get", ts.URL + "/mcp", config{get: "alpha", read: "notes/n.md"}, 0},
		{"unknown skill", ts.URL + "/mcp", config{get: "nope"}, 1},
		{"unlisted file", ts.URL + "/mcp", config{get: "alpha", read: "notes/secret.md"}, 1},
		{"no skills", emptyTS.URL + "/mcp", config{}, 3},
		{"origin (another origin's server, consent given)", site.URL, config{yes: true}, 0},
		{"origin, consent denied", site.URL, config{}, 1},
		{"origin publishing nothing", nothing.URL, config{}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if code := run(context.Background(), &out, tc.target, tc.cfg); code != tc.want {
				t.Errorf("exit %d, want %d\n%s", code, tc.want, out.String())
			}
		})
	}
	// Tampered after the server listed it: refused, exit 1.
	if err := os.WriteFile(filepath.Join(dir, "alpha", "notes", "n.md"), []byte("NOTE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run(context.Background(), &out, ts.URL+"/mcp", config{get: "alpha", read: "notes/n.md"}); code != 1 {
		t.Errorf("tampered file: exit %d\n%s", code, out.String())
	}
}
