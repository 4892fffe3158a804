package discovery_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/wellknown-dev/discovery"
)

// TestFastPathNeverSkipsConsent: a cross-origin redirect the user allowed once is
// asked again on the next call, even when the target's answer is fresh for an hour.
func TestFastPathNeverSkipsConsent(t *testing.T) {
	b := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Header().Set("Content-Type", "text/markdown")
		_, _ = w.Write([]byte("# From B\n"))
	}))
	a := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, b.URL+discovery.GuidePath, http.StatusFound)
	}))
	var asked atomic.Int32
	consent := func(context.Context, *discovery.ConsentRequest) (bool, error) { return asked.Add(1) == 1, nil } // allow once
	c := newClient(t, a, &discovery.Options{Consent: consent, MaxRetries: -1})
	if _, err := c.Discover(t.Context(), a.URL); err != nil {
		t.Fatal(err)
	}
	_, err := c.Discover(t.Context(), a.URL)
	if !errors.Is(err, discovery.ErrCrossOrigin) || asked.Load() != 2 {
		t.Errorf("second Discover = %v after %d questions, want a refusal after asking again", err, asked.Load())
	}
}
