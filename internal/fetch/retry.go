package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// The retries are hashicorp/go-retryablehttp's. Its adaptation, and why each part
// exists:
//   - a Client is built per round with the hooks bound to the fetch's state, so the
//     hooks need nothing from the request context (the library passes them only the
//     request or its context);
//   - Logger is nil: the library logs to stderr by default;
//   - CheckRetry retries connection errors, 408, 429 and 5xx but 501, never policy or
//     TLS failures, and gives up at once on a Retry-After over the cap or a wait that
//     would pass the round's deadline;
//   - a retried status travels as a retryStatus error, and ErrorHandler (giveUp) turns
//     it back into the last response: the caller sees the 503, not "giving up";
//   - its inner http.Client follows the redirects (the library calls its Do), so the
//     origin policy is that client's CheckRedirect.

// retryLayer sets up the retry layer of a round in s, over the attempt layer (whose
// inner http.Client follows the redirects), and returns it.
func (s *roundStack) retryLayer(st *state) http.RoundTripper {
	cfg := &st.f.cfg
	s.attempt = attemptTransport{st: st, base: cfg.Base, timeout: cfg.AttemptTimeout}
	s.inner = http.Client{Transport: &s.attempt, CheckRedirect: st.checkRedirect}
	s.retry = retryablehttp.Client{
		HTTPClient:     &s.inner,
		RetryWaitMin:   cfg.RetryWait[0],
		RetryWaitMax:   cfg.RetryWait[1],
		RetryMax:       cfg.MaxRetries,
		CheckRetry:     st.checkRetry,
		Backoff:        st.backoff,
		ErrorHandler:   giveUp,
		RequestLogHook: st.logRequest,
	}
	s.retryRT.Client = &s.retry
	return &s.retryRT
}

// logRequest counts attempts and reports each retry.
func (st *state) logRequest(_ retryablehttp.Logger, req *http.Request, retry int) {
	st.attempts.Add(1)
	if retry > 0 && st.f.cfg.OnRetry != nil {
		st.f.cfg.OnRetry(req.Context(), st.req, req.URL, retry, int(st.status.Load()))
	}
}

// retryStatus marks a status that retryablehttp should retry; giveUp turns it back into
// the response so the caller sees the real status after the last attempt.
type retryStatus struct{ code int }

// Error implements the error interface.
func (e *retryStatus) Error() string { return "discovery: HTTP " + strconv.Itoa(e.code) }

// checkRetry retries connection errors, 408, 429 and 5xx but 501, never policy or TLS
// failures, and gives up at once when Retry-After exceeds the cap.
func (st *state) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	cfg := &st.f.cfg
	// The wait before another attempt must end before the round's deadline.
	if err != nil {
		return !st.permanent(err) && !errors.Is(err, errDocumentTimeout) && !st.late(cfg.RetryWait[1]), err
	}
	switch code := resp.StatusCode; {
	case code == http.StatusRequestTimeout, code == http.StatusTooManyRequests,
		code >= 500 && code != http.StatusNotImplemented:
		d, ok := retryAfter(resp, cfg.Now())
		if ok && d > cfg.MaxRetryAfter {
			return false, &retryStatus{code} // give up now; the caller falls back
		}
		if !ok {
			d = cfg.RetryWait[1]
		}
		return !st.late(d), &retryStatus{code}
	}
	return false, nil // 2xx, 3xx, 304, 404 and the other 4xx go back to the caller
}

// permanent reports whether err is a failure that a retry cannot mend: a policy
// violation (the root's rules, and a redirect waiting for consent), a certificate
// problem, or an http answer to an https request.
func (st *state) permanent(err error) bool {
	var (
		certErr   *tls.CertificateVerificationError
		recordErr tls.RecordHeaderError
		alertErr  tls.AlertError
		dnsErr    *net.DNSError
		cn        *consentNeeded
	)
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return true // NXDOMAIN will not change in a second
	}
	return errors.As(err, &cn) || st.f.cfg.Permanent(err) || errors.Is(err, context.Canceled) ||
		errors.As(err, &certErr) || errors.As(err, &recordErr) || errors.As(err, &alertErr) ||
		// net/http has no type for this one; a plain-HTTP server behind https:// never
		// starts speaking TLS on a retry.
		strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
}

// giveUp runs after the last attempt. For a retried status it hands back the last
// response, so the caller sees 503 rather than a bare "giving up" error.
func giveUp(resp *http.Response, err error, _ int) (*http.Response, error) {
	var rs *retryStatus
	if resp != nil && errors.As(err, &rs) {
		return resp, nil
	}
	if resp != nil {
		resp.Body.Close()
	}
	return nil, err
}

// backoff is exponential with jitter, and follows a Retry-After no longer than the cap.
func (st *state) backoff(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
	cfg := &st.f.cfg
	if d, ok := retryAfter(resp, cfg.Now()); ok {
		return min(d, cfg.MaxRetryAfter)
	}
	d := lo << attempt
	if d <= 0 || d > hi {
		d = hi
	}
	return d/2 + rand.N(d/2+1)
}

// retryAfter reads Retry-After on 429 and 503: delta-seconds, or an HTTP date (one in
// the past means 0).
func retryAfter(resp *http.Response, now time.Time) (time.Duration, bool) {
	if resp == nil || (resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable) {
		return 0, false
	}
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > int64(365*24*time.Hour/time.Second) {
			n = int64(365 * 24 * time.Hour / time.Second)
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
