package docsnippets_test

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/doc/comment"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// notCompiled, on the line before a ```go fence, exempts that block from the check.
// Keep such blocks rare: a snippet that is not compiled goes stale unseen.
const notCompiled = "<!-- not compiled -->"

// maxNotCompiled bounds the exempted blocks over all the documents.
const maxNotCompiled = 3

// givens are the names the documents may use without defining them, with the
// declaration the check supplies. A document that declares one of these names at top
// level gets no given of that name. A snippet that defines one locally (with :=, var
// or as a parameter) must give it the given's type: otherwise the document's other
// snippets, which see the given, would disagree with it unseen (a README whose askUser
// is an AskFunc in one snippet and a ConsentFunc in the next).
var givens = map[string]string{
	"ctx":         "var ctx context.Context",
	"askUser":     "var askUser discovery.ConsentFunc",
	"c":           "var c *discovery.Client",
	"d":           "var d *discovery.Discovery",
	"logger":      "var logger *slog.Logger",
	"home":        "var home string",
	"session":     "var session *mcpclient.Session",
	"promptYesNo": "func promptYesNo(ctx context.Context, question string) (yes, always bool) { return false, false }",
	"use":         "func use(...any) {}",
}

// stdImports and otherImports name the packages a snippet may use without importing
// them; the module's own public packages are added from go list.
var stdImports = map[string]string{
	"context":  "context",
	"errors":   "errors",
	"fmt":      "fmt",
	"io":       "io",
	"json":     "encoding/json",
	"log":      "log",
	"slog":     "log/slog",
	"http":     "net/http",
	"httptest": "net/http/httptest",
	"url":      "net/url",
	"os":       "os",
	"filepath": "path/filepath",
	"strings":  "strings",
	"sync":     "sync",
	"time":     "time",
}

var otherImports = map[string]string{
	"redis": "github.com/redis/go-redis/v9",
	"otel":  "go.opentelemetry.io/otel",
	"mcp":   "github.com/modelcontextprotocol/go-sdk/mcp",
}

// snippet is one block of Go code in a document.
type snippet struct {
	doc  string // path relative to the module root
	line int    // line in doc of the block's first line of code
	src  string
}

// TestSnippetsCompile type-checks every ```go block of README.md and docs/**/*.md, and
// every code block of the root package's doc comment. The blocks of one document form
// one package: a block of declarations is a file of it, a block of statements is the
// body of a function returning error, and a block starting with a package clause is a
// program of its own. Imports are added for the package names a block uses.
func TestSnippetsCompile(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	docs := env.documents(t)
	total, skipped := 0, 0
	for _, d := range docs {
		total += len(d.snippets)
		skipped += d.skipped
	}
	if total == 0 {
		t.Fatalf("no Go snippets found in %d documents: the extraction is broken", len(docs))
	}
	if skipped > maxNotCompiled {
		t.Errorf("%d blocks are marked %q (at most %d): compile them instead", skipped, notCompiled, maxNotCompiled)
	}
	for _, d := range docs {
		if len(d.snippets) == 0 {
			continue
		}
		t.Run(d.path, func(t *testing.T) {
			t.Parallel()
			for _, msg := range env.check(t, d.snippets) {
				t.Error(msg)
			}
		})
	}
}

// TestSnippetMismatchIsCaught shows what the check is for: a document whose askUser is
// an AskFunc in one snippet and is used as a ConsentFunc in the next.
func TestSnippetMismatchIsCaught(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	tests := []struct {
		name string
		md   string
		want string // a word of the expected error; "" for none
	}{
		{
			name: "consistent",
			md: "```go\nc, err := discovery.NewClient(&discovery.Options{Consent: askUser})\n" +
				"if err != nil {\n\treturn err\n}\n_, err = c.Discover(ctx, \"example.com\")\nreturn err\n```\n",
		},
		{
			name: "askUser defined in one snippet, used as another type in the next",
			md: "```go\naskUser := func(ctx context.Context, req *discovery.ConsentRequest) (discovery.ConsentAnswer, error) {\n" +
				"\treturn discovery.ConsentAnswer{}, nil\n}\n" +
				"c, err := discovery.NewClient(&discovery.Options{Consent: discovery.RememberConsent(askUser, discovery.NewConsentMemory())})\n```\n\n" +
				"```go\nc, err := discovery.NewClient(&discovery.Options{Consent: askUser})\n```\n",
			want: "askUser",
		},
		{
			name: "askUser declared at top level with the other type",
			md: "```go\nfunc askUser(ctx context.Context, req *discovery.ConsentRequest) (discovery.ConsentAnswer, error) {\n" +
				"\treturn discovery.ConsentAnswer{}, nil\n}\n```\n\n" +
				"```go\nc, err := discovery.NewClient(&discovery.Options{Consent: askUser})\n```\n",
			want: "askUser",
		},
		{
			name: "a field that does not exist",
			md:   "```go\nc, err := discovery.NewClient(&discovery.Options{NoSuchOption: true})\n```\n",
			want: "NoSuchOption",
		},
		{
			name: "not compiled",
			md:   notCompiled + "\n```go\nthis is not Go\n```\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			snippets, _ := markdownSnippets("test.md", []byte(tc.md))
			errs := env.check(t, snippets)
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("errors = %q, want none", errs)
			case tc.want != "" && !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, tc.want) }):
				t.Errorf("errors = %q, want one naming %q", errs, tc.want)
			}
		})
	}
}

