// Package sign is the command "wellknown sign": it writes the Trust Manifest and
// publisher signature of a published artifact (a SKILL.md, a skill archive, an index),
// for hosts that verify publishers with --trust-roots.
package sign

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
	"github.com/wellknown-dev/discovery/internal/skillrules"
	"github.com/wellknown-dev/discovery/trust"
)

// maxInputBytes bounds a key file and an artifact read for signing.
const maxInputBytes = 64 << 20

// New returns the "wellknown sign" command, which runs with a.
func New(a *cmdutil.App) *cobra.Command {
	var keyFile, identity, baseURL, root, jwksOut string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "sign --key KEY (--identity ID | --base-url URL) ARTIFACT...",
		Short: "Write the signed Trust Manifest (ARTIFACT.trust.json) of published artifacts",
		Long: `Sign writes, beside each ARTIFACT (a SKILL.md, a skill archive, an index), its Trust
Manifest, ARTIFACT.trust.json: the AI Catalog's manifest format with "identity" (the
URL the artifact is published at), "provenance" (its sourceDigest, the SHA-256 of the
file's bytes) and "signature", a detached compact JWS over the JCS canonical form of
the rest, made with KEY (PEM PKCS #8 "PRIVATE KEY" or a private JWK: P-256 gives ES256,
P-384 ES384, Ed25519 EdDSA, RSA PS256). Publish the manifest at the artifact's URL with
.trust.json appended: that is where "wellknown skills install --trust-roots" looks.

Signing the index (.well-known/agent-skills/index.json, exactly the bytes served)
vouches for every skill it lists with a digest: a host verifies a skill without a
manifest of its own through the index's manifest (index.json.trust.json), as long as
the skill's bytes match the digest the signed index lists. Sign the index again after
every change to it.

--identity names the one ARTIFACT's URL. With --base-url, each ARTIFACT's identity is
the base URL followed by its path relative to --root (default: the current folder), so
a whole published tree signs in one run:

  wellknown sign --key key.pem --base-url https://example.com --root public \
      public/.well-known/agent-skills/*/SKILL.md public/.well-known/agent-skills/*.tar.gz
  wellknown sign --key key.pem --base-url https://example.com --root public \
      public/.well-known/agent-skills/index.json

--jwks-out FILE writes the public key as a JWK Set, for hosts to pin (in their
--trust-roots file) or for you to publish at a JWKS URL. A manifest proves that the
key's holder vouched for exactly these bytes at that URL; it says nothing about
whether they are safe.`,
		Example: `  wellknown sign --key key.pem --identity https://example.com/.well-known/agent-skills/pdf/SKILL.md SKILL.md
  wellknown sign --key key.pem --base-url https://example.com --root public --jwks-out jwks.json public/.well-known/agent-skills/pdf/SKILL.md`,
		Args: func(_ *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return cmdutil.UsageError{Err: errors.New("sign: name at least one ARTIFACT")}
			case keyFile == "":
				return cmdutil.UsageError{Err: errors.New("sign: --key KEY is required")}
			case (identity == "") == (baseURL == ""):
				return cmdutil.UsageError{Err: errors.New("sign: give --identity (one ARTIFACT) or --base-url")}
			case identity != "" && len(args) > 1:
				return cmdutil.UsageError{Err: errors.New("sign: --identity names one ARTIFACT; use --base-url for several")}
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			data, err := skillrules.ReadFileLimit(keyFile, maxInputBytes, "")
			if err != nil {
				return err
			}
			key, err := trust.ParseSigningKey(data)
			if err != nil {
				return fmt.Errorf("%s: %w", keyFile, err)
			}
			if jwksOut != "" {
				pub, err := key.PublicJWKS()
				if err != nil {
					return err
				}
				if err := os.WriteFile(jwksOut, append(pub, '\n'), 0o644); err != nil {
					return err
				}
			}
			type signed struct {
				Artifact string `json:"artifact"`
				Identity string `json:"identity"`
				Manifest string `json:"manifest"`
				Digest   string `json:"digest"`
			}
			out := struct {
				KeyID     string   `json:"key_id"`
				Algorithm string   `json:"algorithm"`
				Signed    []signed `json:"signed"`
			}{KeyID: key.KeyID, Algorithm: key.Algorithm}
			for _, p := range args {
				id := identity
				if id == "" {
					if id, err = identityOf(baseURL, root, p); err != nil {
						return err
					}
				}
				m, d, err := signFile(p, id, key)
				if err != nil {
					return err
				}
				out.Signed = append(out.Signed, signed{Artifact: p, Identity: id, Manifest: m, Digest: d})
			}
			if asJSON {
				return a.PrintJSON(out)
			}
			for _, s := range out.Signed {
				fmt.Fprintf(a.Out, "%s  %s\n    identity %s\n", s.Manifest, s.Digest, s.Identity)
			}
			fmt.Fprintf(a.Out, "signed with %s key %s\n", out.Algorithm, out.KeyID)
			return nil
		},
	}
	cmd.Flags().StringVar(&keyFile, "key", "", "the private key file: PEM PKCS #8 or a private JWK")
	cmd.Flags().StringVar(&identity, "identity", "", "the URL the one ARTIFACT is published at (the manifest's identity)")
	cmd.Flags().StringVar(&baseURL, "base-url", "", "the URL --root is published at; each ARTIFACT's identity is this URL and its path under --root")
	cmd.Flags().StringVar(&root, "root", ".", "with --base-url: the folder published at the base URL")
	cmd.Flags().StringVar(&jwksOut, "jwks-out", "", "also write the public key as a JWK Set to this file")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// identityOf is the URL file p is published at: base followed by p's path under root.
func identityOf(base, root, p string) (string, error) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", cmdutil.UsageError{Err: fmt.Errorf("sign: %s is not under --root %s", p, root)}
	}
	return strings.TrimSuffix(base, "/") + "/" + filepath.ToSlash(rel), nil
}

// signFile writes p's signed manifest to p + trust.ManifestSuffix and returns its
// path and the artifact's digest.
func signFile(p, identity string, key *trust.SigningKey) (string, string, error) {
	data, err := skillrules.ReadFileLimit(p, maxInputBytes, "")
	if err != nil {
		return "", "", err
	}
	d := trust.Digest(data)
	m, err := json.Marshal(map[string]any{"identity": identity, "provenance": []any{
		map[string]any{"relation": "publishedFrom", "sourceId": identity, "sourceDigest": d}}})
	if err != nil {
		return "", "", err
	}
	signed, err := trust.Sign(m, key)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", p, err)
	}
	out := p + trust.ManifestSuffix
	if err := os.WriteFile(out, append(signed, '\n'), 0o644); err != nil {
		return "", "", err
	}
	return out, d, nil
}
