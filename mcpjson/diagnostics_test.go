package mcpjson_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/mcpjson"
)

// Secret markers planted in hostile documents. None of them may appear in a problem.
const (
	ghToken     = "ghp_" + "Zq7xK2Zq7xK2Zq7xK2Zq7xK2Zq7xK2Zq7xK2" // GitHub token: ghp_ and 36 alphanumerics
	skKey       = "sk-live-4eC39HqLyjWDarjtT1zdp7dcQx82Lm"
	userinfoURL = "https://user:hunter2pass@host.example/x"
	queryURL    = "/mcp?access_token=SECRETQUERY123"
	basicAuth   = "Authorization: Basic dXNlcjpodW50ZXIy"
)

var (
	plantedSecrets = []string{ghToken, skKey, userinfoURL, queryURL, basicAuth}
	names          = []string{"github", "sk", "userinfo", "query", "basic"}
	// leaks are the substrings that give a secret away.
	leaks = []string{ghToken, skKey, "hunter2pass", "SECRETQUERY123", "dXNlcjpodW50ZXIy", "://user", "user:hunter2"}
)

// TestNoSecretsInDiagnostics plants the secret markers in every value and key a
// problem could quote, in every shape, and checks Parse's warnings and errors and
// Validate's problems.
func TestNoSecretsInDiagnostics(t *testing.T) {
	t.Parallel()
	templates := map[string]string{
		"status":               `{"mcp":{"spec_version":"2026-06-13","status":%[1]s,"servers":[{"name":"a","url":"https://a.example/mcp"}]}}`,
		"old status":           `{"mcp":{"spec_version":"2026-04-12","status":%[1]s,"servers":[{"name":"a","url":"https://a.example/mcp"}]}}`,
		"spec_version":         `{"mcp":{"spec_version":%[1]s,"status":"stable","servers":[{"name":"a","url":"https://a.example/mcp"}]}}`,
		"spec_url":             `{"mcp":{"spec_version":"2026-06-13","status":"stable","spec_url":%[1]s,"skills_url":%[1]s,"servers":[{"name":"a","url":"https://a.example/mcp"}]}}`,
		"server url":           `{"mcp":{"spec_version":"2026-06-13","status":"stable","servers":[{"name":"a","url":%[1]s}]}}`,
		"server url with path": `{"mcp":{"spec_version":"2026-06-13","status":"stable","servers":[{"name":"a","url":"/x?access_token=SECRETQUERY123&k=" + %[1]s}]}}`,
		"old server url":       `{"mcp":{"spec_version":"2026-04-12","status":"stable","servers":[{"name":"a","url":%[1]s,"transport":%[1]s,"auth":{"type":%[1]s,"token_endpoint":%[1]s}}]}}`,
		"server name":          `{"mcp":{"spec_version":"2026-04-12","status":"stable","servers":[{"name":%[1]s,"url":"https://a.example/mcp"},{"name":%[1]s,"url":"https://b.example/mcp"}]}}`,
		"transport":            `{"mcp":{"spec_version":"2026-06-13","status":"stable","servers":[{"name":"a","url":"https://a.example/mcp","transport":%[1]s}]}}`,
		"stdio name":           `{"mcp":{"spec_version":"2026-06-13","status":"stable","servers":[{"name":%[1]s,"url":%[1]s,"transport":"stdio"}]}}`,
		"tool":                 `{"mcp":{"spec_version":"2026-06-13","status":"stable","servers":[{"name":"a","url":"https://a.example/mcp"}],"tools":[{"name":%[1]s,"url":%[1]s}]}}`,
		"extra key":            `{"mcp":{"spec_version":"2026-06-13","status":"stable",%[1]s:%[1]s,"servers":[{"name":"a","url":"https://a.example/mcp",%[1]s:1}]}}`,
		"client config":        `{"mcpServers":{%[1]s:{"url":%[1]s,"transport":%[1]s},"b":{"command":%[1]s}}}`,
		"docs site":            `{"servers":[{"name":%[1]s,"url":%[1]s,"transport":{"type":%[1]s},"tools":[{"description":%[1]s},3]}]}`,
		"servers map":          `{"servers":{%[1]s:{"url":%[1]s}}}`,
		"card 2127":            `{"name":%[1]s,"remotes":[{"type":%[1]s,"url":%[1]s}]}`,
		"card 1649":            `{"serverInfo":{"name":%[1]s},"transport":{"type":%[1]s,"url":%[1]s}}`,
		"sep 1960":             `{"server_name":%[1]s,"endpoints":{%[1]s:%[1]s,"sse":%[1]s}}`,
		"wrapper":              `{"mcp":{"name":%[1]s,"endpoints":{%[1]s:{"url":%[1]s},"streamable-http":%[1]s}}}`,
		"flat":                 `{"name":%[1]s,"mcp_endpoint":%[1]s,"transport":%[1]s,"tools":%[1]s}`,
		"legacy":               `{"mcp":{"version":%[1]s,"services":[{"name":%[1]s,"endpoint":%[1]s},%[1]s]}}`,
		"pointer":              `{"$ref":%[1]s}`,
		"pointer scheme":       `{"serverCard":%[1]s + ":x"}`,
		"local":                `{"name":%[1]s,"command":%[1]s,"tools":[{"name":%[1]s}]}`,
		"syntax":               `{"mcp":{"spec_version":%[1]s,}}`,
		"array":                `[%[1]s]`,
	}
	for tname, tmpl := range templates {
		for i, s := range plantedSecrets {
			q, _ := json.Marshal(s)
			doc := fmt.Sprintf(tmpl, q)
			// "a" + b: a concatenation marker for values built from two parts.
			doc = strings.ReplaceAll(doc, `" + "`, "")
			t.Run(tname+"/"+names[i], func(t *testing.T) {
				t.Parallel()
				d, err := mcpjson.Parse([]byte(doc))
				if err != nil {
					assertNoLeak(t, "Error", err.Error())
					var ve *mcpjson.ValidationError
					if errors.As(err, &ve) {
						assertProblems(t, ve.Problems)
					}
				} else {
					assertProblems(t, d.Warnings)
				}
				assertProblems(t, mcpjson.Validate([]byte(doc)))
			})
		}
	}
}

