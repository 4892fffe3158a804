package servercard_test

import (
	"fmt"
	"log"

	"github.com/wellknown-dev/discovery/servercard"
)

func ExampleParse() {
	card, err := servercard.Parse([]byte(`{
	  "$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
	  "name": "com.example/weather",
	  "version": "1.4.0",
	  "description": "Forecasts and alerts.",
	  "remotes": [
	    {"type": "streamable-http", "url": "https://weather.example.com/mcp"},
	    {"type": "sse", "url": "https://{region}.weather.example.com/sse", "variables": {"region": {"choices": ["eu", "us"]}}}
	  ]
	}`), servercard.Options{URL: "https://weather.example.com/mcp/server-card"})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range card.Remotes {
		fmt.Println(r.Type, r.URL, r.Connectable(), r.URLVars)
	}
	u, err := card.Remotes[1].Expand(map[string]string{"region": "eu"})
	fmt.Println(u, err)
	// Output:
	// streamable-http https://weather.example.com/mcp true []
	// sse https://{region}.weather.example.com/sse false [region]
	// https://eu.weather.example.com/sse <nil>
}

func ExampleParse_otherVersion() {
	doc := []byte(`{"$schema": "https://static.modelcontextprotocol.io/schemas/2025-11-25/server-card.schema.json",
	  "name": "com.example/weather", "version": "1.0.0", "description": "Forecasts."}`)
	card, err := servercard.Parse(doc, servercard.Options{})
	fmt.Println(card.Name, err)
	for _, d := range card.Diagnostics {
		fmt.Println(d.Severity, d.Code)
	}
	_, err = servercard.Parse(doc, servercard.Options{Mode: servercard.Strict})
	fmt.Println(err != nil)
	// Output:
	// com.example/weather <nil>
	// warning schema-version
	// true
}

func ExampleCompare() {
	card, err := servercard.Parse([]byte(`{
	  "$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
	  "name": "com.example/weather", "version": "1.4.0", "description": "Forecasts.",
	  "remotes": [{"type": "streamable-http", "url": "https://weather.example.com/mcp"}]
	}`), servercard.Options{})
	if err != nil {
		log.Fatal(err)
	}
	// What the server said in its initialize result, once connected.
	got := servercard.ServerInfo{Name: "weather", Version: "1.5.0", Transport: servercard.TransportStreamableHTTP,
		URL: "https://weather.example.com/mcp"}
	for _, d := range servercard.Compare(card, got) {
		fmt.Println(d)
	}
	// Output:
	// /version: warning: version-mismatch: the card says version "1.4.0"; the server reports "1.5.0"
}

func ExampleURLFor() {
	u, err := servercard.URLFor("https://example.com/mcp")
	fmt.Println(u, err)
	// Output:
	// https://example.com/mcp/server-card <nil>
}
