package skilllock

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// installFixture writes an install-like skills root and returns it with its lock.
func installFixture(t *testing.T) (string, *Lock) {
	t.Helper()
	root := t.TempDir()
	tree := map[string]map[string]string{
		"pdf": {"SKILL.md": "---\nname: pdf\n---\n", "scripts/extract.py": "print(1)\n", "reference/forms.md": "# Forms\n"},
		"csv": {"SKILL.md": "---\nname: csv\n---\n"},
	}
	l := &Lock{}
	for name, files := range tree {
		for p, body := range files {
			full := filepath.Join(root, name, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		digests, err := HashDir(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		l.Put(Skill{Name: name, Source: "https://example.com/.well-known/skills/" + name + "/SKILL.md", Files: digests})
	}
	l.Version = Version
	return root, l
}

func TestVerifyDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		tamper func(t *testing.T, root string)
		want   []Problem
	}{
		{"untouched", func(*testing.T, string) {}, nil},
		{"file changed", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "pdf", "scripts", "extract.py"), "import os; os.system('curl evil')\n")
		}, []Problem{{Skill: "pdf", File: "scripts/extract.py", Kind: Changed}}},
		{"file missing", func(t *testing.T, root string) {
			must(t, os.Remove(filepath.Join(root, "pdf", "reference", "forms.md")))
		}, []Problem{{Skill: "pdf", File: "reference/forms.md", Kind: Missing}}},
		{"extra file", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "csv", "scripts", "run.sh"), "rm -rf /\n")
		}, []Problem{{Skill: "csv", File: "scripts/run.sh", Kind: Extra}}},
		{"skill folder missing", func(t *testing.T, root string) {
			must(t, os.RemoveAll(filepath.Join(root, "csv")))
		}, []Problem{{Skill: "csv", File: "SKILL.md", Kind: Missing}}},
		{"file replaced by a symbolic link", func(t *testing.T, root string) {
			p := filepath.Join(root, "csv", "SKILL.md")
			must(t, os.Remove(p))
			must(t, os.Symlink(filepath.Join(root, "pdf", "SKILL.md"), p))
		}, []Problem{
			{Skill: "csv", File: "SKILL.md", Kind: Changed, Detail: "not a regular file"},
		}},
		{"extra symbolic link", func(t *testing.T, root string) {
			must(t, os.Symlink("/etc/passwd", filepath.Join(root, "pdf", "passwd")))
		}, []Problem{{Skill: "pdf", File: "passwd", Kind: Extra, Detail: "not a regular file"}}},
		{"skill folder replaced by a link outside the root", func(t *testing.T, root string) {
			outside := t.TempDir()
			write(t, filepath.Join(outside, "SKILL.md"), "---\nname: csv\n---\n")
			must(t, os.RemoveAll(filepath.Join(root, "csv")))
			must(t, os.Symlink(outside, filepath.Join(root, "csv")))
		}, []Problem{
			{Skill: "csv", Kind: Changed, Detail: "skill folder is not a plain directory"},
			{Skill: "csv", File: "SKILL.md", Kind: Missing},
		}},
		{"unlocked skill folders are not examined", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "mine", "SKILL.md"), "hand-written\n")
		}, nil},
		{"several at once", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "pdf", "SKILL.md"), "changed\n")
			write(t, filepath.Join(root, "pdf", "zz.md"), "extra\n")
			must(t, os.Remove(filepath.Join(root, "csv", "SKILL.md")))
		}, []Problem{
			{Skill: "csv", File: "SKILL.md", Kind: Missing},
			{Skill: "pdf", File: "SKILL.md", Kind: Changed},
			{Skill: "pdf", File: "zz.md", Kind: Extra},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root, l := installFixture(t)
			tc.tamper(t, root)
			got, err := VerifyDir(root, l)
			if err != nil {
				t.Fatalf("VerifyDir() error = %v", err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("VerifyDir() =\n%v\nwant\n%v", got, tc.want)
			}
		})
	}
}

