package mcpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"net/http"
	"sync"
	"unicode/utf8"
)

// The answer to a resources/read is decoded once, here, instead of three times.
//
// Through the go-sdk alone, the content of each file read is decoded twice and copied
// three times: the transport decodes the JSON-RPC message (scanning the whole result
// into a json.RawMessage), the session decodes that result again into a
// ReadResourceResult (unquoting the text into a string), and Session.read copies the
// string into the []byte it verifies. For a skill of many files that is most of the
// client's CPU time (issue 25: reading a 16 MiB skill, the go-sdk's JSON decoding was
// the top of the profile).
//
// So Session.read puts a readSink in the context of each resources/read call, and
// responseCap, the session's RoundTripper, hands the body of the answer to readBody:
// it finds, in the JSON-RPC response, the first content of result.contents whose uri
// is the one asked for (the content Session.read takes), decodes its text (or its
// base64 blob) into the sink, and passes the message on with that one string replaced
// by "". The go-sdk then receives, decodes and checks the whole message as before (it
// remains the protocol implementation: the request, the headers, the session, the
// errors, the event stream are all its own), only without the file in it, and
// Session.read takes the file from the sink. It is not a second MCP client: it
// decodes one string of one answer, and nothing else.
//
// Whatever readBody does not recognise exactly it passes on untouched, and the go-sdk
// decodes it as it always did: a body that is not application/json or
// text/event-stream, a status other than 200, a message that is not an object with a
// result, a key given twice or spelled with an escape, a text that is not valid UTF-8
// or has an escape outside the basic plane, a blob that is not canonical base64, a
// content with both text and blob, nesting deeper than maxBodyDepth. The string
// replaced is a whole, valid JSON string token, so the message passed on is valid JSON
// exactly when the original was, and decodes to the same values but that one. The
// bytes counted against the call's limits (responseCap's meter, the six-times-the-size
// bound of ReadSkill) are the bytes received, before any of this.

// readSink receives, for one resources/read call, the content readBody decoded.
type readSink struct {
	uri  string // the resource asked for
	hint int    // the bytes an event carrying it is expected to take (0: unknown)

	mu   sync.Mutex
	data []byte // guarded by mu: the content decoded
	ok   bool   // guarded by mu: data was set; set once
}

type sinkKey struct{}

// maxHint bounds the buffer an event is read into before it is seen: past it, the
// buffer grows with what is received.
const maxHint = 1 << 20

// withSink returns ctx carrying a sink for a resources/read of uri, whose size is
// listed as size (negative: not listed).
func withSink(ctx context.Context, uri string, size int64) (context.Context, *readSink) {
	s := &readSink{uri: uri}
	if size >= 0 {
		// The text, an eighth more for its escapes, and the message around it.
		s.hint = int(min(size+size/8+1024, maxHint))
	}
	return context.WithValue(ctx, sinkKey{}, s), s
}

func sinkOf(ctx context.Context) *readSink {
	s, _ := ctx.Value(sinkKey{}).(*readSink)
	return s
}

// put records data, and reports whether the sink took it (only the first answer is
// taken: any later one is passed on untouched).
func (s *readSink) put(data []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ok {
		return false
	}
	s.data, s.ok = data, true
	return true
}

// take returns the content decoded, if any.
func (s *readSink) take() ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.data, s.ok
}

// readBody returns the body resp should be read through for the call whose sink is
// sink (see above); resp.Body itself when it is not a body readBody decodes.
func readBody(sink *readSink, resp *http.Response) io.ReadCloser {
	if resp.StatusCode != http.StatusOK {
		return resp.Body
	}
	mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		return resp.Body
	}
	switch mt {
	case "application/json":
		return &jsonBody{rc: resp.Body, sink: sink}
	case "text/event-stream":
		return &sseBody{rc: resp.Body, r: bufio.NewReaderSize(resp.Body, 64<<10), sink: sink}
	}
	return resp.Body
}

// jsonBody is an application/json answer: read whole, then handed on, the content
// taken out.
type jsonBody struct {
	rc   io.ReadCloser
	sink *readSink
	out  *bytes.Reader // nil until read
	err  error
}

// Read implements io.Reader.
func (b *jsonBody) Read(p []byte) (int, error) {
	if b.out == nil && b.err == nil {
		var data []byte
		if data, b.err = io.ReadAll(b.rc); b.err == nil {
			b.out = bytes.NewReader(takeContent(b.sink, data))
		}
	}
	if b.err != nil {
		return 0, b.err
	}
	return b.out.Read(p)
}

// Close implements io.Closer.
func (b *jsonBody) Close() error { return b.rc.Close() }

