package scan

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
)

// Result is one line of `wellknown scan` output. The JSON names are part of the
// command's interface (documented in docs/wellknown.md): add fields, never rename them.
type Result struct {
	Input       string    `json:"input"`              // the line as read, trimmed, credentials and queries redacted
	Origin      string    `json:"origin"`             // canonical origin; "" when the line is not one
	SkillsMD    scanDoc   `json:"skills_md"`          // /.well-known/skills.md
	MCPJSON     scanMCP   `json:"mcp_json"`           // /.well-known/mcp.json
	SkillsIndex scanIndex `json:"skills_index"`       // Agent Skills index, v0.2.0 path then legacy
	Families    []string  `json:"families,omitempty"` // with --families: the families published (skills.md, mcp.json, ai-catalog, mcp-server-card, agent-skills, skill.md, other catalog entry types), once each
	Cards       int       `json:"cards,omitempty"`    // with --families: MCP Server Cards read from the AI Catalog
	Warnings    int       `json:"warnings"`           // diagnostics (content types, parser notes); failures are in the Error fields
	Error       string    `json:"error,omitempty"`    // what stopped this origin's scan: not an origin, refused, timeout
	DurationMS  int64     `json:"duration_ms"`        // wall time of this origin's scan
	ScannedAt   string    `json:"scanned_at"`         // RFC 3339, UTC, when the scan of this origin ended
}

// scanDoc is what one well-known document gave.
type scanDoc struct {
	Status    int    `json:"status"`          // last HTTP status for the document's own URL (a redirect's 3xx stays); 0: no response
	Published bool   `json:"published"`       // present and usable (parsed)
	Error     string `json:"error,omitempty"` // why it could not be read, redacted
}

// scanMCP is scanDoc for mcp.json, with its shape and counts.
type scanMCP struct {
	scanDoc
	Shape   string `json:"shape,omitempty"` // mcpjson.Shape: "spec", "server-card-2127", "pointer"...
	Servers int    `json:"servers"`         // MCP servers listed
	Tools   int    `json:"tools"`           // MCP tool names listed
}

// scanIndex is scanDoc for the Agent Skills index.
type scanIndex struct {
	scanDoc
	URL     string `json:"url,omitempty"`     // the index URL that answered (the legacy path when it did)
	Version string `json:"version,omitempty"` // "0.2.0", "0.2.0-interim" or "0.1.0"
	Legacy  bool   `json:"legacy"`            // found at /.well-known/skills/index.json
	Skills  int    `json:"skills"`            // skills listed
}

// fillDiscovery fills the skills.md and mcp.json parts of r from a Structured call.
func (r *Result) fillDiscovery(d *discovery.Discovery, err error, rec *scanRecorder) {
	r.SkillsMD.Status = rec.statusOf(discovery.GuidePath)
	r.MCPJSON.Status = rec.statusOf(discovery.MCPPath)
	if err != nil {
		r.attribute(err, map[string]*scanDoc{
			discovery.GuidePath: &r.SkillsMD,
			discovery.MCPPath:   &r.MCPJSON.scanDoc,
		})
		return
	}
	for _, w := range d.Warnings {
		if w.Code != discovery.WarnFetch { // a failure, reported as the document's error below
			r.Warnings++
		}
	}
	for _, f := range d.Fetches {
		var doc *scanDoc
		switch {
		case strings.HasSuffix(f.URL, discovery.GuidePath):
			doc = &r.SkillsMD
		case strings.HasSuffix(f.URL, discovery.MCPPath):
			doc = &r.MCPJSON.scanDoc
		default:
			continue // the document an mcp.json pointer names: counted in MCPJSON below
		}
		if doc.Status == 0 {
			doc.Status = f.StatusCode
		}
	}
	// Structured succeeds when one document is usable; the other's failure is a
	// warning, which names its URL.
	for _, w := range d.Warnings {
		if w.Code != discovery.WarnFetch {
			continue
		}
		switch {
		case strings.HasSuffix(w.URL, discovery.GuidePath):
			r.SkillsMD.Error = discovery.Redact(w.Message)
		case strings.HasSuffix(w.URL, discovery.MCPPath):
			r.MCPJSON.Error = discovery.Redact(w.Message)
		}
	}
	r.SkillsMD.Published = d.Guide != nil
	if m := d.MCP; m != nil {
		r.MCPJSON.Published = true
		r.MCPJSON.Shape = string(m.Shape)
		r.MCPJSON.Servers = len(m.Servers)
		r.MCPJSON.Tools = len(m.ToolNames)
	}
}

