package modeltext

import (
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/internal/families"
	"github.com/wellknown-dev/discovery/trust"
)

// SkillLines are the lines of an Agent Skills index for [Input.Skills]: "name:
// description", marked "(unverified)" when the index gives no digest to check the
// skill against, and, when pub (the check of the Trust Manifest beside the index) is
// given, the publisher that signed the index or why it is not verified. A verified
// publisher vouches only for skills checked against the index's digests.
func SkillLines(ix *agentskills.Index, pub *trust.Result) []string {
	var out []string
	for i := range ix.Skills {
		e := &ix.Skills[i]
		line := e.Name + ": " + e.Description
		switch checked := families.Verifiable(e); {
		case !checked:
			line += " (unverified)"
		case pub != nil && pub.Verified:
			line += " (publisher verified: " + pub.Publisher + ")"
		case pub != nil:
			line += " (publisher unverified)"
		}
		out = append(out, line)
	}
	return out
}