// sseBody is a text/event-stream answer: read event by event, each handed on as
// received but the first that carries the content, handed on without it. Lines are
// split and fields read as the go-sdk reads them (a line ends at "\n", "\r\n" and
// "\n" are trimmed, a data value is trimmed of spaces, data lines are joined with
// "\n", an event named other than "message" is skipped); an event it would reject
// or skip is passed on untouched for it to reject or skip.
type sseBody struct {
	rc   io.ReadCloser
	r    *bufio.Reader
	sink *readSink
	out  []byte // what is left of the event being handed on
	done bool   // the content was taken (or the stream ended): the rest is passed on as is
	err  error
}

// Read implements io.Reader.
func (b *sseBody) Read(p []byte) (int, error) {
	for len(b.out) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		if b.done {
			return b.r.Read(p)
		}
		b.out, b.err = b.nextEvent()
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	return n, nil
}

// nextEvent reads the next event, up to and including the empty line that ends it,
// and returns what to hand on for it.
func (b *sseBody) nextEvent() ([]byte, error) {
	raw := make([]byte, 0, b.sink.hint)
	for {
		line, err := b.r.ReadSlice('\n')
		raw = append(raw, line...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			return raw, err // the end of the stream, or a failed read: as it came
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			return b.event(raw), nil
		}
	}
}

// event returns what to hand on for the whole event raw.
func (b *sseBody) event(raw []byte) []byte {
	var data, rest []byte
	nData, name := 0, ""
	for line := range bytes.Lines(raw) {
		field, value, ok := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte{':'})
		switch {
		case len(bytes.TrimRight(line, "\r\n")) == 0:
		case !ok:
			return raw
		case string(field) == "data":
			v := bytes.TrimSpace(value)
			if nData++; nData == 1 {
				data = v // one line, the usual case: not copied
				break
			}
			if nData == 2 {
				data = bytes.Clone(data)
			}
			data = append(append(data, '\n'), v...)
		default:
			if string(field) == "event" {
				name = string(bytes.TrimSpace(value))
			}
			rest = append(rest, line...)
		}
	}
	if nData == 0 || (name != "" && name != "message") { // the go-sdk skips other events
		return raw
	}
	msg := takeContent(b.sink, data)
	if len(msg) == len(data) {
		return raw // not the answer, or not one readBody decodes
	}
	b.done = true
	out := rest
	for l := range bytes.Lines(msg) {
		out = append(append(out, "data: "...), bytes.TrimRight(l, "\n")...)
		out = append(out, '\n')
	}
	return append(out, '\n')
}

// Close implements io.Closer.
func (b *sseBody) Close() error { return b.rc.Close() }

// takeContent decodes, from the JSON-RPC message msg, the content sink asks for into
// sink, and returns msg with that content's string replaced by ""; msg itself when it
// has no such content or one that is not decoded here (see above).
func takeContent(sink *readSink, msg []byte) []byte {
	span, ok := findContent(msg, sink.uri)
	if !ok {
		return msg
	}
	data, ok := unquote(msg[span.start:span.end])
	if ok && span.blob {
		data, ok = decodeBlob(data)
	}
	if !ok || !sink.put(data) {
		return msg
	}
	out := make([]byte, 0, len(msg)-(span.end-span.start)+2)
	out = append(out, msg[:span.start]...)
	out = append(out, `""`...)
	return append(out, msg[span.end:]...)
}

// decodeBlob decodes canonical base64 (the standard alphabet, padded, nothing else).
func decodeBlob(s []byte) ([]byte, bool) {
	for _, c := range s {
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=') {
			return nil, false
		}
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Strict().Decode(out, s)
	return out[:n], err == nil
}

// maxBodyDepth bounds the nesting findContent walks through; deeper, the message is
// left to the go-sdk.
const maxBodyDepth = 64

// contentSpan is where, in a message, the string of the content asked for is: its
// token, quotes included.
type contentSpan struct {
	start, end int
	blob       bool // the string is a base64 blob, not text
}

// findContent finds, in msg, the text or blob of the first content of
// result.contents whose uri is uri: the content Session.read takes.
func findContent(msg []byte, uri string) (contentSpan, bool) {
	w := &jsonWalk{b: msg}
	var span contentSpan
	matched := false
	ok := w.object(func(key string) bool {
		if key != "result" {
			return w.skip(1)
		}
		return w.object(func(key string) bool {
			if key != "contents" || w.peek() != '[' {
				return w.skip(2)
			}
			return w.array(func() bool {
				if matched || w.peek() != '{' {
					return w.skip(3)
				}
				c, isURI, ok := w.content(uri)
				if isURI {
					span, matched = c, true
				}
				return ok
			})
		})
	})
	w.ws()
	return span, ok && span.end > 0 && w.i == len(w.b)
}

// jsonWalk walks a JSON text: just enough to find one string in it.
type jsonWalk struct {
	b []byte
	i int
}

