package agentskills_test

import (
	"crypto/sha256"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
)

func TestDigest(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/invoice-check.md") // the 183-byte example of the specs
	if err != nil {
		t.Fatal(err)
	}
	const want = "sha256:d8783ab9425d86f5d80dd4acb8fa2529629544d00ad023af234d8704ceace375"
	if got := agentskills.Digest(data); got != want {
		t.Fatalf("Digest = %s", got)
	}
	rules := []byte("# Rules\n\nTotals must match within 0.01.\n")
	if got := agentskills.Digest(rules); got != "sha256:3e6ace4dcc0337f61487c149690fa50fbbeafdf765c5bbb67a03cd5f37fd823e" || len(rules) != 40 {
		t.Fatalf("Digest(RULES.md) = %s", got)
	}
	for _, tc := range []struct {
		name   string
		size   int64
		digest string
		ok     bool
	}{
		{"matches", 183, want, true},
		{"size unknown", -1, want, true},
		{"wrong size", 182, want, false},
		{"uppercase hex", 183, "sha256:" + strings.ToUpper(want[7:]), false},
		{"placeholder", 183, "sha256:a1b2c3d4...", false},
		{"other algorithm", 183, "sha512:" + want[7:], false},
		{"wrong digest", 183, agentskills.Digest([]byte("x")), false},
	} {
		err := agentskills.Verify(data, tc.size, tc.digest)
		if tc.ok != (err == nil) || err != nil && !errors.Is(err, agentskills.ErrDigestMismatch) {
			t.Errorf("%s: Verify = %v", tc.name, err)
		}
	}
}

// Verifying a 512-file, 16 MiB skill (size and digest of each) against crypto/sha256
// over the same bytes in one buffer: the budget is 90% of the raw throughput.
func benchSkill(b *testing.B) ([][]byte, []string, []byte) {
	b.Helper()
	const files, size = 512, 32 << 10 // 16 MiB in all
	var parts [][]byte
	var digests []string
	all := make([]byte, 0, files*size)
	for i := range files {
		p := make([]byte, size)
		for j := range p {
			p[j] = byte(i + j*7)
		}
		parts = append(parts, p)
		digests = append(digests, agentskills.Digest(p))
		all = append(all, p...)
	}
	return parts, digests, all
}

func BenchmarkVerifySkill(b *testing.B) {
	parts, digests, all := benchSkill(b)
	b.SetBytes(int64(len(all)))
	for b.Loop() {
		for i, p := range parts {
			if err := agentskills.Verify(p, int64(len(p)), digests[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkSHA256Raw(b *testing.B) {
	_, _, all := benchSkill(b)
	b.SetBytes(int64(len(all)))
	for b.Loop() {
		sha256.Sum256(all)
	}
}
