// Package skillserver serves a folder of Agent Skills from an MCP server through the
// Skills Extension (SEP-2640): skills/list with cursors, skills/get, every file as a
// skill:// resource (read from the folder at request time), and, when asked,
// resources/directory/read. It is built on the official Go SDK's custom-method API.
//
// It exists for demos, for tests of MCP skills clients (this module's mcpclient among
// them), and as a reference for servers; the entries it lists (size and SHA-256 of
// each file, the frontmatter as JSON) are taken when the server is built, so a file
// changed afterwards is served changed and a verifying client refuses it.
package skillserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery/agentskills"
)

// Options configures New. The zero value serves every skill on one page, without
// resources/directory/read.
type Options struct {
	Name, Version string // the server's implementation info; "": "discovery-skillserver", "0"
	PageSize      int    // skills per skills/list page; 0: all on one page
	DirectoryRead bool   // declare and serve resources/directory/read
	TTLMs         int64  // the ttlMs freshness hint; 0: 300000
	CacheScope    string // "public" or "private"; "": "public"
}

// Server is a Skills Extension server over one folder.
type Server struct {
	MCP    *mcp.Server
	fsys   fs.FS
	opts   Options
	skills []skill // sorted by URI
}

type skill struct {
	dir   string         // folder in fsys
	uri   string         // skill://NAME/SKILL.md
	front map[string]any // the SKILL.md frontmatter
	files []file         // every file, SKILL.md included, sorted by URI
}

type file struct {
	rel    string // path in the skill folder
	uri    string
	size   int64
	digest string
}

// New loads every skill in fsys (each folder holding a SKILL.md whose frontmatter
// parses; a skill's own subfolders are its files) and returns a server for them.
func New(fsys fs.FS, opts *Options) (*Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name, o.Version = "discovery-skillserver", "0"
	}
	if o.TTLMs == 0 {
		o.TTLMs = 300000
	}
	if o.CacheScope == "" {
		o.CacheScope = "public"
	}
	s := &Server{fsys: fsys, opts: o}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != "." {
			return fs.SkipDir
		}
		md, err := fs.ReadFile(fsys, path.Join(p, agentskills.SkillFile))
		if err != nil {
			return nil // not a skill folder; keep walking
		}
		sk, err := s.load(p, md)
		if err != nil {
			return fmt.Errorf("skillserver: %s: %w", p, err)
		}
		s.skills = append(s.skills, sk)
		return fs.SkipDir
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(s.skills, func(i, j int) bool { return s.skills[i].uri < s.skills[j].uri })
	s.MCP = s.build()
	return s, nil
}

func (s *Server) load(dir string, md []byte) (skill, error) {
	parsed, err := agentskills.ParseSkillMD(md, agentskills.ParseOptions{Dir: path.Base(dir)})
	if err != nil {
		return skill{}, err
	}
	name := parsed.Name()
	root, err := agentskills.NewURI(name, agentskills.SkillFile)
	if err != nil {
		return skill{}, err
	}
	sk := skill{dir: dir, uri: root.String(), front: parsed.Frontmatter}
	err = fs.WalkDir(s.fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(s.fsys, p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
		u, err := agentskills.NewURI(name, rel)
		if err != nil {
			return err
		}
		sk.files = append(sk.files, file{rel: rel, uri: u.String(), size: int64(len(data)), digest: agentskills.Digest(data)})
		return nil
	})
	sort.Slice(sk.files, func(i, j int) bool { return sk.files[i].uri < sk.files[j].uri })
	return sk, err
}

func (sk *skill) entry() map[string]any {
	res := make([]map[string]any, 0, len(sk.files))
	for _, f := range sk.files {
		res = append(res, map[string]any{"uri": f.uri, "digest": f.digest, "size": f.size})
	}
	return map[string]any{"uri": sk.uri, "frontmatter": sk.front, "resources": res}
}

func (sk *skill) root() string { return strings.TrimSuffix(sk.uri, "/"+agentskills.SkillFile) }

type listParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type uriParams struct {
	mcp.ParamsBase
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
}

// resultComplete is the resultType every result carries (required from 2026-07-28;
// harmless before).
const resultComplete = "complete"

type listResult struct {
	mcp.ResultBase
	ResultType string           `json:"resultType"`
	Skills     []map[string]any `json:"skills"`
	NextCursor string           `json:"nextCursor,omitempty"`
	TTLMs      int64            `json:"ttlMs"`
	CacheScope string           `json:"cacheScope"`
}

type getResult struct {
	mcp.ResultBase
	ResultType string         `json:"resultType"`
	Skill      map[string]any `json:"skill"`
	TTLMs      int64          `json:"ttlMs"`
	CacheScope string         `json:"cacheScope"`
}

type dirResult struct {
	mcp.ResultBase
	ResultType string           `json:"resultType"`
	Resources  []map[string]any `json:"resources"`
	NextCursor string           `json:"nextCursor,omitempty"`
}

