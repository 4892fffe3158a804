package mcpjson_test

import (
	"fmt"
	"log"

	"github.com/wellknown-dev/discovery/mcpjson"
)

func ExampleParse() {
	// A flat server card, one of the shapes sites really publish at /.well-known/mcp.json.
	doc, err := mcpjson.Parse([]byte(`{"name": "Notes", "url": "https://notes.example.com/mcp", "transport": "streamable-http",
		"tools": [{"name": "add_note"}, {"name": "list_notes"}]}`))
	if err != nil {
		log.Fatal(err)
	}
	s := doc.Servers[0]
	fmt.Println(doc.Shape, s.Name, s.URL, s.Transport, s.Tools)
	fmt.Println(s.Relation("https://example.com"))
	// Output:
	// flat Notes https://notes.example.com/mcp streamable-http [add_note list_notes]
	// subdomain
}

func ExampleValidate() {
	for _, p := range mcpjson.Validate([]byte(`{"mcp": {"spec_version": "2026-04-12", "status": "beta"}}`)) {
		fmt.Println(p)
	}
	// Output:
	// /mcp/status: error: value must be one of 'draft', 'stable'
	// /mcp/status: error: unknown status "beta"; treated as not stable
}
