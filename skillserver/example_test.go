package skillserver_test

import (
	"fmt"
	"net/http/httptest"
	"testing/fstest"

	"github.com/wellknown-dev/discovery/skillserver"
)

// Serve a folder of skills over Streamable HTTP with the Skills Extension.
func Example() {
	srv, err := skillserver.New(fstest.MapFS{
		"weekly/SKILL.md": {Data: []byte("---\nname: weekly\ndescription: Build the weekly report.\n---\n# Weekly\n")},
	}, &skillserver.Options{PageSize: 10, DirectoryRead: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(srv.Handler()) // or http.ListenAndServe(addr, srv.Handler())
	defer ts.Close()
	fmt.Println("serving", len(srv.URIs()), "skill(s):", srv.URIs()[0])
	// Output: serving 1 skill(s): skill://weekly/SKILL.md
}