func TestVerifyDirRefusesUnsafeLock(t *testing.T) {
	t.Parallel()
	root, _ := installFixture(t)
	l := &Lock{Version: Version, Skills: []Skill{{Name: "..", Files: map[string]string{"etc/passwd": Digest(nil)}}}}
	if _, err := VerifyDir(root, l); !errors.Is(err, ErrMalformed) {
		t.Fatalf("VerifyDir() error = %v, want ErrMalformed", err)
	}
	if _, err := VerifyDir(filepath.Join(root, "absent"), &Lock{Version: Version}); err == nil {
		t.Fatal("VerifyDir(absent root) error = nil")
	}
}

func TestHashDirRefusesLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "SKILL.md"), "x")
	must(t, os.Symlink("/etc/passwd", filepath.Join(dir, "passwd")))
	if _, err := HashDir(dir); !errors.Is(err, ErrMalformed) {
		t.Fatalf("HashDir() error = %v, want ErrMalformed", err)
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	locked := &Lock{Version: Version, Skills: []Skill{
		{Name: "pdf", Source: "https://example.com/pdf/SKILL.md", Files: map[string]string{"SKILL.md": Digest([]byte("a")), "x.py": Digest([]byte("x"))}},
		{Name: "csv", Source: "https://example.com/csv/SKILL.md", Files: map[string]string{"SKILL.md": Digest([]byte("c"))}},
	}}
	tests := []struct {
		name   string
		served *Lock
		want   []Problem
	}{
		{"same", locked, nil},
		{"changed, missing and extra files, moved source", &Lock{Skills: []Skill{
			{Name: "pdf", Source: "https://example.com/pdf/v2/SKILL.md", Files: map[string]string{"SKILL.md": Digest([]byte("b")), "y.py": Digest([]byte("y"))}},
			{Name: "csv", Source: "https://example.com/csv/SKILL.md", Files: map[string]string{"SKILL.md": Digest([]byte("c"))}},
		}}, []Problem{
			{Skill: "pdf", Kind: Changed, Detail: "source URL changed"},
			{Skill: "pdf", File: "SKILL.md", Kind: Changed},
			{Skill: "pdf", File: "x.py", Kind: Missing},
			{Skill: "pdf", File: "y.py", Kind: Extra},
		}},
		{"skill no longer served, new skill served", &Lock{Skills: []Skill{
			locked.Skills[0],
			{Name: "new", Source: "https://example.com/new/SKILL.md"},
		}}, []Problem{
			{Skill: "csv", Kind: Missing, Detail: "no longer served"},
			{Skill: "new", Kind: Extra, Detail: "not in the lock"},
		}},
		{"nothing served", nil, []Problem{
			{Skill: "csv", Kind: Missing, Detail: "no longer served"},
			{Skill: "pdf", Kind: Missing, Detail: "no longer served"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Compare(locked, tc.served); !slices.Equal(got, tc.want) {
				t.Errorf("Compare() =\n%v\nwant\n%v", got, tc.want)
			}
		})
	}
}

func TestProblemString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    Problem
		want string
	}{
		{Problem{Skill: "pdf", File: "a/b.md", Kind: Changed}, "pdf/a/b.md: changed"},
		{Problem{Skill: "csv", Kind: Missing, Detail: "no longer served"}, "csv: missing (no longer served)"},
		{Problem{Skill: "x", File: "a\nok: b", Kind: Extra}, `"x/a\nok: b": extra`},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(t, os.WriteFile(path, []byte(body), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestHashFiles(t *testing.T) {
	t.Parallel()
	got, err := HashFiles(map[string][]byte{"SKILL.md": []byte("a"), "scripts/x.py": []byte("b")})
	if err != nil || got["SKILL.md"] != Digest([]byte("a")) || got["scripts/x.py"] != Digest([]byte("b")) {
		t.Fatalf("HashFiles() = %v, %v", got, err)
	}
	for _, bad := range []string{"../x", "/etc/passwd", "a\\b", "a/./b", "", "a\x1b"} {
		if _, err := HashFiles(map[string][]byte{bad: nil}); !errors.Is(err, ErrMalformed) {
			t.Errorf("HashFiles(%q) error = %v, want ErrMalformed", bad, err)
		}
	}
}
