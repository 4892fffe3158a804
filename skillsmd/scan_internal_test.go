package skillsmd

import (
	"math/rand"
	"regexp"
	"slices"
	"testing"
)

// baseLabelRe is the regular expression baseLabels implements.
var baseLabelRe = regexp.MustCompile(`(?i)(?:^|[^\w./-])["']?(api[ _-]?base(?:[ _-]?(?:url|uri|path)s?)?|base[ _-]?(?:url|uri|path|endpoint)s?|api[ _-]?(?:url|root|endpoint|host)|api|base)["']?\s*[:=]\s*`)

// checkBaseLabels fails when baseLabels(l) differs from baseLabelRe's matches.
func checkBaseLabels(t *testing.T, l string) {
	t.Helper()
	var want []baseLabel
	for _, m := range baseLabelRe.FindAllStringSubmatchIndex(l, -1) {
		want = append(want, baseLabel{m[0], m[1], m[2], m[3]})
	}
	if got := baseLabels(l, nil); !slices.Equal(got, want) {
		t.Fatalf("baseLabels(%q) = %v, want %v", l, got, want)
	}
}

// TestBaseLabels checks baseLabels against the regular expression it replaces, on
// text made of the pieces that decide a match.
func TestBaseLabels(t *testing.T) {
	t.Parallel()
	pieces := []string{"api", "API", "Api", "base", "BASE", "baſe", "BAſE", "url", "URL", "uri", "path", "paths",
		"endpoint", "endpoints", "root", "host", "s", "S", "ſ", "K", " ", "_", "-", ".", "/", "\"", "'", ":", "=",
		"\t", "\n", "\v", "x", "1", "é", "\xff", "**", "`"}
	// Label-shaped runs, so that most texts hold matches, and several.
	pick := func(r *rand.Rand, s ...string) string { return s[r.Intn(len(s))] }
	label := func(r *rand.Rand) string {
		return pick(r, "", "x", " ", "-", ".", "é", "\xff", "ſ", "K", "(", "*") + pick(r, "", "\"", "'") +
			pick(r, "api", "API", "base", "Base", "baſe", "ap", "bas") + pick(r, "", " ", "_", "-", "__", ".") +
			pick(r, "", "base", "url", "URL", "uri", "path", "endpoint", "root", "host", "Base") + pick(r, "", "", "s", "ſ", " ", "_", "-") +
			pick(r, "", "url", "path", "paths") + pick(r, "", "\"", "'") + pick(r, "", " ", "\t", "\n", "\v") +
			pick(r, ":", "=", ":", "", "-", ";") + pick(r, "", " ", "  ", "\t", "\f")
	}
	r := rand.New(rand.NewSource(1))
	for range 200000 {
		var b []byte
		for range r.Intn(10) {
			b = append(b, pieces[r.Intn(len(pieces))]...)
		}
		checkBaseLabels(t, string(b))
		b = b[:0]
		for range 1 + r.Intn(4) {
			b = append(b, label(r)...)
		}
		checkBaseLabels(t, string(b))
	}
}

// FuzzBaseLabels checks baseLabels against the regular expression it replaces.
func FuzzBaseLabels(f *testing.F) {
	f.Add("- **API Base URL:** https://x.example/v1, base_path = /v2 \"apiBase\": 'x'")
	f.Add("Base: x | API: y | api-root=z ſbase: w")
	f.Fuzz(func(t *testing.T, l string) { checkBaseLabels(t, l) })
}

// endpointMention is the regular expression firstEndpointMention implements.
var endpointMention = regexp.MustCompile(`\b(?:GET|POST|PUT|PATCH|DELETE)\s+(?:https?://\S+|/\S*)`)

// TestFirstEndpointMention checks firstEndpointMention against the regular
// expression it replaces, on text made of the pieces that decide a match.
func TestFirstEndpointMention(t *testing.T) {
	t.Parallel()
	pieces := []string{"GET", "POST", "PUT", "PATCH", "DELETE", "get", "XGET", "_GET", "GETS", "POSTPUT",
		"é", " ", "\t", "\n", "\v", "\f", "\r", "/", "http://", "https://", "https:/", "x", "a/b", "-", "."}
	r := rand.New(rand.NewSource(1))
	for range 100000 {
		var b []byte
		for range r.Intn(12) {
			b = append(b, pieces[r.Intn(len(pieces))]...)
		}
		want := -1
		if loc := endpointMention.FindIndex(b); loc != nil {
			want = loc[0]
		}
		if got := firstEndpointMention(b); got != want {
			t.Fatalf("firstEndpointMention(%q) = %d, want %d", b, got, want)
		}
	}
}

// FuzzFirstEndpointMention checks firstEndpointMention against the regular
// expression it replaces.
func FuzzFirstEndpointMention(f *testing.F) {
	f.Add([]byte("Use GET /v1/items or\tPOST https://x.example/y"))
	f.Add([]byte("TARGET /x _GET /y GET\v/z PATCH https:// x"))
	f.Fuzz(func(t *testing.T, b []byte) {
		want := -1
		if loc := endpointMention.FindIndex(b); loc != nil {
			want = loc[0]
		}
		if got := firstEndpointMention(b); got != want {
			t.Fatalf("firstEndpointMention(%q) = %d, want %d", b, got, want)
		}
	})
}
