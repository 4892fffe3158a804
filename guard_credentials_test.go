package discovery_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/wellknown-dev/discovery"
)

// A JSON Web Token and an opaque token, as real services send them.
const (
	testJWT    = "eyJhbGciOiJFUzI1NiIsImtpZCI6IjEyMyJ9.eyJzdWIiOiJ1c2VyQGV4YW1wbGUuY29tIiwiZXhwIjoxNzAwMDAwMDAwfQ.MEUCIQDx3k2f9s8d7h6g5j4k3l2m1n0b9v8c7x6z5a4s3d2f1g"
	testOpaque = "Q7hT2kLm9XpR4vN8bW3cZ6yJ1dF5gH0s"
)

// TestCredentialsOutsideCredentialHeaders: a cross-origin call carries credentials when
// a header or query parameter of any name holds one, not only Authorization, Cookie and
// *-Key headers: Cloudflare Access, Google IAP and AWS ALB send a JWT in headers of
// their own, session ids travel in X-Session-Id, and many APIs take ?access_token= or
// ?api_key=. Such a call went out with ConsentRequest.Credentials false; a user whose
// rule is "never send my credentials elsewhere" let them go. Plain headers and
// parameters stay without the credentials question.
func TestCredentialsOutsideCredentialHeaders(t *testing.T) {
	t.Parallel()
	other := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "{}") }))
	api := newSite(t, docs(t, map[string]string{discovery.GuidePath: goodSkills}))
	tests := []struct {
		name   string
		header http.Header
		query  string
		creds  bool
	}{
		{"Cf-Access-Jwt-Assertion", http.Header{"Cf-Access-Jwt-Assertion": {testJWT}}, "", true},
		{"X-Goog-Iap-Jwt-Assertion", http.Header{"X-Goog-Iap-Jwt-Assertion": {testJWT}}, "", true},
		{"X-Amzn-Oidc-Data", http.Header{"X-Amzn-Oidc-Data": {testJWT}}, "", true},
		{"X-Amzn-Oidc-Accesstoken", http.Header{"X-Amzn-Oidc-Accesstoken": {"abc"}}, "", true},
		{"X-Session-Id", http.Header{"X-Session-Id": {"s-1"}}, "", true},
		{"X-Csrf-Token", http.Header{"X-Csrf-Token": {"abc"}}, "", true},
		{"X-Amz-Security-Token", http.Header{"X-Amz-Security-Token": {"abc"}}, "", true},
		{"X-Goog-Api-Key", http.Header{"X-Goog-Api-Key": {"abc"}}, "", true},
		{"X-Hub-Signature-256", http.Header{"X-Hub-Signature-256": {"sha256=abc"}}, "", true},
		{"a JWT in a header of another name", http.Header{"X-Forwarded-User-Info": {testJWT}}, "", true},
		{"an opaque token in a header of another name", http.Header{"X-Custom-Context": {testOpaque}}, "", true},
		{"a bearer token in a header of another name", http.Header{"X-Upstream": {"Bearer " + testOpaque}}, "", true},
		{"a GitHub token in a header of another name", http.Header{"X-Data": {"ghp_0123456789abcdefghijABCDEFGHIJklmnopqr"}}, "", true},
		{"a token in the query of a Referer", http.Header{"Referer": {"https://app.example/cb?access_token=abc"}}, "", true},
		{"?access_token=", nil, "?access_token=abc", true},
		{"?api_key=", nil, "?api_key=abc", true},
		{"?apikey=", nil, "?apikey=abc", true},
		{"?key=", nil, "?key=abc", true},
		{"?token=", nil, "?page=2&token=abc", true},
		{"?id_token=", nil, "?id_token=abc", true},
		{"?sig= (Azure SAS)", nil, "?sv=2022-11-02&sig=abc", true},
		{"?X-Amz-Signature=", nil, "?X-Amz-Credential=a&X-Amz-Signature=b", true},
		{"?client_secret=", nil, "?client_secret=abc", true},
		{"?code=", nil, "?code=abc", true},
		{"?session_id=", nil, "?session_id=abc", true},
		{"?password=", nil, "?password=abc", true},
		{"percent-encoded name", nil, "?access%5Ftoken=abc", true},
		{"after a semicolon", nil, "?q=x;access_token=abc", true},
		{"a JWT in a plain parameter", nil, "?state=" + testJWT, true},
		{"Accept", http.Header{"Accept": {"application/json"}}, "", false},
		{"Content-Type", http.Header{"Content-Type": {"application/json; charset=utf-8"}}, "", false},
		{"User-Agent", http.Header{"User-Agent": {"Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0"}}, "", false},
		{"X-Request-Id", http.Header{"X-Request-Id": {"3f2b8c1e-9d4a-4e7b-8c6f-1a2b3c4d5e6f"}}, "", false},
		{"Idempotency-Key", http.Header{"Idempotency-Key": {"k1"}}, "", false},
		{"Accept-Language", http.Header{"Accept-Language": {"en-US,en;q=0.9"}}, "", false},
		{"If-None-Match", http.Header{"If-None-Match": {`"33a64df551425fcc55e4d42a148795d9f25f89d4"`}}, "", false},
		{"Traceparent", http.Header{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}, "", false},
		{"Cache-Control", http.Header{"Cache-Control": {"no-cache"}}, "", false},
		{"plain parameters", nil, "?q=golang+generics&page=2&limit=50&sort=desc&lang=en", false},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var asked []discovery.ConsentRequest
			c := newClient(t, api, &discovery.Options{Consent: func(_ context.Context, r *discovery.ConsentRequest) (bool, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, *r)
				return !r.Credentials, nil // this user never sends credentials elsewhere
			}})
			d, err := c.Discover(t.Context(), api.URL)
			if err != nil {
				t.Fatal(err)
			}
			path := fmt.Sprintf("/api/%d", i)
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, other.URL+path+tc.query, nil)
			for k, vs := range tc.header {
				req.Header[k] = vs
			}
			resp, err := (&http.Client{Transport: guardOf(t, c, d, nil)}).Do(req)
			if err == nil {
				resp.Body.Close()
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 1 || asked[0].Action != discovery.ConsentCrossOrigin || asked[0].Credentials != tc.creds {
				t.Fatalf("consent requests %+v, want one cross-origin with Credentials %v", asked, tc.creds)
			}
			if tc.creds {
				if !errors.Is(err, discovery.ErrConsentDenied) {
					t.Errorf("error = %v, want a refusal", err)
				}
				if n := other.count(path); n != 0 {
					t.Errorf("the other origin received %d requests", n)
				}
				return
			}
			if err != nil || other.count(path) != 1 {
				t.Errorf("plain cross-origin call: error = %v, sent %d", err, other.count(path))
			}
		})
	}
}
