package skillserver_test

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/skillserver"
)

type args struct {
	mcp.ParamsBase
	URI    string `json:"uri,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

type raw struct {
	mcp.ResultBase
	data json.RawMessage
}

func (r *raw) UnmarshalJSON(b []byte) error { r.data = append(json.RawMessage(nil), b...); return nil }

func session(t *testing.T, fsys fstest.MapFS, opts *skillserver.Options) *mcp.ClientSession {
	t.Helper()
	srv, err := skillserver.New(fsys, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	for _, m := range []string{"skills/list", "skills/get", "resources/directory/read"} {
		if err := mcp.AddSendingCustomMethod[*args, *raw](client, m); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func skills() fstest.MapFS {
	return fstest.MapFS{
		"a/SKILL.md":         {Data: []byte("---\nname: a\ndescription: A.\n---\n")},
		"a/refs/one.md":      {Data: []byte("one\n")},
		"b/SKILL.md":         {Data: []byte("---\nname: b\ndescription: B.\nmetadata:\n  k: v\n---\n")},
		"nested/c/SKILL.md":  {Data: []byte("---\nname: c\ndescription: C.\n---\n")},
		".hidden/d/SKILL.md": {Data: []byte("---\nname: d\ndescription: D.\n---\n")},
		"README.md":          {Data: []byte("not a skill")},
	}
}

func TestListPagesGetAndDirectory(t *testing.T) {
	cs := session(t, skills(), &skillserver.Options{PageSize: 2, DirectoryRead: true})
	var all []agentskills.Entry
	cursor := ""
	for range 5 {
		res, err := mcp.CallCustomMethod[*args, *raw](t.Context(), cs, "skills/list", &args{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		lr, err := agentskills.ParseListResult(res.data)
		if err != nil || lr.TTLMs == nil || lr.CacheScope != "public" || len(lr.Diagnostics) != 0 {
			t.Fatalf("page: %+v, %v", lr, err)
		}
		all = append(all, lr.Skills...)
		if cursor = lr.NextCursor; cursor == "" {
			break
		}
	}
	if len(all) != 3 || all[0].URI.String() != "skill://a/SKILL.md" || len(all[0].Resources) != 2 || all[1].Frontmatter["metadata"] == nil {
		t.Fatalf("entries = %+v", all)
	}
	// Every listed file reads back and verifies.
	for _, e := range all {
		for _, r := range e.Resources {
			rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: r.URI})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.VerifyFile(r.URI, []byte(rr.Contents[0].Text)); err != nil {
				t.Errorf("%s: %v", r.URI, err)
			}
		}
	}
	invalid := func(err error) bool {
		var we *jsonrpc.Error
		return errors.As(err, &we) && we.Code == jsonrpc.CodeInvalidParams
	}
	if _, err := mcp.CallCustomMethod[*args, *raw](t.Context(), cs, "skills/get", &args{URI: "skill://zzz/SKILL.md"}); !invalid(err) {
		t.Errorf("unknown skill: %v", err)
	}
	if _, err := mcp.CallCustomMethod[*args, *raw](t.Context(), cs, "skills/list", &args{Cursor: "!!"}); !invalid(err) {
		t.Errorf("bad cursor: %v", err)
	}
	res, err := mcp.CallCustomMethod[*args, *raw](t.Context(), cs, "resources/directory/read", &args{URI: "skill://a"})
	if err != nil {
		t.Fatal(err)
	}
	dir, _, err := agentskills.ParseDirectoryRead(res.data)
	if err != nil || len(dir) != 2 || !dir[1].IsDir || dir[1].URI != "skill://a/refs" {
		t.Errorf("directory = %+v, %v", dir, err)
	}
	if _, err := mcp.CallCustomMethod[*args, *raw](t.Context(), cs, "resources/directory/read", &args{URI: "skill://a/SKILL.md"}); !invalid(err) {
		t.Errorf("directory read of a file: %v", err)
	}
}

func TestBadSkillIsAnError(t *testing.T) {
	if _, err := skillserver.New(fstest.MapFS{"x/SKILL.md": {Data: []byte("no frontmatter")}}, nil); err == nil {
		t.Error("a SKILL.md without frontmatter was served")
	}
}
