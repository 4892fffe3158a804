package secrets

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestScan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string // kinds, in order
	}{
		{"nothing", "# Skills\n\n- Base path: `/api`\n- Do not put tokens in this file.\n", nil},
		{"PEM", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n", []string{"private key"}},
		{"OpenSSH PEM", "-----BEGIN OPENSSH PRIVATE KEY-----", []string{"private key"}},
		{"AWS", "aws_access_key_id = AKIAQWERTYUIOPASDFGH\n", []string{"AWS access key id"}},
		{"AWS doc example", "AKIAIOSFODNN7EXAMPLE", nil},
		{"GitHub", "token ghp_" + strings.Repeat("a1B2", 9) + " end", []string{"GitHub token"}},
		{"GitHub fine-grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", []string{"GitHub token"}},
		{"Slack", "xoxb-1234567890-abcdefghij", []string{"Slack token"}},
		{"Slack placeholder", "xoxb-your-token-here", nil},
		{"JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", []string{"JSON Web Token"}},
		{"bearer", "Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0", []string{"bearer token"}},
		{"bearer placeholder", "Authorization: Bearer <your-token>", nil},
		{"bearer short", "Authorization: Bearer bk_xxx", nil},
		{"bearer word", "Send a Bearer token with every request.", nil},
		{"api_key assignment", "api_key=Zx81kq0PLm2Nc7Vb93Tr", []string{"credential assignment"}},
		{"password assignment", `"password": "hunter2hunter2X9q"`, []string{"credential assignment"}},
		{"assignment placeholder", "api_key=YOUR_API_KEY_HERE_123", nil},
		{"assignment env", "token: ${{ secrets.TOKEN_123456 }}", nil},
		{"assignment path", "token=/var/run/secrets/token1234", nil},
		{"Stripe", "sk_live_" + strings.Repeat("4eC39HqLyjWDarjtT1zdp7dc", 1), []string{"Stripe key"}},
		{"two", "AKIAQWERTYUIOPASDFGH and xoxp-1234567890-abcdefghij", []string{"AWS access key id", "Slack token"}},
		{"basic header", "Authorization: Basic dXNlcjpodW50ZXIy", []string{"basic auth credentials"}},
		{"basic padded", "curl -H 'Authorization: basic YWxpY2U6czNjcmV0IQ=='", []string{"basic auth credentials"}},
		{"basic unpadded", "Basic YWxpY2U6czNjcmV0IQ end", []string{"basic auth credentials"}},
		{"basic prose", "Basic authentication is supported; Basic instructions follow.", nil},
		{"basic no colon", "Basic aGVsbG93b3JsZA==", nil}, // "helloworld"
		{"URL password", "clone https://user:hunter2pass@git.example.com/repo.git", []string{"URL password"}},
		{"URL password, other scheme", `"postgres://app:S3cr3t@db:5432/x"`, []string{"URL password"}},
		{"URL user only", "https://user@example.com/x", nil},
		{"URL empty password", "https://user:@example.com/x", nil},
		{"URL placeholder password", "https://user:${PASSWORD}@example.com/x and https://u:<pass>@h", nil},
		{"at in path", "https://example.com/a:b@c and https://example.com?x=a:b@c", nil},
		{"URL password and token", "https://x:ghp_" + strings.Repeat("a1B2", 9) + "@github.com/o/r", []string{"URL password"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Scan(tc.in)
			var kinds []string
			for _, f := range got {
				kinds = append(kinds, f.Kind)
				if f.Offset < 0 || f.Offset+f.Length > len(tc.in) {
					t.Errorf("finding %+v outside the input", f)
				}
			}
			if strings.Join(kinds, ",") != strings.Join(tc.want, ",") {
				t.Errorf("Scan = %v, want %v", kinds, tc.want)
			}
			red := Redact(tc.in)
			for _, f := range got {
				if strings.Contains(red, tc.in[f.Offset:f.Offset+f.Length]) {
					t.Errorf("Redact kept the secret: %q", red)
				}
			}
		})
	}
}

func FuzzScan(f *testing.F) {
	f.Add("Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0 AKIAQWERTYUIOPASDFGH")
	f.Add("-----BEGIN PRIVATE KEY-----")
	f.Add("Authorization: Basic dXNlcjpodW50ZXIy https://user:hunter2pass@host/x?access_token=SECRETQUERY123#f")
	f.Add("a://b://c:d@e/ \u200bghp_" + strings.Repeat("a1B2", 9))
	f.Fuzz(func(t *testing.T, s string) {
		prev := 0
		for _, fd := range Scan(s) {
			if fd.Offset < prev || fd.Length <= 0 || fd.Offset+fd.Length > len(s) {
				t.Fatalf("bad finding %+v", fd)
			}
			prev = fd.Offset + fd.Length
		}
		_ = Redact(s)
		q := Quote(s, 40)
		u, err := strconv.Unquote(q)
		if err != nil || utf8.RuneCountInString(u) > 40 || strings.IndexFunc(u, invisible) >= 0 {
			t.Fatalf("Quote(%q) = %s", s, q)
		}
		if r := RedactURL(s); strings.ContainsAny(r, "?#") || strings.IndexFunc(r, invisible) >= 0 {
			t.Fatalf("RedactURL(%q) = %q", s, r)
		}
		_ = ScrubError(s)
	})
}

func BenchmarkScanClean(b *testing.B) {
	s := strings.Repeat("- `GET /api/v2/books/{id}`: read a book. Ask before writes; the token must not be shared.\n", 90)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Scan(s)
	}
}

// TestDetectorExpressionsCompile compiles every detector's expression (they are
// compiled on first use, so a bad one would otherwise panic in the middle of a scan).
func TestDetectorExpressionsCompile(t *testing.T) {
	for _, d := range detectors {
		if d.re().NumSubexp() < 0 {
			t.Errorf("%s: bad expression", d.kind)
		}
	}
}
