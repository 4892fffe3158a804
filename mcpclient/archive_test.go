package mcpclient_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/mcpclient"
)

func tarGz(t *testing.T, files [][2]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f[0], Mode: 0o644, Size: int64(len(f[1])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(f[1]))
	}
	tw.Close()
	zw.Close()
	return b.Bytes()
}

// draftArchiveServer serves a June-2026 draft skill://index.json whose only skill is an
// archive, published with digest (which may lie).
func draftArchiveServer(t *testing.T, archive []byte, digest string) *httptest.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "draft", Version: "1"}, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}}})
	index := fmt.Sprintf(`{"skills": [{"frontmatter": {"name": "alpha", "description": "Alpha."},
		"archives": [{"url": "skill://alpha.tar.gz", "mimeType": "application/gzip", "digest": %q}]}]}`, digest)
	srv.AddResource(&mcp.Resource{URI: "skill://index.json", Name: "index"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "skill://index.json", Text: index}}}, nil
	})
	srv.AddResource(&mcp.Resource{URI: "skill://alpha.tar.gz", Name: "alpha"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "skill://alpha.tar.gz", MIMEType: "application/gzip", Blob: archive}}}, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return ts
}

func TestDraftArchives(t *testing.T) {
	t.Parallel()
	good := tarGz(t, [][2]string{{"SKILL.md", "---\nname: alpha\ndescription: Alpha.\n---\n# Alpha\n"}, {"references/R.md", "rules\n"}})
	evil := tarGz(t, [][2]string{{"SKILL.md", "---\nname: alpha\ndescription: Alpha.\n---\n"}, {"../../escape.sh", "rm -rf /\n"}})
	t.Run("off by default", func(t *testing.T) {
		t.Parallel()
		s := connect(t, draftArchiveServer(t, good, agentskills.Digest(good)), nil)
		if _, err := s.ListSkills(t.Context()); !errors.Is(err, mcpclient.ErrNoSkills) {
			t.Errorf("error = %v", err)
		}
	})
	for _, tc := range []struct {
		name    string
		archive []byte
		digest  string
		want    error
	}{
		{"verified", good, agentskills.Digest(good), nil},
		{"digest mismatch", good, agentskills.Digest([]byte("other")), agentskills.ErrDigestMismatch},
		{"traversal, true digest", evil, agentskills.Digest(evil), agentskills.ErrUnsafeArchive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := connect(t, draftArchiveServer(t, tc.archive, tc.digest), &mcpclient.Options{DraftArchives: true})
			l, err := s.ListSkills(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Skills) != 1 || l.Skills[0].URI != "skill://alpha/SKILL.md" || !l.Skills[0].Verified || l.Skills[0].Source != mcpclient.SourceLegacyIndex {
				t.Fatalf("listing = %+v", l)
			}
			sk := &l.Skills[0]
			md, err := s.ReadFile(t.Context(), sk, "SKILL.md")
			if tc.want != nil {
				if !errors.Is(err, tc.want) || md != nil {
					t.Errorf("SKILL.md = %q, %v; want %v", md, err, tc.want)
				}
				return
			}
			if err != nil || !bytes.Contains(md, []byte("# Alpha")) {
				t.Fatalf("SKILL.md = %q, %v", md, err)
			}
			if r, err := s.ReadFile(t.Context(), sk, "references/R.md"); err != nil || string(r) != "rules\n" {
				t.Errorf("R.md = %q, %v", r, err)
			}
			if _, err := s.ReadFile(t.Context(), sk, "nope.md"); !errors.Is(err, mcpclient.ErrNotListed) {
				t.Errorf("missing file: %v", err)
			}
		})
	}
}
