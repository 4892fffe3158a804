package main

import (
	"io"
	"strings"
	"testing"
)

// stdioScript is what `printf '<initialize>\n<initialized>\n<tools/list>\n' | mcpserver`
// sends: two requests and a notification, then end of input.
const stdioScript = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`

// TestStdioAnswersBeforeEOF: every request read before stdin closed is answered.
func TestStdioAnswersBeforeEOF(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	err := run(t.Context(), config{}, io.NopCloser(strings.NewReader(stdioScript)), nopWriteCloser{&out}, &syncBuffer{})
	if err != nil && !strings.Contains(err.Error(), "EOF") {
		t.Logf("run: %v", err)
	}
	got := out.String()
	if !strings.Contains(got, `"id":1`) || !strings.Contains(got, `"id":2`) || !strings.Contains(got, "read_skill") {
		t.Errorf("stdout lacks an answer:\n%s", got)
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
