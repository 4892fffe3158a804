package mcpjson

import (
	"fmt"
	"testing"

	"github.com/wellknown-dev/discovery/internal/secrets"
)

// scanSecretsEager is the former scanSecrets, which built every pointer on the way
// down: scanSecrets must give the same problems in the same order.
func scanSecretsEager(v any, at string) []Problem {
	var out []Problem
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			out = append(out, scanSecretsEager(t[k], at+"/"+pointerToken(k))...)
		}
	case []any:
		for i, e := range t {
			out = append(out, scanSecretsEager(e, fmt.Sprintf("%s/%d", at, i))...)
		}
	case string:
		for _, f := range secrets.Scan(t) {
			out = append(out, Problem{Pointer: at, Severity: SeverityWarning,
				Message: "possible " + f.Kind + " published in the document (value not shown); remove it and rotate the credential"})
		}
	}
	return out
}

func TestScanSecretsOrder(t *testing.T) {
	t.Parallel()
	const key = "ghp_" + "0123456789abcdefghijABCDEFGHIJ012345"
	var list []any
	for i := range 12 {
		list = append(list, map[string]any{"token": key, "n": fmt.Sprint(i)})
	}
	doc := map[string]any{
		"a/b": key, "a-b": key, "a": map[string]any{"b": key, "~x": []any{key, "plain", key}},
		"list": list, "z": "AKIA" + "ABCDEFGHIJKLMNOP and " + key,
	}
	got, want := scanSecrets(doc, ""), scanSecretsEager(doc, "")
	if len(want) < 10 {
		t.Fatalf("the test document has only %d findings", len(want))
	}
	if len(got) != len(want) {
		t.Fatalf("scanSecrets gave %d problems, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("problem %d = %v, want %v", i, got[i], want[i])
		}
	}
}
