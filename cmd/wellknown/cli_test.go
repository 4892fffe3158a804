package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery/skillserver"
)

func TestDemo(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "", "demo")
	if r.code != 0 || !strings.Contains(r.stdout, "Demo Tracker") || !strings.Contains(r.stdout, "invoice-check") {
		t.Fatalf("demo:\n%s", r)
	}
	if strings.Contains(r.stdout, "\x1b") || strings.Contains(r.stderr, "\x1b") {
		t.Errorf("escape sequences without a terminal:\n%q", r.stdout+r.stderr)
	}

	r = runCLI(t, nil, "", "demo", "--json", "--structured")
	var got discoveryJSON
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil {
		t.Fatalf("demo --json --structured:\n%s", r)
	}
	if got.Skills == nil || got.Skills.Title != "Skills" || got.MCP == nil || len(got.MCP.Servers) != 1 ||
		got.MCP.Servers[0].Name != "tracker" || got.SkillsIndex == nil || len(got.SkillsIndex.Skills) != 2 || len(got.Fetches) < 3 {
		t.Errorf("demo --json --structured: %+v", got)
	}
	// What the guide says, not only its headings: section text, the mapped lists.
	text := ""
	for _, sec := range got.Skills.Sections {
		text += sec.Text
	}
	if text == "" || got.Skills.Purpose == "" || got.Skills.API == nil || got.Skills.Links == nil {
		t.Errorf("demo --json: the guide's text and lists are missing: %+v", got.Skills)
	}
	// The documented field names.
	var raw map[string]any
	_ = json.Unmarshal([]byte(r.stdout), &raw)
	for _, k := range []string{"origin", "skills", "mcp", "skills_index", "fetches", "warnings"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("demo --json: no field %q", k)
		}
	}

	r = runCLI(t, nil, "", "demo", "--model")
	if r.code != 0 || !strings.Contains(r.stdout, "untrusted") || !strings.Contains(r.stdout, "invoice-check") {
		t.Errorf("demo --model:\n%s", r)
	}
	if r := runCLI(t, nil, "", "demo", "--json", "--model"); r.code != exitUsage {
		t.Errorf("demo --json --model: want exit 2:\n%s", r)
	}
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	// A hostile skills.md: terminal escape sequences and a credential in what is printed.
	hostile := "# Evil\x1b]0;pwned\x07 \x1b[31mTitle\n\nSummary with token ghp_abcdefghijklmnopqrstuvwxyz0123456789 here.\n\n## API\n\n- Base URL: /api\n- \x1b[2Jcleared\n"
	ts, ca := tlsOrigin(t, docs(map[string]string{"/.well-known/skills.md": hostile}))
	env := cliEnv(t, caFileEnv+"="+ca)

	r := runCLI(t, env, "", "discover", ts.URL)
	if r.code != 0 || !strings.Contains(r.stdout, "Title") || !strings.Contains(r.stdout, "cleared") {
		t.Fatalf("discover:\n%s", r)
	}
	if strings.ContainsAny(r.stdout, "\x1b\x07") {
		t.Errorf("discover printed a control character from the site:\n%q", r.stdout)
	}
	if strings.Contains(r.stdout, "ghp_abcdefghijkl") {
		t.Errorf("discover printed a credential:\n%s", r.stdout)
	}
	r = runCLI(t, env, "", "discover", "--json", ts.URL)
	var got discoveryJSON
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || got.Skills == nil || strings.ContainsAny(got.Skills.Title, "\x1b\x07") {
		t.Errorf("discover --json:\n%s", r)
	}

	// Nothing published: exit 3, with what to do.
	empty, _ := tlsOrigin(t, http.NotFoundHandler())
	r = runCLI(t, env, "", "discover", empty.URL)
	if r.code != exitNotFound || !strings.Contains(r.stderr, "publishes no") {
		t.Errorf("discover of an empty origin: want exit 3:\n%s", r)
	}

	// Without the test CA the certificate is refused: exit 1, the reason on stderr.
	r = runCLI(t, nil, "", "discover", ts.URL)
	if r.code != exitFailure || !strings.Contains(r.stderr, "certificate") {
		t.Errorf("discover without the CA: want exit 1 and a certificate error:\n%s", r)
	}
	// Plain http works on loopback, with no CA.
	plain := httptest.NewServer(docs(map[string]string{"/.well-known/skills.md": "# Plain\n"}))
	defer plain.Close()
	if r := runCLI(t, nil, "", "discover", plain.URL); r.code != 0 || !strings.Contains(r.stdout, "Plain") {
		t.Errorf("discover over http on loopback:\n%s", r)
	}
	// Usage errors: exit 2.
	for _, args := range [][]string{{"discover"}, {"discover", "a", "b"}, {"discover", "--nope", "x"}, {"nosuchcommand"}} {
		if r := runCLI(t, nil, "", args...); r.code != exitUsage {
			t.Errorf("%v: want exit 2:\n%s", args, r)
		}
	}
}