// TestNoSecretsInResolve checks the errors of Resolve and CheckURL.
func TestNoSecretsInResolve(t *testing.T) {
	t.Parallel()
	for i, s := range plantedSecrets {
		t.Run(names[i], func(t *testing.T) {
			t.Parallel()
			for _, ref := range []string{s, s + ":x", "https://a.example/" + s, "ftp://" + s, s + "\x7f"} {
				assertNoLeak(t, "CheckURL", mcpjson.CheckURL(ref))
				if _, err := mcpjson.Resolve("https://a.example/.well-known/mcp.json", ref); err != nil {
					assertNoLeak(t, "Resolve", err.Error())
				}
				if _, err := mcpjson.Resolve(ref, "/x"); err != nil {
					assertNoLeak(t, "Resolve base", err.Error())
				}
			}
		})
	}
}

func assertProblems(t *testing.T, ps []mcpjson.Problem) {
	t.Helper()
	for _, p := range ps {
		assertNoLeak(t, "Message", p.Message)
		assertNoLeak(t, "Pointer", p.Pointer)
		assertNoLeak(t, "Sprint", fmt.Sprint(p))
	}
	js, err := json.Marshal(ps)
	if err != nil {
		t.Fatal(err)
	}
	assertNoLeak(t, "JSON", string(js))
}

func assertNoLeak(t *testing.T, what, s string) {
	t.Helper()
	for _, l := range leaks {
		if strings.Contains(strings.ToLower(s), strings.ToLower(l)) { // url.Parse lower-cases schemes
			t.Errorf("%s leaks %q: %s", what, l, s)
		}
	}
}
