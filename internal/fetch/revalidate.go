package fetch

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httputil"
	"slices"
	"strings"
	"time"

	"github.com/wellknown-dev/discovery/internal/lru"
)

// Revalidation without the serialised form. httpcache revalidates a stale entry by
// decoding the stored response, sending the conditional request and, on 304 Not
// Modified, encoding and storing the whole response again: for a small document,
// more work than the request itself. A Fetcher that fetched a document keeps, in
// memory, the validators and body of its last 200; when the document is stale again,
// it sends the conditional request itself (below the HTTP cache, through the same
// retries, redirects and guard) and answers a 304 from memory. Whatever else comes
// back is handled as httpcache would handle it: the cache entry is dropped for a
// failure, and a storable answer is stored when its body has been read.
//
// A document whose last 200 left nothing worth keeping (no-store, or neither a
// validator nor a freshness lifetime: a copy httpcache could never answer with) is
// remembered as such, and fetched below the HTTP cache too: httpcache would look it up,
// miss, parse both Cache-Control headers, and store a copy it can never use. Such a copy
// is not stored at all.
//
// The HTTP cache stays the store of record: a fresh hit and every fetch without a
// remembered copy go through it. Not used with a FleetLock: a fleet shares entries
// through the shared cache, so they must be written and read there.

// validated is a document's last 200 answer, as the HTTP cache holds it, or, with
// a nil header, the mark of a document the HTTP cache holds nothing of (uncached).
type validated struct {
	header http.Header // the response's header (no X-From-Cache)
	body   []byte
	until  time.Time // FreshUntil(header), worked out once
}

// newValidated keeps header and body, with their freshness.
func newValidated(header http.Header, body []byte) *validated {
	return &validated{header: header, body: body, until: FreshUntil(header)}
}

// uncached marks a document whose last 200 was not worth storing: the HTTP cache
// holds nothing of it.
var uncached = &validated{}

// conditional sets the conditional request headers for v in h, and reports false when
// v has none (v is uncached).
func (v *validated) conditional(h http.Header) bool {
	if v.header == nil {
		return false
	}
	etag, lm := v.header.Get("Etag"), v.header.Get("Last-Modified")
	if etag != "" {
		h.Set("If-None-Match", etag)
	}
	if lm != "" {
		h.Set("If-Modified-Since", lm)
	}
	return etag != "" || lm != ""
}

// revalidatable returns the remembered copy of u to revalidate, when the fetch may
// use it: no fleet, and a copy with validators that is stale (a fresh one is the HTTP
// cache's to serve), or the uncached mark.
func (f *Fetcher) revalidatable(u string, private bool) *validated {
	if f.cfg.FleetLock != nil {
		return nil
	}
	v, ok := f.validated[b2i(private)].Get(u)
	if !ok {
		return nil
	}
	if !v.until.IsZero() && f.cfg.Now().Before(v.until) {
		return nil
	}
	return v
}

// remember records, after a 200 of u read in full (or of the URL u moved to), what the
// next fetch of u may do without the HTTP cache: revalidate a copy of the answer when
// it is a plain 200 of u itself that carries validators and no Vary; fetch below the
// cache when the answer was not worth storing (then, if it came through the HTTP
// cache, its entry is dropped: throughCache); otherwise nothing (the HTTP cache
// handles u).
func (f *Fetcher) remember(u string, private, throughCache, moved bool, status int, header http.Header, body []byte) {
	if f.cfg.FleetLock != nil {
		return
	}
	copies := f.validated[b2i(private)]
	if status != http.StatusOK || moved {
		copies.Delete(u)
		return
	}
	if !worthStoring(header, f.cfg.Now()) {
		if throughCache && !noStore(header) {
			f.caches[b2i(private)].Delete(u) // httpcache stored a copy it can never answer with
		}
		copies.Set(u, uncached, int64(len(u)+128))
		return
	}
	if header.Get("Vary") != "" || header.Get("Etag") == "" && header.Get("Last-Modified") == "" {
		copies.Delete(u)
		return
	}
	h := header.Clone()
	h.Del(httpcacheMark)
	size := len(u) + len(body)
	for k, vs := range h {
		size += len(k)
		for _, v := range vs {
			size += len(v)
		}
	}
	copies.Set(u, newValidated(h, bytes.Clone(body)), int64(size+128))
}