func TestMarkdownSnippets(t *testing.T) {
	t.Parallel()
	md := "# T\n\n```go\na := 1\n```\n\n```\nshell\n```\n\n" + notCompiled + "\n\n```go\nskipped\n```\n\n  ```go\n  b := 2\n  ```\n"
	got, skipped := markdownSnippets("x.md", []byte(md))
	want := []snippet{{"x.md", 4, "a := 1\n"}, {"x.md", 18, "b := 2\n"}}
	if !slices.Equal(got, want) || skipped != 1 {
		t.Errorf("markdownSnippets = %+v, %d skipped; want %+v, 1 skipped", got, skipped, want)
	}
}

// env is what the checks share: the module root, the import paths of the package
// names a snippet may use, and the export data of the packages compiled by go list.
type env struct {
	root    string
	imports map[string]string // package name -> import path

	mu      sync.Mutex
	exports map[string]string // import path -> export data file
}

var (
	envOnce sync.Once
	envVal  *env
	envErr  error
	envSkip string
)

func newEnv(t *testing.T) *env {
	t.Helper()
	envOnce.Do(func() {
		if _, err := exec.LookPath("go"); err != nil {
			envSkip = "the go command is not on PATH: " + err.Error()
			return
		}
		root, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			envErr = err
			return
		}
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
			envErr = fmt.Errorf("module root not found: %w", err)
			return
		}
		e := &env{root: root, imports: map[string]string{}, exports: map[string]string{}}
		// The export data go list writes is read by this binary's go/importer: both
		// must come from the same toolchain.
		v, err := e.goCmd("env", "GOVERSION")
		if err != nil {
			envErr = err
			return
		}
		if v = strings.TrimSpace(v); v != runtime.Version() {
			envSkip = fmt.Sprintf("the go command on PATH is %s, this test was built by %s: their export data may differ", v, runtime.Version())
			return
		}
		for name, path := range stdImports {
			e.imports[name] = path
		}
		for name, path := range otherImports {
			e.imports[name] = path
		}
		out, err := e.goCmd("list", "-f", "{{.Name}} {{.ImportPath}}", "./...")
		if err != nil {
			envErr = err
			return
		}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			name, path, _ := strings.Cut(line, " ")
			if name == "main" || strings.Contains(path, "/internal/") {
				continue
			}
			e.imports[name] = path
		}
		envVal = e
	})
	if envSkip != "" {
		t.Skip(envSkip)
	}
	if envErr != nil {
		t.Fatal(envErr)
	}
	return envVal
}

