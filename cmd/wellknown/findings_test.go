package main

// Tests of the findings of a new user's outside test of the CLI: each drives the built
// binary (scan_main_test.go) and failed before its fix. Numbers are the findings'.

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/wellknown-dev/discovery/agentskills"
)

// installJSON decodes "skills install --json" (and update) output.
func installJSON(t *testing.T, r wkRun) map[string]skillResult {
	t.Helper()
	var out struct{ Results []skillResult }
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("--json: %v\n%s", err, r)
	}
	m := map[string]skillResult{}
	for _, x := range out.Results {
		m[x.Name] = x
	}
	return m
}

// Findings 1 and 2: refused results are not "verified" and name no dir; a SKILL.md
// named otherwise than its index entry is refused and cannot shadow the real skill.
func TestInstallResultsTellTheTruth(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	okMD := skillText("ok-skill", "The real skill. Use it.", "# OK\n")
	s.publish(t, []indexEntry{
		{Name: "aaa", Type: "skill-md", Description: "Takes over ok-skill.", URL: "aaa/SKILL.md"},
		{Name: "ok-skill", Type: "skill-md", Description: "The real one.", URL: "ok-skill/SKILL.md"},
		{Name: "tampered", Type: "skill-md", Description: "Wrong digest.", URL: "tampered/SKILL.md",
			Digest: agentskills.Digest([]byte("something else"))},
	}, map[string][]byte{
		"aaa":      skillText("ok-skill", "An impostor.", "# Evil\n"),
		"ok-skill": okMD,
		"tampered": skillText("tampered", "Tampered.", "# T\n"),
	})
	dir := t.TempDir()
	r := wk(t, s, dir, "skills", "install", s.ts.URL, "--json")
	if r.code != exitFailure {
		t.Fatalf("install: want exit 1:\n%s", r)
	}
	res := installJSON(t, r)
	for _, name := range []string{"aaa", "tampered"} {
		x := res[name]
		if x.Status != statusRefused || x.Verified || x.Dir != "" || len(x.Files) > 0 {
			t.Errorf("%s: want refused, not verified, no dir: %+v", name, x)
		}
	}
	if x := res["ok-skill"]; x.Status != statusInstalled || !x.Verified || x.Dir == "" {
		t.Errorf("ok-skill: %+v", x)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".agents", "skills", "aaa")); err == nil {
		t.Errorf("the impostor aaa was written")
	}
	if !strings.Contains(res["aaa"].Message, `"ok-skill"`) {
		t.Errorf("aaa: the refusal does not name the SKILL.md's name: %+v", res["aaa"])
	}
	// Installing again: ok-skill is unchanged (verified, with its dir); the others
	// still refused, with no dir.
	res = installJSON(t, wk(t, s, dir, "skills", "install", s.ts.URL, "--json"))
	if x := res["ok-skill"]; x.Status != statusUnchanged || !x.Verified || x.Dir == "" {
		t.Errorf("ok-skill again: %+v", x)
	}
	if x := res["tampered"]; x.Verified || x.Dir != "" {
		t.Errorf("tampered again: %+v", x)
	}
	// skills local shows ok-skill from its own folder only.
	r = wk(t, nil, dir, "skills", "local", "--json")
	var local struct{ Skills []localSkillJSON }
	if err := json.Unmarshal([]byte(r.stdout), &local); err != nil {
		t.Fatal(err)
	}
	if len(local.Skills) != 1 || filepath.Base(local.Skills[0].Dir) != "ok-skill" {
		t.Errorf("local: %+v", local.Skills)
	}
}

