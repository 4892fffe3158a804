package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestDiscoverTextShowsLinkTargets: the text output of discover shows each link of a
// guide's More info section as "label: URL", a relative URL resolved against where
// the guide was served from (after a redirect to another origin, that origin), every
// URL cleaned: no userinfo, query secrets or terminal escapes.
func TestDiscoverTextShowsLinkTargets(t *testing.T) {
	t.Parallel()
	guide := "# Links Guide\n\nA guide.\n\n## More info\n\n" +
		"- [Getting started](start.html)\n" +
		"- Docs: [reference](/docs/reference)\n" +
		"- Support: https://alice:hunter2@help.example.net/ask?token=s3cr3tvalue\n" +
		"- Spec: [spec](https://spec.example.org/\x1b]8;;evil\x07x)\n"
	b, ca := tlsOrigin(t, docs(map[string]string{"/guides/.well-known/skills.md": guide}))
	a, _ := tlsOrigin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/skills.md" {
			http.Redirect(w, r, b.URL+"/guides"+r.URL.Path, http.StatusFound)
			return
		}
		http.NotFound(w, r)
	}))
	r := runCLI(t, cliEnv(t, caFileEnv+"="+ca), "", "--yes", "discover", a.URL)
	if r.code != 0 || !strings.Contains(r.stdout, "Links Guide") {
		t.Fatalf("discover:\n%s", r)
	}
	for _, want := range []string{
		"Getting started: " + b.URL + "/start.html",
		"Docs: " + b.URL + "/docs/reference",
		"Support: https://…@help.example.net/ask?",
		"Spec: https://spec.example.org/",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("want %q in the text output:\n%s", want, r)
		}
	}
	for _, never := range []string{"hunter2", "s3cr3tvalue", "alice", "\x1b", "\x07", a.URL + "/docs"} {
		if strings.Contains(r.stdout, never) {
			t.Errorf("%q in the text output:\n%s", never, r)
		}
	}
	// --model resolves them the same way.
	r = runCLI(t, cliEnv(t, caFileEnv+"="+ca), "", "--yes", "discover", "--model", a.URL)
	if r.code != 0 || !strings.Contains(r.stdout, "Docs: "+b.URL+"/docs/reference") || strings.Contains(r.stdout, a.URL+"/docs") {
		t.Errorf("discover --model: want the links resolved against %s:\n%s", b.URL, r)
	}
}
