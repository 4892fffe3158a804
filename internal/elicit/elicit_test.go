package elicit

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestYesNo: only an accepted answer with the box ticked is yes; only a client that
// can show a form can be asked.
func TestYesNo(t *testing.T) {
	t.Parallel()
	q := YesNo("Allow?", "allow", "Allow this", "allow")
	props, _ := q.RequestedSchema.(map[string]any)["properties"].(map[string]any)
	f, _ := props["allow"].(map[string]any)
	if q.Message != "Allow?" || f["type"] != "boolean" || f["default"] != false ||
		f["description"] != "Tick to allow; leave unticked, decline or cancel to refuse." {
		t.Errorf("question = %+v", q)
	}
	for _, tc := range []struct {
		res  *mcp.ElicitResult
		want bool
	}{
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"allow": true}}, true},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"allow": false}}, false},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"allow": "true"}}, false},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"other": true}}, false},
		{&mcp.ElicitResult{Action: "decline", Content: map[string]any{"allow": true}}, false},
		{&mcp.ElicitResult{Action: "cancel"}, false},
		{nil, false},
	} {
		if got := Yes(tc.res, "allow"); got != tc.want {
			t.Errorf("Yes(%+v) = %v", tc.res, got)
		}
	}
	for _, tc := range []struct {
		caps *mcp.ClientCapabilities
		want bool
	}{
		{nil, false},
		{&mcp.ClientCapabilities{}, false},
		{&mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}, true},
		{&mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}}, true},
		{&mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}, false},
	} {
		if got := CanAsk(tc.caps); got != tc.want {
			t.Errorf("CanAsk(%+v) = %v", tc.caps, got)
		}
	}
}
