package testparts

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// recorder is a testing.TB that records Fatalf and Skip instead of ending the test.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Name() string                 { return "TestNeedsPart" }
func (r *recorder) Fatalf(f string, args ...any) { r.fatal = fmt.Sprintf(f, args...) }
func (r *recorder) Skip(args ...any)             { r.skip = fmt.Sprint(args...) }

// TestSkipIsAnnounced: a skip for a missing part writes one line, once per part, naming
// the part and its install step, where go test ./... shows it; with the part's Require
// variable set, it is a failure instead.
func TestSkipIsAnnounced(t *testing.T) {
	var out bytes.Buffer
	old := announce
	announce = func() (io.WriteCloser, error) { return nopCloser{&out}, nil }
	t.Cleanup(func() { announce = old })
	p := Part{Name: "the test part", Install: "run `make part`", Require: "TESTPARTS_REQUIRE_TEST"}

	for range 2 {
		r := &recorder{TB: t}
		Skip(r, p, "stat part: no such file")
		if r.fatal != "" || !strings.Contains(r.skip, "needs the test part, missing here (stat part: no such file); to install: run `make part`") {
			t.Errorf("Skip: fatal %q, skip %q", r.fatal, r.skip)
		}
	}
	if got := out.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "--- SKIP in testparts: TestNeedsPart needs the test part") || !strings.Contains(got, "run `make part`") {
		t.Errorf("announced %q, want one line naming the test and the install step", got)
	}

	t.Setenv(p.Require, "1")
	r := &recorder{TB: t}
	Skip(r, p, "stat part: no such file")
	if r.skip != "" || !strings.Contains(r.fatal, "TESTPARTS_REQUIRE_TEST is set") {
		t.Errorf("required part: fatal %q, skip %q", r.fatal, r.skip)
	}
}
