package skillbundle_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/trust"
)

// site is a loopback TLS origin serving an Agent Skills index; a test can change its
// documents.
type site struct {
	ts   *httptest.Server
	mu   sync.Mutex
	docs map[string]doc
	hits map[string]int // requests per path
}

type doc struct {
	body  []byte
	ctype string
}

func newSite(t testing.TB) *site {
	t.Helper()
	s := &site{docs: map[string]doc{}, hits: map[string]int{}}
	s.ts = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		d, ok := s.docs[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", d.ctype)
		w.Write(d.body)
	}))
	t.Cleanup(s.ts.Close)
	return s
}

func (s *site) set(path string, body []byte, ctype string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs[path] = doc{body, ctype}
}

func (s *site) hitsOf(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *site) get(path string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[path].body
}

var (
	pdfMD    = []byte("---\nname: pdf\ndescription: Read PDF files. Use when a PDF arrives.\n---\n\n# PDF\n")
	ledgerMD = []byte("---\nname: ledger\ndescription: Export ledgers. Use for accounting.\n---\n\n# Ledger\n")
)

const (
	pdfPath    = "/.well-known/agent-skills/pdf/SKILL.md"
	ledgerPath = "/.well-known/agent-skills/ledger.tar.gz"
)

// publish serves an index of a skill-md skill (pdf) and an archive skill (ledger).
func (s *site) publish(t testing.TB) {
	t.Helper()
	ledger := tarGz(t, map[string]string{"SKILL.md": string(ledgerMD), "references/FORMAT.md": "# Format\n"})
	s.set(pdfPath, pdfMD, "text/markdown")
	s.set(ledgerPath, ledger, "application/gzip")
	s.setIndex(t, map[string][]byte{"pdf": pdfMD, "ledger": ledger})
}

// setIndex serves an index whose digests are those of the given artifacts.
func (s *site) setIndex(t testing.TB, artifacts map[string][]byte) {
	t.Helper()
	var entries []map[string]string
	if b, ok := artifacts["pdf"]; ok {
		entries = append(entries, map[string]string{"name": "pdf", "type": "skill-md", "description": "Read PDF files.", "url": "pdf/SKILL.md", "digest": agentskills.Digest(b)})
	}
	if b, ok := artifacts["ledger"]; ok {
		entries = append(entries, map[string]string{"name": "ledger", "type": "archive", "description": "Export ledgers.", "url": "ledger.tar.gz", "digest": agentskills.Digest(b)})
	}
	data, err := json.Marshal(map[string]any{"$schema": agentskills.SchemaV020, "skills": entries})
	if err != nil {
		t.Fatal(err)
	}
	s.set(agentskills.IndexPath, data, "application/json")
}

// sign publishes a Trust Manifest beside both artifacts, signed with a fixed Ed25519
// key, and returns the trust root that pins that key for the site's origin.
func (s *site) sign(t testing.TB, seed byte) trust.Root {
	t.Helper()
	k := signingKey(t, seed)
	for _, p := range []string{pdfPath, ledgerPath} {
		u := s.ts.URL + p
		m := `{"identity":"` + u + `","provenance":[{"relation":"publishedFrom","sourceId":"` + u + `","sourceDigest":"` + trust.Digest(s.get(p)) + `"}]}`
		signed, err := trust.Sign([]byte(m), k)
		if err != nil {
			t.Fatal(err)
		}
		s.set(p+trust.ManifestSuffix, signed, "application/json")
	}
	return rootFor(t, s.ts.URL, seed)
}

func signingKey(t testing.TB, seed byte) *trust.SigningKey {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize)))
	if err != nil {
		t.Fatal(err)
	}
	k, err := trust.ParseSigningKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// rootFor pins the key of seed for origin.
func rootFor(t testing.TB, origin string, seed byte) trust.Root {
	t.Helper()
	jwks, err := signingKey(t, seed).PublicJWKS()
	if err != nil {
		t.Fatal(err)
	}
	return trust.Root{Publisher: "Example Corp", Origin: origin, JWKS: jwks}
}

func tarGz(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, name := range []string{"SKILL.md", "references/FORMAT.md"} {
		body, ok := files[name]
		if !ok {
			continue
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	return b.Bytes()
}

// failing is a transport that fails every request: a machine with no network.
type failing struct{}

var errOffline = errors.New("offline: no network")

func (failing) RoundTrip(*http.Request) (*http.Response, error) { return nil, errOffline }

// onlineOptions are Client options for the site.
func (s *site) onlineOptions(roots ...trust.Root) *discovery.Options {
	return &discovery.Options{HTTPClient: s.ts.Client(), InsecureAllowPrivateOrigins: true, TrustRoots: roots}
}
