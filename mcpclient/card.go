package mcpclient

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery/servercard"
)

// cardWarnings compares the Server Card a server came from with what the server
// itself reported when the session opened (servercard.Compare: name, version, title,
// endpoint, transport, protocol version) and returns one warning per disagreement.
// A card is advisory: the server's own answers win, and a warning is something to
// show, never a reason to trust either.
func cardWarnings(card *servercard.Card, ir *mcp.InitializeResult, endpoint string, sse bool) []string {
	if card == nil {
		return nil
	}
	got := servercard.ServerInfo{URL: endpoint, Transport: servercard.TransportStreamableHTTP}
	if sse {
		got.Transport = servercard.TransportSSE
	}
	if ir != nil {
		got.ProtocolVersion = ir.ProtocolVersion
		if ir.ServerInfo != nil {
			got.Name, got.Version, got.Title = ir.ServerInfo.Name, ir.ServerInfo.Version, ir.ServerInfo.Title
		}
	}
	var out []string
	for _, d := range servercard.Compare(card, got) {
		out = append(out, "server card: "+d.String())
	}
	return out
}
