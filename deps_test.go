package discovery_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The layers of the module, from the top. A package may import packages of its own
// layer and of the layers below it, never one above: imports flow cmd → features →
// root → parsers → internal. This is the module's version of Go's go/build/deps_test.go:
// a new import against the grain fails here, and so does a new package that has no
// layer yet (add it below, in the layer it belongs to).
//
//   - cmd: commands, examples, measuring tools and the LLM SDK adapters (cmd/...,
//     examples/..., compare, perf/..., adapters/..., modules of their own); nothing
//     imports them.
//   - features: packages built on the root (an MCP client, catalogs, agent tools,
//     stores, instrumentation, a skill server, the linter, lock records); they may
//     build on each other.
//   - root: package discovery, the public API and its policy.
//   - parsers: pure readers, bytes in and values out; they may share diag. trust
//     (publisher signatures) is one: it verifies bytes it is given and reaches the
//     network only through the caller's KeyFetcher, so the root can verify skills.
//   - internal: the machinery (the fetch pipeline, the dialer guard) and shared
//     helpers; it imports nothing of the module above it.
//
// An internal package that builds on a higher layer is listed in that layer by name:
// internal/demo (the demo origin of the commands and examples, built on the root) with
// the features, internal/skillrules (rules over parsed skills), internal/modeltext
// (the model's rendering of parsed documents) and internal/families (an AI Catalog's
// nested catalogs and cards, read through the caller's fetch functions) with the parsers.
var layers = []struct {
	name     string
	packages []string // module-relative; a trailing "/..." takes a whole subtree
}{
	{"cmd", []string{"cmd/...", "examples/...", "compare", "adapters/...", "perf/..."}},
	{"features", []string{"catalog", "mcpclient", "tools", "redisstore", "discoveryotel", "skillserver", "lint", "skilllock", "skillbundle", "internal/demo"}},
	{"root", []string{"."}},
	{"parsers", []string{"skillsmd", "mcpjson", "agentskills", "diag", "aicatalog", "servercard", "trust", "internal/skillrules", "internal/modeltext", "internal/families"}},
	{"internal", []string{"internal/..."}},
}

const modulePath = "github.com/wellknown-dev/discovery"

// layerOf returns the index in layers of the module-relative package pkg, or -1.
func layerOf(pkg string) int {
	for i, l := range layers {
		for _, p := range l.packages {
			if pkg == p || strings.HasSuffix(p, "/...") && (pkg == strings.TrimSuffix(p, "/...") || strings.HasPrefix(pkg, strings.TrimSuffix(p, "..."))) {
				return i
			}
		}
	}
	return -1
}

// violations returns one message per import in imports (module-relative package →
// the module packages its non-test files import) that goes against the layers.
func violations(imports map[string][]string) []string {
	var out []string
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		from := layerOf(pkg)
		if from < 0 {
			out = append(out, "package "+pkg+" is in no layer: add it to layers in deps_test.go")
			continue
		}
		for _, imp := range imports[pkg] {
			to := layerOf(imp)
			switch {
			case to < 0:
				out = append(out, "package "+imp+" (imported by "+pkg+") is in no layer: add it to layers in deps_test.go")
			case to < from:
				out = append(out, pkg+" ("+layers[from].name+") imports "+imp+" ("+layers[to].name+"): against the grain")
			}
		}
	}
	return out
}

// moduleImports reads the imports of every non-test Go file under the module root.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	imports := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if _, ok := imports[pkg]; !ok {
			imports[pkg] = nil
		}
		for _, is := range f.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			if p != modulePath && !strings.HasPrefix(p, modulePath+"/") {
				continue
			}
			rel := strings.TrimPrefix(strings.TrimPrefix(p, modulePath), "/")
			if rel == "" {
				rel = "."
			}
			if !slices.Contains(imports[pkg], rel) {
				imports[pkg] = append(imports[pkg], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return imports
}

// TestDependencyLayers: every import between the module's packages follows the layers.
func TestDependencyLayers(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("go.mod"); err != nil {
		t.Skip("not run from the module root")
	}
	imports := moduleImports(t)
	if len(imports["."]) == 0 || len(imports["internal/fetch"]) == 0 {
		t.Fatalf("the walk found too little (root imports %v); is the test run from the module root?", imports["."])
	}
	for _, v := range violations(imports) {
		t.Error(v)
	}
}

// TestDependencyLayersCatchArrows: the check itself reports imports against the grain
// and packages with no layer, and accepts the allowed arrows.
func TestDependencyLayersCatchArrows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		imports map[string][]string
		want    int
	}{
		{"allowed", map[string][]string{
			"cmd/wellknown":  {".", "catalog", "internal/secrets"},
			"catalog":        {".", "mcpclient"},
			".":              {"skillsmd", "internal/fetch"},
			"mcpjson":        {"diag", "internal/jsonx"},
			"internal/fetch": {"internal/netguard"},
		}, 0},
		{"internal imports the root", map[string][]string{"internal/fetch": {"."}}, 1},
		{"internal imports a parser", map[string][]string{"internal/netguard": {"mcpjson"}}, 1},
		{"parser imports the root", map[string][]string{"skillsmd": {"."}}, 1},
		{"root imports a feature", map[string][]string{".": {"redisstore"}}, 1},
		{"feature imports a command", map[string][]string{"tools": {"cmd/wellknown"}}, 1},
		{"unknown package", map[string][]string{"newthing": {"."}}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := violations(tc.imports); len(got) != tc.want {
				t.Errorf("violations = %q, want %d", got, tc.want)
			}
		})
	}
}
