package trust

import (
	"encoding/json"
	"testing"
)

// FuzzVerify feeds arbitrary manifests (and with them arbitrary signatures) to Verify
// with a pinned key: it must never panic, and must verify only a manifest whose
// canonical form is what the key signed.
func FuzzVerify(f *testing.F) {
	k := newEd25519(f)
	good := sign(f, testManifest(f, testIdentity, Digest(artifact)), k)
	f.Add(good)
	f.Add(testManifest(f, testIdentity, Digest(artifact)))
	f.Add([]byte(`{"identity":"x","signature":"eyJhbGciOiJub25lIn0..","provenance":[{"sourceDigest":"sha1:00"}]}`))
	f.Add([]byte(`{"identity":"` + testIdentity + `","signature":"e30..","metadata":[[[[{}]]]]}`))
	f.Add([]byte(`[1,2,{"a":"\u0000"}]`))
	opts := &Options{Roots: []Root{{Identity: testIdentity, JWKS: jwks(f, k)}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Verify(t.Context(), data, Expect{Identifier: testIdentity, Artifact: artifact}, opts)
		if res == nil {
			t.Fatal("Verify() returned a nil Result")
		}
		if (err == nil) != res.Verified {
			t.Fatalf("Verify() = %+v, %v: Verified disagrees with the error", res, err)
		}
		if res.Verified {
			// Whatever verified must carry the same signed payload as the original.
			m, err := parseManifest(data)
			g, _ := parseManifest(good)
			if err != nil || string(m.payload) != string(g.payload) {
				t.Fatalf("verified a manifest whose payload differs from the signed one: %s", data)
			}
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("Result does not encode: %v", err)
		}
	})
}
