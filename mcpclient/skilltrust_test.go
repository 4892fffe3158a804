package mcpclient_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"sort"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/mcpclient"
	"github.com/wellknown-dev/discovery/trust"
)

func mcpSigningKey(t *testing.T) *trust.SigningKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	sk, err := trust.ParseSigningKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

// TestReadSkillPublisher: with Options.TrustRoots, ReadSkill verifies the Trust
// Manifest in the skill entry's _meta (trust.MCPMetaKey) against the bytes read: its
// identity must be the SKILL.md URI and its provenance must hold the digest of every
// file, so a manifest of SKILL.md alone does not vouch for the other files.
func TestReadSkillPublisher(t *testing.T) {
	t.Parallel()
	sk := newSkill("tool", map[string]string{"references/RULES.md": "# Rules\n", "scripts/run.sh": "echo hi\n"})
	uri := "skill://tool/SKILL.md"
	key, other := mcpSigningKey(t), mcpSigningKey(t)
	pub, _ := key.PublicJWKS()
	roots := []trust.Root{{Publisher: "Example Corp", Identity: uri, JWKS: pub}}
	digests := func(only ...string) []string {
		var out []string
		for p, c := range sk.files {
			if len(only) == 0 || p == only[0] {
				out = append(out, agentskills.Digest([]byte(c)))
			}
		}
		sort.Strings(out)
		return out
	}
	manifest := func(identity string, ds []string, k *trust.SigningKey) json.RawMessage {
		var prov []any
		for _, d := range ds {
			prov = append(prov, map[string]any{"relation": "publishedFrom", "sourceDigest": d})
		}
		m, _ := json.Marshal(map[string]any{"identity": identity, "provenance": prov})
		b, err := trust.Sign(m, k)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name  string
		meta  json.RawMessage // nil: no _meta
		roots []trust.Root
		want  error // nil: verified
	}{
		{"every file signed", manifest(uri, digests(), key), roots, nil},
		{"SKILL.md alone signed", manifest(uri, digests("SKILL.md"), key), roots, trust.ErrDigestMismatch},
		{"no manifest", nil, roots, trust.ErrUnsigned},
		{"identity of another skill", manifest("skill://other/SKILL.md", digests(), key), roots, trust.ErrIdentity},
		{"wrong key", manifest(uri, digests(), other), roots, trust.ErrUnknownKey},
		{"no roots", manifest(uri, digests(), key), nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := &skillServer{declare: true, skills: []testSkill{sk}, listHook: func(entries []map[string]any) []map[string]any {
				if tc.meta != nil {
					entries[0]["_meta"] = map[string]any{trust.MCPMetaKey: tc.meta}
				}
				return entries
			}}
			s := connect(t, srv.start(t), &mcpclient.Options{TrustRoots: tc.roots})
			l, err := s.ListSkills(t.Context())
			if err != nil || len(l.Skills) != 1 {
				t.Fatalf("ListSkills() = %+v, %v", l, err)
			}
			c, err := s.ReadSkill(t.Context(), &l.Skills[0], nil)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.roots == nil:
				if c.Publisher != nil {
					t.Fatalf("Publisher = %+v without roots, want nil", c.Publisher)
				}
			case tc.want == nil:
				if c.Publisher == nil || !c.Publisher.Verified || c.Publisher.Publisher != "Example Corp" || c.Publisher.Algorithm != "ES256" {
					t.Fatalf("Publisher = %+v, want verified", c.Publisher)
				}
			default:
				if c.Publisher == nil || c.Publisher.Verified || !strings.HasPrefix(c.Publisher.Reason, tc.want.Error()) {
					t.Fatalf("Publisher = %+v, want unverified: %v", c.Publisher, tc.want)
				}
			}
		})
	}
}
