package discovery

import (
	"cmp"
	"strings"

	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/internal/families"
	"github.com/wellknown-dev/discovery/internal/modeltext"
)

// DefaultModelBudget is the byte budget of [Discovery.ForModel] when none is given.
const DefaultModelBudget = 8192

// ModelOptions tunes [Discovery.ForModel]. The zero value gives the defaults.
type ModelOptions struct {
	// Budget is the most bytes the rendering may take, fence included. 0:
	// [DefaultModelBudget]. Below 1024 it is raised to 1024.
	Budget int
	// Skills, when set, adds the origin's Agent Skills index (names and descriptions
	// only; the model activates a skill to read it).
	Skills *SkillsIndex
	// Warnings adds the discovery's warnings (stale answers, skipped entries).
	Warnings bool
}

// ForModel renders everything discovered for a model's context window, within
// opts.Budget bytes: the skills.md guidance (risky actions and rules first, then safe
// actions, auth, the API base resolved against the origin, API items, limits), every
// section it does not map to those (shortened, not dropped), the MCP servers and tools
// of mcp.json (so a site that publishes only mcp.json is described too), the skills of
// the AI Catalog's Server Cards (labelled advisory), opts.Skills, the other families
// published, and links; when something does not fit, a last line names what was left
// out. The rendering is fenced with a fresh nonce (the text cannot close the fence),
// labelled as data published by the origin, not instructions from the user, and every
// piece of site text is cleaned: credentials redacted, URL queries and userinfo
// removed, control and format characters dropped.
func (d *Discovery) ForModel(opts *ModelOptions) string {
	var o ModelOptions
	if opts != nil {
		o = *opts
	}
	if o.Budget <= 0 {
		o.Budget = DefaultModelBudget
	}
	in := &modeltext.Input{Origin: "(unknown origin)", Sources: d.sources()}
	if d != nil {
		if !d.Origin.IsZero() {
			in.Origin = d.Origin.String()
		}
		in.Guide, in.MCP, in.GuideBase = d.Guide, d.MCP, cmp.Or(d.GuideURL, in.Origin)
		if d.MCP != nil {
			in.MCPBase = mcpBase(d)
		}
		if p := d.All; p != nil {
			for _, k := range p.Cards {
				in.Cards = append(in.Cards, k.Card)
			}
			for _, f := range p.Families {
				in.Families = append(in.Families, [2]string{f.Name, f.URL})
			}
		}
		if o.Warnings {
			for _, w := range d.Warnings {
				in.Warnings = append(in.Warnings, w.Code+": "+w.Message)
			}
		}
	}
	if o.Skills != nil && o.Skills.Index != nil {
		for _, e := range o.Skills.Index.Skills {
			line := e.Name + ": " + e.Description
			if !families.Verifiable(&e) {
				line += " (unverified)"
			}
			in.Skills = append(in.Skills, line)
		}
	}
	return modeltext.Render(in, max(o.Budget, 1024))
}

// sources names the documents behind the rendering.
func (d *Discovery) sources() string {
	var s []string
	if d != nil && d.Guide != nil {
		s = append(s, GuidePath)
	}
	if d != nil && d.MCP != nil {
		s = append(s, MCPPath)
	}
	if d != nil && d.All != nil && d.All.Catalog != nil {
		s = append(s, aicatalog.WellKnownPath)
	}
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, " and ")
}
