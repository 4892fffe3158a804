package mcpclient_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery/agentskills"
)

// testSkill is a skill the Go test server serves: files by path, SKILL.md included.
type testSkill struct {
	name  string
	files map[string]string
}

func skillMD(name, desc string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n# %s\n\nRead references/RULES.md first.\n", name, desc, name)
}

func newSkill(name string, extra map[string]string) testSkill {
	files := map[string]string{"SKILL.md": skillMD(name, "The "+name+" skill. Use when asked.")}
	for k, v := range extra {
		files[k] = v
	}
	return testSkill{name: name, files: files}
}

// skillServer is an MCP server written with the go-sdk's custom methods: the Skills
// Extension as the final spec has it, or (legacy) only the drafts. Hooks let a test
// tamper with what it serves and count what it was asked.
type skillServer struct {
	skills   []testSkill
	pageSize int
	declare  bool // the Skills Extension
	dirRead  bool
	legacy   string // "index", "fastmcp", "scan" when !declare

	mu       sync.Mutex
	reads    []string                         // resources/read URIs, in order
	methods  []string                         // every custom method called
	serve    func(uri, content string) string // tamper hook: what resources/read returns
	listHook func(entries []map[string]any) []map[string]any
	cursor   func(next string) string // tamper the next cursor

	ttlMs       *int64 // the ttlMs of skills/list and skills/get results (nil: none)
	scope       string // their cacheScope
	listChanged bool   // declare resources.listChanged
}

func (s *skillServer) uri(sk testSkill, file string) string { return "skill://" + sk.name + "/" + file }

func (s *skillServer) entry(sk testSkill) map[string]any {
	paths := make([]string, 0, len(sk.files))
	for p := range sk.files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var res []map[string]any
	for _, p := range paths {
		c := []byte(sk.files[p])
		res = append(res, map[string]any{"uri": s.uri(sk, p), "size": len(c), "digest": agentskills.Digest(c)})
	}
	return map[string]any{
		"uri":         s.uri(sk, "SKILL.md"),
		"frontmatter": map[string]any{"name": sk.name, "description": "The " + sk.name + " skill. Use when asked."},
		"resources":   res,
	}
}

func (s *skillServer) record(list *[]string, v string) {
	s.mu.Lock()
	*list = append(*list, v)
	s.mu.Unlock()
}

func (s *skillServer) readCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reads)
}

type listArgs struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type getArgs struct {
	mcp.ParamsBase
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
}

type anyResult struct {
	mcp.ResultBase
	Skills     []map[string]any `json:"skills,omitempty"`
	Skill      map[string]any   `json:"skill,omitempty"`
	Resources  []map[string]any `json:"resources,omitempty"`
	NextCursor string           `json:"nextCursor,omitempty"`
	TTLMs      *int64           `json:"ttlMs,omitempty"`
	CacheScope string           `json:"cacheScope,omitempty"`
}

