package lint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"

	"github.com/wellknown-dev/discovery/diag"
	"github.com/wellknown-dev/discovery/internal/termtext"
	"github.com/wellknown-dev/discovery/trust"
)

// checkIndexTrust checks the Trust Manifest published beside an index (the index URL,
// or the file on disk, with trust.ManifestSuffix appended), which vouches for every
// skill the index lists with a digest: that it is well formed, that its sourceDigest
// is the digest of the index bytes (a publisher who edits the index must sign it
// again), and, with Options.TrustRoots, that it verifies. An index without one is
// said as info. On disk the URL the index will be published at is not known, so the
// manifest's own identity is taken; lint the URL to check it.
func (l *linter) checkIndexTrust(file string, data []byte, dir string) {
	mfile := file + trust.ManifestSuffix
	var manifest []byte
	var err error
	identity := file
	if dir != "" {
		manifest, err = os.ReadFile(mfile)
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
	} else {
		var res fetched
		res, err = l.fetch(mfile)
		if err == nil && res.status == http.StatusOK {
			manifest = res.data
		}
	}
	switch {
	case err != nil:
		l.add(Problem{File: mfile, Severity: diag.Warning, Code: "trust-manifest", Message: "the index's trust manifest cannot be read: " + termtext.Clean(err.Error(), 256)})
		return
	case manifest == nil:
		l.add(Problem{File: file, Severity: diag.Info, Code: "trust-manifest", Message: "the index is not signed (no " + trust.ManifestSuffix + " beside it)"})
		return
	}
	l.addFile(mfile, "trust-manifest")
	var top struct {
		Identity   string `json:"identity"`
		Provenance []struct {
			SourceDigest string `json:"sourceDigest"`
		} `json:"provenance"`
	}
	if json.Unmarshal(manifest, &top) != nil || top.Identity == "" {
		l.add(Problem{File: mfile, Severity: diag.Error, Code: "trust-manifest", Message: "not a Trust Manifest: a JSON object with an identity"})
		return
	}
	if dir != "" {
		identity = top.Identity
	}
	matches := false
	for _, p := range top.Provenance {
		matches = matches || p.SourceDigest == trust.Digest(data)
	}
	if !matches {
		l.add(Problem{File: mfile, Severity: diag.Error, Code: "trust-manifest", Message: "no provenance sourceDigest is the digest of the index (" + trust.Digest(data) + "): sign the index again after every change"})
		return
	}
	fetchKeys := func(_ context.Context, u string) ([]byte, error) {
		res, err := l.fetch(u)
		if err == nil && res.status != http.StatusOK {
			err = fmt.Errorf("HTTP status %d", res.status)
		}
		return res.data, err
	}
	exp := trust.Expect{Identifier: identity, Artifact: data}
	res, err := trust.Verify(l.ctx, manifest, exp, &trust.Options{Roots: l.opts.TrustRoots, Fetch: fetchKeys})
	switch {
	case err == nil:
		l.add(Problem{File: mfile, Severity: diag.Info, Code: "trust-manifest", Message: fmt.Sprintf("the index is signed with kid %s and verified: publisher %s", quoteClean(res.KeyID), quoteClean(res.Publisher))})
	case len(l.opts.TrustRoots) == 0 && errors.Is(err, trust.ErrUntrusted):
		l.add(Problem{File: mfile, Severity: diag.Info, Code: "trust-manifest", Message: fmt.Sprintf("the index is signed with kid %s, not verified: no trust roots given", quoteClean(res.KeyID))})
	case len(l.opts.TrustRoots) == 0:
		l.add(Problem{File: mfile, Severity: diag.Warning, Code: "trust-manifest", Message: "the index's trust manifest is signed, but cannot be verified: " + termtext.Clean(res.Reason, 256)})
	default:
		l.add(Problem{File: mfile, Severity: diag.Error, Code: "trust-manifest", Message: "the index's trust manifest does not verify against the trust roots given: " + termtext.Clean(res.Reason, 256)})
	}
}
