package mcpclient_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/wellknown-dev/discovery/mcpclient"
)

// FuzzIsRead: the JSON-RPC classifier never panics, always leaves the body whole,
// never calls a message that names tools/call in any spelling a read, and calls a
// read only a body that is one JSON value with nothing after it.
func FuzzIsRead(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"},"Method":"ping"}`,
		`[{"method":"ping"},{"method":"tools/list"}]`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`,
		`{"method":"tools/call","method":"ping"}`,
		`{"METHOD":"tools/call"}`,
		`not json`, ``, `[]`, `{}`,
		`{"method":"ping"}{"method":"tools/call","params":{"name":"x"}}`,
		"{\"method\":\"ping\"}\n{\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n",
		`{"method":"ping"} garbage`, `{"method":"ping"}]`, `[{"method":"ping"}][{"method":"tools/call"}]`,
		`{"method":"ping"`, `{"method":"tools/call","params":["x"]}`, "{\"method\":\"ping\"}\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, _ := http.NewRequest("POST", "https://mcp.example/mcp", bytes.NewReader(body))
		read := mcpclient.IsRead(req)
		_ = mcpclient.Subject(req)
		got, _ := io.ReadAll(req.Body)
		if !bytes.Equal(got, body) {
			t.Fatalf("body changed: %q → %q", body, got)
		}
		if read && !json.Valid(body) {
			t.Fatalf("a body that is not exactly one JSON value classified as a read: %q", body)
		}
		if read && bytes.Contains(bytes.ToLower(body), []byte("tools/call")) && bytes.Contains(bytes.ToLower(body), []byte("method")) {
			// A read that mentions tools/call must hold it only as data: as a string
			// value of something other than a method. Check the one case that matters:
			// a top-level method key in any case.
			for _, key := range [][]byte{[]byte(`"method":"tools/call"`), []byte(`"method": "tools/call"`)} {
				if bytes.Contains(bytes.ToLower(body), key) {
					t.Fatalf("a tools/call classified as a read: %q", body)
				}
			}
		}
	})
}
