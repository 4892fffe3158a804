package mcpclient_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/mcpclient"
)

// cannedSkillServer answers protocol 2026-07-28 with prepared bytes: one skill whose
// one listed file, data, is served as text, its JSON encoded once in advance, in
// event streams or (asJSON) JSON bodies. Its own work per read is a few small
// allocations, so that what a test measures is the client's.
func cannedSkillServer(t *testing.T, data string, asJSON bool) *httptest.Server {
	t.Helper()
	md := "---\nname: big\ndescription: A big file. Use when measuring.\n---\n# Big\n"
	entry := map[string]any{"uri": "skill://big/SKILL.md", "frontmatter": map[string]any{"name": "big", "description": "A big file. Use when measuring."},
		"resources": []map[string]any{
			{"uri": "skill://big/SKILL.md", "size": len(md), "digest": agentskills.Digest([]byte(md))},
			{"uri": "skill://big/data.txt", "size": len(data), "digest": agentskills.Digest([]byte(data))},
		}}
	encode := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	results := map[string]string{
		"server/discover": encode(map[string]any{"resultType": "complete", "supportedVersions": []string{"2026-07-28"},
			"capabilities": map[string]any{"extensions": map[string]any{agentskills.ExtensionID: map[string]any{}}, "resources": map[string]any{}},
			"_meta":        map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "canned", "version": "1"}}}),
		"skills/list": encode(map[string]any{"resultType": "complete", "skills": []any{entry}}),
	}
	contents := map[string][]byte{
		"skill://big/SKILL.md": []byte(encode(map[string]any{"resultType": "complete", "contents": []any{map[string]any{"uri": "skill://big/SKILL.md", "text": md}}})),
		"skill://big/data.txt": []byte(encode(map[string]any{"resultType": "complete", "contents": []any{map[string]any{"uri": "skill://big/data.txt", "text": data}}})),
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				URI string `json:"uri"`
			} `json:"params"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		if req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		res, ok := []byte(results[req.Method]), true
		if req.Method == "resources/read" {
			res, ok = contents[req.Params.URI]
		}
		if !ok {
			res = []byte(`{"resultType":"complete"}`)
		}
		prefix, suffix := "", "\n\n"
		if asJSON {
			w.Header().Set("Content-Type", "application/json")
			suffix = ""
		} else {
			w.Header().Set("Content-Type", "text/event-stream")
			prefix = "event: message\ndata: "
		}
		// Written in pieces, the prepared result as it is: no copy of it.
		for _, b := range [][]byte{[]byte(prefix + `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":`), res, []byte("}" + suffix)} {
			_, _ = w.Write(b)
		}
	}))
	t.Cleanup(ts.Close)
	return ts
}

// TestReadDecodesEachFileOnce: reading a file allocates little more than the file
// itself and the body it came in, in event streams and in JSON bodies alike. Through the go-sdk alone, the file was decoded twice (the
// JSON-RPC message, then its result) and copied three times, for several times its
// size in allocations (see readbody.go); the content decoded is still what the server
// served, verified.
func TestReadDecodesEachFileOnce(t *testing.T) { //nolint:paralleltest // measures the allocations of the whole process
	line := "a line of text, with \"quotes\" and a tab\t, as files have\n"
	data := strings.Repeat(line, (1<<20)/len(line))
	for _, asJSON := range []bool{false, true} {
		t.Run(fmt.Sprint("json=", asJSON), func(t *testing.T) { //nolint:paralleltest // as above
			ts := cannedSkillServer(t, data, asJSON)
			s := connect(t, ts, &mcpclient.Options{ProtocolVersion: "2026-07-28"})
			l, err := s.ListSkills(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			sk := &l.Skills[0]
			read := func() {
				got, err := s.ReadFile(t.Context(), sk, "data.txt")
				if err != nil || string(got) != data {
					t.Fatalf("ReadFile = %d bytes, %v; want the %d bytes served", len(got), err, len(data))
				}
			}
			read() // warm: connections, the SDK's caches of types
			const reads = 10
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for range reads {
				read()
			}
			runtime.ReadMemStats(&after)
			perByte := float64(after.TotalAlloc-before.TotalAlloc) / float64(reads*len(data))
			t.Logf("%.2f bytes allocated per byte read", perByte)
			// The file, the body it came in (the text and its escapes), and slack for
			// the growth of the buffer it is read into; through the go-sdk alone, 17
			// to 23 bytes per byte.
			if perByte > 6 {
				t.Errorf("reading a file allocated %.2f bytes per byte of it; want at most 6 (decoded once)", perByte)
			}
		})
	}
}
