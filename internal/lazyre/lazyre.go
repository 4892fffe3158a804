// Package lazyre compiles a regular expression on its first use instead of when the
// program starts: the command line tool is started often, and most runs never need
// most of the expressions its packages declare.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr the first time it is called and returns
// the same *regexp.Regexp every time. expr must be a valid expression: the first call
// panics otherwise, as regexp.MustCompile does (each package's tests call every
// expression it declares). It is safe for concurrent use.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
