package lint

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wellknown-dev/discovery/diag"
)

// FuzzLintCatalog runs the AI Catalog and Server Card checks, with explanations, on
// arbitrary bytes: no panic, every problem with a code, a severity and a position
// inside the document.
func FuzzLintCatalog(f *testing.F) {
	files, _ := filepath.Glob("testdata/catalog/*.json")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"specVersion":"1.0","entries":[{"identifier":"urn:a","type":"application/mcp-server-card+json","data":{"name":"a/b"},"trustManifest":{"identity":"urn:a","signature":"e30..c2ln"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, run := range []func(*linter){
			func(l *linter) { l.lintAICatalog("x.ai-catalog.json", data) },
			func(l *linter) { l.lintServerCard("x.server-card.json", data) },
		} {
			l := &linter{ctx: context.Background(), Linter: New(&Options{Explain: true})}
			run(l)
			for _, p := range l.problems {
				if p.Code == "" || p.Message == "" || p.Severity < diag.Error || p.Severity > diag.Info || p.Line < 0 || p.Line > lines {
					t.Fatalf("bad problem %+v", p)
				}
			}
		}
	})
}
