package mcpclient

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const bodyURI = "skill://tool/data/f.txt"

// sdkContent decodes msg as the go-sdk does and returns the content Session.read
// takes from it (nil when there is none), and whether the go-sdk decodes msg.
func sdkContent(msg []byte, uri string) (*mcp.ResourceContents, *mcp.ReadResourceResult, bool) {
	m, err := jsonrpc.DecodeMessage(msg)
	if err != nil {
		return nil, nil, false
	}
	resp, ok := m.(*jsonrpc.Response)
	if !ok || resp.Error != nil {
		return nil, nil, ok
	}
	var res mcp.ReadResourceResult
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		return nil, nil, false
	}
	for _, c := range res.Contents {
		if c != nil && c.URI == uri {
			return c, &res, true
		}
	}
	return nil, &res, true
}

// checkTakeContent checks takeContent on msg against the go-sdk's own decoding: when
// it takes a content out, the go-sdk decodes the message passed on exactly when it
// decodes msg, to the same result but the content's text or blob, which is what the
// sink received. It reports whether the content was taken.
func checkTakeContent(t *testing.T, msg []byte) bool {
	t.Helper()
	sink := &readSink{uri: bodyURI}
	out := takeContent(sink, bytes.Clone(msg))
	data, taken := sink.take()
	if !taken {
		if !bytes.Equal(out, msg) {
			t.Fatalf("nothing taken, yet the message changed:\n%s\n->\n%s", msg, out)
		}
		return false
	}
	want, wantRes, ok := sdkContent(msg, bodyURI)
	got, gotRes, ok2 := sdkContent(out, bodyURI)
	if ok != ok2 {
		t.Fatalf("the go-sdk decodes the original: %v, the message passed on: %v\n%s\n->\n%s", ok, ok2, msg, out)
	}
	if !ok || wantRes == nil {
		return true // refused either way (or an error answer), as before
	}
	if want == nil || got == nil {
		t.Fatalf("content taken, but the go-sdk finds none in %s", msg)
	}
	sdkData := want.Blob
	if want.Blob == nil {
		sdkData = []byte(want.Text)
	}
	if !bytes.Equal(data, sdkData) {
		t.Fatalf("sink holds %q; the go-sdk decodes %q from %s", data, sdkData, msg)
	}
	if got.Text != "" || len(got.Blob) != 0 {
		t.Fatalf("the content passed on still has text %q, blob %q", got.Text, got.Blob)
	}
	// Everything else decodes the same.
	if want.Blob != nil {
		want.Blob = got.Blob
	}
	want.Text = ""
	if !reflect.DeepEqual(wantRes, gotRes) {
		t.Fatalf("results differ:\n%+v\n%+v", wantRes, gotRes)
	}
	return true
}

func readResult(result string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":7,"result":` + result + `}`)
}

