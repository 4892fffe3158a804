package skills

// What update shows and asks before it replaces a skill: which files changed, a
// unified diff of the text files (SKILL.md first), a loud notice when the publisher or
// its key changed, and the person's yes.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
	"github.com/wellknown-dev/discovery/internal/textdiff"
)

// ExitUpdatesPending is the exit status of "skills update" when updates were found but
// not applied, because nobody consented (no terminal and no --yes, or a publisher
// change without --accept-new-publisher). Documented in docs/wellknown.md.
const ExitUpdatesPending = 5

// StatusPending: update found a new version but replaced nothing without consent.
const StatusPending = "pending"

// maxDiffBytes bounds the diff shown for one skill.
const maxDiffBytes = 64 << 10

// updateConsent is how update may replace skills: --yes, --accept-new-publisher, and
// whether results are printed as JSON (then nothing is printed before the results).
type updateConsent struct {
	yes, acceptPublisher, asJSON bool
}

// review is what changed in one skill.
type review struct {
	changes   []string // "SKILL.md changed", "references/x.md added", ...
	diff      string   // unified diff of the text files, cleaned for a terminal
	publisher string   // "" or the loud notice of a publisher or key change
}

// reviewUpdate compares the installed skill in dir (whose files match rec) with the
// fetched one.
func reviewUpdate(dir string, rec *InstallRecord, sk *discovery.Skill) review {
	var rv review
	old := map[string]bool{}
	for _, f := range rec.Files {
		old[f.Path] = true
	}
	type pathDiff struct{ path, kind string }
	var paths []pathDiff
	for _, f := range skillFiles(sk.Files) {
		switch {
		case !old[f.Path]:
			paths = append(paths, pathDiff{f.Path, "added"})
		case !slices.ContainsFunc(rec.Files, func(r FileJSON) bool { return r.Path == f.Path && r.Digest == agentskills.Digest(f.Data) }):
			paths = append(paths, pathDiff{f.Path, "changed"})
		}
		delete(old, f.Path)
	}
	for p := range old {
		paths = append(paths, pathDiff{p, "removed"})
	}
	slices.SortFunc(paths, func(a, b pathDiff) int {
		if (a.path == "SKILL.md") != (b.path == "SKILL.md") {
			if a.path == "SKILL.md" {
				return -1
			}
			return 1
		}
		return strings.Compare(a.path, b.path)
	})
	newData := map[string][]byte{}
	for _, f := range skillFiles(sk.Files) {
		newData[f.Path] = f.Data
	}
	var diff bytes.Buffer
	root, rerr := os.OpenRoot(dir)
	if rerr == nil {
		defer root.Close()
	}
	for _, p := range paths {
		shown := cmdutil.Clean(p.path, 256) // one line: a path from a tampered record may hold line breaks
		rv.changes = append(rv.changes, shown+" "+p.kind)
		var before []byte
		if p.kind != "added" {
			var err error
			if before, err = readInstalled(root, p.path); err != nil {
				fmt.Fprintf(&diff, "installed file %s %s; not shown: %v\n", shown, p.kind, err)
				continue
			}
		}
		after := newData[p.path]
		if !isText(before) || !isText(after) {
			fmt.Fprintf(&diff, "binary file %s %s\n", shown, p.kind)
			continue
		}
		if diff.Len() < maxDiffBytes {
			diff.Write(textdiff.Diff("a/"+shown, before, "b/"+shown, after))
		}
	}
	d := diff.String()
	if len(d) > maxDiffBytes {
		d = d[:maxDiffBytes] + "\n… (diff cut at 64 KiB)\n"
	}
	rv.diff = cmdutil.CleanText(d)
	rv.publisher = publisherChange(rec.Publisher, publisherJSON(sk.Publisher))
	return rv
}

// publisherChange is the loud notice of a skill installed with a verified publisher
// whose new version is signed by another publisher or key, is not verified, or was not
// checked at all (update run without --trust-roots: a compromised site counts on the
// check being forgotten); "" otherwise.
func publisherChange(oldP, newP *PublisherJSON) string {
	switch {
	case oldP == nil || !oldP.Verified:
		return ""
	case newP == nil:
		return fmt.Sprintf("THE PUBLISHER WAS NOT CHECKED: installed %s; now not checked (give --trust-roots to verify it)", oldP)
	case !newP.Verified || newP.Publisher != oldP.Publisher || newP.KeyID != oldP.KeyID:
		return fmt.Sprintf("THE PUBLISHER OR ITS KEY CHANGED: installed %s; now %s", oldP, newP)
	}
	return ""
}

// readInstalled reads the installed file at the slash-separated path p of the skill
// folder r, for the diff: only a regular file inside the folder (never through a
// symbolic link, never a path that leaves it, as a tampered install record could
// name), and at most agentskills.DefaultMaxBytes of it.
func readInstalled(r *os.Root, p string) ([]byte, error) {
	if r == nil {
		return nil, errors.New("the skill folder cannot be opened")
	}
	name := filepath.FromSlash(p)
	if info, err := r.Lstat(name); err != nil {
		return nil, errors.New("cannot be read inside the skill folder")
	} else if !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	f, err := r.Open(name)
	if err != nil {
		return nil, errors.New("cannot be read inside the skill folder")
	}
	defer f.Close()
	// Checked again once open: the entry may have been swapped for a link meanwhile.
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return io.ReadAll(io.LimitReader(f, agentskills.DefaultMaxBytes))
}

// isText reports whether b looks like text: valid UTF-8 without NUL bytes.
func isText(b []byte) bool { return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 }

// consentToUpdate shows rv (unless JSON) and asks; it reports whether name may be
// replaced, and if not, why.
func (a *app) consentToUpdate(ctx context.Context, uc updateConsent, name string, rv review) (bool, string) {
	if !uc.asJSON {
		fmt.Fprintf(a.Out, "%s %s: %s\n", a.Style(cmdutil.ColorBold, "update"), cmdutil.Clean(name, 80), strings.Join(rv.changes, ", "))
		fmt.Fprint(a.Out, rv.diff)
		if rv.publisher != "" {
			fmt.Fprintln(a.Out, a.Style(cmdutil.ColorRed, "!!! "+rv.publisher+" !!!"))
		}
	}
	ok := uc.yes
	if !ok {
		yes, err := a.Confirm(ctx, "Replace "+cmdutil.Clean(name, 80)+" with this version?")
		if err != nil {
			return false, err.Error()
		}
		if !yes && !a.IsTerminal(a.In) {
			return false, "an update is pending: review it and run again with --yes, or on a terminal"
		}
		ok = yes
	}
	if !ok {
		return false, "not replaced: you said no"
	}
	if rv.publisher == "" {
		return true, ""
	}
	if uc.acceptPublisher {
		return true, ""
	}
	yes, err := a.Confirm(ctx, "The publisher or its key changed. Accept the new one for "+cmdutil.Clean(name, 80)+"?")
	switch {
	case err != nil:
		return false, err.Error()
	case yes:
		return true, ""
	}
	return false, rv.publisher + "; not replaced: accept it on a terminal or with --accept-new-publisher"
}
