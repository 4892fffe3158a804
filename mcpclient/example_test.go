package mcpclient_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing/fstest"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/mcpclient"
	"github.com/wellknown-dev/discovery/skillserver"
)

// Connect to an MCP endpoint, list its skills and read one, verified.
func Example() {
	// A Skills Extension server on loopback, serving one skill.
	srv, _ := skillserver.New(fstest.MapFS{
		"invoice-check/SKILL.md":            {Data: []byte("---\nname: invoice-check\ndescription: Check invoices.\n---\n# Invoice check\n")},
		"invoice-check/references/RULES.md": {Data: []byte("# Rules\n")},
	}, nil)
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	ctx := context.Background()
	c, _ := discovery.NewClient(&discovery.Options{InsecureAllowPrivateOrigins: true}) // a loopback test server
	s, err := mcpclient.ConnectURL(ctx, c, ts.URL+"/mcp", false, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	l, _ := s.ListSkills(ctx)
	sk := &l.Skills[0]
	fmt.Println(sk.Name, sk.Verified, len(sk.Files()), "files")
	rules, err := s.ReadFile(ctx, sk, "references/RULES.md")
	fmt.Printf("%q %v\n", rules, err)
	_, err = s.ReadFile(ctx, sk, "references/OTHER.md")
	fmt.Println(err)
	// Output:
	// invoice-check true 2 files
	// "# Rules\n" <nil>
	// mcpclient: file not listed in the skill entry: "skill://invoice-check/references/OTHER.md"
}
