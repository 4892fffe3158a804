// Package docsnippets holds no code. Its test type-checks the Go code in the
// repository's documentation (README.md, docs/**/*.md and the root package's doc.go)
// against the module's packages, so a snippet that stops compiling fails CI.
package docsnippets
