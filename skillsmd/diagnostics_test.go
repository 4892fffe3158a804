package skillsmd_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/skillsmd"
)

// Secret markers planted in hostile documents. None of them may appear in a warning.
const (
	ghToken     = "ghp_" + "Zq7xK2Zq7xK2Zq7xK2Zq7xK2Zq7xK2Zq7xK2" // GitHub token: ghp_ and 36 alphanumerics
	skKey       = "sk-live-4eC39HqLyjWDarjtT1zdp7dcQx82Lm"
	userinfoURL = "https://user:hunter2pass@host.example/x"
	queryURL    = "/mcp?access_token=SECRETQUERY123"
	basicAuth   = "Authorization: Basic dXNlcjpodW50ZXIy"
)

// plantedSecrets are the markers, in the order of names.
var (
	plantedSecrets = []string{ghToken, skKey, userinfoURL, queryURL, basicAuth}
	names          = []string{"github", "sk", "userinfo", "query", "basic"}
)

// leaks are the substrings that give a secret away.
var leaks = []string{ghToken, skKey, "hunter2pass", "SECRETQUERY123", "dXNlcjpodW50ZXIy", "://user", "user:hunter2"}

// TestNoSecretsInDiagnostics parses hostile documents that plant the secret markers in
// every place a warning could quote, and checks that no warning repeats one.
func TestNoSecretsInDiagnostics(t *testing.T) {
	t.Parallel()
	type doc struct{ name, text string }
	var docs []doc
	for i, s := range plantedSecrets {
		q := fmt.Sprintf("%q", s)
		docs = append(docs,
			doc{fmt.Sprintf("%s/value as int", names[i]), "---\ntitle: !!int " + q + "\n---\n# T\n"},
			doc{fmt.Sprintf("%s/value as float", names[i]), "---\ntitle: !!float " + q + "\n---\n# T\n"},
			doc{fmt.Sprintf("%s/value as bool", names[i]), "---\ntitle: !!bool " + q + "\n---\n# T\n"},
			doc{fmt.Sprintf("%s/duplicate key", names[i]), "---\n" + q + ": 1\n" + q + ": 2\n---\n# T\n"},
			doc{fmt.Sprintf("%s/sequence key", names[i]), "---\n? [" + q + "]\n: x\n---\n# T\n"},
			doc{fmt.Sprintf("%s/map key", names[i]), "---\n? {" + q + ": 1}\n: x\n---\n# T\n"},
			doc{fmt.Sprintf("%s/unclosed flow", names[i]), "---\nkey: [" + q + "\n---\n# T\n"},
			doc{fmt.Sprintf("%s/bad indent", names[i]), "---\nkey: " + q + "\n  bad: " + q + "\n---\n# T\n"},
			doc{fmt.Sprintf("%s/plain key", names[i]), "---\n" + s + ": x\n  - " + s + "\n---\n# T\n"},
			doc{fmt.Sprintf("%s/body", names[i]), "# T\n\n## API\n\n- Base URL: " + s + "\n- [link](" + s + ")\n\n<script src=\"" + s + "\"></script>\n"},
		)
		if strings.HasPrefix(s, "ghp_") || strings.HasPrefix(s, "sk-") {
			docs = append(docs,
				doc{fmt.Sprintf("%s/unknown anchor", names[i]), "---\ntitle: *" + s + "\n---\n# T\n"},
				doc{fmt.Sprintf("%s/unknown tag", names[i]), "---\ntitle: !" + s + " x\n---\n# T\n"},
			)
		}
	}
	for _, tc := range docs {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, err := skillsmd.Parse([]byte(tc.text))
			if err != nil {
				assertNoLeak(t, "error", err.Error())
				return
			}
			for _, w := range d.Warnings {
				assertNoLeak(t, "Message", w.Message)
				assertNoLeak(t, "String", w.String())
				assertNoLeak(t, "Sprint", fmt.Sprint(w))
			}
			js, err := json.Marshal(d.Warnings)
			if err != nil {
				t.Fatal(err)
			}
			assertNoLeak(t, "JSON", string(js))
		})
	}
}

func assertNoLeak(t *testing.T, what, s string) {
	t.Helper()
	for _, l := range leaks {
		if strings.Contains(strings.ToLower(s), strings.ToLower(l)) { // url.Parse lower-cases schemes
			t.Errorf("%s leaks %q: %s", what, l, s)
		}
	}
}
