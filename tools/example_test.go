package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/catalog"
	"github.com/wellknown-dev/discovery/tools"
)

// Give a model the tools, then run the calls it makes.
func Example() {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != discovery.GuidePath {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, "# Tracker\n\nRead repair tickets.\n\n## API\n\n- Base URL: /api/v1\n\n## Safety\n\n- Ask before changing a ticket.\n")
	}))
	defer ts.Close()
	// A test server on loopback: InsecureAllowPrivateOrigins. An agent whose model chooses the
	// origins leaves it off.
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: ts.Client(), InsecureAllowPrivateOrigins: true})
	if err != nil {
		log.Fatal(err)
	}
	set := tools.New(c, catalog.New(nil), nil)
	for _, t := range set.Tools() {
		fmt.Println(t.Name) // register t.Name, t.Description and t.InputSchema with the model's API
	}

	ctx := context.Background()
	res, err := set.Call(ctx, "discover_site", json.RawMessage(fmt.Sprintf(`{"origin": %q}`, ts.URL)))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Contains(res.Text, "- Ask before changing a ticket."), len(res.Text) <= tools.DefaultTextBudget)
	out, _ := json.Marshal(res.Structured)
	fmt.Println(strings.ReplaceAll(string(out), ts.URL, "https://tracker.test"))

	// A call the model got wrong: the error says what to send.
	_, err = set.Call(ctx, "discover_site", json.RawMessage(`{"url": "tracker.test"}`))
	fmt.Println(err)
	// Output:
	// discover_site
	// list_skills
	// read_skill
	// read_skill_file
	// list_mcp_servers
	// true true
	// {"origin":"https://tracker.test","title":"Tracker","base_url":"https://tracker.test/api/v1","sections":["API","Safety"]}
	// tools: invalid input for discover_site: input.origin: required property missing: send "origin", a string (The site: a host name such as "example.com" or an https URL; only its origin (scheme, host, port) is used); input.url: unknown property: remove it; the properties are origin, structured
}
