package secrets

import (
	"net/http"
	"testing"
)

const (
	jwtValue = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJodHRwczovL2F1dGguZXhhbXBsZS5jb20iLCJzdWIiOiI0MiJ9.c2lnbmF0dXJlLWJ5dGVzLWhlcmUtMDEyMzQ1Njc4OQ"
	// A JWT whose header was written with a blank ({ "alg": ...): it does not start with
	// "eyJ".
	jwtSpaced = "eyAiYWxnIjogIkhTMjU2IiB9.eyAic3ViIjogIjQyIiB9.AbCdEf012345"
	opaque    = "Q7hT2kLm9XpR4vN8bW3cZ6yJ1dF5gH0s"
)

// TestCredentialNames: the header and query parameter names real services send
// credentials in are recognised; the names of plain headers and parameters are not.
func TestCredentialNames(t *testing.T) {
	t.Parallel()
	headers := []struct {
		name string
		want bool
	}{
		{"Authorization", true}, {"Proxy-Authorization", true}, {"Cookie", true}, {"cookie", true},
		{"X-Api-Key", true}, {"x-api-key", true}, {"Api_Key", true}, {"X-Functions-Key", true},
		{"Ocp-Apim-Subscription-Key", true}, {"Private-Token", true}, {"X-Auth-Token", true},
		{"X-Amz-Security-Token", true}, {"X-Goog-Api-Key", true}, {"X-Vault-Token", true},
		{"Cf-Access-Jwt-Assertion", true}, {"X-Goog-Iap-Jwt-Assertion", true}, {"X-Amzn-Oidc-Data", true},
		{"X-Amzn-Oidc-Accesstoken", true}, {"X-Amzn-Oidc-Identity", true}, {"X-Session-Id", true},
		{"X-Session-Key", true}, {"X-Csrf-Token", true}, {"X-Xsrf-Token", true}, {"X-Hub-Signature-256", true},
		{"X-Sentry-Auth", true}, {"X-Client-Secret", true}, {"X-Password", true}, {"X-Pwd", true},
		{"X-Sid", true}, {"X-Saml-Assertion", true}, {"X-Shopify-Access-Token", true}, {"X-Api-Keys", true},
		{"Accept", false}, {"Accept-Encoding", false}, {"Accept-Language", false}, {"Content-Type", false},
		{"Content-Length", false}, {"Content-Encoding", false}, {"User-Agent", false}, {"X-Request-Id", false},
		{"X-Correlation-Id", false}, {"Idempotency-Key", false}, {"Sec-WebSocket-Key", false},
		{"Mcp-Session-Id", false}, {"Mcp-Protocol-Version", false}, {"If-None-Match", false},
		{"Cache-Control", false}, {"Traceparent", false}, {"X-Forwarded-For", false}, {"X-Bypass-Cache", false},
		{"Origin", false}, {"Referer", false}, {"Range", false}, {"", false},
	}
	for _, tc := range headers {
		if got := CredentialHeader(tc.name); got != tc.want {
			t.Errorf("CredentialHeader(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
	params := []struct {
		name string
		want bool
	}{
		{"access_token", true}, {"api_key", true}, {"apikey", true}, {"key", true}, {"token", true},
		{"id_token", true}, {"refresh_token", true}, {"client_secret", true}, {"password", true},
		{"pwd", true}, {"pass", true}, {"code", true}, {"sig", true}, {"signature", true},
		{"X-Amz-Signature", true}, {"X-Amz-Credential", true}, {"X-Amz-Security-Token", true},
		{"X-Goog-Signature", true}, {"Signature", true}, {"AWSAccessKeyId", true}, {"sid", true},
		{"phpsessid", true}, {"jsessionid", true}, {"session_id", true}, {"jwt", true}, {"auth", true},
		{"otp", true}, {"access", true},
		{"q", false}, {"page", false}, {"limit", false}, {"sort", false}, {"lang", false}, {"id", false},
		{"format", false}, {"utm_source", false}, {"", false},
	}
	for _, tc := range params {
		if got := CredentialParam(tc.name); got != tc.want {
			t.Errorf("CredentialParam(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestCredentialValues: a credential is recognised by its value whatever the name.
func TestCredentialValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		v      string
		opaque bool
		want   bool
	}{
		{"JWT", jwtValue, false, true},
		{"JWT with blanks in its header", jwtSpaced, false, true},
		{"JWT after a scheme", "Bearer " + jwtValue, false, true},
		{"JWE", "eyJhbGciOiJSU0EtT0FFUCJ9.OKOawDo13gRp2ojaHV7LFpZcgV7T6DVZKTyKOMTYUmKoTCVJRgckCL9kiMT03JGe.48V1_ALb6US04U3b.5eym8TW_c8SuK0ltJ3rpYIzOeDQz7TALvtu6UG9oMo4vpzs9tX_EFShS8iB7j6ji.XFBoMYUZodetZdvTiFvSkQ", false, true},
		{"bearer token", "Bearer " + opaque, false, true},
		{"basic credentials", "Basic dXNlcjpodW50ZXIy", false, true},
		{"GitHub token", "ghp_0123456789abcdefghijABCDEFGHIJklmnopqr", false, true},
		{"AWS key id", "AKIAQWERTYUIOPASDFGH", false, true},
		{"opaque token", opaque, true, true},
		{"opaque token in a pair", "ctx=" + opaque, true, true},
		{"opaque token not looked for", opaque, false, false},
		{"UUID", "3f2b8c1e-9d4a-4e7b-8c6f-1a2b3c4d5e6f", true, false},
		{"upper-case UUID", "3F2B8C1E-9D4A-4E7B-8C6F-1A2B3C4D5E6F", true, false},
		{"hex trace id", "4bf92f3577b34da6a3ce929d0e0e4736", true, false},
		{"media type", "application/json; charset=utf-8", true, false},
		{"user agent", "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0", true, false},
		{"words", "no-cache, no-store, must-revalidate", true, false},
		{"dotted version", "1.2.3", true, false},
		{"dotted name", "api.example.com", true, false},
		{"short", "k1", true, false},
	}
	for _, tc := range tests {
		if got := CredentialValue(tc.v, tc.opaque); got != tc.want {
			t.Errorf("%s: CredentialValue(%q, %v) = %v, want %v", tc.name, tc.v, tc.opaque, got, tc.want)
		}
	}
}

// TestCredentials: where a request carries a credential, named without its value.
func TestCredentials(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		h      http.Header
		query  string
		extra  []string
		where  string
		wantOK bool
	}{
		{"nothing", http.Header{"Accept": {"*/*"}, "User-Agent": {"Go-http-client/1.1"}}, "q=x", nil, "", false},
		{"an empty credential header is not sent", http.Header{"Authorization": {}}, "", nil, "", false},
		{"credential header", http.Header{"X-Api-Key": {"k"}}, "", nil, "header X-Api-Key", true},
		{"document's header", http.Header{"X-Site-Pass": {"k"}}, "", []string{"x-site-pass"}, "header X-Site-Pass", true},
		{"JWT value", http.Header{"X-Forwarded-User": {jwtValue}}, "", nil, "header X-Forwarded-User", true},
		{"opaque value", http.Header{"X-Context": {opaque}}, "", nil, "header X-Context", true},
		{"opaque digest in a plain header", http.Header{"Content-Md5": {"Q2hlY2sgSW50ZWdyaXR5IQ=="}, "If-None-Match": {`"` + opaque + `"`}}, "", nil, "", false},
		{"URL in Referer", http.Header{"Referer": {"https://a.example/p?api_key=abc"}}, "", nil, `header Referer (query parameter "api_key")`, true},
		{"query name", nil, "page=1&access_token=abc", nil, `query parameter "access_token"`, true},
		{"query value", nil, "state=" + jwtValue, nil, `query parameter "state"`, true},
		{"query name encoded", nil, "api%5Fkey=abc", nil, `query parameter "api_key"`, true},
	}
	for _, tc := range tests {
		where, ok := Credentials(tc.h, tc.query, tc.extra)
		if ok != tc.wantOK || where != tc.where {
			t.Errorf("%s: Credentials = %q, %v; want %q, %v", tc.name, where, ok, tc.where, tc.wantOK)
		}
	}
}
