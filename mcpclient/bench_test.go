package mcpclient_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/mcpclient"
)

// bigSkill is one skill of 512 files, just under 16 MiB in all: the extension's limits.
func bigSkill(b *testing.B) *httptest.Server {
	b.Helper()
	fsys := fstest.MapFS{"big/SKILL.md": {Data: []byte("---\nname: big\ndescription: A skill at the limits.\n---\n# Big\n")}}
	for i := range 511 {
		line := fmt.Sprintf("file %d: %s\n", i, strings.Repeat("abcdefgh", 8))
		fsys[fmt.Sprintf("big/data/f%03d.txt", i)] = &fstest.MapFile{Data: []byte(strings.Repeat(line, (32<<10)/len(line)))}
	}
	return serveSkills(b, fsys)
}

// BenchmarkReadSkillVerified: connect, list, get, then read and verify every file of
// a 512-file, 16 MiB skill through the guarded session.
func BenchmarkReadSkillVerified(b *testing.B) {
	ts := bigSkill(b)
	c, err := discovery.NewClient(&discovery.Options{InsecureAllowPrivateOrigins: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, err := mcpclient.ConnectURL(b.Context(), c, ts.URL+"/mcp", false, nil)
		if err != nil {
			b.Fatal(err)
		}
		l, err := s.ListSkills(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		sk, err := s.GetSkill(b.Context(), l.Skills[0].URI)
		if err != nil {
			b.Fatal(err)
		}
		var n int64
		for _, f := range sk.Files() {
			data, err := s.ReadFile(b.Context(), sk, f.URI)
			if err != nil {
				b.Fatal(err)
			}
			n += int64(len(data))
		}
		b.SetBytes(n)
		s.Close()
	}
}

// BenchmarkReadSkillRaw: the same calls through a bare go-sdk session: no policy
// guard, no verification.
func BenchmarkReadSkillRaw(b *testing.B) {
	ts := bigSkill(b)
	type listed struct {
		mcp.ResultBase
		Skills []struct {
			URI       string `json:"uri"`
			Resources []struct {
				URI string `json:"uri"`
			} `json:"resources"`
		} `json:"skills"`
	}
	type args struct {
		mcp.ParamsBase
		URI string `json:"uri,omitempty"`
	}
	b.ReportAllocs()
	for b.Loop() {
		client := mcp.NewClient(&mcp.Implementation{Name: "raw", Version: "1"}, nil)
		must(mcp.AddSendingCustomMethod[*args, *listed](client, "skills/list"))
		must(mcp.AddSendingCustomMethod[*args, *listed](client, "skills/get"))
		cs, err := client.Connect(b.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", DisableStandaloneSSE: true}, nil)
		if err != nil {
			b.Fatal(err)
		}
		l, err := mcp.CallCustomMethod[*args, *listed](b.Context(), cs, "skills/list", &args{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := mcp.CallCustomMethod[*args, *listed](b.Context(), cs, "skills/get", &args{URI: l.Skills[0].URI}); err != nil {
			b.Fatal(err)
		}
		var n int64
		for _, r := range l.Skills[0].Resources {
			res, err := cs.ReadResource(b.Context(), &mcp.ReadResourceParams{URI: r.URI})
			if err != nil {
				b.Fatal(err)
			}
			n += int64(len(res.Contents[0].Text))
		}
		b.SetBytes(n)
		cs.Close()
	}
}
