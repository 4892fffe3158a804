package skillbundle

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/skilllock"
	"github.com/wellknown-dev/discovery/trust"
)

// Options configures [Write]. A nil *Options bundles every skill of the index with a
// Client of default options.
type Options struct {
	// Client are the options of the Client that fetches the origin: its policy
	// (consent, private origins, trust roots, timeouts) is the policy of the bundle.
	// Its WrapTransport, if any, is kept, inside the recorder. nil: the defaults.
	Client *discovery.Options
	// Names are the skills to bundle. nil: every skill of the index, or of Lock.
	Names []string
	// Lock, when set, makes the bundle hold exactly the versions it records: every
	// named skill (all of the lock's when Names is nil) must be in it, and Write fails
	// with [ErrLockMismatch] when the site serves other files or URLs than it records.
	Lock *skilllock.Lock
	// Limits bound the bytes and files fetched. The zero value means the defaults.
	Limits Limits
}

// Write fetches origin's skills index and the skills it lists (or opts.Names, or those
// of opts.Lock), each verified by the Client as for an install, and writes one bundle
// to w: bundle.json, the index as served (its bytes unchanged, so its digests still
// verify), every artifact as served and the Trust Manifest beside each artifact when
// the origin publishes one. Nothing is written to w unless every skill was fetched
// and verified. It returns the bundle's manifest.
//
// The format is an uncompressed tar archive (see the package documentation).
func Write(ctx context.Context, w io.Writer, origin string, opts *Options) (*Manifest, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	lim := o.Limits.orDefault()
	rec := &recorder{budget: lim.MaxBytes, files: map[string]*stored{}}
	var co discovery.Options
	if o.Client != nil {
		co = *o.Client
	}
	inner := co.WrapTransport
	co.WrapTransport = func(base http.RoundTripper) http.RoundTripper {
		if inner != nil {
			if w := inner(base); w != nil {
				base = w
			}
		}
		return &recordingTransport{rec: rec, base: base}
	}
	c, err := discovery.NewClient(&co)
	if err != nil {
		return nil, err
	}
	ix, err := c.ListSkills(ctx, origin)
	if err != nil {
		return nil, err
	}
	names, err := selectNames(ix, o.Names, o.Lock)
	if err != nil {
		return nil, err
	}
	m := &Manifest{Version: Version, Origin: ix.Origin.String(), Index: ix.URL}
	want := []string{ix.URL}
	fetched := map[string]*discovery.Skill{}
	for _, name := range names {
		if o.Lock != nil && !listed(ix, name) {
			continue // reported by lockProblems as no longer served
		}
		sk, err := c.GetSkill(ctx, ix, name)
		if err != nil {
			return nil, err
		}
		fetched[name] = sk
		want = append(want, artifactURLs(&sk.Entry)...)
		mu, err := manifestOf(ctx, c, ix, &sk.Entry, rec)
		if err != nil {
			return nil, err
		}
		if mu != "" {
			want = append(want, mu)
		}
	}
	if o.Lock != nil {
		if problems := lockProblems(o.Lock, names, fetched); len(problems) > 0 {
			return nil, fmt.Errorf("%w: %s", ErrLockMismatch, strings.Join(problems, "; "))
		}
	}
	files, err := rec.pick(m.Origin, want, lim)
	if err != nil {
		return nil, err
	}
	m.Files = files
	if err := writeTar(w, m); err != nil {
		return nil, err
	}
	for i := range m.Files {
		m.Files[i].data = nil // written: the caller gets the table of contents only
	}
	return m, nil
}

func listed(ix *discovery.SkillsIndex, name string) bool {
	for _, e := range ix.Index.Skills {
		if e.Name == name {
			return true
		}
	}
	return false
}

