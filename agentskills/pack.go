package agentskills

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io/fs"
	"path"
)

// PackTarGz packs the skill folder dir of fsys as a skill archive for an index: a
// gzip-compressed tar with the folder's contents at its root (SKILL.md first, the
// rest in lexical order), regular files only, mode 0644, no owners and no times, so
// the same folder always gives the same bytes and the same digest. Use it to publish
// a skill ("type": "archive"); [Digest] gives the index's digest.
func PackTarGz(fsys fs.FS, dir string) ([]byte, error) {
	var files []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return &fs.PathError{Op: "pack", Path: p, Err: fs.ErrInvalid} // links and devices are never packed
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	write := func(p string) error {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		name := p
		if dir != "." {
			name = p[len(path.Clean(dir))+1:]
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	}
	// WalkDir visits in lexical order; SKILL.md goes first so a reader meets it early.
	skill := path.Join(dir, "SKILL.md")
	for _, p := range files {
		if p == skill {
			if err := write(p); err != nil {
				return nil, err
			}
		}
	}
	for _, p := range files {
		if p != skill {
			if err := write(p); err != nil {
				return nil, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
