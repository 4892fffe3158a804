package discovery

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/wellknown-dev/discovery/internal/fetch"
)

// This file connects the Client to its HTTP pipeline (package internal/fetch): the
// pipeline's configuration, and the hooks through which it asks the root's policy
// (origins, redirect consent, which failures are policy) and reports events.

// pipelineConfig returns the configuration of the Client's pipeline for options o.
func (c *Client) pipelineConfig(o *Options, hooks testHooks) fetch.Config {
	retries := o.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	attempt := o.AttemptTimeout
	if attempt == 0 && o.HTTPClient != nil {
		attempt = o.HTTPClient.Timeout
	}
	wait := [2]time.Duration{retryWaitMin, retryWaitMax}
	if hooks.retryWaitMin > 0 {
		wait = [2]time.Duration{hooks.retryWaitMin, hooks.retryWaitMax}
	}
	cache := o.Cache
	if cache == nil {
		cache = NewMemoryCache(0)
	}
	cfg := fetch.Config{
		Base:           c.agentBase,
		Cache:          cache,
		PublicPrefix:   c.publicPartition,
		MaxRetries:     retries,
		AttemptTimeout: cmp.Or(attempt, DefaultAttemptTimeout),
		RetryWait:      wait,
		MaxRetryAfter:  c.maxRetryAfter,
		FleetWait:      cmp.Or(o.FleetWait, DefaultFleetWait),
		Now:            c.now,
		ValidatedBytes: hooks.freshBytes,
		ErrTooLarge:    ErrTooLarge,
		CheckOrigin:    func(u *url.URL) (fetch.Origin, error) { o, err := originOf(u); return fetch.Origin(o), err },
		CheckHop:       checkHop,
		AskRedirect:    c.askRedirect,
		Permanent:      func(err error) bool { return policyError(err) || errors.Is(err, ErrInvalidOrigin) },
		OnRetry: func(ctx context.Context, r *fetch.Request, u *url.URL, retry, status int) {
			c.emit(ctx, Event{Kind: EventRetry, Origin: Origin(r.Origin).String(), URL: redact(u), Attempt: retry, Doc: r.Doc, Status: status})
		},
		OnFleetWait: func(ctx context.Context, r *fetch.Request, u *url.URL, waited time.Duration) {
			c.emit(ctx, Event{Kind: EventFleetWait, Origin: Origin(r.Origin).String(), URL: redact(u), Duration: waited})
		},
	}
	if o.FleetLock != nil {
		cfg.FleetLock = o.FleetLock
	}
	return cfg
}

// documentConfig returns the configuration of the Client's document layer for
// options o, whose parse memo holds memoBytes.
func (c *Client) documentConfig(o *Options, memoBytes int64) fetch.DocConfig {
	lastGood := o.LastGood
	if lastGood == nil {
		lastGood = NewMemoryLastGood(0)
	}
	return fetch.DocConfig{
		UserAgent: c.userAgent,
		MaxBytes:  cmp.Or(o.MaxDocumentBytes, DefaultMaxDocumentBytes),
		Timeout:   c.docTimeout,
		MaxStale:  cmp.Or(o.MaxStale, DefaultMaxStale),
		LastGood:  lastGoodCopies{lastGood},
		MemoBytes: memoBytes,
		FetchError: func(shown string, attempts int, err error) error {
			return &FetchError{URL: shown, Attempts: attempts, Err: err}
		},
		HTTPError: func(shown string, status, attempts int, retryAfter time.Duration) error {
			herr := &HTTPError{URL: shown, StatusCode: status, Attempts: attempts}
			if retryAfter > c.maxRetryAfter {
				herr.Err = fmt.Errorf("%w (%s > %s)", ErrRetryAfterTooLong, retryAfter, c.maxRetryAfter)
			}
			return herr
		},
		PolicyError: policyError,
		OnStale: func(ctx context.Context, r *fetch.Request, shown string, cause error) {
			c.emit(ctx, Event{Kind: EventStale, Origin: Origin(r.Origin).String(), URL: shown, Doc: r.Doc, Err: cause})
		},
	}
}

// checkHop is the origin policy for every redirect hop of a fetch, the hops-th of it:
// at most five hops, never from https to http, only to a URL that is an origin; and
// the site's userinfo is never sent (net/http would turn it into an Authorization
// header). It returns the origin the hop leads to; the pipeline asks for consent when
// that is neither the discovery origin nor one the fetch was granted.
func checkHop(req *http.Request, via []*http.Request, hops int) (fetch.Origin, error) {
	if hops > maxRedirects {
		return fetch.Origin{}, fmt.Errorf("%w: more than %d hops, last to %s", ErrTooManyRedirects, maxRedirects, redact(req.URL))
	}
	// Never downgrade: a hop from https to http would expose the rest of the chain.
	if strings.EqualFold(via[len(via)-1].URL.Scheme, "https") && !strings.EqualFold(req.URL.Scheme, "https") {
		return fetch.Origin{}, fmt.Errorf("%w: redirect from https to %s", ErrInsecureOrigin, redact(req.URL))
	}
	target, err := originOf(req.URL)
	if err != nil {
		return fetch.Origin{}, err
	}
	req.URL.User = nil
	return fetch.Origin(target), nil
}

// askRedirect asks the ConsentFunc whether a fetch for from may follow a redirect to
// another origin, to, at next. A no (or a failing hook) is a *RedirectError.
func (c *Client) askRedirect(ctx context.Context, from, to fetch.Origin, next *url.URL) error {
	o, target := Origin(from), Origin(to)
	err := ask(ctx, c, c.consent, &ConsentRequest{
		Action: ConsentRedirect,
		Origin: o,
		URL:    redact(next),
		Method: http.MethodGet,
		Reason: fmt.Sprintf("%s redirects discovery to another origin, %s", o, target),
	}, ErrCrossOrigin)
	if err != nil {
		return &RedirectError{From: o, To: target, URL: redact(next), Err: err}
	}
	return nil
}

// policyError reports a fetch the policy refused: a redirect off the origin or to
// http, too many hops, a private address, consent denied or its callback failing. It
// is never retried, and no last good copy may paper over it.
func policyError(err error) bool {
	return errors.Is(err, ErrCrossOrigin) || errors.Is(err, ErrInsecureOrigin) ||
		errors.Is(err, ErrTooManyRedirects) || errors.Is(err, ErrConsentDenied) ||
		errors.Is(err, errConsentHook) || errors.Is(err, ErrPrivateAddress)
}
