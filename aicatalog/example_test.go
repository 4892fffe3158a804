package aicatalog_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/wellknown-dev/discovery/aicatalog"
)

func ExampleParse() {
	body := []byte(`{
	  "specVersion": "1.0",
	  "entries": [
	    {"identifier": "urn:air:example.com:mcp:weather", "type": "application/mcp-server-card+json", "url": "/mcp/server-card"},
	    {"identifier": "urn:air:example.com:a2a:planner", "type": "application/a2a-agent-card+json", "url": "https://agents.example.com/planner"},
	    {"identifier": "urn:air:example.com:mcp:old", "type": "application/mcp-server-card+json", "url": "http://example.com/old"}
	  ]
	}`)
	cat, err := aicatalog.Parse(body, aicatalog.Options{URL: "https://example.com/.well-known/ai-catalog.json"})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range cat.ByType(aicatalog.TypeMCPServerCard) {
		fmt.Println(e.Identifier, e.URL)
	}
	for _, d := range cat.Diagnostics {
		fmt.Println(d.Where, d.Severity, d.Message)
	}
	// Output:
	// urn:air:example.com:mcp:weather https://example.com/mcp/server-card
	// /entries/2/url error url is plain http (https is required off loopback); left out
}

func ExampleParse_strict() {
	_, err := aicatalog.Parse([]byte(`{"specVersion": "1.0", "entries": [{"identifier": "urn:x", "type": "application/mcp-server-card+json"}]}`),
		aicatalog.Options{Mode: aicatalog.Strict})
	var ve *aicatalog.ValidationError
	if errors.As(err, &ve) {
		for _, d := range ve.Diagnostics {
			fmt.Println(d)
		}
	}
	// Output:
	// /entries/0: error: no-url-or-data: entry has neither "url" nor "data"; left out
}

func ExampleWalk() {
	docs := map[string]string{
		"https://example.com/.well-known/ai-catalog.json": `{"specVersion": "1.0", "entries": [
		  {"identifier": "urn:example:catalog:team", "type": "application/ai-catalog+json", "url": "/catalogs/team.json"}]}`,
		"https://example.com/catalogs/team.json": `{"specVersion": "1.0", "entries": [
		  {"identifier": "urn:example:mcp:notes", "type": "application/mcp-server-card+json", "url": "https://notes.example.com/mcp/server-card"},
		  {"identifier": "urn:example:catalog:root", "type": "application/ai-catalog+json", "url": "/.well-known/ai-catalog.json"}]}`,
	}
	// The fetch function is where a real caller applies its HTTPS, origin, consent and
	// size rules; here it reads a map.
	fetch := func(ctx context.Context, url string) ([]byte, error) {
		if d, ok := docs[url]; ok {
			return []byte(d), nil
		}
		return nil, errors.New("not found")
	}
	root, err := aicatalog.Parse([]byte(docs["https://example.com/.well-known/ai-catalog.json"]),
		aicatalog.Options{URL: "https://example.com/.well-known/ai-catalog.json"})
	if err != nil {
		log.Fatal(err)
	}
	w, err := aicatalog.Walk(context.Background(), root, fetch, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range w.Entries {
		fmt.Println(f.Depth, f.Via, f.Entry.Identifier, f.Entry.URL)
	}
	for _, d := range w.Diagnostics {
		fmt.Println(d.Code, d.Where)
	}
	// Output:
	// 2 [urn:example:catalog:team] urn:example:mcp:notes https://notes.example.com/mcp/server-card
	// cycle /entries/1/url
}
