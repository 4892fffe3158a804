// Package tools gives a model function-calling tools over discovery and a skills
// catalog: discover a site's guidance, list and read Agent Skills, list a site's MCP
// servers. Each [Tool] has a JSON Schema (draft 2020-12) for its input and its
// structured output; [Toolset.Call] validates the input, runs the tool and returns a
// [Result] whose Text is bounded for a model's context window.
//
// Quick start:
//
//	c, err := discovery.NewClient(&discovery.Options{Consent: askUser})
//	if err != nil {
//		return err
//	}
//	cat := catalog.New(&catalog.Options{Approvals: catalog.NewMemoryApprovals()})
//	ts := tools.New(c, cat, &tools.Options{Approve: askUserAboutSkill})
//	for _, t := range ts.Tools() {
//		register(t.Name, t.Description, t.InputSchema) // with the model's API
//	}
//	res, err := ts.Call(ctx, "discover_site", json.RawMessage(`{"origin": "example.com"}`))
//
// # Tools
//
//   - discover_site(origin, structured?): the site's /.well-known/skills.md rendered
//     for a model (or, for a site that publishes only mcp.json, its servers and
//     tools); with structured, every family (discovery.Client.DiscoverAll): mcp.json,
//     the AI Catalog's MCP Server Cards (card_servers, advisory), the skills index and
//     /skill.md, and which families the site publishes (families).
//   - list_skills(origin?): the catalog's skills; with origin, that site's
//     well-known skills index is added to the catalog first, as the model's
//     (catalog.Catalog.AddWebForModel): its skills rank below everything the host
//     added. Add the host's own sites with [Toolset.AddSite].
//   - read_skill(name): activates a skill: its SKILL.md and the list of its other
//     files. The catalog may require the user's approval ([Options.Approve]).
//   - read_skill_file(name, path, offset?): one file of an activated skill.
//   - list_mcp_servers(origin): the MCP servers a site's mcp.json lists, and the
//     remotes of the Server Cards its AI Catalog lists (card_servers, advisory).
//     Nothing is connected to.
//
// # Serving the tools
//
// [Toolset.CallForModel] returns what a model reads (the text, or the error's text
// and a flag) for any function-calling API. [Toolset.MCPServer] serves the tools over
// MCP, each annotated read-only, open-world, not destructive and idempotent;
// [Toolset.MCPSession] connects to such a server in memory, for frameworks that
// consume MCP. With [ElicitApproval] as [Options.Approve], read_skill asks the MCP
// client's user to approve a skill (MCP elicitation: a yes/no form naming the skill,
// its source and the digest approved), when the client declared that capability.
//
// The modules adapters/anthropic, adapters/openai and adapters/eino (their own go.mod,
// so this module never depends on an LLM SDK) offer the tools to those SDKs in a line;
// adapters/eino runs an Eino agent on [Toolset.MCPSession] through Eino's official-MCP
// tools.
//
// # Errors
//
// Every error is written for the model to act on. A failed call's error starts with a
// line in this package's own words (what failed, what to do next); its details, which
// may quote skill and file names, server messages or URLs, follow inside a fence as
// the published text of results is. An input that does not match the
// schema is an [*InputError] (wrapping [ErrInvalidInput]) naming each offending JSON
// pointer and what to send instead; an unknown tool wraps [ErrUnknownTool]; a skill
// that needs the user's approval wraps catalog.ErrNeedsApproval (and
// *catalog.ApprovalError) and tells the model to ask the user; one the user was asked
// about and refused wraps [ErrApprovalDeclined], and one nobody can be asked about
// wraps [ErrCannotAsk]: the model is told not to retry. Errors of the
// discovery client and the catalog are wrapped with %w, so errors.Is and errors.As
// reach them.
//
// # Security
//
// Everything a site, a skill or an MCP server published is untrusted data. Text puts
// all of it (documents, SKILL.md and files, and also skill names, descriptions,
// sources, file names and server messages) inside a fence whose closing tag carries a
// random nonce (as skillsmd.Document.ForModel does), labelled with where it came
// from, so the content cannot close the fence; errors do the same. Site text other
// than SKILL.md and skill files is passed through discovery.Redact. Skill content is
// shown as published (an approved skill's instructions must stay intact), without
// control and bidi characters.
//
// An approval is always bound to a digest of what was read: the digest the listing
// published, which the content is checked against, or, when the listing gives none
// (a draft MCP listing, a dynamic skill, an index without digests), a digest of the
// SKILL.md and files read at activation. [ApprovalRequest.Digest] is never empty, and
// a skill whose content changes after the user approved it is asked about again.
//
// The sites the model adds with list_skills never outrank what the host added: a
// skill name the host's skills hold stays theirs, and the model's skill of that name
// is listed under a qualified name, with a note on its line and a catalog warning.
//
// The origins a model passes are subject to the discovery Client's policy: a Client
// without discovery.Options.InsecureAllowPrivateOrigins refuses localhost and private
// addresses, which is what an agent whose model chooses origins should use.
//
// # Concurrency
//
// A Toolset is safe for concurrent use by multiple goroutines. The Client and the
// Catalog it is given are too; an [ApprovalFunc] may be called concurrently.
package tools
