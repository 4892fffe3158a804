package lint_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wellknown-dev/discovery/lint"
)

// When the context's deadline has passed, every artifact of an index is reported by
// name as not checked (code budget, an error), and nothing else is claimed about it.
func TestLintDeadlineNamesWhatWasNotChecked(t *testing.T) {
	t.Parallel()
	const index = "../cmd/wellknown/testdata/lint/good/agent-skills/index.json"
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	l := lint.New(nil)
	if err := l.Lint(ctx, index); err != nil {
		t.Fatal(err)
	}
	rep := l.Report()
	var budget []string
	for _, p := range rep.Problems {
		if p.Code == "budget" {
			if p.Severity.String() != "error" {
				t.Errorf("%s: severity %s, want error", p.Message, p.Severity)
			}
			budget = append(budget, p.Message)
		}
	}
	for _, name := range []string{"invoice-check", "ledger"} {
		found := false
		for _, m := range budget {
			found = found || strings.Contains(m, `skill "`+name+`": not checked: context deadline exceeded`)
		}
		if !found {
			t.Errorf("no budget problem names %s: %q", name, budget)
		}
	}
	if errs, _ := rep.Count(); errs != len(budget) {
		t.Errorf("%d errors, want only the %d budget ones: %+v", errs, len(budget), rep.Problems)
	}
}