// Findings 3, 4 and 7: what a client or install refuses is an error in lint.
func TestLintErrorsOnWhatClientsRefuse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(rel, body string) string {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := "# Big\n\n" + strings.Repeat("- a line of guidance that goes on and on.\n", 40000) // about 1.6 MB
	bigMCP := `{"mcp":{"spec_version":"2026-06-13","status":"stable","notes":"` + strings.Repeat("x", 1<<20) + `","servers":[]}}`
	skill := "---\nname: secret-skill\ndescription: Has a secret. Use never.\n---\n\nToken ghp_abcdefghijklmnopqrstuvwxyz0123456789 here.\n"
	cases := []struct {
		name, path, code string
	}{
		{"skills.md over the cap", write("big/skills.md", big), "[too-large]"},
		{"mcp.json over the cap", write("bigmcp/mcp.json", bigMCP), "[too-large]"},
		{"GitHub token in skills.md", write("tok/skills.md", "# T\n\nUse ghp_abcdefghijklmnopqrstuvwxyz0123456789 to log in.\n"), "error: possible GitHub token"},
		{"secret key", write("key/skills.md", "# T\n\nKey: sk_live_abcdefghijklmnopqrstuvwx\n"), "[credential]"},
		{"bearer JWT", write("jwt/skills.md", "# T\n\nAuthorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\n"), "[credential]"},
		{"user:pass@ URL", write("url/skills.md", "# T\n\n- API: https://bob:hunter22@api.example.com/v1\n"), "[credential]"},
		{"token in SKILL.md", filepath.Dir(write("secret-skill/SKILL.md", skill)), "[credential]"},
		{"invalid name", filepath.Dir(write("bad-name/SKILL.md", "---\nname: Bad--Name\ndescription: Bad. Use never.\n---\n")), "error: name"},
	}
	link := filepath.Dir(write("linked/SKILL.md", "---\nname: linked\ndescription: Links. Use never.\n---\n"))
	if err := os.Symlink("/etc/hostname", filepath.Join(link, "notes.md")); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, struct{ name, path, code string }{"symlink in a skill folder", link, "[symlink]"})
	for _, tc := range cases {
		r := runCLI(t, nil, "", "lint", tc.path)
		if r.code != exitFailure || !strings.Contains(r.stdout, tc.code) {
			t.Errorf("%s: want exit 1 and %q:\n%s", tc.name, tc.code, r)
		}
	}
	// The same over HTTPS: a skills.md the client refuses fails lint by URL.
	ts, ca := tlsOrigin(t, docs(map[string]string{"/.well-known/skills.md": big}))
	if r := runCLI(t, cliEnv(t, caFileEnv+"="+ca), "", "lint", ts.URL); r.code != exitFailure || !strings.Contains(r.stdout, "[too-large]") {
		t.Errorf("lint of an origin with a 1.6 MB skills.md:\n%s", r)
	}
}

// Finding 5: a broken mcp.json next to a good skills.md is a failure, not "nothing".
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

// writeIndex writes a local v0.2.0 index with skill-md entries: name → (url, body).
func writeIndex(t *testing.T, dir string, entries [][3]string) string {
	t.Helper()
	var list []indexEntry
	for _, e := range entries {
		list = append(list, indexEntry{Name: e[0], Type: "skill-md", Description: "d", URL: e[1], Digest: agentskills.Digest([]byte(e[2]))})
		if e[2] != "" && !strings.HasPrefix(e[1], "..") {
			p := filepath.Join(dir, filepath.FromSlash(e[1]))
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte(e[2]), 0o644)
		}
	}
	data, _ := json.MarshalIndent(map[string]any{"$schema": agentskills.SchemaV020, "skills": list}, "", "  ")
	p := filepath.Join(dir, "index.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Findings 6 and 9: duplicate names are errors; a local index's messages name paths.
func TestLintLocalIndex(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	md := string(skillText("dup", "Twice. Use it.", "# Dup\n"))
	p := writeIndex(t, dir, [][3]string{
		{"dup", "dup/SKILL.md", md},
		{"dup", "dup/SKILL.md", md},
		{"escape", "../../etc/hostname", "x"},
	})
	r := runCLI(t, nil, "", "lint", p)
	if r.code != exitFailure || !strings.Contains(r.stdout, "[duplicate-name]") {
		t.Errorf("duplicate names: want [duplicate-name]:\n%s", r)
	}
	if strings.Contains(r.stdout, "127.0.0.1") || !strings.Contains(r.stdout, "outside the index folder") {
		t.Errorf("local index: loopback URLs in messages:\n%s", r)
	}
}

// Finding 8: HTML pages, cross-origin redirects and unreachable origins, said once and
// rightly.
func TestLintURLFacts(t *testing.T) {
	t.Parallel()
	html := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>hello</html>")
	})
	ts, ca := tlsOrigin(t, html)
	env := cliEnv(t, caFileEnv+"="+ca)
	r := runCLI(t, env, "", "lint", ts.URL+"/.well-known/skills.md")
	if r.code != exitFailure || strings.Contains(r.stdout, "404") || !strings.Contains(r.stdout, "HTML page") {
		t.Errorf("HTML page: want it named, not HTTP 404:\n%s", r)
	}

	a, _, _ := redirectingOrigin(t)
	r = runCLI(t, env, "", "lint", a.URL)
	if r.code != exitFailure || strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stdout, "another origin") ||
		!strings.Contains(r.stdout, "--yes") || strings.Contains(r.stdout, "publishes no") || strings.Contains(r.stdout, "consent denied") {
		t.Errorf("cross-origin redirect: want one problem naming --yes:\n%s", r)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	r = runCLI(t, nil, "", "lint", "http://"+addr)
	if r.code != exitFailure || strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stdout, "[unreachable]") || strings.Contains(r.stdout, "publishes no") {
		t.Errorf("unreachable origin: want one problem:\n%s", r)
	}
}

