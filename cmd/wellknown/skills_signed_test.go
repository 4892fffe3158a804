package main

// Tests of publisher signatures on the command line: "wellknown sign" writes the
// manifests, "skills install --trust-roots" verifies them (a pinned key, a PEM key, a
// JWKS URL), shows the result and records it in the lock, and --require-signed
// refuses what does not verify.

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/skilllock"
)

// writeKey writes a fresh private key (ES256 or Ed25519) as PEM PKCS #8 and returns
// its path and the PEM of its public key.
func writeKey(t *testing.T, dir string, ed bool) (string, string) {
	t.Helper()
	var priv, pub any
	if ed {
		p, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		priv, pub = k, p
	} else {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		priv, pub = k, &k.PublicKey
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.CreateTemp(dir, "key-*.pem")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pem.Encode(f, &pem.Block{Type: "PRIVATE KEY", Bytes: der}); err != nil {
		t.Fatal(err)
	}
	return f.Name(), string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}))
}

// signSite signs the normal site's two artifacts with key through "wellknown sign"
// and serves the manifests beside them; it returns the public JWKS written.
func signSite(t *testing.T, s *site, key string) []byte {
	t.Helper()
	public := t.TempDir()
	var args []string
	for _, p := range []string{"/.well-known/agent-skills/invoice-check/SKILL.md", "/.well-known/agent-skills/ledger.tar.gz"} {
		local := filepath.Join(public, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
			t.Fatal(err)
		}
		s.mu.Lock()
		body := s.docs[p].body
		s.mu.Unlock()
		if err := os.WriteFile(local, body, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, local)
	}
	jwksFile := filepath.Join(public, "jwks.json")
	r := wk(t, nil, public, append([]string{"sign", "--key", key, "--base-url", s.ts.URL, "--root", public, "--jwks-out", jwksFile}, args...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "signed with") {
		t.Fatalf("sign:\n%s", r)
	}
	for i, p := range []string{"/.well-known/agent-skills/invoice-check/SKILL.md", "/.well-known/agent-skills/ledger.tar.gz"} {
		s.set(p+".trust.json", []byte(mustRead(t, args[i]+".trust.json")), "application/json")
	}
	return []byte(mustRead(t, jwksFile))
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSkillsInstallVerifiesPublisher(t *testing.T) {
	t.Parallel()
	keys := t.TempDir()
	esKey, esPub := writeKey(t, keys, false)
	edKey, _ := writeKey(t, keys, true)
	_, otherPub := writeKey(t, keys, false)

	s := newSite(t)
	publishNormal(t, s)
	signSite(t, s, esKey)
	indent := func(p string) string { return strings.ReplaceAll(strings.TrimSpace(p), "\n", "\n      ") }
	pinnedPEM := writeFile(t, keys, "roots.yaml", "roots:\n  - publisher: Example Corp\n    origin: "+s.ts.URL+"\n    pem: |\n      "+indent(esPub)+"\n")

	// ES256, pinned as a PEM public key: verified, shown and locked.
	dir := t.TempDir()
	r := wk(t, s, dir, "skills", "install", s.ts.URL, "--trust-roots", pinnedPEM, "--require-signed")
	if r.code != 0 || strings.Count(r.stdout, "verified: Example Corp") != 2 || !strings.Contains(r.stdout, "ES256") {
		t.Fatalf("install of a signed site:\n%s", r)
	}
	l, err := skilllock.ReadFile(filepath.Join(dir, skilllock.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if sk, _ := l.Lookup("ledger"); sk.Publisher == nil || !sk.Publisher.Verified || sk.Publisher.Publisher != "Example Corp" || sk.Publisher.Algorithm != "ES256" {
		t.Errorf("lock's publisher of ledger = %+v", sk.Publisher)
	}
	if r := wk(t, s, dir, "skills", "get", s.ts.URL, "invoice-check", "--trust-roots", pinnedPEM); r.code != 0 || !strings.Contains(r.stdout, "publisher verified: Example Corp") {
		t.Errorf("get:\n%s", r)
	}

	// Ed25519, keys from a JWKS URL (JSON roots file).
	jwks := signSite(t, s, edKey)
	s.set("/keys/jwks.json", jwks, "application/json")
	byURL := writeFile(t, keys, "roots.json", `{"roots":[{"publisher":"Example Corp","origin":"`+s.ts.URL+`","jwksUrl":"`+s.ts.URL+`/keys/jwks.json"}]}`)
	if r := wk(t, s, t.TempDir(), "skills", "install", s.ts.URL, "--trust-roots", byURL, "--require-signed"); r.code != 0 || strings.Count(r.stdout, "verified: Example Corp") != 2 || !strings.Contains(r.stdout, "EdDSA") {
		t.Errorf("install with a JWKS URL:\n%s", r)
	}
	// The same signatures, checked against the ES256 key pinned earlier: refused.
	empty := t.TempDir()
	r = wk(t, s, empty, "skills", "install", s.ts.URL, "--trust-roots", pinnedPEM, "--require-signed")
	if r.code != exitFailure || strings.Count(r.stdout, statusRefused) != 2 || !strings.Contains(r.stdout, "signing key not found") {
		t.Errorf("install with the wrong pinned key:\n%s", r)
	}
	if got := tree(t, empty); len(got) != 0 {
		t.Errorf("a refused install wrote %v", got)
	}

	// Without --require-signed the skills install, labelled unverified and why.
	wrong := writeFile(t, keys, "wrong.yaml", "- origin: "+s.ts.URL+"\n  pem: |\n    "+strings.ReplaceAll(strings.TrimSpace(otherPub), "\n", "\n    ")+"\n")
	if r := wk(t, s, t.TempDir(), "skills", "install", s.ts.URL, "--trust-roots", wrong); r.code != 0 || strings.Count(r.stdout, "unverified: trust: signing key not found") != 2 {
		t.Errorf("install without --require-signed:\n%s", r)
	}

	// A manifest whose sourceDigest is of other bytes: refused.
	signSite(t, s, esKey)
	s.set("/.well-known/agent-skills/invoice-check/SKILL.md", skillText("invoice-check", "Swapped.", "# Swapped\n"), "text/markdown")
	publishInvoice(t, s, "Swapped.", skillText("invoice-check", "Swapped.", "# Swapped\n"))
	r = wk(t, s, t.TempDir(), "skills", "install", s.ts.URL, "invoice-check", "--trust-roots", pinnedPEM, "--require-signed")
	if r.code != exitFailure || !strings.Contains(r.stdout, "does not match the signed sourceDigest") {
		t.Errorf("install of bytes the signature does not cover:\n%s", r)
	}

	if r := wk(t, s, t.TempDir(), "skills", "install", s.ts.URL, "--require-signed"); r.code != exitUsage {
		t.Errorf("--require-signed without --trust-roots:\n%s", r)
	}
}

// TestSkillsInstallDoesNotEchoARecordedPublisher: the install record (.wellknown.json)
// is a file a cloned repository can plant. install, finding a skill already there with
// the index's digest, reports it unchanged, but never shows the publisher the record
// claims as a check of this run: "verified: <publisher>" is printed only for what was
// verified now.
func TestSkillsInstallDoesNotEchoARecordedPublisher(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	publishNormal(t, s)
	dir := t.TempDir()
	if r := wk(t, s, dir, "skills", "install", s.ts.URL, "invoice-check"); r.code != 0 {
		t.Fatalf("install:\n%s", r)
	}
	p := filepath.Join(dir, ".agents", "skills", "invoice-check", ".wellknown.json")
	var rec map[string]any
	if err := json.Unmarshal([]byte(mustRead(t, p)), &rec); err != nil {
		t.Fatal(err)
	}
	rec["publisher"] = map[string]any{"verified": true, "publisher": "Planted Corp", "key_id": "k1", "algorithm": "ES256"}
	b, _ := json.Marshal(rec)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	keys := t.TempDir()
	_, pub := writeKey(t, keys, false)
	roots := writeFile(t, keys, "roots.yaml", "- publisher: Example Corp\n  origin: "+s.ts.URL+"\n  pem: |\n    "+
		strings.ReplaceAll(strings.TrimSpace(pub), "\n", "\n    ")+"\n")
	for _, args := range [][]string{
		{"skills", "install", s.ts.URL, "invoice-check", "--trust-roots", roots},
		{"skills", "install", s.ts.URL, "invoice-check", "--trust-roots", roots, "--json"},
	} {
		r := wk(t, s, dir, args...)
		if !strings.Contains(r.stdout, statusUnchanged) || strings.Contains(r.stdout, "Planted Corp") {
			t.Errorf("%s: the record's publisher was shown as checked:\n%s", strings.Join(args, " "), r)
		}
	}
}
