// Package elicit builds the one kind of MCP elicitation the module sends to ask a
// person: a yes/no question, a form with one boolean field that is unticked unless the
// person ticks it. The agent tools ask it to approve a skill, wellknown serve to grant
// a consent request.
package elicit

import "github.com/modelcontextprotocol/go-sdk/mcp"

// YesNo returns the question message with one required boolean field, field, titled
// title and unticked by default; its description says to tick it to tickTo, and that
// leaving it unticked, declining or cancelling refuses.
func YesNo(message, field, title, tickTo string) *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Message: message,
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				field: map[string]any{
					"type":        "boolean",
					"title":       title,
					"description": "Tick to " + tickTo + "; leave unticked, decline or cancel to refuse.",
					"default":     false,
				},
			},
			"required": []string{field},
		},
	}
}

// Yes reports whether res answers a YesNo question of field with yes: accepted, with
// the field ticked. Anything else (declined, cancelled, unticked, no answer) is no.
func Yes(res *mcp.ElicitResult, field string) bool {
	return res != nil && res.Action == "accept" && res.Content[field] == true
}

// CanAsk reports whether a client declaring caps can be shown a YesNo question: it
// declared form elicitation, or elicitation without modes (the capability predates
// them); a client that declares only URL elicitation cannot show a form.
func CanAsk(caps *mcp.ClientCapabilities) bool {
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	e := caps.Elicitation
	return e.Form != nil || e.URL == nil
}
