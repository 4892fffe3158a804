package discovery_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery"
)

func TestParseOrigin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    string
		wantErr error
	}{
		{"example.com", "https://example.com", nil},
		{"  Example.COM  ", "https://example.com", nil},
		{"https://Example.COM:443/any/path?q=secret#f", "https://example.com", nil},
		{"https://user:pass@example.com/x", "https://example.com", nil},
		{"https://example.com:8443", "https://example.com:8443", nil},
		{"https://example.com:08443", "https://example.com:8443", nil},
		{"https://example.com:", "https://example.com", nil},
		{"example.com:8443", "https://example.com:8443", nil},
		{"https://example.com.", "https://example.com", nil},
		{"HTTPS://EXAMPLE.com", "https://example.com", nil},
		{"https://bücher.example", "https://xn--bcher-kva.example", nil},
		{"https://BÜCHER.example/x", "https://xn--bcher-kva.example", nil},
		{"https://[2001:DB8::1]:443/", "https://[2001:db8::1]", nil},
		{"https://[2001:db8::1]:8443", "https://[2001:db8::1]:8443", nil},
		{"[::1]:8080", "https://[::1]:8080", nil},
		{"http://localhost:8080/x", "http://localhost:8080", nil},
		{"http://127.0.0.1", "http://127.0.0.1", nil},
		{"http://127.1.2.3:80", "http://127.1.2.3", nil},
		{"http://[::1]:9000", "http://[::1]:9000", nil},
		{"http://example.com", "", discovery.ErrInsecureOrigin},
		{"http://10.0.0.1", "", discovery.ErrInsecureOrigin},
		{"http://localhost.example.com", "", discovery.ErrInsecureOrigin},
		{"ftp://example.com", "", discovery.ErrInsecureOrigin},
		{"file:///etc/passwd", "", discovery.ErrInsecureOrigin},
		{"javascript:alert(1)", "", discovery.ErrInsecureOrigin},
		{"mailto:someone@example.com", "", discovery.ErrInsecureOrigin},
		{"", "", discovery.ErrInvalidOrigin},
		{"https://", "", discovery.ErrInvalidOrigin},
		{"https://exa mple.com", "", discovery.ErrInvalidOrigin},
		{"https://example.com:99999", "", discovery.ErrInvalidOrigin},
		{"https://example.com:0", "", discovery.ErrInvalidOrigin},
		{"https://[fe80::1%25eth0]/", "", discovery.ErrInvalidOrigin},
		{"https://a..b", "", discovery.ErrInvalidOrigin},
		{"https://example.com..", "", discovery.ErrInvalidOrigin},
		{"https://2130706433/", "", discovery.ErrInvalidOrigin},
		{"https://0x7f.1/", "", discovery.ErrInvalidOrigin},
		{"https://1.2.3/", "", discovery.ErrInvalidOrigin},
		{"https://\x88/", "", discovery.ErrInvalidOrigin},
		// A scheme missing part of "://" is not a host named "https".
		{"https//example.com", "", discovery.ErrInvalidOrigin},
		{"https:/example.com", "", discovery.ErrInvalidOrigin},
		{"HTTPS:example.com/x", "", discovery.ErrInvalidOrigin},
		{"http//localhost:8080", "", discovery.ErrInvalidOrigin},
		{"https.example.com", "https://https.example.com", nil},
		{"httpbin.org", "https://httpbin.org", nil},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			o, err := discovery.ParseOrigin(tc.in)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("ParseOrigin(%q) error = %v, want %v", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseOrigin(%q) error = %v", tc.in, err)
			}
			if got := o.String(); got != tc.want {
				t.Errorf("ParseOrigin(%q) = %q, want %q", tc.in, got, tc.want)
			}
			again, err := discovery.ParseOrigin(o.String())
			if err != nil || again != o {
				t.Errorf("ParseOrigin(%q) does not round-trip: %v, %v", o.String(), again, err)
			}
		})
	}
}

func TestParseOriginErrorsAreRedacted(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"http://user:hunter2@example.com/?token=hunter2",
		"ftp://user:hunter2@example.com/?token=hunter2#hunter2",
		"https://user:hunter2@exa mple.com/?token=hunter2",
	} {
		_, err := discovery.ParseOrigin(in)
		if err == nil {
			t.Fatalf("ParseOrigin(%q) succeeded", in)
		}
		if msg := err.Error(); containsAny(msg, "hunter2", "user") {
			t.Errorf("ParseOrigin(%q) error %q leaks a secret", in, msg)
		}
	}
}

func TestOriginMatchesAndResolve(t *testing.T) {
	t.Parallel()
	o, err := discovery.ParseOrigin("https://example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		u    string
		want bool
	}{
		{"https://example.com/a", true},
		{"https://EXAMPLE.com:443/b?c", true},
		{"https://example.com:8443/", false},
		{"http://example.com/", false},
		{"https://www.example.com/", false},
		{"/relative", false},
	} {
		u, _ := url.Parse(tc.u)
		if got := o.Matches(u); got != tc.want {
			t.Errorf("Matches(%q) = %v, want %v", tc.u, got, tc.want)
		}
	}
	for _, tc := range []struct{ ref, want string }{
		{"/api/v1", "https://example.com/api/v1"},
		{"api/v1", "https://example.com/api/v1"},
		{"../../../etc", "https://example.com/etc"},
		{"https://other.example/x", "https://other.example/x"},
	} {
		u, err := o.Resolve(tc.ref)
		if err != nil || u.String() != tc.want {
			t.Errorf("Resolve(%q) = %v, %v; want %s", tc.ref, u, err, tc.want)
		}
	}
	if !(discovery.Origin{}).IsZero() || o.IsZero() {
		t.Error("IsZero is wrong")
	}
}

// FuzzParseOrigin: no panic, and an accepted origin round-trips and never carries a
// path, query, userinfo or insecure scheme.
func FuzzParseOrigin(f *testing.F) {
	for _, s := range []string{"example.com", "https://Example.COM:443/p?q#f", "http://[::1]:8080", "https://bücher.example", "javascript:alert(1)", "https://u:p@x.example"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := discovery.ParseOrigin(s)
		if err != nil {
			return
		}
		str := o.String()
		again, err := discovery.ParseOrigin(str)
		if err != nil || again != o {
			t.Fatalf("%q → %q does not round-trip: %v", s, str, err)
		}
		if o.Scheme != "https" && !(o.Scheme == "http" && o.IsLoopback()) {
			t.Fatalf("insecure origin accepted: %q", str)
		}
		if containsAny(str[len(o.Scheme)+3:], "/", "?", "#", "@") && !containsAny(o.Host, ":") {
			t.Fatalf("origin keeps more than the authority: %q", str)
		}
	})
}

// TestParseOriginSuggestsTheScheme checks that an origin missing part of "://" gets an
// error that shows what was probably meant.
func TestParseOriginSuggestsTheScheme(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https//example.com":         "write it as https://example.com",
		"https:/example.com/x?q":     "write it as https://example.com",
		"http//localhost:8080":       "write it as http://localhost:8080",
		"https:/user:pw@example.com": "write it as https://example.com",
	} {
		_, err := discovery.ParseOrigin(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseOrigin(%q) = %v, want an error saying %q", in, err, want)
		}
	}
}