// fillIndex fills the skills index part of r from a ListSkills call.
func (r *Result) fillIndex(ix *discovery.SkillsIndex, err error, rec *scanRecorder) {
	path := agentskills.IndexPath // the path the result is about
	switch {
	case err == nil && strings.HasSuffix(ix.Index.URL, agentskills.LegacyIndexPath),
		err != nil && errorFor(err, agentskills.LegacyIndexPath):
		path = agentskills.LegacyIndexPath
	}
	r.SkillsIndex.Legacy = path == agentskills.LegacyIndexPath
	r.SkillsIndex.Status = rec.statusOf(path)
	if err != nil {
		r.attribute(err, map[string]*scanDoc{
			agentskills.IndexPath:       &r.SkillsIndex.scanDoc,
			agentskills.LegacyIndexPath: &r.SkillsIndex.scanDoc,
		})
		return
	}
	r.Warnings += len(ix.Warnings)
	r.SkillsIndex.Published = true
	r.SkillsIndex.URL = ix.Index.URL
	if n := len(ix.Fetches); n > 0 && r.SkillsIndex.Status == 0 {
		r.SkillsIndex.Status = ix.Fetches[n-1].StatusCode
	}
	r.SkillsIndex.Version = ix.Index.Version
	r.SkillsIndex.Skills = len(ix.Index.Skills)
}

// attribute files the errors in err's tree under the documents whose path their URL
// ends with. What names no document (a timeout, a refused origin) becomes the result's
// own Error. ErrNotPublished leaves the documents unpublished, with no error.
// scanPrivateHint explains a private origin refused by scan: only --public-only does.
const scanPrivateHint = "scan refuses private origins only with --public-only; scan without it to include them"

func (r *Result) attribute(err error, docs map[string]*scanDoc) {
	if errors.Is(err, discovery.ErrNotPublished) && !errors.Is(err, context.DeadlineExceeded) {
		return
	}
	var loose []string
	var walk func(error)
	walk = func(e error) {
		var u string
		var status int
		switch e := e.(type) {
		case *discovery.HTTPError:
			u, status = e.URL, e.StatusCode
		case *discovery.FetchError:
			u = e.URL
		case interface{ Unwrap() []error }:
			for _, c := range e.Unwrap() {
				walk(c)
			}
			return
		}
		for path, doc := range docs {
			if u != "" && strings.HasSuffix(u, path) {
				if doc.Status == 0 {
					doc.Status = status
				}
				if doc.Error == "" {
					doc.Error = discovery.Redact(cmdutil.PrivateHint(e, scanPrivateHint))
				}
				return
			}
		}
		if u == "" {
			if next := errors.Unwrap(e); next != nil && hasDocError(next) {
				walk(next)
				return
			}
		}
		loose = append(loose, discovery.Redact(cmdutil.PrivateHint(e, scanPrivateHint)))
	}
	walk(err)
	if len(loose) > 0 && r.Error == "" {
		r.Error = strings.Join(loose, "; ")
	}
}

// hasDocError reports whether err's tree holds an error that names a document URL.
func hasDocError(err error) bool {
	var he *discovery.HTTPError
	var fe *discovery.FetchError
	return errors.As(err, &he) || errors.As(err, &fe)
}

// errorFor reports whether err's tree holds an error about the document at path.
func errorFor(err error, path string) bool {
	found := false
	var walk func(error)
	walk = func(e error) {
		if e == nil || found {
			return
		}
		switch x := e.(type) {
		case *discovery.HTTPError:
			found = strings.HasSuffix(x.URL, path)
		case *discovery.FetchError:
			found = strings.HasSuffix(x.URL, path)
		}
		if m, ok := e.(interface{ Unwrap() []error }); ok {
			for _, c := range m.Unwrap() {
				walk(c)
			}
			return
		}
		walk(errors.Unwrap(e))
	}
	walk(err)
	return found
}

// fillFamilies fills the families of r from a DiscoverAll call (nothing for others).
func (r *Result) fillFamilies(d *discovery.Discovery) {
	if d == nil || d.All == nil {
		return
	}
	for _, f := range d.All.Families {
		if !slices.Contains(r.Families, f.Name) {
			r.Families = append(r.Families, f.Name)
		}
	}
	for _, k := range d.All.Cards {
		if k.Card != nil {
			r.Cards++
		}
	}
}
