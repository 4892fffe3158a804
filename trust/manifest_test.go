package trust

import (
	"errors"
	"testing"
)

// TestSigningInputIsJCS checks the signed payload against the example of RFC 8785
// section 3.2.2 (with an identity added) and that "signature" is left out.
func TestSigningInputIsJCS(t *testing.T) {
	t.Parallel()
	in := `{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/","literals":[null,true,false],"identity":"x","signature":"a..b"}`
	want := `{"identity":"x","literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
	m, err := parseManifest([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(m.payload) != want {
		t.Errorf("payload =\n%s\nwant\n%s", m.payload, want)
	}
	if m.signature != "a..b" || m.identity != "x" {
		t.Errorf("parseManifest() = %+v", m)
	}
}

func TestParseManifestDigests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		prov string
		want error
	}{
		{"sha256", `"sha256:` + repeat("ab", 32) + `"`, nil},
		{"sha512", `"sha512:` + repeat("ab", 64) + `"`, nil},
		{"sha1", `"sha1:` + repeat("ab", 20) + `"`, ErrWeakDigest},
		{"md5", `"md5:` + repeat("ab", 16) + `"`, ErrWeakDigest},
		{"truncated sha256", `"sha256:` + repeat("ab", 20) + `"`, ErrWeakDigest},
		{"upper-case hex", `"sha256:` + repeat("AB", 32) + `"`, ErrWeakDigest},
		{"no algorithm", `"` + repeat("ab", 32) + `"`, ErrWeakDigest},
		{"not a string", `42`, ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			doc := `{"identity":"x","provenance":[{"relation":"r","sourceId":"s","sourceDigest":` + tc.prov + `}]}`
			_, err := parseManifest([]byte(doc))
			if !errors.Is(err, tc.want) {
				t.Fatalf("parseManifest() error = %v, want %v", err, tc.want)
			}
		})
	}
	// Member names are matched exactly: a differently cased member is not a digest.
	m, err := parseManifest([]byte(`{"identity":"x","provenance":[{"SOURCEDIGEST":"sha256:` + repeat("ab", 32) + `"}]}`))
	if err != nil || len(m.digests) != 0 {
		t.Errorf("parseManifest() digests = %v, %v; want none", m, err)
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}