func (w *jsonWalk) ws() {
	for w.i < len(w.b) && (w.b[w.i] == ' ' || w.b[w.i] == '\t' || w.b[w.i] == '\n' || w.b[w.i] == '\r') {
		w.i++
	}
}

// peek returns the next byte after white space (0 at the end).
func (w *jsonWalk) peek() byte {
	w.ws()
	if w.i < len(w.b) {
		return w.b[w.i]
	}
	return 0
}

// str skips a string token and returns its bounds.
func (w *jsonWalk) str() (int, int, bool) {
	if w.peek() != '"' {
		return 0, 0, false
	}
	start := w.i
	for w.i++; w.i < len(w.b); w.i++ {
		switch w.b[w.i] {
		case '\\':
			w.i++
		case '"':
			w.i++
			return start, w.i, true
		}
	}
	return 0, 0, false
}

// object walks an object, calling member with each key, w just before its value; a
// key given twice or with an escape in it ends the walk.
func (w *jsonWalk) object(member func(key string) bool) bool {
	if w.peek() != '{' {
		return false
	}
	w.i++
	if w.peek() == '}' {
		w.i++
		return true
	}
	seen := map[string]bool{}
	for {
		s, e, ok := w.str()
		if !ok || bytes.IndexByte(w.b[s:e], '\\') >= 0 || w.peek() != ':' {
			return false
		}
		key := string(w.b[s+1 : e-1])
		if seen[key] {
			return false
		}
		seen[key] = true
		w.i++
		if !member(key) {
			return false
		}
		switch w.peek() {
		case ',':
			w.i++
		case '}':
			w.i++
			return true
		default:
			return false
		}
	}
}

// array walks an array, calling elem with w just before each element.
func (w *jsonWalk) array(elem func() bool) bool {
	if w.peek() != '[' {
		return false
	}
	w.i++
	if w.peek() == ']' {
		w.i++
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch w.peek() {
		case ',':
			w.i++
		case ']':
			w.i++
			return true
		default:
			return false
		}
	}
}

// skip skips one value at nesting depth.
func (w *jsonWalk) skip(depth int) bool {
	if depth > maxBodyDepth {
		return false
	}
	switch w.peek() {
	case '"':
		_, _, ok := w.str()
		return ok
	case '{':
		return w.object(func(string) bool { return w.skip(depth + 1) })
	case '[':
		return w.array(func() bool { return w.skip(depth + 1) })
	}
	start := w.i
	for w.i < len(w.b) && bytes.IndexByte([]byte(",]} \t\r\n"), w.b[w.i]) < 0 {
		w.i++
	}
	return w.i > start
}

// content walks one content object, and reports whether its uri is uri; the span it
// returns is empty (end 0) unless the content has a text or a blob (not both) given
// as a string.
func (w *jsonWalk) content(uri string) (contentSpan, bool, bool) {
	var text, blob contentSpan
	var isURI, other bool
	ok := w.object(func(key string) bool {
		switch key {
		case "uri":
			s, e, ok := w.str()
			if !ok {
				return false
			}
			u, valid := unquote(w.b[s:e])
			isURI = string(u) == uri
			return valid // one the go-sdk may read otherwise: left to it
		case "text", "blob":
			if w.peek() != '"' {
				other = true
				return w.skip(4)
			}
			s, e, ok := w.str()
			if key == "text" {
				text = contentSpan{start: s, end: e}
			} else {
				blob = contentSpan{start: s, end: e, blob: true}
			}
			return ok
		}
		return w.skip(4)
	})
	switch {
	case other || (text.end > 0) == (blob.end > 0):
		return contentSpan{}, isURI, ok
	case text.end > 0:
		return text, isURI, ok
	}
	return blob, isURI, ok
}

// unquote decodes a JSON string token strictly: it reports false for anything the
// go-sdk's decoder would take differently or refuse (a control character, an unknown
// escape, an escape outside the basic plane, invalid UTF-8).
func unquote(tok []byte) ([]byte, bool) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return nil, false
	}
	s := tok[1 : len(tok)-1]
	out := make([]byte, 0, len(s))
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\\' && s[i] != '"' && s[i] >= 0x20 {
			i++
		}
		out = append(out, s[:i]...)
		if s = s[i:]; len(s) == 0 {
			break
		}
		if s[0] != '\\' || len(s) < 2 {
			return nil, false
		}
		switch c := s[1]; c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(s[2:])
			if !ok || utf8.RuneLen(r) < 0 { // a surrogate: left to the go-sdk
				return nil, false
			}
			out = utf8.AppendRune(out, r)
			s = s[4:]
		default:
			return nil, false
		}
		s = s[2:]
	}
	return out, utf8.Valid(out)
}

// hex4 reads the four hex digits of a \u escape.
func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