// Findings 10 and 13: columns in code points; mcp.json schema errors with guidance.
func TestLintMCPJSONPresentation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lint := func(body string) cliRun {
		p := filepath.Join(t.TempDir(), "mcp.json")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return runCLI(t, nil, "", "lint", p)
	}
	_ = dir
	if r := lint(`{"mcp":{"description":"ééé", "x": }}`); !strings.Contains(r.stdout, "mcp.json:1:35: error:") {
		t.Errorf("syntax error column: want 35 (code points):\n%s", r)
	}
	cases := []struct{ name, body, want string }{
		{"plain servers list", `{"servers":[{"name":"a","url":"https://a.example/mcp"}]}`, "wellknown mcp servers"},
		{"registry server.json", `{"name":"io.example/x","version":"1.0.0","remotes":[{"type":"streamable-http","url":"https://a.example/mcp"}]}`, `{"mcp": {`},
		{"missing status", `{"mcp":{"spec_version":"2026-06-13","servers":[]}}`, `"stable" or "experimental"`},
		{"name 42", `{"mcp":{"spec_version":"2026-06-13","status":"stable","servers":[{"name":42,"url":"https://a.example/mcp"}]}}`, "name must be a string, not a number"},
	}
	for _, tc := range cases {
		if r := lint(tc.body); r.code != exitFailure || !strings.Contains(r.stdout, tc.want) {
			t.Errorf("%s: want %q:\n%s", tc.name, tc.want, r)
		}
	}
	r := lint(`{"mcp":{"spec_version":"2026-06-13","status":"active","servers":[]}}`)
	if n := strings.Count(r.stdout, "/mcp/status"); n != 1 {
		t.Errorf("unknown status reported %d times, want once:\n%s", n, r)
	}
}

// Findings 11 and 14: the symlink hint names the real folder; local lists each agent's
// skills under that agent.
func TestSkillsFoldersPerAgent(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	publishNormal(t, s)
	dir := t.TempDir()
	if r := wk(t, s, dir, "skills", "install", s.ts.URL, "invoice-check"); r.code != 0 {
		t.Fatalf("install:\n%s", r)
	}
	if r := wk(t, s, dir, "skills", "install", s.ts.URL, "invoice-check", "--agent", "claude"); r.code != 0 {
		t.Fatalf("install --agent claude:\n%s", r)
	}
	r := wk(t, nil, dir, "skills", "local", "--json")
	var local struct{ Skills []localSkillJSON }
	if err := json.Unmarshal([]byte(r.stdout), &local); err != nil {
		t.Fatal(err)
	}
	agents := map[string]bool{}
	for _, sk := range local.Skills {
		if sk.Name == "invoice-check" {
			agents[sk.Agent] = true
		}
	}
	if !agents["agents"] || !agents["claude"] {
		t.Errorf("local: want invoice-check under agents and claude:\n%s", r)
	}

	other := t.TempDir()
	proj := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proj, ".agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(proj, ".agents", "skills")); err != nil {
		t.Fatal(err)
	}
	r = wk(t, s, proj, "skills", "install", s.ts.URL, "invoice-check")
	if r.code != exitFailure || !strings.Contains(r.stdout, other) || strings.Contains(r.stdout, "points to with --dir") {
		t.Errorf("symlinked skills folder: want the real folder named:\n%s", r)
	}
}