func (e *env) goCmd(args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = e.root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

// exportData compiles the packages (and their dependencies) with go list -export and
// returns the export data file of each.
func (e *env) exportData(paths []string) (map[string]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var missing []string
	for _, p := range paths {
		if _, ok := e.exports[p]; !ok {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		args := append([]string{"list", "-export", "-deps", "-f", "{{if .Export}}{{.ImportPath}}\t{{.Export}}{{end}}"}, missing...)
		out, err := e.goCmd(args...)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			if path, file, ok := strings.Cut(sc.Text(), "\t"); ok {
				e.exports[path] = file
			}
		}
	}
	return maps.Clone(e.exports), nil
}

// document is one file of documentation and the Go code in it.
type document struct {
	path     string
	snippets []snippet
	skipped  int
}

func (e *env) documents(t *testing.T) []document {
	t.Helper()
	var paths []string
	if _, err := os.Stat(filepath.Join(e.root, "README.md")); err == nil {
		paths = append(paths, "README.md")
	}
	err := filepath.WalkDir(filepath.Join(e.root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(e.root, p)
			if err != nil {
				return err
			}
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var docs []document
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(e.root, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		s, skipped := markdownSnippets(p, data)
		docs = append(docs, document{path: p, snippets: s, skipped: skipped})
	}
	data, err := os.ReadFile(filepath.Join(e.root, "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := docCommentSnippets("doc.go", data)
	if err != nil {
		t.Fatal(err)
	}
	return append(docs, document{path: "doc.go", snippets: s})
}

// markdownSnippets returns the ```go blocks of a Markdown document (fences may be
// indented, as in a list item), and how many were marked notCompiled.
func markdownSnippets(doc string, data []byte) (out []snippet, skipped int) {
	lines := strings.Split(string(data), "\n")
	prev := "" // the last non-blank line before the current one
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		if trimmed != "```go" {
			if trimmed != "" {
				prev = trimmed
			}
			continue
		}
		indent := lines[i][:strings.Index(lines[i], "```")]
		start := i + 1
		var b strings.Builder
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			b.WriteString(strings.TrimPrefix(lines[i], indent))
			b.WriteByte('\n')
		}
		if prev == notCompiled {
			skipped++
		} else {
			out = append(out, snippet{doc: doc, line: start + 1, src: b.String()})
		}
		prev = "```"
	}
	return out, skipped
}

// docCommentSnippets returns the code blocks of a Go file's package doc comment.
func docCommentSnippets(doc string, data []byte) ([]snippet, error) {
	f, err := parser.ParseFile(token.NewFileSet(), doc, data, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		return nil, err
	}
	if f.Doc == nil {
		return nil, nil
	}
	var p comment.Parser
	var out []snippet
	lines := strings.Split(string(data), "\n")
	for _, block := range p.Parse(f.Doc.Text()).Content {
		code, ok := block.(*comment.Code)
		if !ok {
			continue
		}
		first, _, _ := strings.Cut(code.Text, "\n")
		line := 0
		for i, l := range lines {
			if strings.TrimSpace(strings.TrimPrefix(l, "//")) == strings.TrimSpace(first) {
				line = i + 1
				break
			}
		}
		out = append(out, snippet{doc: doc, line: line, src: code.Text})
	}
	return out, nil
}

// check type-checks the snippets of one document and returns the errors, each with
// its position in the document.
func (e *env) check(t *testing.T, snippets []snippet) []string {
	t.Helper()
	type unit struct {
		name string
		src  string // without imports
		pkg  string // "" for the document's package; a name for a program of its own
	}
	var units []unit
	var errs []string
	topLevel := map[string]bool{} // names the document's declaration blocks declare
	for k, s := range snippets {
		name := fmt.Sprintf("%s#%d", strings.ReplaceAll(s.doc, "/", "_"), k+1) // no directory: a relative //line path resolves against it
		lineDirective := fmt.Sprintf("//line %s:%d\n", s.doc, s.line)
		if strings.HasPrefix(strings.TrimSpace(s.src), "package ") {
			units = append(units, unit{name: name, src: lineDirective + s.src, pkg: name})
			continue
		}
		if f, err := parser.ParseFile(token.NewFileSet(), name, "package p\n"+lineDirective+s.src, parser.SkipObjectResolution); err == nil {
			for _, n := range topLevelNames(f) {
				topLevel[n] = true
			}
			units = append(units, unit{name: name, src: lineDirective + s.src})
			continue
		}
		body := fmt.Sprintf("func snippet%d() error {\n%s%s\nreturn nil\n}\n", k+1, lineDirective, s.src)
		if _, err := parser.ParseFile(token.NewFileSet(), name, "package p\n"+body, parser.SkipObjectResolution); err != nil {
			errs = append(errs, fmt.Sprintf("%v (a block holds either declarations or statements)", err))
			continue
		}
		units = append(units, unit{name: name, src: body})
	}
	var prelude []string
	for name, decl := range givens {
		if !topLevel[name] {
			prelude = append(prelude, decl)
		}
	}
	sort.Strings(prelude)
	units = append(units, unit{name: "givens", src: strings.Join(prelude, "\n") + "\n"})

	// Parse each unit with the imports it needs, grouped by package.
	fset := token.NewFileSet()
	pkgs := map[string][]*ast.File{}
	needed := map[string]bool{}
	for _, u := range units {
		pkgName := "snippets"
		if u.pkg != "" {
			f, err := parser.ParseFile(fset, u.name, u.src, parser.SkipObjectResolution)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			for _, imp := range f.Imports {
				needed[strings.Trim(imp.Path.Value, `"`)] = true
			}
			pkgs[u.pkg] = append(pkgs[u.pkg], f)
			continue
		}
		probe, err := parser.ParseFile(token.NewFileSet(), u.name, "package "+pkgName+"\n"+u.src, parser.SkipObjectResolution)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		imports := e.importsFor(probe)
		var src strings.Builder
		src.WriteString("package " + pkgName + "\n")
		for _, path := range imports {
			needed[path] = true
			fmt.Fprintf(&src, "import %q\n", path)
		}
		src.WriteString(u.src)
		f, err := parser.ParseFile(fset, u.name, src.String(), parser.SkipObjectResolution)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		pkgs[u.pkg] = append(pkgs[u.pkg], f)
	}
	paths := make([]string, 0, len(needed))
	for p := range needed {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	exports, err := e.exportData(paths)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{
		Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			file, ok := exports[path]
			if !ok {
				return nil, fmt.Errorf("no export data for %q (not a package of the module's build list?)", path)
			}
			return os.Open(file)
		}),
		Error: func(err error) {
			// A snippet shows a call and may leave its results unused.
			if te, ok := err.(types.Error); ok && strings.Contains(te.Msg, "declared and not used") {
				return
			}
			errs = append(errs, err.Error())
		},
	}
	keys := make([]string, 0, len(pkgs))
	for k := range pkgs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		info := &types.Info{Defs: map[*ast.Ident]types.Object{}}
		pkg, _ := conf.Check("snippets", fset, pkgs[k], info) // errors go to conf.Error
		if pkg == nil {
			continue
		}
		// A local definition of a given's name must have the given's type.
		for id, obj := range info.Defs {
			if obj == nil || givens[id.Name] == "" || obj.Parent() == pkg.Scope() {
				continue
			}
			given := pkg.Scope().Lookup(id.Name)
			if given != nil && !types.Identical(given.Type(), obj.Type()) {
				errs = append(errs, fmt.Sprintf("%s: %s is %s here but %s in the document's other snippets: declare it at top level, or use another name",
					fset.Position(id.Pos()), id.Name, obj.Type(), given.Type()))
			}
		}
	}
	sort.Strings(errs)
	return errs
}

// importsFor returns the import paths of the package names f uses as selectors
// (fmt.Println) without declaring or importing them itself.
func (e *env) importsFor(f *ast.File) []string {
	defined := map[string]bool{}
	for _, n := range declaredNames(f) {
		defined[n] = true
	}
	for _, imp := range f.Imports {
		path := strings.Trim(imp.Path.Value, `"`)
		if imp.Name != nil {
			defined[imp.Name.Name] = true
		} else {
			defined[path[strings.LastIndex(path, "/")+1:]] = true
		}
	}
	seen := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && !defined[id.Name] {
			if path, ok := e.imports[id.Name]; ok {
				seen[path] = true
			}
		}
		return true
	})
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// topLevelNames returns the names f declares at top level.
func topLevelNames(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				out = append(out, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch spec := spec.(type) {
				case *ast.ValueSpec:
					for _, id := range spec.Names {
						out = append(out, id.Name)
					}
				case *ast.TypeSpec:
					out = append(out, spec.Name.Name)
				}
			}
		}
	}
	return out
}

// declaredNames returns every name f declares, at top level or inside a function
// (with :=, var, const, type, or as a parameter or result).
func declaredNames(f *ast.File) []string {
	var out []string
	add := func(ids ...*ast.Ident) {
		for _, id := range ids {
			if id != nil && id.Name != "_" {
				out = append(out, id.Name)
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Recv == nil {
				add(n.Name)
			}
		case *ast.ValueSpec:
			add(n.Names...)
		case *ast.TypeSpec:
			add(n.Name)
		case *ast.Field:
			add(n.Names...)
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				for _, x := range []ast.Expr{n.Key, n.Value} {
					if id, ok := x.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		}
		return true
	})
	return out
}
