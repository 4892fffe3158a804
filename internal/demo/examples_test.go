package demo_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// builders are the imports with which a program builds a demo origin of its own.
var builders = map[string]string{
	"net/http/httptest": "starts a test server",
	"embed":             "embeds documents",
	"github.com/wellknown-dev/discovery/skillserver": "starts a skills server",
}

// The examples run against the demo origins of this package: none builds a site of its
// own, so that what they show is built in one place (their tests may still build
// hostile sites).
func TestExamplesUseTheDemo(t *testing.T) {
	files, err := filepath.Glob("../../examples/*/*.go")
	if err != nil || len(files) == 0 {
		t.Skipf("no examples found from %s (%v)", "../../examples", err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if why, ok := builders[path]; ok {
				t.Errorf("%s imports %s (%s): take the demo origin from internal/demo instead", f, path, why)
			}
		}
	}
}
