package skillbundle_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/skillbundle"
	"github.com/wellknown-dev/discovery/trust"
)

// mirrored installs every skill of s through the mirror at mirrorURL.
func mirrored(t *testing.T, s *site, mirrorURL string, requireSigned bool, roots ...trust.Root) (map[string]*discovery.Skill, error) {
	t.Helper()
	m, err := skillbundle.NewMirror(mirrorURL)
	if err != nil {
		t.Fatal(err)
	}
	opts := s.onlineOptions(roots...)
	opts.WrapTransport, opts.RequireSignedSkills = m.WrapTransport, requireSigned
	c, err := discovery.NewClient(opts)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := c.ListSkills(context.Background(), s.ts.URL)
	if err != nil {
		return nil, err
	}
	m.Use(ix)
	out := map[string]*discovery.Skill{}
	for _, e := range ix.Index.Skills {
		sk, err := c.GetSkill(context.Background(), ix, e.Name)
		if err != nil {
			return out, err
		}
		out[e.Name] = sk
	}
	return out, nil
}

// copyTo serves s's artifacts (not its index or manifests) from mirror under prefix.
func copyTo(s, mirror *site, prefix string) {
	for _, p := range []string{pdfPath, ledgerPath} {
		s.mu.Lock()
		d := s.docs[p]
		s.mu.Unlock()
		mirror.set(prefix+p, d.body, d.ctype)
	}
}

func TestMirrorChangesWhereBytesComeFromNotWhatIsAccepted(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.publish(t)
	root := s.sign(t, 1)

	t.Run("artifacts from the mirror, index and signatures from the origin", func(t *testing.T) {
		mirror := newSite(t)
		copyTo(s, mirror, "/mirror")
		before := s.hitsOf(pdfPath) + s.hitsOf(ledgerPath)
		sks, err := mirrored(t, s, mirror.ts.URL+"/mirror/", true, root)
		if err != nil {
			t.Fatal(err)
		}
		for name, sk := range sks {
			if sk.Publisher == nil || !sk.Publisher.Verified || !strings.HasPrefix(sk.Entry.URL, s.ts.URL) {
				t.Errorf("%s: publisher %+v, URL %s", name, sk.Publisher, sk.Entry.URL)
			}
		}
		if got := s.hitsOf(pdfPath) + s.hitsOf(ledgerPath) - before; got != 0 {
			t.Errorf("the origin served %d artifact requests", got)
		}
		if mirror.hitsOf("/mirror"+pdfPath) != 1 || mirror.hitsOf("/mirror"+ledgerPath) != 1 {
			t.Errorf("mirror hits: %v", mirror.hits)
		}
		if mirror.hitsOf("/mirror"+agentskills.IndexPath) != 0 || mirror.hitsOf("/mirror"+pdfPath+trust.ManifestSuffix) != 0 {
			t.Errorf("the mirror was asked for the index or a signature: %v", mirror.hits)
		}
	})

	t.Run("a mirror serving other bytes is refused, naming the file", func(t *testing.T) {
		mirror := newSite(t)
		copyTo(s, mirror, "")
		mirror.set(pdfPath, []byte("---\nname: pdf\ndescription: Evil.\n---\n"), "text/markdown")
		_, err := mirrored(t, s, mirror.ts.URL, false)
		if !errors.Is(err, agentskills.ErrDigestMismatch) || !strings.Contains(err.Error(), pdfPath) {
			t.Errorf("other bytes = %v", err)
		}
	})

	t.Run("a mirror with its own index and matching artifacts is refused", func(t *testing.T) {
		mirror := newSite(t)
		evil := []byte("---\nname: pdf\ndescription: Evil.\n---\n")
		mirror.set(pdfPath, evil, "text/markdown")
		mirror.set(ledgerPath, s.get(ledgerPath), "application/gzip")
		mirror.setIndex(t, map[string][]byte{"pdf": evil, "ledger": s.get(ledgerPath)})
		_, err := mirrored(t, s, mirror.ts.URL, false)
		if !errors.Is(err, agentskills.ErrDigestMismatch) || mirror.hitsOf(agentskills.IndexPath) != 0 {
			t.Errorf("swapped index = %v (mirror index hits %d)", err, mirror.hitsOf(agentskills.IndexPath))
		}
	})

	t.Run("a mirror without signatures cannot drop them", func(t *testing.T) {
		mirror := newSite(t)
		copyTo(s, mirror, "") // no .trust.json on the mirror
		if _, err := mirrored(t, s, mirror.ts.URL, true, root); err != nil {
			t.Errorf("install through a mirror that serves no signatures: %v", err)
		}
	})

	t.Run("a mirror that redirects is refused", func(t *testing.T) {
		mirror := newSite(t)
		redirect := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, s.ts.URL+r.URL.Path, http.StatusFound)
		})
		mirror.ts.Config.Handler = redirect
		_, err := mirrored(t, s, mirror.ts.URL, false)
		if !errors.Is(err, skillbundle.ErrMirror) || !strings.Contains(err.Error(), "redirect") {
			t.Errorf("redirecting mirror = %v", err)
		}
	})

	t.Run("a missing file on the mirror", func(t *testing.T) {
		mirror := newSite(t)
		_, err := mirrored(t, s, mirror.ts.URL, false)
		if err == nil || !strings.Contains(err.Error(), "404") {
			t.Errorf("empty mirror = %v", err)
		}
	})
}

func TestNewMirrorRefusesInsecureURLs(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"http://mirror.example", "ftp://mirror.example", "https://user:pw@mirror.example", "https://mirror.example/?q=1", "/local/dir", ""} {
		if _, err := skillbundle.NewMirror(u); !errors.Is(err, skillbundle.ErrMirror) {
			t.Errorf("NewMirror(%q) = %v", u, err)
		}
	}
	for _, u := range []string{"https://mirror.example/skills/", "http://127.0.0.1:8080", "http://localhost:1/x"} {
		if _, err := skillbundle.NewMirror(u); err != nil {
			t.Errorf("NewMirror(%q) = %v", u, err)
		}
	}
}