// Finding 12: private-origin refusals name the command's flag, not an SDK option.
func TestPrivateOriginHints(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	publishNormal(t, s)
	dir := t.TempDir()
	if r := wk(t, s, dir, "skills", "install", s.ts.URL, "invoice-check"); r.code != 0 {
		t.Fatalf("install:\n%s", r)
	}
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

// Finding 15: serve answers every request read before stdin closed.
func TestServeAnswersBeforeEOF(t *testing.T) {
	t.Parallel()
	r := runCLI(t, nil, stdioScript, "serve")
	if !strings.Contains(r.stdout, `"id":1`) || !strings.Contains(r.stdout, `"id":2`) || !strings.Contains(r.stdout, "discover_site") {
		t.Errorf("serve: an answer is missing:\n%s", r)
	}
}

// The low findings: usage errors, messages, escapes, summaries, SARIF and grammar.
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
	s.publish(t, []indexEntry{{Name: "invoice-check", Type: "skill-md", Description: evil, URL: "invoice-check/SKILL.md"}},
		map[string][]byte{"invoice-check": invoiceMD})
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

// TERM=dumb gets no spinner redraws, even on a terminal.
func TestDumbTerminalNoSpinner(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.ts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // slow enough for the spinner to draw
	})
	cmd := exec.Command(builtBinary(t), "skills", "list", s.ts.URL)
	cmd.Env = cliEnv(t, caFileEnv+"="+caFile(t, s.ts), "TERM=dumb")
	out := runOnPTY(t, cmd, 1500)
	if strings.Contains(out, "\x1b[K") {
		t.Errorf("TERM=dumb: spinner redraws on the terminal: %q", out)
	}
}

// runOnPTY runs cmd with stdin, stdout and stderr on a pseudo-terminal for ms
// milliseconds, then kills it, and returns what the terminal showed.
func runOnPTY(t *testing.T, cmd *exec.Cmd, ms int) string {
	t.Helper()
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var out ptyOutput
	done := make(chan struct{})
	go func() { _, _ = io.Copy(&out, tty); close(done) }()
	time.Sleep(time.Duration(ms) * time.Millisecond)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	tty.Close()
	<-done
	return out.String()
}

// A duplicate among names read from "id" (no "name") is found too.
func TestLintDuplicateIDs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	md := string(skillText("dup", "Twice. Use it.", "# Dup\n"))
	if err := os.MkdirAll(filepath.Join(dir, "dup"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dup", "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "index.json")
	doc := `{"skills": [{"id": "dup", "description": "d", "files": ["SKILL.md"]}, {"id": "dup", "description": "d", "files": ["SKILL.md"]}]}`
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, "", "lint", p)
	if r.code != exitFailure || !strings.Contains(r.stdout, "[duplicate-name]") {
		t.Errorf("duplicate ids: want [duplicate-name]:\n%s", r)
	}
}

// TestLintJSONAsEditorsWriteIt (a new user's finding): a byte order mark, comments and
// trailing commas are each reported where they are, and the rest of the document is
// still checked and located (before: one "not well-formed JSON" with no position, or
// every problem at 1:1).
func TestLintJSONAsEditorsWriteIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mcp := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(mcp, []byte("\ufeff{\n  // the server\n  \"mcp\": {\"spec_version\": \"2026-06-13\", \"status\": \"stable\",\n    \"servers\": [{\"name\": \"a\", \"url\": \"https://mcp.example.com/mcp\"},]}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, nil, "", "lint", mcp)
	for _, want := range []string{":1:1: error: the file starts with a UTF-8 byte order mark", ":2:3: error: a comment", ":4:68: error: a trailing comma"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("lint mcp.json: lacks %q:\n%s", want, r)
		}
	}
	idx := filepath.Join(dir, ".well-known", "agent-skills", "index.json")
	if err := os.MkdirAll(filepath.Dir(idx), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(idx, []byte("{\n  // hand-edited\n  \"$schema\": \"https://schemas.agentskills.io/discovery/0.2.0/schema.json\",\n  \"skills\": [\n"+
		"    {\"name\": \"a\", \"type\": \"archive\", \"description\": \"d\", \"url\": \"a.tar.gz\", \"digest\": \"sha256:TODO\"},\n  ]\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, nil, "", "lint", idx)
	for _, want := range []string{":2:3: error: a comment", ":5:5: error: /skills/0: entry \"a\" has no valid digest", ":5:101: error: a trailing comma"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("lint index: lacks %q:\n%s", want, r)
		}
	}
}