// redirectingOrigin serves skills.md from b, through a redirect from a: another origin,
// so following it needs consent.
func redirectingOrigin(t *testing.T) (a, b *httptest.Server, ca string) {
	b, ca = tlsOrigin(t, docs(map[string]string{"/.well-known/skills.md": "# Moved Guide\n\nServed by the other origin.\n"}))
	a, _ = tlsOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/skills.md" {
			http.Redirect(w, r, b.URL+r.URL.Path, http.StatusFound)
			return
		}
		http.NotFound(w, r)
	}))
	return a, b, ca
}

func TestConsentWithoutTerminal(t *testing.T) {
	t.Parallel()
	a, _, ca := redirectingOrigin(t)
	env := cliEnv(t, caFileEnv+"="+ca)
	r := runCLI(t, env, "y\n", "discover", a.URL)
	if strings.Contains(r.stdout, "Moved Guide") || !strings.Contains(r.stderr, "consent denied") || !strings.Contains(r.stderr, "--yes") {
		t.Errorf("no terminal, no --yes: want the redirect denied (even with \"y\" on stdin):\n%s", r)
	}
	r = runCLI(t, env, "", "--yes", "discover", a.URL)
	if r.code != 0 || !strings.Contains(r.stdout, "Moved Guide") || !strings.Contains(r.stderr, "consent granted (--yes)") {
		t.Errorf("--yes: want the redirect followed:\n%s", r)
	}
}

func TestMCPServers(t *testing.T) {
	t.Parallel()
	doc := `{"mcpServers": {
		"remote": {"url": "https://mcp.example.net/mcp", "transport": "streamable-http", "tools": ["search"]},
		"local": {"command": "npx", "args": ["-y", "some-server"]}
	}}`
	ts, ca := tlsOrigin(t, docs(map[string]string{"/.well-known/mcp.json": doc}))
	env := cliEnv(t, caFileEnv+"="+ca)
	r := runCLI(t, env, "", "mcp", "servers", "--json", ts.URL)
	var got mcpServersJSON
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || len(got.Servers) != 2 {
		t.Fatalf("mcp servers --json:\n%s", r)
	}
	byName := map[string]serverJSON{}
	for _, s := range got.Servers {
		byName[s.Name] = s
	}
	if s := byName["remote"]; s.URL != "https://mcp.example.net/mcp" || s.Transport != "streamable-http" || s.Relation != "other-origin" || s.Local {
		t.Errorf("remote server: %+v", s)
	}
	if s := byName["local"]; !s.Local || s.URL != "" || !strings.Contains(s.Command, "npx") {
		t.Errorf("local server: %+v", s)
	}
	r = runCLI(t, env, "", "mcp", "servers", ts.URL)
	if r.code != 0 || !strings.Contains(r.stdout, "never run") {
		t.Errorf("mcp servers:\n%s", r)
	}
	onlySkills, _ := tlsOrigin(t, docs(map[string]string{"/.well-known/skills.md": "# Only skills\n"}))
	if r := runCLI(t, env, "", "mcp", "servers", onlySkills.URL); r.code != exitNotFound {
		t.Errorf("mcp servers with no mcp.json: want exit 3:\n%s", r)
	}
}

