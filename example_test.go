package discovery_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
)

// newExampleSite serves a skills.md and an mcp.json over TLS on loopback.
func newExampleSite() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc(discovery.GuidePath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
		fmt.Fprint(w, "# Skills\n\nRead repair ticket status.\n\n## API\n\n- Base URL: https://tracker.example.com/api/v1\n\n## Safety\n\n- Ask before changing a ticket.\n")
	})
	mux.HandleFunc(discovery.MCPPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"mcp":{"spec_version":"2026-06-13","status":"stable","servers":[],
			"tools":[{"name":"repair-tracker","url":"https://tracker.example.com/api/v1","methods":["GET"]}]}}`)
	})
	return httptest.NewTLSServer(mux)
}

func Example() {
	ts := newExampleSite()
	defer ts.Close()
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: ts.Client(), InsecureAllowPrivateOrigins: true})
	if err != nil {
		log.Fatal(err)
	}
	d, err := c.Discover(context.Background(), ts.URL)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Guide.Title)
	fmt.Println(d.Guide.Summary)
	fmt.Println(d.Guide.BaseURL)
	for _, s := range d.Guide.Sections {
		fmt.Println("-", s.Heading, s.Items)
	}
	fmt.Println(d.MCP == nil, d.Fetches[0].Source)
	// Output:
	// Skills
	// Read repair ticket status.
	// https://tracker.example.com/api/v1
	// - API [Base URL: https://tracker.example.com/api/v1]
	// - Safety [Ask before changing a ticket.]
	// true network
}

func ExampleClient_Structured() {
	ts := newExampleSite()
	defer ts.Close()
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: ts.Client(), InsecureAllowPrivateOrigins: true})
	if err != nil {
		log.Fatal(err)
	}
	d, err := c.Structured(context.Background(), ts.URL)
	if err != nil {
		log.Fatal(err)
	}
	for _, tool := range d.MCP.Tools {
		fmt.Println(tool.Name, tool.URL, tool.Methods)
	}
	// Output:
	// repair-tracker https://tracker.example.com/api/v1 [GET]
}

func ExampleParseOrigin() {
	o, err := discovery.ParseOrigin("https://Docs.Example.ORG:443/guide?q=1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(o)
	_, err = discovery.ParseOrigin("http://docs.example.org")
	fmt.Println(errors.Is(err, discovery.ErrInsecureOrigin))
	o, _ = discovery.ParseOrigin("http://localhost:8080")
	fmt.Println(o)
	// Output:
	// https://docs.example.org
	// true
	// http://localhost:8080
}

func Example_consent() {
	ts := newExampleSite()
	defer ts.Close()
	// askUser stands in for a prompt: it allows reads on other origins, never writes.
	askUser := func(ctx context.Context, req *discovery.ConsentRequest) (bool, error) {
		fmt.Printf("asked: %s %s\n", req.Action, req.Method)
		return req.Action != discovery.ConsentWrite, nil
	}
	c, err := discovery.NewClient(&discovery.Options{HTTPClient: ts.Client(), InsecureAllowPrivateOrigins: true, Consent: askUser})
	if err != nil {
		log.Fatal(err)
	}
	d, err := c.Discover(context.Background(), ts.URL)
	if err != nil {
		log.Fatal(err)
	}
	guard, err := c.Guard(d, &discovery.GuardOptions{Base: ts.Client().Transport})
	if err != nil {
		log.Fatal(err)
	}
	api := &http.Client{Transport: guard}
	resp, err := api.Get(ts.URL + discovery.GuidePath) // same-origin read: no question
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println("read:", resp.StatusCode)
	_, err = api.Post(ts.URL+"/api/v1/tickets", "application/json", nil)
	fmt.Println("write denied:", errors.Is(err, discovery.ErrConsentDenied))
	// Output:
	// read: 200
	// asked: write POST
	// write denied: true
}

func ExampleClient_ListSkills() {
	skill := []byte("---\nname: invoice-check\ndescription: Check invoices. Use when an invoice arrives.\n---\n# Invoice check\n")
	index := fmt.Sprintf(`{"$schema": %q, "skills": [{"name": "invoice-check", "type": "skill-md",
		"description": "Check invoices.", "url": "invoice-check/SKILL.md", "digest": %q}]}`, agentskills.SchemaV020, agentskills.Digest(skill))
	mux := http.NewServeMux()
	mux.HandleFunc(agentskills.IndexPath, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, index) })
	mux.HandleFunc("/.well-known/agent-skills/invoice-check/SKILL.md", func(w http.ResponseWriter, r *http.Request) { w.Write(skill) })
	ts := httptest.NewTLSServer(mux)
	defer ts.Close()

	c, err := discovery.NewClient(&discovery.Options{HTTPClient: ts.Client(), InsecureAllowPrivateOrigins: true})
	if err != nil {
		log.Fatal(err)
	}
	ix, err := c.ListSkills(context.Background(), ts.URL) // the index only
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range ix.Index.Skills {
		fmt.Println(s.Name, s.Type)
	}
	sk, err := c.GetSkill(context.Background(), ix, "invoice-check") // fetched and verified now
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sk.SkillMD.Name(), sk.Verified)
	// Output:
	// invoice-check skill-md
	// invoice-check true
}
