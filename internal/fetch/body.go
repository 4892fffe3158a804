package fetch

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// ReadCappedSized is ReadCapped with the body's announced length (ContentLength; -1
// when unknown) as the buffer's first size, so a small document is read in one go.
func ReadCappedSized(r io.Reader, limit, size int64, tooLarge error) ([]byte, error) {
	if size < 0 || size > limit || size > 1<<20 {
		return ReadCapped(r, limit, tooLarge)
	}
	b := make([]byte, 0, size+1) // +1: a body longer than announced shows without a read past it
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		switch {
		case err == io.EOF:
			return b, nil
		case err != nil:
			return nil, err
		case len(b) == cap(b): // longer than announced: read the rest the general way
			return ReadCapped(io.MultiReader(bytes.NewReader(b), r), limit, tooLarge)
		}
	}
}

// ReadCapped reads at most limit bytes; a longer body is an error wrapping tooLarge.
// Reading to EOF is also what lets httpcache store the body.
func ReadCapped(r io.Reader, limit int64, tooLarge error) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w (%d bytes)", tooLarge, limit)
	}
	return b, nil
}

// MediaType returns the lower-case media type of a Content-Type value, without
// parameters ("" when there is none): what mime.ParseMediaType returns, without its map.
func MediaType(v string) string {
	if i := strings.IndexByte(v, ';'); i >= 0 {
		v = v[:i]
	}
	v = strings.TrimSpace(v)
	for i := 0; i < len(v); i++ {
		if 'A' <= v[i] && v[i] <= 'Z' {
			return strings.ToLower(v)
		}
	}
	return v
}

// LooksLikeHTML reports a body that starts like an HTML page, after a BOM and blanks.
func LooksLikeHTML(b []byte) bool {
	b = bytes.TrimLeft(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(b) > 16 {
		b = b[:16]
	}
	hasPrefixFold := func(p string) bool { return len(b) >= len(p) && strings.EqualFold(string(b[:len(p)]), p) }
	return hasPrefixFold("<!doctype") || hasPrefixFold("<html")
}