func invalidParams(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

func (s *Server) build() *mcp.Server {
	caps := &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}}
	settings := map[string]any{}
	if s.opts.DirectoryRead {
		settings["directoryRead"] = true
	}
	caps.AddExtension(agentskills.ExtensionID, settings)
	srv := mcp.NewServer(&mcp.Implementation{Name: s.opts.Name, Version: s.opts.Version}, &mcp.ServerOptions{Capabilities: caps})
	mustAdd(mcp.AddReceivingCustomMethod(srv, "skills/list", s.list))
	mustAdd(mcp.AddReceivingCustomMethod(srv, "skills/get", s.get))
	if s.opts.DirectoryRead {
		mustAdd(mcp.AddReceivingCustomMethod(srv, "resources/directory/read", s.dirRead))
	}
	for i := range s.skills {
		sk := &s.skills[i]
		for _, f := range sk.files {
			r := &mcp.Resource{URI: f.uri, Name: f.rel, Size: f.size}
			if f.rel == agentskills.SkillFile {
				r.Name, _ = sk.front["name"].(string)
				r.Description, _ = sk.front["description"].(string)
				r.MIMEType = "text/markdown"
			}
			srv.AddResource(r, s.read(sk, f))
		}
	}
	return srv
}

// mustAdd panics on a registration error: the method names are constants that the SDK
// accepts, so an error is a programming error.
func mustAdd(err error) {
	if err != nil {
		panic(err)
	}
}

func (s *Server) list(_ context.Context, _ *mcp.ServerSession, p *listParams) (*listResult, error) {
	start := 0
	if p.Cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(p.Cursor)
		n, err2 := strconv.Atoi(strings.TrimPrefix(string(b), "after:"))
		if err != nil || err2 != nil || n < 0 || n > len(s.skills) {
			return nil, invalidParams("Invalid cursor")
		}
		start = n
	}
	size := s.opts.PageSize
	if size <= 0 {
		size = len(s.skills)
	}
	end := min(start+size, len(s.skills))
	res := &listResult{ResultType: resultComplete, Skills: []map[string]any{}, TTLMs: s.opts.TTLMs, CacheScope: s.opts.CacheScope}
	for i := start; i < end; i++ {
		res.Skills = append(res.Skills, s.skills[i].entry())
	}
	if end < len(s.skills) {
		res.NextCursor = base64.RawURLEncoding.EncodeToString([]byte("after:" + strconv.Itoa(end)))
	}
	return res, nil
}

func (s *Server) get(_ context.Context, _ *mcp.ServerSession, p *uriParams) (*getResult, error) {
	for i := range s.skills {
		if s.skills[i].uri == p.URI {
			return &getResult{ResultType: resultComplete, Skill: s.skills[i].entry(), TTLMs: s.opts.TTLMs, CacheScope: s.opts.CacheScope}, nil
		}
	}
	return nil, invalidParams("No skill is served at " + p.URI)
}

func (s *Server) dirRead(_ context.Context, _ *mcp.ServerSession, p *uriParams) (*dirResult, error) {
	for i := range s.skills {
		sk := &s.skills[i]
		root := sk.root()
		if p.URI != root && !strings.HasPrefix(p.URI, root+"/") {
			continue
		}
		dir := strings.TrimPrefix(strings.TrimPrefix(p.URI, root), "/")
		if dir != "" {
			dir += "/"
		}
		var out []map[string]any
		seen := map[string]bool{}
		for _, f := range sk.files {
			rest, ok := strings.CutPrefix(f.rel, dir)
			if !ok {
				continue
			}
			child, _, sub := strings.Cut(rest, "/")
			uri := strings.TrimSuffix(p.URI, "/") + "/" + child
			if seen[uri] {
				continue
			}
			seen[uri] = true
			m := map[string]any{"uri": uri, "name": child}
			if sub {
				m["mimeType"] = "inode/directory"
			} else {
				m["size"] = f.size
				if f.rel == agentskills.SkillFile {
					m["mimeType"] = "text/markdown"
				}
			}
			out = append(out, m)
		}
		if len(out) == 0 {
			break // a file, or nothing: not a directory
		}
		sort.Slice(out, func(i, j int) bool { return out[i]["uri"].(string) < out[j]["uri"].(string) })
		return &dirResult{ResultType: resultComplete, Resources: out}, nil
	}
	return nil, invalidParams("Not a directory: " + p.URI)
}

func (s *Server) read(sk *skill, f file) mcp.ResourceHandler {
	return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		data, err := fs.ReadFile(s.fsys, path.Join(sk.dir, f.rel))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return nil, err
		}
		c := &mcp.ResourceContents{URI: f.uri}
		if f.rel == agentskills.SkillFile {
			c.MIMEType = "text/markdown"
		}
		if isText(data) {
			c.Text = string(data)
		} else {
			c.Blob = data
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
	}
}

// isText reports UTF-8 without NUL: such content goes as text, the rest as a blob.
// It is asked of every file served, at every read: it copies nothing.
func isText(b []byte) bool {
	return bytes.IndexByte(b, 0) < 0 && utf8.Valid(b)
}

// Handler serves s over Streamable HTTP, stateless, so that both protocol 2026-07-28
// (server/discover, one POST per request) and the 2025-11-25 initialize handshake work.
func (s *Server) Handler() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP }, &mcp.StreamableHTTPOptions{Stateless: true})
}

// URIs returns the SKILL.md URI of every skill served, sorted.
func (s *Server) URIs() []string {
	out := make([]string, len(s.skills))
	for i := range s.skills {
		out[i] = s.skills[i].uri
	}
	return out
}