// TestTakeContent: the content of a resources/read answer is taken out, decoded as
// the go-sdk decodes it, when the answer is one takeContent recognises exactly; any
// other answer (hostile, odd, or merely unusual) is passed on untouched, for the
// go-sdk to decode as it always did.
func TestTakeContent(t *testing.T) {
	t.Parallel()
	u := `"uri":"` + bodyURI + `"`
	for _, tc := range []struct {
		name  string
		msg   []byte
		taken bool
	}{
		{"text", readResult(`{"contents":[{` + u + `,"text":"line 1\nline 2\n"}]}`), true},
		{"escapes", readResult(`{"contents":[{` + u + `,"text":"\"q\" \\ \/ \b\f\n\r\t \u00e9 \u4e2d é"}]}`), true},
		{"text before uri", readResult(`{"contents":[{"text":"abc",` + u + `,"mimeType":"text/plain"}],"ttlMs":0}`), true},
		{"white space", []byte("{ \"jsonrpc\" : \"2.0\" , \"id\" : 7 , \"result\" : { \"contents\" : [ { " + u + " , \"text\" : \"x\" } ] } }\n"), true},
		{"other content first", readResult(`{"contents":[{"uri":"skill://tool/other","text":"no"},null,{` + u + `,"text":"yes"}]}`), true},
		{"meta and more", readResult(`{"_meta":{"a":[1,2,{"b":null}]},"contents":[{` + u + `,"text":"x","_meta":{"k":true}}],"resultType":"complete","ttlMs":0}`), true},
		{"blob", readResult(`{"contents":[{` + u + `,"blob":"AAEC/w=="}]}`), true},
		{"escaped uri", readResult(`{"contents":[{"uri":"skill:\/\/tool\/data\/f.txt","text":"x"}]}`), true},
		{"empty text", readResult(`{"contents":[{` + u + `,"text":""}]}`), true},

		{"error answer", []byte(`{"jsonrpc":"2.0","id":7,"error":{"code":-32002,"message":"not found"}}`), false},
		{"no contents", readResult(`{}`), false},
		{"other uri only", readResult(`{"contents":[{"uri":"skill://tool/other","text":"no"}]}`), false},
		{"first match without text", readResult(`{"contents":[{` + u + `},{` + u + `,"text":"second"}]}`), false},
		{"first match with null text", readResult(`{"contents":[{` + u + `,"text":null},{` + u + `,"text":"second"}]}`), false},
		{"text and blob", readResult(`{"contents":[{` + u + `,"text":"a","blob":"AA=="}]}`), false},
		{"surrogate pair", readResult(`{"contents":[{` + u + `,"text":"\ud83d\ude00"}]}`), false},
		{"lone surrogate", readResult(`{"contents":[{` + u + `,"text":"\ud83d"}]}`), false},
		{"invalid UTF-8", readResult(`{"contents":[{` + u + `,"text":"a` + "\xff" + `b"}]}`), false},
		{"raw control character", readResult(`{"contents":[{` + u + `,"text":"a` + "\t" + `b"}]}`), false},
		{"unknown escape", readResult(`{"contents":[{` + u + `,"text":"a\qb"}]}`), false},
		{"short unicode escape", readResult(`{"contents":[{` + u + `,"text":"a\u12"}]}`), false},
		{"non-canonical blob", readResult(`{"contents":[{` + u + `,"blob":"AAEC\n/w=="}]}`), false},
		{"blob with an escaped slash", readResult(`{"contents":[{` + u + `,"blob":"AAEC\/w=="}]}`), true},
		{"unpadded blob", readResult(`{"contents":[{` + u + `,"blob":"AAEC/w"}]}`), false},
		{"duplicate result", []byte(`{"jsonrpc":"2.0","id":7,"result":{"contents":[]},"result":{"contents":[{` + u + `,"text":"x"}]}}`), false},
		{"duplicate contents", readResult(`{"contents":[],"contents":[{` + u + `,"text":"x"}]}`), false},
		{"duplicate text", readResult(`{"contents":[{` + u + `,"text":"a","text":"b"}]}`), false},
		{"duplicate uri", readResult(`{"contents":[{"uri":"skill://tool/other",` + u + `,"text":"a"}]}`), false},
		{"escaped key", readResult(`{"contents":[{` + u + `,"t\u0065xt":"a"}]}`), false},
		{"case of key", readResult(`{"contents":[{` + u + `,"Text":"a"}]}`), false},
		{"uri not a string", readResult(`{"contents":[{"uri":1,"text":"a"}]}`), false},
		{"trailing garbage", append(readResult(`{"contents":[{`+u+`,"text":"a"}]}`), '}'), false},
		{"truncated", readResult(`{"contents":[{` + u + `,"text":"a`), false},
		{"not an object", []byte(`[{"jsonrpc":"2.0","id":7,"result":{"contents":[{` + u + `,"text":"a"}]}}]`), false},
		{"too deep", readResult(`{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `,"contents":[{` + u + `,"text":"a"}]}`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := checkTakeContent(t, tc.msg); got != tc.taken {
				t.Errorf("taken = %v; want %v", got, tc.taken)
			}
		})
	}
}

// FuzzTakeContent: whatever the answer, takeContent either leaves it untouched or
// takes out exactly what the go-sdk would have decoded, the rest decoding the same.
func FuzzTakeContent(f *testing.F) {
	u := `"uri":"` + bodyURI + `"`
	for _, s := range []string{
		`{"contents":[{` + u + `,"text":"a\nb \u00e9"}]}`,
		`{"contents":[{"text":"x",` + u + `}],"ttlMs":0}`,
		`{"contents":[{` + u + `,"blob":"AAEC/w=="}]}`,
		`{"contents":[null,{"uri":"skill://x","text":"y"},{` + u + `,"text":"z","_meta":{"a":[1,{"b":"c"}]}}]}`,
	} {
		f.Add(readResult(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		checkTakeContent(t, msg)
	})
}

// TestEventStreamBody: an answer sent as an event stream is handed on event by event,
// the event that carries the content without it, and every other event, and what
// follows, as received.
func TestEventStreamBody(t *testing.T) {
	t.Parallel()
	note := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n"
	answer := "id: 3\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\r\ndata:   \"result\":{\"contents\":[{\"uri\":\"" + bodyURI + "\",\"text\":\"" + strings.Repeat("x", 100<<10) + "\"}]}}\r\n\r\n"
	after := ": a comment\n\nevent: message\ndata: {}\n\n"
	for _, tc := range []struct {
		name, body, want string
	}{
		{"answer", note + answer + after, note + "id: 3\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\ndata: \"result\":{\"contents\":[{\"uri\":\"" + bodyURI + "\",\"text\":\"\"}]}}\n\n" + after},
		{"no blank line at the end", note + strings.TrimRight(answer, "\r\n"), note + strings.TrimRight(answer, "\r\n")},
		{"other event name", "event: other\n" + strings.TrimPrefix(answer, "id: 3\r\nevent: message\r\n"), "event: other\n" + strings.TrimPrefix(answer, "id: 3\r\nevent: message\r\n")},
		{"malformed line", "event: message\nnot a field\n" + strings.TrimPrefix(answer, "id: 3\r\nevent: message\r\n"), "event: message\nnot a field\n" + strings.TrimPrefix(answer, "id: 3\r\nevent: message\r\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sink := &readSink{uri: bodyURI}
			resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(strings.NewReader(tc.body))}
			got, err := io.ReadAll(readBody(sink, resp))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("handed on:\n%.400q\nwant:\n%.400q", got, tc.want)
			}
			data, ok := sink.take()
			if taken := tc.want != tc.body; ok != taken || (ok && string(data) != strings.Repeat("x", 100<<10)) {
				t.Errorf("sink = %d bytes, %v; want taken = %v", len(data), ok, taken)
			}
		})
	}
}