func TestMCPSkills(t *testing.T) {
	t.Parallel()
	srv, err := skillserver.New(demoSkillsFS(t), &skillserver.Options{Name: "test-skills"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	r := runCLI(t, nil, "", "mcp", "skills", "--json", ts.URL+"/mcp")
	var got mcpSkillsJSON
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || len(got.Servers) != 1 || len(got.Servers[0].Skills) != 2 {
		t.Fatalf("mcp skills --json:\n%s", r)
	}
	r = runCLI(t, nil, "", "mcp", "skills", ts.URL+"/mcp", "--get", "ledger", "--read", "references/FORMAT.md")
	if r.code != 0 || !strings.Contains(r.stdout, "name: ledger") || !strings.Contains(r.stdout, "references/FORMAT.md") {
		t.Errorf("mcp skills --get --read:\n%s", r)
	}
	if r := runCLI(t, nil, "", "mcp", "skills", ts.URL+"/mcp", "--get", "nope"); r.code != exitFailure {
		t.Errorf("mcp skills --get of an unknown skill: want exit 1:\n%s", r)
	}
	if r := runCLI(t, nil, "", "mcp", "skills", ts.URL+"/mcp", "--read", "x"); r.code != exitUsage {
		t.Errorf("--read without --get: want exit 2:\n%s", r)
	}
}

func TestServeStdio(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(builtBinary(t), "serve")
	cmd.Env = cliEnv(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ctx := context.Background()
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range res.Tools {
		names[tl.Name] = true
	}
	for _, want := range []string{"discover_site", "list_skills", "read_skill", "list_mcp_servers"} {
		if !names[want] {
			t.Errorf("serve: no tool %s in %v", want, names)
		}
	}
	if r := runCLI(t, nil, "", "serve", "--http", "0.0.0.0:0"); r.code != exitUsage || !strings.Contains(r.stderr, "loopback") {
		t.Errorf("serve --http on a public address: want exit 2:\n%s", r)
	}
}

func TestVersionAndCompletion(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, "", "version", "--json")
	var v versionJSON
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &v) != nil || !strings.HasPrefix(v.GoVersion, "go") || v.Version == "" || v.SDK == "" {
		t.Errorf("version --json:\n%s", r)
	}
	if r := runCLI(t, nil, "", "version"); r.code != 0 || !strings.HasPrefix(r.stdout, "wellknown ") {
		t.Errorf("version:\n%s", r)
	}
	r = runCLI(t, nil, "", "completion", "bash")
	if r.code != 0 || !strings.Contains(r.stdout, "bash completion") || !strings.Contains(r.stdout, "__start_wellknown") {
		t.Errorf("completion bash:\n%.400s", r.stdout)
	}
}

// TestHelpExamples checks that every command of this file set has an Example section.
func TestHelpExamples(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"demo"}, {"discover"}, {"lint"}, {"mcp"}, {"mcp", "servers"}, {"mcp", "skills"}, {"serve"}, {"version"}, {"completion"}, {"completion", "bash"}} {
		r := runCLI(t, nil, "", append(args, "--help")...)
		if r.code != 0 || !strings.Contains(r.stdout, "Examples:") {
			t.Errorf("wellknown %v --help: no Examples section:\n%s", args, r)
		}
	}
}

// A guide that names its MCP endpoint: discover shows it, as data.
func TestDiscoverShowsMCPNamedByTheGuide(t *testing.T) {
	t.Parallel()
	guide := "# Shop\n\n## API\n\n- Base URL: /api\n- MCP endpoint: https://mcp.example.com/mcp\n"
	ts, ca := tlsOrigin(t, docs(map[string]string{"/.well-known/skills.md": guide}))
	r := runCLI(t, cliEnv(t, caFileEnv+"="+ca), "", "discover", ts.URL)
	if r.code != 0 || !strings.Contains(r.stdout, "MCP:      https://mcp.example.com/mcp (named by the guide; not connected)") {
		t.Fatalf("discover:\n%s", r)
	}
}

// a broken mcp.json next to a good skills.md is a failure, not "nothing".
func TestBrokenMCPJSONIsReported(t *testing.T) {
	t.Parallel()
	ts, ca := tlsOrigin(t, docs(map[string]string{
		"/.well-known/skills.md": "# Site\n\nGuidance.\n",
		"/.well-known/mcp.json":  `{"mcp": {`,
	}))
	env := cliEnv(t, caFileEnv+"="+ca)
	r := runCLI(t, env, "", "mcp", "servers", ts.URL)
	if r.code != exitFailure || strings.Contains(r.stderr, "publishes no mcp.json") || !strings.Contains(r.stderr, "mcp.json") {
		t.Errorf("mcp servers with a broken mcp.json: want exit 1 and its error:\n%s", r)
	}
	r = runCLI(t, env, "", "discover", "--structured", "--json", ts.URL)
	var d discoveryJSON
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || r.code != 0 {
		t.Fatalf("discover: %v\n%s", err, r)
	}
	found := false
	for _, f := range d.Fetches {
		if strings.HasSuffix(f.URL, "/mcp.json") && f.Error != "" {
			found = true
		}
	}
	if !found {
		t.Errorf("discover --json: no fetches[].error for mcp.json:\n%s", r.stdout)
	}
}

// private-origin refusals name the command's flag, not an SDK option.
func TestPrivateOriginHints(t *testing.T) {
	t.Parallel()
	s, dir := installedSite(t, "invoice-check")
	forgetInstalledOrigins(t, dir) // records as a cloned repository would plant them
	r := wk(t, s, dir, "skills", "update")
	if r.code != exitFailure || strings.Contains(r.stdout+r.stderr, "Options.") || !strings.Contains(r.stdout, "--allow-private") {
		t.Errorf("update of a loopback origin: want --allow-private named:\n%s", r)
	}
	sr := runCLI(t, nil, "http://127.0.0.1:9\n", "scan", "--public-only", "--quiet")
	if strings.Contains(sr.stdout, "Options.") || !strings.Contains(sr.stdout, "--public-only") {
		t.Errorf("scan --public-only: want the flag explained:\n%s", sr)
	}
}

