package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// waitingNote is the line serve prints when stdin is a terminal: a person started it
// by hand, and MCP on stdio prints nothing until a client speaks.
const waitingNote = "serve: MCP server on stdio; waiting for a client " +
	"(this command is meant to be started by an MCP host; see wellknown serve --help; Ctrl-D or Ctrl-C stops)"

// typedNote is printed for each line typed on the terminal that is not a JSON-RPC
// message: the MCP SDK would end the session on it.
const typedNote = "serve: ignored a line that is not an MCP message (JSON-RPC, one per line): " +
	"this command is meant to be started by an MCP host; see wellknown serve --help"

// terminalInput passes the lines of a terminal on to the MCP server, except blank
// lines and the lines that are not JSON at all (something a person typed), for which
// it calls skipped.
// A line of JSON that is not a valid message still reaches the server, which answers
// it with a JSON-RPC error. Not safe for concurrent use (the server reads from one
// goroutine).
type terminalInput struct {
	r       *bufio.Reader
	pending []byte // the part of the current line not yet returned
	skipped func()
}

func newTerminalInput(in io.Reader, skipped func()) *terminalInput {
	return &terminalInput{r: bufio.NewReader(in), skipped: skipped}
}

// Read implements io.Reader.
func (t *terminalInput) Read(p []byte) (int, error) {
	for len(t.pending) == 0 {
		line, err := t.r.ReadBytes('\n')
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			if json.Valid(trimmed) {
				t.pending = line
			} else {
				t.skipped()
			}
		}
		if err != nil && len(t.pending) == 0 {
			return 0, err
		}
		if err != nil {
			break // return the last line now; the next Read reports err again
		}
	}
	n := copy(p, t.pending)
	t.pending = t.pending[n:]
	return n, nil
}