// selectNames returns the skills to bundle: names, else the lock's, else the index's.
func selectNames(ix *discovery.SkillsIndex, names []string, l *skilllock.Lock) ([]string, error) {
	if len(names) == 0 && l != nil {
		for _, s := range l.Skills {
			names = append(names, s.Name)
		}
	}
	if len(names) == 0 {
		for _, e := range ix.Index.Skills {
			names = append(names, e.Name)
		}
	}
	var out []string
	for _, n := range names {
		if l != nil {
			if _, ok := l.Lookup(n); !ok {
				return nil, fmt.Errorf("skillbundle: the lock records no skill %q", n)
			}
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("skillbundle: %s lists no skill", ix.URL)
	}
	return out, nil
}

// artifactURLs are the URLs GetSkill fetched for e.
func artifactURLs(e *agentskills.IndexEntry) []string {
	if len(e.Files) == 0 {
		return []string{e.URL}
	}
	out := make([]string, 0, len(e.Files))
	for _, f := range e.Files {
		out = append(out, f.URL)
	}
	return out
}

// manifestOf makes sure the Trust Manifest beside e's artifact is recorded when the
// origin publishes one, and returns its URL ("" when there is none). GetSkill fetched
// it already when the Client has trust roots; otherwise it is fetched here through
// the Client's policy guard for the index's origin (reads on that origin only, the
// same transport and private-address rules).
func manifestOf(ctx context.Context, c *discovery.Client, ix *discovery.SkillsIndex, e *agentskills.IndexEntry, rec *recorder) (string, error) {
	mu, err := trust.ManifestURL(e.URL)
	if err != nil {
		return "", nil // not an https artifact: it cannot be signed under the web convention
	}
	if rec.has(mu) {
		return mu, nil
	}
	if o, err := parseOrigin(mu); err != nil || o != ix.Origin.String() {
		return "", nil // on another origin: not bundled (see pick)
	}
	g, err := c.Guard(&discovery.Discovery{Origin: ix.Origin}, nil)
	if err != nil {
		return "", err
	}
	hc := &http.Client{Transport: g, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, mu, nil)
	if err != nil {
		return "", err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("skillbundle: the trust manifest %s: %w", mu, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return "", nil
	case resp.StatusCode != http.StatusOK:
		return "", fmt.Errorf("skillbundle: the trust manifest %s: %s", mu, resp.Status)
	}
	if _, err := io.Copy(io.Discard, io.LimitReader(resp.Body, trust.MaxManifestBytes+1)); err != nil {
		return "", fmt.Errorf("skillbundle: the trust manifest %s: %w", mu, err)
	}
	if !rec.has(mu) {
		return "", fmt.Errorf("skillbundle: the trust manifest %s was not recorded", mu)
	}
	return mu, nil
}

// lockProblems compares the fetched skills with the lock's records of names, as an
// install --frozen does: each difference (a skill not fetched is no longer served), or
// nil.
func lockProblems(l *skilllock.Lock, names []string, fetched map[string]*discovery.Skill) []string {
	served := &skilllock.Lock{}
	sub := &skilllock.Lock{}
	for _, name := range names {
		s, _ := l.Lookup(name)
		sub.Put(s)
	}
	for name, sk := range fetched {
		files := map[string][]byte{}
		for i, f := range sk.Files {
			p := f.Path
			if i == 0 && strings.EqualFold(p, agentskills.SkillFile) {
				p = agentskills.SkillFile // installed as SKILL.md whatever a v0.1.0 index calls it
			}
			files[p] = f.Data
		}
		digests, err := skilllock.HashFiles(files)
		if err != nil {
			return []string{name + ": " + err.Error()}
		}
		served.Put(skilllock.Skill{Name: name, Source: lockSource(sk.Entry.URL), Files: digests})
	}
	var out []string
	for _, p := range skilllock.Compare(sub, served) {
		out = append(out, p.String())
	}
	return out
}

// lockSource is u as a lock records it: without userinfo, query or fragment.
func lockSource(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	u.User, u.RawQuery, u.Fragment, u.RawFragment = nil, "", "", ""
	return u.String()
}

// recorder keeps the body of every successful GET the Client made, as served.
type recorder struct {
	mu     sync.Mutex
	budget int64 // bytes left
	files  map[string]*stored
}

func (r *recorder) has(u string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.files[recordKey(u)] != nil
}

// recordKey names a URL as the recorder keeps it: origin (lower case, no default
// port), path and query, so that the URL a request was sent to and the URL an index
// names match however each was spelled.
func recordKey(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	o, err := originOf(u)
	if err != nil {
		return raw
	}
	k := o + u.Path
	if u.RawQuery != "" {
		k += "?" + u.RawQuery
	}
	return k
}

// pick returns the bundle's files: each wanted URL, which must have been recorded
// and be on origin, sorted by path.
func (r *recorder) pick(origin string, want []string, lim Limits) ([]File, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []File
	seen := map[string]bool{}
	var total int64
	for _, u := range want {
		p, err := pathOn(origin, u)
		if err != nil {
			return nil, fmt.Errorf("skillbundle: cannot bundle %s: it %v", u, err)
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		f := r.files[recordKey(u)]
		if f == nil {
			return nil, fmt.Errorf("skillbundle: %s was not fetched as a document of its own (redirected?); cannot bundle it", u)
		}
		total += int64(len(f.data))
		if len(out)+2 > lim.MaxFiles || total > lim.MaxBytes {
			return nil, fmt.Errorf("%w: more than %d files or %d bytes", ErrTooLarge, lim.MaxFiles-1, lim.MaxBytes)
		}
		out = append(out, File{Path: p, URL: u, ContentType: f.ctype, Size: int64(len(f.data)), Digest: skilllock.Digest(f.data), data: f.data})
	}
	slices.SortFunc(out, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

type recordingTransport struct {
	rec  *recorder
	base http.RoundTripper
}

func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	t.rec.mu.Lock()
	budget := t.rec.budget
	t.rec.mu.Unlock()
	data, err := io.ReadAll(io.LimitReader(resp.Body, budget+1))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > budget {
		return nil, fmt.Errorf("%w: %s goes over the %d bytes left", ErrTooLarge, redactURL(req), budget)
	}
	key := recordKey(req.URL.String())
	t.rec.mu.Lock()
	if old := t.rec.files[key]; old != nil {
		t.rec.budget += int64(len(old.data)) // fetched again (a retry): counted once
	}
	t.rec.budget -= int64(len(data))
	t.rec.files[key] = &stored{data: data, ctype: resp.Header.Get("Content-Type")}
	t.rec.mu.Unlock()
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	return resp, nil
}

// writeTar writes bundle.json then every file, in m's order, with fixed metadata so
// the same files give the same bytes.
func writeTar(w io.Writer, m *Manifest) error {
	mj, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	mj = append(mj, '\n')
	tw := tar.NewWriter(w)
	put := func(name string, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data)), Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	if err := put(ManifestName, mj); err != nil {
		return err
	}
	for _, f := range m.Files {
		if err := put(f.Path, f.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return nil
}
