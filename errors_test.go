package discovery_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/mcpjson"
)

// TestErrorsTellTheCallerWhatToDo: errors and warnings say what went wrong and where,
// once, and never panic, so a caller can act on them.
func TestErrorsTellTheCallerWhatToDo(t *testing.T) {
	t.Parallel()
	t.Run("a refused redirect is a *RedirectError with both origins", func(t *testing.T) {
		t.Parallel()
		other := newSite(t, docs(t, map[string]string{discovery.GuidePath: goodSkills}))
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+discovery.GuidePath, http.StatusMovedPermanently)
		}))
		_, err := newClient(t, s, nil).Discover(t.Context(), s.URL)
		var re *discovery.RedirectError
		if !errors.Is(err, discovery.ErrCrossOrigin) || !errors.As(err, &re) || re.To.String() != other.URL || re.From.String() != s.URL {
			t.Fatalf("error = %v (%+v)", err, re)
		}
		// The caller retries with the new origin.
		if _, err := newClient(t, s, nil).Discover(t.Context(), re.To.String()); err != nil {
			t.Errorf("retry at %s: %v", re.To, err)
		}
	})
	t.Run("https against a plain-http loopback server says to use http", func(t *testing.T) {
		t.Parallel()
		s := httptest.NewServer(docs(t, map[string]string{discovery.GuidePath: goodSkills}))
		t.Cleanup(s.Close)
		host := strings.TrimPrefix(s.URL, "http://")
		c, err := discovery.NewClient(&discovery.Options{MaxRetries: -1, InsecureAllowPrivateOrigins: true})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Discover(t.Context(), "https://"+host)
		var fe *discovery.FetchError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "try http://"+host) {
			t.Errorf("error = %v, want a hint to use http://%s", err, host)
		}
	})
	t.Run("no doubled prefixes", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, docs(t, map[string]string{discovery.GuidePath: ""}))
		_, err := newClient(t, s, nil).Discover(t.Context(), s.URL)
		if err == nil || strings.Count(err.Error(), "discovery:") != 1 {
			t.Errorf("error = %v", err)
		}
	})
	t.Run("Structured's fetch warning names the document", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == discovery.MCPPath {
				w.WriteHeader(500)
				return
			}
			fmt.Fprint(w, goodSkills)
		}))
		d, err := newClient(t, s, &discovery.Options{MaxRetries: -1}).Structured(t.Context(), s.URL)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range d.Warnings {
			if w.Code == discovery.WarnFetch && w.URL != s.URL+discovery.MCPPath {
				t.Errorf("fetch warning URL = %q", w.URL)
			}
		}
		if !hasCode(d, discovery.WarnFetch) {
			t.Errorf("no fetch warning: %v", d.Warnings)
		}
		var herr *discovery.HTTPError
		if len(d.Fetches) != 2 || d.Fetches[0].Err != nil || !errors.As(d.Fetches[1].Err, &herr) || herr.StatusCode != 500 {
			t.Errorf("Fetches = %+v, want the mcp.json fetch to carry its HTTP 500", d.Fetches)
		}
	})
	t.Run("a nil context is an error, not a panic", func(t *testing.T) {
		t.Parallel()
		c, _ := discovery.NewClient(nil)
		//lint:ignore SA1012 the point of the test
		if _, err := c.Discover(nil, "example.com"); err == nil { //nolint:staticcheck
			t.Error("nil context accepted")
		}
		//lint:ignore SA1012 the point of the test
		if _, err := c.ListSkills(nil, "example.com"); err == nil { //nolint:staticcheck
			t.Error("nil context accepted")
		}
		s := newSite(t, docs(t, map[string]string{discovery.GuidePath: goodSkills}))
		dc := newClient(t, s, nil)
		d, err := dc.Discover(t.Context(), s.URL)
		if err != nil {
			t.Fatal(err)
		}
		//lint:ignore SA1012 the point of the test
		if _, err := dc.ConnectEndpoint(nil, d, mcpjson.Server{URL: "/mcp"}); err == nil { //nolint:staticcheck
			t.Error("nil context accepted")
		}
	})
	t.Run("localhost:PORT speaking plain http gets a hint", func(t *testing.T) {
		t.Parallel()
		plain := httptest.NewServer(docs(t, map[string]string{discovery.GuidePath: goodSkills}))
		defer plain.Close()
		c, _ := discovery.NewClient(&discovery.Options{InsecureAllowPrivateOrigins: true, MaxRetries: -1})
		bare := strings.TrimPrefix(plain.URL, "http://")
		_, err := c.Discover(context.Background(), bare)
		if err == nil || !strings.Contains(err.Error(), "try http://"+bare) {
			t.Errorf("error = %v", err)
		}
		if _, err := c.Discover(context.Background(), plain.URL); err != nil {
			t.Errorf("with the scheme: %v", err)
		}
	})
}