// worthStoring reports whether the HTTP cache could ever answer with a copy of a 200
// with header h: it may be stored (no no-store), and it is fresh for a while or has a
// validator to revalidate it with.
func worthStoring(h http.Header, now time.Time) bool {
	if noStore(h) {
		return false
	}
	return h.Get("Etag") != "" || h.Get("Last-Modified") != "" || now.Before(FreshUntil(h))
}

// revalidator is the top layer of a round that revalidates a remembered copy, or
// fetches a document the HTTP cache holds nothing of (v is uncached).
type revalidator struct {
	st     *state
	v      *validated
	below  http.RoundTripper // the stack under the HTTP cache
	cache  Cache             // the HTTP cache partition of the fetch
	copies *lru.Cache[*validated]
	now    func() time.Time
}

// RoundTrip implements http.RoundTripper.
func (r *revalidator) RoundTrip(req *http.Request) (*http.Response, error) {
	u := req.URL.String()               // the HTTP cache's key for a GET
	held := r.v.conditional(req.Header) // the cache holds a copy of u
	resp, err := r.below.RoundTrip(req)
	if err != nil {
		if held {
			r.cache.Delete(u)
			r.copies.Delete(u)
		}
		return nil, err
	}
	if resp.StatusCode == http.StatusNotModified && held {
		return r.fromMemory(u, resp), nil
	}
	if resp.StatusCode != http.StatusOK {
		if held {
			r.cache.Delete(u)
			r.copies.Delete(u)
		}
		if !held || noStore(resp.Header) {
			return resp, nil // as it was: nothing stored of u
		}
	} else if !worthStoring(resp.Header, r.now()) {
		// The answer replaces the copy, and a copy of it could never be answered with.
		// (After the body is read, remember marks u as uncached.)
		if held {
			r.cache.Delete(u)
		}
		return resp, nil
	}
	cache := r.cache
	resp.Body = &storingBody{r: resp.Body, onEOF: func(body []byte) {
		stored := *resp
		stored.Body = io.NopCloser(bytes.NewReader(body))
		if b, err := httputil.DumpResponse(&stored, true); err == nil {
			cache.Set(u, b)
		}
	}}
	return resp, nil
}

// fromMemory answers a 304 for u as httpcache does: the stored answer, with the 304's
// end-to-end headers. The header is shared, read-only, by the copy kept and the answer
// given; the answer is marked as the cache's in the fetch's state, not a header.
func (r *revalidator) fromMemory(u string, resp *http.Response) *http.Response {
	h := r.v.header.Clone()
	hop := hopByHop(resp.Header.Get("Connection"))
	for k, vs := range resp.Header {
		if !hop(k) {
			h[k] = vs
		}
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	r.copies.Set(u, newValidated(h, r.v.body), int64(len(u)+len(r.v.body)+512))
	r.st.fromMemory = true
	return &http.Response{Status: "200 OK", StatusCode: http.StatusOK, Proto: resp.Proto, ProtoMajor: resp.ProtoMajor,
		ProtoMinor: resp.ProtoMinor, Header: h, Body: io.NopCloser(bytes.NewReader(r.v.body)),
		ContentLength: int64(len(r.v.body)), Request: resp.Request}
}

// noStore reports Cache-Control: no-store.
func noStore(h http.Header) bool {
	for _, v := range h.Values("Cache-Control") {
		for d := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(d), "no-store") {
				return true
			}
		}
	}
	return false
}

// hopByHop returns the test for headers that are not end-to-end (RFC 9110 §7.6.1, as
// httpcache lists them): the fixed ones, and those the Connection header names.
func hopByHop(connection string) func(string) bool {
	var named []string
	for extra := range strings.SplitSeq(connection, ",") {
		if extra = strings.TrimSpace(extra); extra != "" {
			named = append(named, http.CanonicalHeaderKey(extra))
		}
	}
	return func(k string) bool {
		switch k {
		case "Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailers",
			"Transfer-Encoding", "Upgrade":
			return true
		}
		return slices.Contains(named, k)
	}
}

// storingBody keeps what is read and hands it to onEOF at the end, as httpcache's
// caching reader does.
type storingBody struct {
	r     io.ReadCloser
	buf   bytes.Buffer
	onEOF func([]byte)
}

// Read reads and keeps a copy.
func (s *storingBody) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.buf.Write(p[:n])
	if err == io.EOF && s.onEOF != nil {
		s.onEOF(s.buf.Bytes())
		s.onEOF = nil
	}
	return n, err
}

// Close closes the body.
func (s *storingBody) Close() error { return s.r.Close() }
