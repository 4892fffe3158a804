package secrets

import (
	"strings"
	"testing"
)

var ghToken = "ghp_" + strings.Repeat("Zq7xK2", 6)

func TestRedactURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain", "https://example.com/mcp", "https://example.com/mcp"},
		{"userinfo", "https://user:hunter2pass@host.example/x", "https://host.example/x"},
		{"user only", "https://token@host.example/x", "https://host.example/x"},
		{"query and fragment", "https://host.example/x?access_token=SECRETQUERY123#frag", "https://host.example/x"},
		{"relative with query", "/mcp?access_token=SECRETQUERY123", "/mcp"},
		{"scheme-relative", "//u:p@host.example/x?q", "//host.example/x"},
		{"opaque userinfo", "redis:user:pw@cache", "redis:cache"},
		{"mailto", "mailto:team@example.com?subject=x", "mailto:team@example.com"},
		{"at in path", "https://host.example/a@b", "https://host.example/a@b"},
		{"token in path", "https://host.example/" + ghToken + "/x", "https://host.example/[redacted GitHub token]/x"},
		{"bare token", ghToken, "[redacted GitHub token]"},
		{"format characters", "https://host.example/a\u200bb\u202e", "https://host.example/ab"},
		{"unparsable", "https://user:hunter2 pass@host/x\x7f", UnparsableURL},
		{"secret as a scheme", "sk-live-4eC39HqLyjWDarjtT1zdp7dcQx82Lm:x", "[redacted API secret key]:x"},
		{"bad port", "https://host:port/x", UnparsableURL},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := RedactURL(tc.in); got != tc.want {
				t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestScrub(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain", "unknown status stable-ish", "unknown status stable-ish"},
		{"prose question", "why? because", "why? because"},
		{"userinfo", `url "https://user:hunter2pass@host.example/x" is bad`, `url "https://…@host.example/x" is bad`},
		{"query", "see /mcp?access_token=SECRETQUERY123 now", "see /mcp?access_token=… now"},
		{"query on a word", "a.json?sig=SECRETQUERY123", "a.json?sig=…"},
		{"query names kept", "GET /api/v2/products?q=shoes&page=2#top", "GET /api/v2/products?q=…&page=…#…"},
		{"query value without a name", "/x?SECRETQUERY123", "/x?…"},
		{"separator after a query kept", "discover https://example.com/?a=SECRETQUERY123: GET failed", "discover https://example.com/?a=…: GET failed"},
		{"sentence end after a query kept", "see /x?a=SECRETQUERY123, then /y?b=SECRETQUERY123.", "see /x?a=…, then /y?b=…."},
		{"query name that is no name", "/x?a%20b=SECRETQUERY123&ok=1", "/x?…&ok=…"},
		{"many parameters", "/x?a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9&j=10", "/x?a=…&b=…&c=…&d=…&e=…&f=…&g=…&h=…&…"},
		{"fragment", "https://host.example/cb#access_token=abc", "https://host.example/cb#…"},
		{"schemeless userinfo", "user:hunter2pass@host.example", "…@host.example"},
		{"email", "write to team@example.com", "write to team@example.com"},
		{"skill URI", `"skill://a/SKILL.md?k=v" has a query`, `"skill://a/SKILL.md?k=…" has a query`},
		{"token", "name " + ghToken, "name [redacted GitHub token]"},
		{"token split by a format character", "name ghp_\u200b" + ghToken[4:], "name [redacted GitHub token]"},
		{"basic", "Authorization: Basic dXNlcjpodW50ZXIy", "Authorization: Basic [redacted basic auth credentials]"},
		{"controls", "a\nb\tc\x1b[31m\u202ed", "a b c[31md"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Scrub(tc.in); got != tc.want {
				t.Errorf("Scrub(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestQuote(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"plain", "draft-2", 0, `"draft-2"`},
		{"quotes", `a"b`, 0, `"a\"b"`},
		{"cut", "abcdefghij", 5, `"abcd…"`},
		{"cut runes", "ééééé", 3, `"éé…"`},
		{"default length", strings.Repeat("x", 200), 0, `"` + strings.Repeat("x", DefaultQuoteLen-1) + `…"`},
		{"secret", "sk-live-4eC39HqLyjWDarjtT1zdp7dcQx82Lm", 0, `"[redacted API secret key]"`},
		{"URL", "https://user:hunter2pass@h/x?access_token=SECRETQUERY123", 0, `"https://…@h/x?access_token=…"`},
		{"bidi", "abc\u202egnp.exe", 0, `"abcgnp.exe"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Quote(tc.in, tc.max); got != tc.want {
				t.Errorf("Quote(%q, %d) = %s, want %s", tc.in, tc.max, got, tc.want)
			}
		})
	}
}

func TestScrubError(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"syntax", "line 3: did not find expected ',' or ']'", "line 3: did not find expected ',' or ']'"},
		{"no quotes", "line 2: mapping values are not allowed in this context", "line 2: mapping values are not allowed in this context"},
		{"backticks", "cannot decode !!str `hunter2` as a !!int", "cannot decode !!str " + ValueNotShown + " as a !!int"},
		{"nested backtick", "cannot decode !!str `a` b` as a !!int", "cannot decode !!str " + ValueNotShown + " as a !!int"},
		{"single quotes", "unknown anchor 'tok' referenced", "unknown anchor " + ValueNotShown + " referenced"},
		{"double quotes", `line 3: mapping key "k\"x" already defined at line 2`, "line 3: mapping key " + ValueNotShown + " already defined at line 2"},
		{"one-character anchor", "unknown anchor 'a' referenced", "unknown anchor 'a' referenced"},
		{"pattern", `'x' does not match pattern '^\d+$'`, ValueNotShown},
		{"unquoted secret", "bad value " + ghToken, "bad value [redacted GitHub token]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := ScrubError(tc.in); got != tc.want {
				t.Errorf("ScrubError(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
