// Package servercard reads MCP Server Cards (application/mcp-server-card+json): the
// static document that describes a remote MCP server before a client connects to it,
// its name, version and description and its HTTP endpoints ("remotes"), as the MCP
// Server Card extension defines them. Clients find cards through an AI Catalog
// (package aicatalog: entries of type application/mcp-server-card+json, by URL or
// inline); a server may also host its card at its streamable-HTTP URL plus
// [PathSuffix] (see [URLFor]).
//
//	card, err := servercard.Parse(body, servercard.Options{URL: cardURL})
//	if err != nil {
//		return err // errors.Is(err, servercard.ErrNotCard)
//	}
//	for _, r := range card.Remotes {
//		if r.Connectable() {
//			// r.Type and r.URL: ask for consent, then connect.
//		}
//	}
//
// It is pure over bytes: no I/O, no logging. When fetching a card, send
// "Accept: application/mcp-server-card+json" ([MediaType]).
//
// # Modes
//
// Lenient mode (the zero value) is for clients: it reads what it can, leaves out the
// remotes it cannot use, and says why in [Card.Diagnostics], each with a JSON pointer.
// A card of another $schema version is read with a warning. Strict mode is for
// publishers and linters: it validates the card against a JSON Schema written for
// this package from the extension's definitions (embedded; never downloaded) and the
// rules a schema cannot state, and fails with a [*ValidationError] listing every
// problem: a $schema other than [SchemaURL] is then an error.
//
// # Templates
//
// A remote's URL may be a template: "https://{tenant}.example.com/mcp", or, as the
// MCP Registry's draft allows, one that starts with a variable ("{base}/mcp"). It is
// kept as published with its variables, and is never connectable as is:
// [Remote.Expand] fills it from the user's values (encoded so that a value cannot
// change the host or add a path) and checks the result. Header values may hold
// variables too ([Header.Expand]).
//
// # Advisory, not authoritative
//
// A card is fetched before connecting and cannot be verified then. As the extension
// requires, nothing in it is a basis for a security or access decision, and once
// connected the server's own answers win: [Compare] lists where the card and the
// server disagree. PostInstallInstructions is text for a person, display-only.
//
// # Concurrency
//
// Parse, Compare, URLFor and the Expand methods keep no state and may be called from
// many goroutines. A Card is plain data, safe to read concurrently.
package servercard
