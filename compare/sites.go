package main

// The sites of the comparison: one loopback TLS origin per row, served with a test CA
// that both tools are told to trust (WELLKNOWN_CA_FILE, NODE_EXTRA_CA_CERTS).

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// testCA is a CA and a leaf certificate for 127.0.0.1 and localhost.
type testCA struct {
	pemFile string // the CA certificate, PEM
	leaf    tls.Certificate
}

func newTestCA(dir string) (*testCA, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "wellknown comparison CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	leafTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), DNSNames: []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644); err != nil {
		return nil, err
	}
	return &testCA{pemFile: p, leaf: tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: key}}, nil
}

// doc is one document a site serves.
type doc struct {
	body  []byte
	ctype string
}

// site is one origin: its documents, and how it misbehaves.
type site struct {
	docs   map[string]doc
	delay  time.Duration // before every response (the slow row)
	status int           // every response has this status when not 0 (the failing row)
	stall  string        // this path sends headers and half its body, then never ends
	hits   sync.Map      // path → *atomic.Int64
	srv    *http.Server
	url    string // https://127.0.0.1:PORT
	done   chan struct{}
}

// start serves s on a loopback port with the CA's leaf certificate.
func (s *site) start(ca *testCA) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s.done = make(chan struct{})
	s.url = "https://" + ln.Addr().String()
	s.srv = &http.Server{Handler: s, ErrorLog: log.New(io.Discard, "", 0), ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{ca.leaf}, MinVersion: tls.VersionTLS12}}
	go s.srv.ServeTLS(ln, "", "")
	return nil
}

func (s *site) close() {
	close(s.done)
	s.srv.Close()
}

// hitCount returns the requests made for path.
func (s *site) hitCount(path string) int64 {
	if v, ok := s.hits.Load(path); ok {
		return v.(*atomic.Int64).Load()
	}
	return 0
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v, _ := s.hits.LoadOrStore(r.URL.Path, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-r.Context().Done():
			return
		}
	}
	if s.status != 0 {
		http.Error(w, http.StatusText(s.status), s.status)
		return
	}
	d, ok := s.docs[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", d.ctype)
	if r.URL.Path == s.stall {
		w.Header().Set("Content-Length", fmt.Sprint(len(d.body)))
		w.WriteHeader(http.StatusOK)
		w.Write(d.body[:len(d.body)/2])
		w.(http.Flusher).Flush()
		select { // the rest never comes
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	}
	w.Write(d.body)
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func skillMD(name, desc, body string) []byte {
	return []byte("---\nname: " + name + "\ndescription: " + desc + "\n---\n\n" + body)
}

// member is one entry of a tar archive.
type member struct {
	name string
	body string
	typ  byte // 0: regular file
	link string
	zero int64 // this many zero bytes instead of body
}

func tarGz(ms ...member) ([]byte, error) {
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(zw)
	for _, m := range ms {
		// USTAR whenever the name fits, so that a reader that ignores PAX records sees
		// the same name as one that reads them.
		h := &tar.Header{Name: m.name, Typeflag: m.typ, Linkname: m.link, Mode: 0o644, ModTime: time.Unix(1700000000, 0), Format: tar.FormatUSTAR}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(m.body)) + m.zero
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("%s: %w", m.name, err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := io.WriteString(tw, m.body); err != nil {
				return nil, err
			}
			if m.zero > 0 {
				if _, err := io.CopyN(tw, zeroReader{}, m.zero); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// entry is one v0.2.0 index entry.
type entry struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	URL         string `json:"url"`
	Digest      string `json:"digest"`
}

const (
	schemaV020 = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
	indexV020  = "/.well-known/agent-skills/index.json"
	indexV010  = "/.well-known/skills/index.json"
)

// v020 returns the documents of a v0.2.0 index listing entries, with each artifact at
// /.well-known/agent-skills/URL (unless the URL is absolute).
func v020(entries []entry, artifacts map[string][]byte) map[string]doc {
	docs := map[string]doc{}
	for _, e := range entries {
		body, ok := artifacts[e.Name]
		if !ok || strings.Contains(e.URL, "://") {
			continue
		}
		ctype := "text/markdown; charset=utf-8"
		if e.Type == "archive" {
			ctype = "application/gzip"
		}
		docs["/.well-known/agent-skills/"+e.URL] = doc{body, ctype}
	}
	data, _ := json.MarshalIndent(map[string]any{"$schema": schemaV020, "skills": entries}, "", "  ")
	docs[indexV020] = doc{data, "application/json"}
	return docs
}

// Fixture content.
var (
	invoiceMD = skillMD("invoice-check", "Check supplier invoices against purchase orders. Use when an invoice arrives.",
		"# Invoice check\n\nCompare each line with `references/RULES.md`.\n")
	rulesMD  = "# Rules\n\nTotals must match within 0.01.\n"
	ledgerMD = skillMD("ledger", "Export ledgers to CSV. Use when a user asks for accounting data.",
		"# Ledger\n\nThe columns are in `references/FORMAT.md`.\n")
	formatMD = "# Format\n\nDate, account, amount; comma separated.\n"
	evilMD   = skillMD("evil", "A skill whose archive is hostile.", "# Evil\n")
)

// Markers the checks look for.
const (
	tamperMarker = "TAMPERED-CONTENT"
	pwned        = "PWNED"
)

// escapePayloads are the terminal sequences the escape rows publish; finding any of
// them in a tool's output means a site's bytes reached the terminal.
var escapePayloads = []string{
	"\x1b]0;" + pwned,    // OSC 0: set the window title
	"\x1b]52;c;",         // OSC 52: write the clipboard
	"\x1b[2J",            // clear the screen
	"\x1b[38;5;201m",     // a colour neither tool uses
	"\u009b38;5;201m",    // the same as a C1 control
	"\x1b[8m",            // hidden text
	"\x1b]8;;https://pw", // OSC 8 hyperlink
}

// escapeText holds every payload.
var escapeText = "Totally normal skill " + strings.Join([]string{
	"\x1b]0;" + pwned + "\x07", "\x1b]52;c;cm0gLXJmIH4=\x07", "\x1b[2J", "\x1b[38;5;201mpink\x1b[0m",
	"\u009b38;5;201mc1", "\x1b[8mhidden", "\x1b]8;;https://pwned.example\x07link\x1b]8;;\x07",
}, " ")

// yamlQuote quotes s as a YAML double-quoted scalar: JSON's escapes are valid YAML,
// and C1 controls, which YAML does not allow raw, are escaped as well.
func yamlQuote(s string) string {
	b, _ := json.Marshal(s)
	return strings.ReplaceAll(string(b), "\u009b", `\u009b`)
}
