package mcpclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/mcpclient"
)

// draftServer is a go-sdk MCP server without the Skills Extension that serves
// resources one per page: what the draft readers of ListSkills read.
func draftServer(t *testing.T, add func(srv *mcp.Server)) *httptest.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "drafts", Version: "1"},
		&mcp.ServerOptions{PageSize: 1, Capabilities: &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}}})
	add(srv)
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return ts
}

// addText serves body as the text resource uri, listed with description.
func addText(srv *mcp.Server, uri, description, body string) {
	srv.AddResource(&mcp.Resource{URI: uri, Name: uri, Description: description}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, Text: body}}}, nil
	})
}

// TestListingBudgetCoversEveryPath (class: a listing not bounded in bytes). Only
// skills/list pages and the draft documents counted against Options.MaxListBytes: the
// resources/list scan counted pages and resources but not bytes, and kept every
// description, so 12 pages of a 3 MiB description were received and kept under a
// 1 MiB budget, and with the defaults one listing could hold about 2 GiB. Every answer
// a listing receives, on every path, is now charged as received (notifications
// before a result included) to one budget per ListSkills. (Sizes here are a quarter of
// the report's, to keep the test light.)
func TestListingBudgetCoversEveryPath(t *testing.T) {
	t.Parallel()
	const budget = 256 << 10
	huge := strings.Repeat("d", 768<<10)
	for _, tc := range []struct {
		name   string
		server func(t *testing.T) *httptest.Server
		// wantSkills: the listing succeeds with these skills; nil: it fails with
		// ErrTooMany.
		wantSkills []string
	}{
		{"scan: pages of huge descriptions", func(t *testing.T) *httptest.Server {
			return draftServer(t, func(srv *mcp.Server) {
				for i := range 12 {
					addText(srv, fmt.Sprintf("skill://s%02d/SKILL.md", i), huge, skillMD(fmt.Sprintf("s%02d", i), "x"))
				}
			})
		}, nil},
		{"scan: a small skill, then huge pages", func(t *testing.T) *httptest.Server {
			return draftServer(t, func(srv *mcp.Server) {
				addText(srv, "skill://aaa/SKILL.md", "The first skill.", skillMD("aaa", "x"))
				for i := range 12 {
					addText(srv, fmt.Sprintf("skill://zz%02d/SKILL.md", i), huge, skillMD(fmt.Sprintf("zz%02d", i), "x"))
				}
			})
		}, []string{"aaa"}},
		{"index, then a scan: one budget for both", func(t *testing.T) *httptest.Server {
			return draftServer(t, func(srv *mcp.Server) {
				index := fmt.Sprintf(`{"skills": [{"frontmatter": {"name": "indexed", "description": %q}, "url": "skill://indexed/SKILL.md", "digest": %q}]}`,
					strings.Repeat("i", 175<<10), agentskills.Digest([]byte("x"))) // under the budget alone
				addText(srv, "skill://index.json", "", index)
				for i := range 4 {
					addText(srv, fmt.Sprintf("skill://p%02d/SKILL.md", i), strings.Repeat("p", 50<<10), skillMD(fmt.Sprintf("p%02d", i), "x"))
				}
			})
		}, []string{"indexed", "p00"}},
		{"skills/list: notifications before the result", func(t *testing.T) *httptest.Server {
			ts := httptest.NewServer(&floodServer{flood: 512 << 10}) // under MaxResponseBytes, over MaxListBytes
			t.Cleanup(ts.Close)
			return ts
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := connect(t, tc.server(t), &mcpclient.Options{MaxListBytes: budget})
			l, err := s.ListSkills(t.Context())
			if tc.wantSkills == nil {
				if !errors.Is(err, mcpclient.ErrTooMany) {
					t.Fatalf("ListSkills = %v, %v; want ErrTooMany", summary(l), err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			kept := 0
			for _, sk := range l.Skills {
				names = append(names, sk.Name)
				kept += len(sk.Description)
			}
			if fmt.Sprint(names) != fmt.Sprint(tc.wantSkills) {
				t.Errorf("skills %v, want %v", names, tc.wantSkills)
			}
			if kept > budget {
				t.Errorf("%d bytes of descriptions kept under a budget of %d", kept, budget)
			}
			if !strings.Contains(strings.Join(l.Warnings, "\n"), "MaxListBytes") {
				t.Errorf("no warning names the budget: %q", l.Warnings)
			}
		})
	}
}

func summary(l *mcpclient.Listing) string {
	if l == nil {
		return "nil"
	}
	n := 0
	for _, sk := range l.Skills {
		n += len(sk.Description)
	}
	return fmt.Sprintf("%d skills, %d bytes of descriptions", len(l.Skills), n)
}

// TestPublishedLabelsAreCut: whatever the path, a Skill keeps at most the Agent Skills
// lengths of a name and a description; a longer one is cut with a mark and a warning.
// The held entry of the Skills Extension keeps its frontmatter whole, so SKILL.md
// still verifies against it.
func TestPublishedLabelsAreCut(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 3000) // 2 bytes a character
	for _, tc := range []struct {
		name   string
		server func(t *testing.T) *httptest.Server
	}{
		{"skills extension", func(t *testing.T) *httptest.Server {
			srv := &skillServer{skills: []testSkill{newSkill("alpha", nil)}, declare: true, listHook: func(entries []map[string]any) []map[string]any {
				for _, e := range entries {
					e["frontmatter"].(map[string]any)["description"] = long
				}
				return entries
			}}
			return srv.start(t)
		}},
		{"draft index", func(t *testing.T) *httptest.Server {
			return draftServer(t, func(srv *mcp.Server) {
				addText(srv, "skill://index.json", "", fmt.Sprintf(`{"skills": [{"frontmatter": {"name": "alpha", "description": %q}, "url": "skill://alpha/SKILL.md", "digest": %q}]}`,
					long, agentskills.Digest([]byte("x"))))
			})
		}},
		{"resources scan", func(t *testing.T) *httptest.Server {
			return draftServer(t, func(srv *mcp.Server) { addText(srv, "skill://alpha/SKILL.md", long, skillMD("alpha", "x")) })
		}},
		{"fastmcp manifest", func(t *testing.T) *httptest.Server {
			return draftServer(t, func(srv *mcp.Server) {
				addText(srv, "skill://alpha/_manifest", long, fmt.Sprintf(`{"skill": "alpha", "files": [{"path": "SKILL.md", "size": 1, "hash": %q}]}`, agentskills.Digest([]byte("x"))))
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := connect(t, tc.server(t), nil)
			l, err := s.ListSkills(t.Context())
			if err != nil || len(l.Skills) != 1 {
				t.Fatalf("ListSkills = %v, %v", summary(l), err)
			}
			sk := l.Skills[0]
			if n := utf8.RuneCountInString(sk.Description); n > agentskills.MaxDescriptionLen+16 || !strings.HasPrefix(long, strings.Fields(sk.Description)[0]) {
				t.Errorf("description kept: %d characters", n)
			}
			if !strings.Contains(strings.Join(l.Warnings, "\n"), "description over 1024 characters") {
				t.Errorf("no warning says the description was cut: %q", l.Warnings)
			}
			if sk.Entry != nil {
				if d, _ := sk.Entry.Frontmatter["description"].(string); d != long {
					t.Errorf("the held entry's frontmatter was cut too")
				}
			}
		})
	}
}

// TestCutLabelsAreValidText: a cut never splits a character, and the mark is there.
func TestCutLabelsAreValidText(t *testing.T) {
	t.Parallel()
	srv := &skillServer{skills: []testSkill{newSkill("alpha", nil)}, declare: true, listHook: func(entries []map[string]any) []map[string]any {
		for _, e := range entries {
			e["frontmatter"].(map[string]any)["description"] = strings.Repeat("a", 1023) + strings.Repeat("€", 10)
		}
		return entries
	}}
	s := connect(t, srv.start(t), nil)
	l, err := s.ListSkills(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	d := l.Skills[0].Description
	if !utf8.ValidString(d) || !strings.HasPrefix(d, strings.Repeat("a", 1023)+"€") || strings.Count(d, "€") != 1 || !strings.Contains(d, "cut") {
		b, _ := json.Marshal(d[1000:])
		t.Errorf("description = …%s", b)
	}
}

// TestListingReadsNoFurtherThanItsBudget: each call of a listing is read only up to
// what is left of Options.MaxListBytes, however large Options.MaxResponseBytes is: a
// server that streams without end is cut there, not at the response cap or the
// timeout. ReadDirectory's pages are bounded the same way.
func TestListingReadsNoFurtherThanItsBudget(t *testing.T) {
	t.Parallel()
	const budget = 256 << 10
	for name, call := range map[string]func(*mcpclient.Session) error{
		"ListSkills":    func(s *mcpclient.Session) error { _, err := s.ListSkills(t.Context()); return err },
		"ReadDirectory": func(s *mcpclient.Session) error { _, err := s.ReadDirectory(t.Context(), "skill://alpha"); return err },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := &floodServer{endless: true}
			ts := httptest.NewServer(srv)
			t.Cleanup(ts.Close)
			s := connect(t, ts, &mcpclient.Options{MaxListBytes: budget, MaxResponseBytes: 1 << 30, Timeout: time.Minute})
			err := call(s)
			if !errors.Is(err, mcpclient.ErrTooMany) || !strings.Contains(err.Error(), "MaxListBytes") {
				t.Fatalf("%s = %v; want ErrTooMany naming Options.MaxListBytes", name, err)
			}
		})
	}
}
