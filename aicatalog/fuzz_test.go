package aicatalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/aicatalog"
)

func seeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.json")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	if data, err := os.ReadFile(upstreamDir + "/example-ai-catalog.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(catalogOf(nestedEntry("urn:self", rootURL), cardEntry("a"))))
}

func validPointer(p string) bool { return p == "" || strings.HasPrefix(p, "/") }

// FuzzParse: no panic in either mode; diagnostics have pointers; entries keep
// exactly one of URL and Data, and every URL is https or loopback http; the result
// re-encodes.
func FuzzParse(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mode := range []aicatalog.Mode{aicatalog.Lenient, aicatalog.Strict} {
			c, err := aicatalog.Parse(data, aicatalog.Options{URL: rootURL, Mode: mode})
			var ve *aicatalog.ValidationError
			if errors.As(err, &ve) {
				for _, d := range ve.Diagnostics {
					if !validPointer(d.Where) || d.Message == "" {
						t.Fatalf("bad diagnostic %+v", d)
					}
				}
				continue
			}
			if err != nil {
				continue
			}
			for _, d := range c.Diagnostics {
				if !validPointer(d.Where) || d.Message == "" {
					t.Fatalf("bad diagnostic %+v", d)
				}
			}
			for _, e := range c.Entries {
				if (e.URL == "") == (e.Data == nil) {
					t.Fatalf("entry %s: URL %q and data %d bytes", e.Pointer, e.URL, len(e.Data))
				}
				if e.URL != "" && !strings.HasPrefix(e.URL, "https://") && !strings.HasPrefix(e.URL, "http://") {
					t.Fatalf("entry %s: URL %q", e.Pointer, e.URL)
				}
			}
			if len(c.Entries) > aicatalog.DefaultMaxEntries {
				t.Fatalf("%d entries", len(c.Entries))
			}
			if _, err := json.Marshal(c); err != nil {
				t.Fatalf("result does not re-encode: %v", err)
			}
			// Walk its nested catalogs with a fetch that serves the same document everywhere.
			w, err := aicatalog.Walk(context.Background(), c, func(context.Context, string) ([]byte, error) { return data, nil }, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(w.Catalogs) > 1+aicatalog.DefaultMaxFetches+aicatalog.DefaultMaxEntries {
				t.Fatalf("%d catalogs", len(w.Catalogs))
			}
		}
	})
}