// stdioScript is `printf '<initialize>\n<initialized>\n<tools/list>\n'`.
const stdioScript = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`

// serve answers every request read before stdin closed.
func TestServeAnswersBeforeEOF(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, stdioScript, "serve")
	if !strings.Contains(r.stdout, `"id":1`) || !strings.Contains(r.stdout, `"id":2`) || !strings.Contains(r.stdout, "discover_site") {
		t.Errorf("serve: an answer is missing:\n%s", r)
	}
}

// Usage errors, messages, escapes, summaries, SARIF and grammar.
func TestCLIPolish(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp"}, "name a subcommand"},
		{[]string{"mcp", "foo"}, `unknown mcp subcommand "foo"`},
		{[]string{"completion", "foo"}, `unknown shell "foo"`},
		{[]string{"skills", "list"}, "missing ORIGIN"},
		{[]string{"discover"}, "missing ORIGIN"},
	} {
		r := runCLI(t, nil, "", tc.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "wellknown: wellknown") || strings.Contains(r.stderr, "accepts") {
			t.Errorf("wellknown %v: want exit 2 and %q:\n%s", tc.args, tc.want, r)
		}
	}

	// Escape sequences go whole, not only their ESC; "1 skill", not "1 skills".
	s := newSite(t)
	evil := "Click \x1b]8;;https://evil.test\x1b\\here\x1b]8;;\x1b\\ \x1b[2J\x1b[31mRED\x1b[0m"
	publishInvoice(t, s, evil, invoiceMD)
	r := wk(t, s, t.TempDir(), "skills", "list", s.ts.URL)
	if r.code != 0 || strings.Contains(r.stdout, "]8;;") || strings.Contains(r.stdout, "[2J") || strings.Contains(r.stdout, "[31m") ||
		!strings.Contains(r.stdout, "Click here RED") || !strings.Contains(r.stdout, "1 skill)") {
		t.Errorf("skills list: escapes or grammar:\n%q", r.stdout)
	}
	if got := stripEscapes(evil); got != "Click here RED" {
		t.Errorf("stripEscapes = %q", got)
	}

	// A clean lint says so on stderr; SARIF locates files relative to the working
	// directory and describes its rules.
	if r := runCLI(t, nil, "", "lint", "testdata/lint/good"); r.code != 0 || !strings.Contains(r.stderr, "no problems") {
		t.Errorf("clean lint: no summary:\n%s", r)
	}
	abs, _ := filepath.Abs("testdata/lint/bad/index/index.json")
	r2 := runCLI(t, nil, "", "lint", "--format", "sarif", abs)
	if strings.Contains(r2.stdout, `"uri": "/`) || !strings.Contains(r2.stdout, `"uri": "testdata/lint/bad/index/index.json"`) || strings.Contains(r2.stdout, "wellknown lint rule") {
		t.Errorf("SARIF: absolute uri or placeholder descriptions:\n%s", r2.stdout)
	}

	// update's summary and every change since install.
	s2 := newSite(t)
	publishNormal(t, s2)
	dir := t.TempDir()
	if r := wk(t, s2, dir, "skills", "install", s2.ts.URL); r.code != 0 {
		t.Fatalf("install:\n%s", r)
	}
	ledger := filepath.Join(dir, ".agents", "skills", "ledger")
	os.WriteFile(filepath.Join(ledger, "SKILL.md"), append(ledgerMD, "More.\n"...), 0o644)
	os.WriteFile(filepath.Join(ledger, "extra.txt"), []byte("x"), 0o644)
	r = wk(t, nil, dir, "skills", "local")
	if !strings.Contains(r.stdout, "SKILL.md was changed") || !strings.Contains(r.stdout, "extra.txt was added") {
		t.Errorf("local: want every change:\n%s", r)
	}
	s2.reset()
	r = wk(t, s2, dir, "skills", "update", "--allow-private", "ledger", "nothere")
	if !strings.Contains(r.stderr, "not updated") || strings.Contains(r.stdout+r.stderr, "[") {
		t.Errorf("update: summary or a Go slice:\n%s", r)
	}
}

// TestDiscoverShowsWhyTheIndexFailed: with skills.md and mcp.json absent and the skills
// index failing with a 500, discover says so instead of "publishes nothing".
func TestDiscoverShowsWhyTheIndexFailed(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/index.json") {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		http.NotFound(w, r)
	}))
	defer ts.Close()
	r := runCLI(t, nil, "", "discover", ts.URL)
	if r.code != exitFailure || !strings.Contains(r.stderr, "500") || strings.Contains(r.stderr, "publishes no") {
		t.Errorf("discover with a failing index: want exit 1 naming the 500:\n%s", r)
	}
}
