package skills

// --trust-roots FILE and --require-signed: the publishers whose signatures install and
// get accept, configured out of band in a JSON or YAML file.
//
// The file holds a list of roots, each naming what it covers (an "origin" such as
// "https://example.com", or an exact manifest "identity") and where its keys come
// from: "jwks" (a JWK or JWK Set, inline), "pem" (a PEM public key, inline), "keyFile"
// (a file holding either, relative to the roots file), or "jwksUrl" (an https URL,
// fetched under the same policy as the skills); with none, the identity's own keys
// (did:web, or an https identity that is a JWKS URL). "publisher" is the name shown.

import (
	"bytes"
	"crypto"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/go-jose/go-jose/v4"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
	"github.com/wellknown-dev/discovery/internal/skillrules"
	"github.com/wellknown-dev/discovery/trust"
)

// maxTrustRootsBytes bounds the trust roots file and each key file it names.
const maxTrustRootsBytes = 1 << 20

// rootEntry is one root as the file writes it.
type rootEntry struct {
	Publisher string `yaml:"publisher"`
	Identity  string `yaml:"identity"`
	Origin    string `yaml:"origin"`
	JWKS      any    `yaml:"jwks"`
	PEM       string `yaml:"pem"`
	KeyFile   string `yaml:"keyFile"`
	JWKSURL   string `yaml:"jwksUrl"`
}

// trustFlags are --trust-roots and --require-signed.
type trustFlags struct {
	file          string
	requireSigned bool
}

func (f *trustFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.file, "trust-roots", "", "a JSON or YAML file of trusted publishers and their keys: each skill's signature is verified and shown")
	cmd.Flags().BoolVar(&f.requireSigned, "require-signed", false, "refuse every skill whose publisher signature does not verify with --trust-roots")
}

// options returns the discovery Options the flags ask for: nil when neither is set.
func (f *trustFlags) options() (*discovery.Options, error) {
	if f.file == "" && !f.requireSigned {
		return nil, nil
	}
	if f.file == "" {
		return nil, cmdutil.UsageError{Err: errors.New("--require-signed needs --trust-roots FILE: without trusted publishers no signature can verify")}
	}
	roots, err := readTrustRoots(f.file)
	if err != nil {
		return nil, err
	}
	return &discovery.Options{TrustRoots: roots, RequireSignedSkills: f.requireSigned}, nil
}

// readTrustRoots reads a trust roots file: {"roots": [...]} or the list alone.
func readTrustRoots(p string) ([]trust.Root, error) {
	data, err := skillrules.ReadFileLimit(p, maxTrustRootsBytes, "")
	if err != nil {
		return nil, fmt.Errorf("--trust-roots: %w", err)
	}
	var entries []rootEntry
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] != '[' && t[0] != '-' {
		var doc struct {
			Roots []rootEntry `yaml:"roots"`
		}
		err = strictYAML(data, &doc)
		entries = doc.Roots
	} else {
		err = strictYAML(data, &entries)
	}
	if err != nil {
		return nil, fmt.Errorf("--trust-roots %s: %w", p, err)
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("--trust-roots %s: no roots", p)
	}
	roots := make([]trust.Root, 0, len(entries))
	for i, e := range entries {
		r, err := e.root(filepath.Dir(p))
		if err != nil {
			return nil, fmt.Errorf("--trust-roots %s: roots[%d]: %w", p, i, err)
		}
		roots = append(roots, r)
	}
	return roots, nil
}

func strictYAML(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	return dec.Decode(v)
}

// root turns an entry into a trust.Root; dir is the roots file's folder.
func (e rootEntry) root(dir string) (trust.Root, error) {
	r := trust.Root{Publisher: e.Publisher, Identity: e.Identity, Origin: e.Origin, JWKSURL: e.JWKSURL}
	n := 0
	for _, set := range []bool{e.JWKS != nil, e.PEM != "", e.KeyFile != "", e.JWKSURL != ""} {
		if set {
			n++
		}
	}
	if n > 1 {
		return r, errors.New("give one of jwks, pem, keyFile and jwksUrl")
	}
	var err error
	switch {
	case e.JWKS != nil:
		r.JWKS, err = json.Marshal(e.JWKS)
	case e.PEM != "":
		r.JWKS, err = pemJWKS([]byte(e.PEM))
	case e.KeyFile != "":
		p := e.KeyFile
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		var data []byte
		if data, err = skillrules.ReadFileLimit(p, maxTrustRootsBytes, ""); err == nil {
			if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
				r.JWKS = t
			} else {
				r.JWKS, err = pemJWKS(data)
			}
		}
	}
	return r, err
}

// pemJWKS converts a PEM public key (PKIX "PUBLIC KEY") to a JWK whose "kid" is its
// RFC 7638 thumbprint, the key ID "wellknown sign" writes for a PEM key.
func pemJWKS(data []byte) (json.RawMessage, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PUBLIC KEY" {
		return nil, errors.New(`pem: want a PEM "PUBLIC KEY" block`)
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("pem: %w", err)
	}
	jwk := jose.JSONWebKey{Key: pub}
	tp, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, fmt.Errorf("pem: %w", err)
	}
	jwk.KeyID = base64.RawURLEncoding.EncodeToString(tp)
	return jwk.MarshalJSON()
}

// PublisherJSON is a skill's publisher verification as the commands print it.
type PublisherJSON struct {
	Verified  bool   `json:"verified"`
	Publisher string `json:"publisher,omitempty"`
	Identity  string `json:"identity,omitempty"`
	KeyID     string `json:"key_id,omitempty"`
	Algorithm string `json:"algorithm,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// publisherJSON cleans a verification result for printing; nil stays nil.
func publisherJSON(r *trust.Result) *PublisherJSON {
	if r == nil {
		return nil
	}
	return &PublisherJSON{Verified: r.Verified, Publisher: cmdutil.Clean(r.Publisher, 200), Identity: cmdutil.Clean(r.Identity, 1024),
		KeyID: cmdutil.Clean(r.KeyID, 200), Algorithm: cmdutil.Clean(r.Algorithm, 32), Reason: cmdutil.Clean(r.Reason, 1024)}
}

// trustResult is the lock's copy of a printed verification result.
func (p *PublisherJSON) trustResult() *trust.Result {
	if p == nil {
		return nil
	}
	return &trust.Result{Verified: p.Verified, Publisher: p.Publisher, Identity: p.Identity, KeyID: p.KeyID, Algorithm: p.Algorithm, Reason: p.Reason}
}

// String is one line: "verified: <publisher> (<kid>, <alg>)" or "unverified: <why>".
func (p *PublisherJSON) String() string {
	if p.Verified {
		return fmt.Sprintf("verified: %s (%s, %s)", p.Publisher, p.KeyID, p.Algorithm)
	}
	return "unverified: " + p.Reason
}

// listedPublisher is the index's publisher check as it applies to a skill it lists
// (covered: the index gives digests for all of the skill's content): the index's
// signature vouches only for content its digests cover.
func listedPublisher(index *PublisherJSON, covered bool) *PublisherJSON {
	if index == nil || !index.Verified || covered {
		return index
	}
	return &PublisherJSON{Identity: index.Identity, KeyID: index.KeyID, Algorithm: index.Algorithm,
		Reason: "the index is signed, but gives no digest for all of this skill's content"}
}