func (s *skillServer) server() *mcp.Server {
	caps := &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{ListChanged: s.listChanged}}
	if s.declare {
		caps.AddExtension(agentskills.ExtensionID, map[string]any{"directoryRead": s.dirRead})
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "go-test-skills", Version: "1"}, &mcp.ServerOptions{Capabilities: caps})
	if s.declare {
		must(mcp.AddReceivingCustomMethod(srv, "skills/list", func(ctx context.Context, _ *mcp.ServerSession, p *listArgs) (*anyResult, error) {
			s.record(&s.methods, "skills/list")
			var all []map[string]any
			for _, sk := range s.skills {
				all = append(all, s.entry(sk))
			}
			if s.listHook != nil {
				all = s.listHook(all)
			}
			start := 0
			if p.Cursor != "" {
				b, err := base64.RawURLEncoding.DecodeString(p.Cursor)
				if err != nil {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad cursor"}
				}
				fmt.Sscan(string(b), &start)
			}
			size := s.pageSize
			if size <= 0 {
				size = len(all)
			}
			end := min(start+size, len(all))
			res := &anyResult{Skills: all[start:end], TTLMs: s.ttlMs, CacheScope: s.scope}
			if res.Skills == nil {
				res.Skills = []map[string]any{}
			}
			if end < len(all) {
				res.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprint(end)))
				if s.cursor != nil {
					res.NextCursor = s.cursor(res.NextCursor)
				}
			}
			return res, nil
		}))
		must(mcp.AddReceivingCustomMethod(srv, "skills/get", func(ctx context.Context, _ *mcp.ServerSession, p *getArgs) (*anyResult, error) {
			s.record(&s.methods, "skills/get")
			for _, sk := range s.skills {
				if s.uri(sk, "SKILL.md") == p.URI {
					return &anyResult{Skill: s.entry(sk), TTLMs: s.ttlMs, CacheScope: s.scope}, nil
				}
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "No skill is served at " + p.URI}
		}))
		if s.dirRead {
			must(mcp.AddReceivingCustomMethod(srv, "resources/directory/read", func(ctx context.Context, _ *mcp.ServerSession, p *getArgs) (*anyResult, error) {
				s.record(&s.methods, "resources/directory/read")
				for _, sk := range s.skills {
					root := "skill://" + sk.name
					if p.URI != root && !strings.HasPrefix(p.URI, root+"/") {
						continue
					}
					dir := strings.TrimPrefix(strings.TrimPrefix(p.URI, root), "/")
					seen := map[string]bool{}
					res := &anyResult{Resources: []map[string]any{}}
					for f := range sk.files {
						rel, ok := strings.CutPrefix(f, dir)
						if dir != "" && !strings.HasPrefix(rel, "/") || !ok {
							continue
						}
						rel = strings.TrimPrefix(rel, "/")
						first, rest, sub := strings.Cut(rel, "/")
						child := path.Join(p.URI, first)
						if seen[child] {
							continue
						}
						seen[child] = true
						m := map[string]any{"uri": child, "name": first}
						if sub && rest != "" {
							m["mimeType"] = "inode/directory"
						}
						res.Resources = append(res.Resources, m)
					}
					return res, nil
				}
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no such directory"}
			}))
		}
	}
	add := func(uri, desc, content string) {
		srv.AddResource(&mcp.Resource{URI: uri, Name: path.Base(uri), Description: desc, MIMEType: "text/markdown"},
			func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				s.record(&s.reads, req.Params.URI)
				c := content
				if s.serve != nil {
					c = s.serve(req.Params.URI, c)
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: c}}}, nil
			})
	}
	for _, sk := range s.skills {
		for p, c := range sk.files {
			add(s.uri(sk, p), "", c)
		}
	}
	if !s.declare {
		switch s.legacy {
		case "index":
			var entries []string
			for _, sk := range s.skills {
				entries = append(entries, fmt.Sprintf(`{"frontmatter": {"name": %q, "description": "d"}, "url": %q, "digest": %q}`,
					sk.name, s.uri(sk, "SKILL.md"), agentskills.Digest([]byte(sk.files["SKILL.md"]))))
			}
			add("skill://index.json", "", `{"skills": [`+strings.Join(entries, ",")+`]}`)
		case "fastmcp":
			for _, sk := range s.skills {
				var files []string
				for p, c := range sk.files {
					files = append(files, fmt.Sprintf(`{"path": %q, "size": %d, "hash": %q}`, p, len(c), agentskills.Digest([]byte(c))))
				}
				add("skill://"+sk.name+"/_manifest", "manifest", fmt.Sprintf(`{"skill": %q, "files": [%s]}`, sk.name, strings.Join(files, ",")))
			}
		}
	}
	return srv
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// start serves s over Streamable HTTP on loopback (plain http: allowed on loopback).
func (s *skillServer) start(t *testing.T) *httptest.Server {
	t.Helper()
	srv := s.server()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}
