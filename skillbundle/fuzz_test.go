package skillbundle

import (
	"archive/tar"
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// FuzzRead feeds arbitrary archives to Read: no panic, and whatever reads holds only
// files on its origin at clean paths, each served with the bytes bundle.json records.
func FuzzRead(f *testing.F) {
	manifest := `{"version":1,"origin":"https://example.com","index":"https://example.com/i.json","files":[` +
		`{"path":"i.json","url":"https://example.com/i.json","size":2,"digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"}]}`
	for _, es := range [][][2]string{
		{{ManifestName, manifest}, {"i.json", "{}"}},
		{{ManifestName, manifest}, {"i.json", "{}"}, {"extra", "x"}},
		{{ManifestName, manifest}, {"../i.json", "{}"}},
		{{"i.json", "{}"}},
	} {
		var b bytes.Buffer
		tw := tar.NewWriter(&b)
		for _, e := range es {
			tw.WriteHeader(&tar.Header{Name: e[0], Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(e[1]))})
			tw.Write([]byte(e[1]))
		}
		tw.Close()
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Read(bytes.NewReader(data), &Limits{MaxBytes: 1 << 20, MaxFiles: 64})
		if err != nil {
			return
		}
		for _, file := range b.Manifest.Files {
			if checkPath(file.Path) != nil || !strings.HasPrefix(file.URL, b.Manifest.Origin+"/") {
				t.Fatalf("accepted %q at %q", file.URL, file.Path)
			}
			req, _ := http.NewRequest(http.MethodGet, file.URL, nil)
			resp, err := b.WrapTransport(nil).RoundTrip(req)
			if err != nil || resp.StatusCode != http.StatusOK || resp.ContentLength != file.Size {
				t.Fatalf("%s is not served as recorded: %v", file.URL, err)
			}
		}
	})
}
