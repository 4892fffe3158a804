package skilllock

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/trust"
)

var update = flag.Bool("update", false, "rewrite golden files")

// sampleLock is a lock with two skills, given out of order.
func sampleLock() *Lock {
	return &Lock{Skills: []Skill{
		{
			Name:        "pdf",
			Source:      "https://example.com/.well-known/skills/pdf/SKILL.md",
			IndexDigest: Digest([]byte("index")),
			Files: map[string]string{
				"SKILL.md":           Digest([]byte("skill")),
				"scripts/extract.py": Digest([]byte("print(1)")),
			},
			Publisher: &trust.Result{Verified: true, Identity: "https://example.com/.well-known/skills/pdf/SKILL.md", Publisher: "Example <Corp> & Co", KeyID: "k1", Algorithm: "EdDSA"},
		},
		{
			Name:      "csv",
			Source:    "https://example.com/.well-known/skills/csv/SKILL.md",
			Files:     map[string]string{"SKILL.md": Digest([]byte("csv"))},
			Publisher: &trust.Result{Identity: "urn:x", Reason: "trust: manifest is not signed"},
		},
	}}
}

func TestMarshalGolden(t *testing.T) {
	t.Parallel()
	got, err := Marshal(sampleLock())
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "skills-lock.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Marshal() =\n%s\nwant\n%s", got, want)
	}
	// Stable: the same lock in another order, and a parsed copy, encode identically.
	l := sampleLock()
	l.Skills[0], l.Skills[1] = l.Skills[1], l.Skills[0]
	again, _ := Marshal(l)
	parsed, err := Parse(got)
	if err != nil {
		t.Fatalf("Parse(Marshal()) error = %v", err)
	}
	round, _ := Marshal(parsed)
	if !bytes.Equal(again, got) || !bytes.Equal(round, got) {
		t.Errorf("Marshal() is not stable:\n%s\n%s", again, round)
	}
}

func TestWriteFileReadFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	if err := WriteFile(path, sampleLock()); err != nil {
		t.Fatal(err)
	}
	l, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := l.Lookup("pdf"); !ok || len(s.Files) != 2 || !s.Publisher.Verified {
		t.Errorf("ReadFile() pdf = %+v, %v", s, ok)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("WriteFile() left %d files, want 1", len(entries))
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	d := Digest(nil)
	tests := []struct {
		name string
		data string
		want error
	}{
		{"not JSON", `{`, ErrMalformed},
		{"no version", `{"skills":[]}`, ErrMalformed},
		{"future version", `{"version":2,"skills":[]}`, ErrVersion},
		{"unknown member", `{"version":1,"skills":[],"extra":1}`, ErrMalformed},
		{"trailing data", `{"version":1,"skills":[]} {}`, ErrMalformed},
		{"name with a separator", `{"version":1,"skills":[{"name":"a/b","source":"","files":{}}]}`, ErrMalformed},
		{"name dot-dot", `{"version":1,"skills":[{"name":"..","source":"","files":{}}]}`, ErrMalformed},
		{"name with a newline", `{"version":1,"skills":[{"name":"a\nb ok","source":"","files":{}}]}`, ErrMalformed},
		{"path with an escape", `{"version":1,"skills":[{"name":"a","source":"","files":{"x\u001b[2J":"` + d + `"}}]}`, ErrMalformed},
		{"empty name", `{"version":1,"skills":[{"name":"","source":"","files":{}}]}`, ErrMalformed},
		{"duplicate skill", `{"version":1,"skills":[{"name":"a","source":"","files":{}},{"name":"a","source":"","files":{}}]}`, ErrMalformed},
		{"path escapes", `{"version":1,"skills":[{"name":"a","source":"","files":{"../../etc/passwd":"` + d + `"}}]}`, ErrMalformed},
		{"absolute path", `{"version":1,"skills":[{"name":"a","source":"","files":{"/etc/passwd":"` + d + `"}}]}`, ErrMalformed},
		{"backslash path", `{"version":1,"skills":[{"name":"a","source":"","files":{"..\\x":"` + d + `"}}]}`, ErrMalformed},
		{"folder escapes", `{"version":1,"skills":[{"name":"a","folder":"../../etc","source":"","files":{}}]}`, ErrMalformed},
		{"absolute folder", `{"version":1,"skills":[{"name":"a","folder":"/etc","source":"","files":{}}]}`, ErrMalformed},
		{"weak digest", `{"version":1,"skills":[{"name":"a","source":"","files":{"f":"sha1:00"}}]}`, ErrMalformed},
		{"upper-case digest", `{"version":1,"skills":[{"name":"a","source":"","files":{"f":"` + strings.ToUpper(d) + `"}}]}`, ErrMalformed},
		{"too large", `{"version":1,"skills":[],"x":"` + strings.Repeat("a", MaxLockBytes) + `"}`, ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := Parse([]byte(tc.data)); !errors.Is(err, tc.want) {
				t.Fatalf("Parse() error = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestMarshalRefusesUnsafeRecord(t *testing.T) {
	t.Parallel()
	l := &Lock{Skills: []Skill{{Name: "a", Files: map[string]string{"../x": Digest(nil)}}}}
	if _, err := Marshal(l); !errors.Is(err, ErrMalformed) {
		t.Fatalf("Marshal() error = %v, want ErrMalformed", err)
	}
}
