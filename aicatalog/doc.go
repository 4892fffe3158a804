// Package aicatalog reads AI Catalogs (application/ai-catalog+json), the typed,
// nestable list of AI artifacts a host publishes, conventionally at
// /.well-known/ai-catalog.json: MCP Server Cards, A2A Agent Cards, Agent Skills
// indexes, skill and plugin archives, nested catalogs, and any other media type.
//
// It is pure over bytes, as the other readers of this module: [Parse] turns a
// document into a [Catalog] and never fetches; [Walk] follows nested catalogs through a
// fetch function the caller supplies, so every request goes through the caller's own
// HTTPS, origin, consent and size rules.
//
//	cat, err := aicatalog.Parse(body, aicatalog.Options{URL: "https://example.com/.well-known/ai-catalog.json"})
//	if err != nil {
//		return err // errors.Is(err, aicatalog.ErrNotCatalog), ErrUnsupportedVersion
//	}
//	for _, e := range cat.ByType(aicatalog.TypeMCPServerCard) {
//		// e.URL (absolute, https) or e.Data (the card inline): read it with package servercard.
//	}
//
// # Modes
//
// Lenient mode (the zero value) is for clients reading catalogs in the wild: it reads
// what it can, leaves out the entries it cannot use, and says why in
// [Catalog.Diagnostics], each with a JSON pointer. Strict mode is for publishers and
// linters: it validates the document against a JSON Schema written for this package
// from the specification's text (embedded; no schema is ever downloaded) and the rules
// a schema cannot state, and fails with a [*ValidationError] listing every problem.
//
// # Two forms of entries
//
// The AI Catalog specification first named an entry's type "mediaType" and required
// "displayName"; the current form, which the MCP Server Card discovery text follows,
// names it "type" and leaves "displayName" out (clients read the name from the
// artifact itself). Deployed catalogs carry both for a while, so both are read, in
// either mode, and [Catalog.Form] says which was seen; the older one gets a
// "legacy-form" warning, never an error.
//
// # Nesting
//
// An entry of type [TypeAICatalog] is a catalog inside the catalog, by URL or inline.
// [Walk] follows them depth first, at most [DefaultMaxDepth] (4) catalogs deep as the
// specification recommends, reading at most [DefaultMaxEntries] entries and making at
// most [DefaultMaxFetches] fetches in all, and never reads the same catalog twice
// (same URL, or same content digest), which ends cycles. Every entry it leaves out has
// a diagnostic.
//
// # Trust
//
// Everything in a catalog is a claim by whoever wrote it. Trust Manifests (identity,
// attestations, provenance with source digests, a detached JWS signature) are parsed
// into data, never verified here: until a signature is verified they are advisory,
// not a basis for a security decision. The one rule applied is the specification's
// binding: a trust manifest whose identity is not its entry's identifier is dropped.
// Digests weaker than SHA-256 are cleared, so nothing can be verified against them.
// Entry URLs are resolved against the catalog's URL and kept only when they are https
// (http only on loopback), carry no userinfo, and, in a catalog on a public host, do
// not point at this machine or a private network. A catalog may list artifacts on
// other hosts: whether to contact them is the caller's decision.
//
// # Wiring into a client
//
// The discovery flow of the MCP Server Card extension, with this package and package
// servercard, each fetch going through the client's own policy:
//
//  1. GET https://{host}/.well-known/ai-catalog.json ([WellKnownPath]) with
//     "Accept: application/ai-catalog+json" ([MediaType]), or a URL found through a
//     "Link: <...>; rel=ai-catalog" header ([LinkRelation]). A 404 means the host
//     publishes no catalog.
//  2. Parse the body with Options{URL: the final URL after redirects}.
//  3. Optionally Walk it, with a [FetchFunc] that makes the same kind of request
//     (the same Accept) under the same policy, to reach nested catalogs.
//  4. Take the entries of type [TypeMCPServerCard] (Catalog.ByType, or Walked.Entries
//     filtered by Entry.Type). For an entry with URL, GET it with
//     "Accept: application/mcp-server-card+json" and parse it with servercard.Parse,
//     Options{URL: that URL}; for an entry with Data, parse Data with Options{URL:
//     the URL of the catalog holding it (Found.Source)}.
//  5. Before connecting to a remote, ask for consent as for any other server; after
//     connecting, compare the card with what the server reports
//     (servercard.Compare) and show the warnings.
//
// Entries of type [TypeAgentSkills] point at an Agent Skills index (read it with
// package agentskills, whose ParseIndex takes the entry's URL); other known types are
// for callers that handle them, and unknown types are listed in
// [Catalog.UnknownTypes] so a tool can show them.
//
// # Concurrency
//
// Parse and Walk keep no state between calls and may be called from many goroutines.
// A Catalog is plain data, safe to read concurrently; do not modify a shared one.
package aicatalog
