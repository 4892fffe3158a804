// Package lint checks what a site publishes for AI agents before it is published, or
// as the site serves it: skills.md, mcp.json (strictly, against the JSON Schema of its
// spec_version), SKILL.md, skill folders, Agent Skills indexes (every artifact read,
// its size and digest verified, its SKILL.md linted), AI Catalogs and MCP Server Cards
// (strictly, against their schemas; a fetched catalog's cards and nested catalogs by
// URL too, one level deep, and how each is served: media type, CORS, ETag,
// Cache-Control). It is what "wellknown lint" runs,
// so a publisher can lint from Go code, in a build step or a test:
//
//	l := lint.New(nil)
//	if err := l.Lint(ctx, "public/.well-known"); err != nil {
//		return err
//	}
//	rep := l.Report()
//	if errs, _ := rep.Count(); errs > 0 {
//		rep.WriteText(os.Stderr, false)
//	}
//
// # Problems
//
// Each [Problem] has a file, a position when one is known (line and column, and an
// RFC 6901 pointer in JSON documents), a severity and a stable code. What a discovery
// client or "wellknown skills install" would refuse is an error: a document over the
// clients' size limits, a published credential, an invalid or mismatched skill name, a
// name listed twice, a link in a skill folder. A [Report] writes them as text, JSON,
// GitHub workflow commands or SARIF 2.1.0.
//
// # Explanations
//
// With [Options.Explain], lint also reports what the readers decided, as problems of
// severity info (diag.Info) that never count as errors or warnings, each with an
// [Evidence]: for mcp.json every URL considered as an MCP endpoint, taken or not and
// why; for skills.md the API base taken, the candidates set aside and where each auth
// rule came from; for an AI Catalog, whether each entry's trust manifest is signed
// and verified.
//
// # Network
//
// A URL is fetched through [Options.Client], with its HTTPS, private-address and
// consent rules. An index read from disk has its artifacts served to a Client of
// lint's own from a loopback server that reads only the index's folder. The context
// given to [Linter.Lint] bounds the whole call: what its deadline leaves unchecked is
// reported by name, with the code "budget".
//
// # Concurrency
//
// A Linter is not safe for concurrent use; a Report is plain data.
package lint
