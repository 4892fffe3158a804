package families

import (
	"strings"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/internal/fetch"
	"github.com/wellknown-dev/discovery/mcpjson"
	"github.com/wellknown-dev/discovery/skillsmd"
)

// The kinds of the seed's two documents and of the Agent Skills index: how the
// pipeline asks for each (Accept), which media types it takes, and how it parses one.
// Name names the document type in every cache key, as one URL may be fetched as
// several kinds.

// GuideKind is how the pipeline fetches and parses /.well-known/skills.md.
func GuideKind() fetch.Kind {
	return fetch.Kind{
		Name:   "skills.md",
		Accept: "text/markdown, text/plain;q=0.9",
		TypeOK: func(mt string) bool { return mt == "text/markdown" || mt == "text/plain" || mt == "text/x-markdown" },
		Parse: func(data []byte, _ string) (any, []fetch.Warning, error) {
			doc, err := skillsmd.Parse(data)
			if err != nil {
				return nil, nil, err
			}
			var ws []fetch.Warning
			for _, w := range doc.Warnings {
				ws = append(ws, fetch.Warning{Code: w.Code, Line: w.Line, Message: w.Message})
			}
			return doc, ws, nil
		},
	}
}

// JSONType accepts application/json and every application/*+json media type.
func JSONType(mt string) bool {
	return mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")
}

// MCPKind is how the pipeline fetches and parses /.well-known/mcp.json; the parser's
// warnings get the code warnCode.
func MCPKind(warnCode string) fetch.Kind {
	return fetch.Kind{
		Name:   "mcp.json",
		Accept: "application/json",
		TypeOK: JSONType,
		Parse: func(data []byte, docURL string) (any, []fetch.Warning, error) {
			// With the document's URL, endpoints that cannot be meant for a public site
			// (private addresses, example domains, the document itself) are skipped.
			doc, err := mcpjson.ParseWithOptions(data, mcpjson.Options{URL: docURL})
			if err != nil {
				return nil, nil, err
			}
			var ws []fetch.Warning
			for _, p := range doc.Warnings {
				where := p.Pointer
				if where == "" {
					where = "(document)" // as mcpjson.Problem.String writes it
				}
				ws = append(ws, fetch.Warning{Code: warnCode, Message: where + ": " + p.Message})
			}
			return doc, ws, nil
		},
	}
}

// IndexKind is how the pipeline fetches and parses an Agent Skills index at u, read
// leniently.
func IndexKind(u string) fetch.Kind {
	return fetch.Kind{
		Name:   "skills-index",
		Accept: "application/json",
		TypeOK: JSONType,
		Parse: func(data []byte, _ string) (any, []fetch.Warning, error) {
			ix, err := agentskills.ParseIndex(data, u, agentskills.Lenient)
			if err != nil {
				return nil, nil, err
			}
			ix.Digest = agentskills.Digest(data)
			var ws []fetch.Warning
			for _, d := range ix.Diagnostics {
				ws = append(ws, fetch.Warning{Code: "skills-index", Message: d.String()})
			}
			return ix, ws, nil
		},
	}
}
