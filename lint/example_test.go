package lint_test

import (
	"context"
	"fmt"
	"log"

	"github.com/wellknown-dev/discovery/lint"
)

func Example() {
	l := lint.New(nil)
	if err := l.Lint(context.Background(), "../cmd/wellknown/testdata/lint/bad/wrong-name"); err != nil {
		log.Fatal(err)
	}
	rep := l.Report()
	for _, p := range rep.Problems {
		fmt.Printf("line %d: %s [%s]\n", p.Line, p.Severity, p.Code)
	}
	errs, warns := rep.Count()
	fmt.Println(errs, "errors,", warns, "warnings")
	// Output:
	// line 2: error [name]
	// line 2: error [name-mismatch]
	// 2 errors, 0 warnings
}
