package discovery_test

import (
	"io/fs"
	"net/url"
	"path/filepath"
	"testing"
)

type urlURL = url.URL

// checkPerms fails when a file under dir is readable by others than its owner.
func checkPerms(t *testing.T, dir string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if p != dir && info.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v", p, info.Mode().Perm())
		}
		if !d.IsDir() {
			files++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Error("the disk cache wrote no file")
	}
}
