package mcpclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/internal/secrets"
)

// The Skills Extension's methods (SEP-2640).
const (
	methodList    = "skills/list"
	methodGet     = "skills/get"
	methodDirRead = "resources/directory/read"
)

type cursorParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type uriParams struct {
	mcp.ParamsBase
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
}

// rawResult keeps a result's JSON as received, for the agentskills parsers, which
// treat it as untrusted data.
type rawResult struct {
	mcp.ResultBase
	raw []byte
}

// UnmarshalJSON keeps a copy of the result.
func (r *rawResult) UnmarshalJSON(b []byte) error {
	r.raw = bytes.Clone(b)
	return nil
}

func registerMethod(c *mcp.Client, method string) error {
	return mcp.AddSendingCustomMethod[*uriParams, *rawResult](c, method)
}

// Source tells how a skill was found on a server.
type Source string

// Sources, from the final extension to the loosest draft reader.
const (
	SourceExtension    Source = "skills-extension" // skills/list or skills/get (SEP-2640, final)
	SourceLegacyIndex  Source = "draft-index"      // a draft skill://index.json (April or June 2026)
	SourceFastMCP      Source = "fastmcp-manifest" // FastMCP's skill://NAME/_manifest
	SourceResourceScan Source = "resources-scan"   // a skill://.../SKILL.md in resources/list
)

// Skill is one skill a server serves. Every string in it was published by the server:
// untrusted data, to show with the server's label, never instructions.
type Skill struct {
	Name        string // frontmatter name (a label; identity is URI)
	Description string
	URI         string // the SKILL.md URI
	Source      Source
	// Verified is true when every file of the skill comes with a size and digest
	// (and, for the final extension, the SKILL.md frontmatter), so every read is
	// checked before it is returned. Dynamic skills and most drafts are unverified.
	Verified bool
	// Entry is the held entry of the final extension (nil for drafts): the acting
	// window. Files not in it are never read.
	Entry *agentskills.Entry

	files   []agentskills.Resource     // draft readers: what can be checked
	root    string                     // the skill root (skill://path), for the acting window of drafts
	archive *agentskills.LegacyArchive // a draft archive skill (Options.DraftArchives)
}

// archiveKey is what an unpacked draft archive was checked against: its resource URI,
// the digest it was verified with ("" for none) and the skill name its SKILL.md bears.
// A copy is reused only for a skill that would check it the same way: a listing that
// names the same URI with another digest (a new version, or one verified where the
// copy was not) reads and verifies the archive again.
type archiveKey struct{ uri, digest, name string }

// maxArchives bounds the unpacked draft archives a session keeps.
const maxArchives = 8

func keyOf(sk *Skill) archiveKey { return archiveKey{sk.archive.URI, sk.archive.Digest, sk.Name} }

// ArchiveDigest returns the digest of a draft archive skill's archive ("" for any
// other skill, or an archive published without one): what an approval binds to.
func (s *Skill) ArchiveDigest() string {
	if s.archive == nil {
		return ""
	}
	return s.archive.Digest
}

// ArchiveFiles returns the paths in a draft archive skill's archive, once a file of it
// has been read (nil before, and for any other skill).
func (s *Session) ArchiveFiles(sk *Skill) []string {
	if sk == nil || sk.archive == nil {
		return nil
	}
	s.mu.Lock()
	a := s.archives[keyOf(sk)]
	s.mu.Unlock()
	if a == nil {
		return nil
	}
	out := make([]string, 0, len(a.Files))
	for _, f := range a.Files {
		out = append(out, f.Path)
	}
	return out
}

// Dynamic reports whether the server lists no files for the skill ("dynamic").
func (s *Skill) Dynamic() bool { return s.Entry != nil && s.Entry.Dynamic }

// Files returns the listed files (nil for a dynamic or unverified skill).
func (s *Skill) Files() []agentskills.Resource {
	if s.Entry != nil {
		return s.Entry.Resources
	}
	return s.files
}

// Listing is what ListSkills found.
type Listing struct {
	Skills   []Skill
	Warnings []string // entries skipped and why, draft labels; redacted
}

// A Skill keeps at most the Agent Skills specification's lengths of the name and
// description the server published (64 and 1024 characters): past them a string is
// cut, ends with cutMark, and the listing warns. The held Entry keeps its frontmatter
// whole, since SKILL.md is verified against it.
const cutMark = " [… cut]"

// clip returns s cut to at most n characters and cutMark, and whether it was cut.
func clip(s string, n int) (string, bool) {
	if len(s) <= n { // bytes: no more characters than that
		return s, false
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + cutMark, true
		}
		i++
	}
	return s, false
}

// collector builds a Listing: it clips what each Skill keeps and bounds the warnings
// about it.
type collector struct {
	out Listing
	cut int // skills whose name or description was cut
}

func (c *collector) warn(w ...string) { c.out.Warnings = append(c.out.Warnings, w...) }

// add appends sk, its name and description clipped.
func (c *collector) add(sk Skill) {
	if what := clipLabels(&sk); what != "" {
		if c.cut++; c.cut <= maxDraftDiagnostics {
			c.warn(fmt.Sprintf("skill %s: %s; cut", quote(sk.URI), what))
		}
	}
	c.out.Skills = append(c.out.Skills, sk)
}

// clipLabels clips the name and description sk keeps, and says what was cut ("":
// nothing).
func clipLabels(sk *Skill) string {
	var what []string
	var cut bool
	if sk.Name, cut = clip(sk.Name, agentskills.MaxNameLen); cut {
		what = append(what, fmt.Sprintf("name over %d characters", agentskills.MaxNameLen))
	}
	if sk.Description, cut = clip(sk.Description, agentskills.MaxDescriptionLen); cut {
		what = append(what, fmt.Sprintf("description over %d characters", agentskills.MaxDescriptionLen))
	}
	return strings.Join(what, " and ")
}

// listing returns the Listing built.
func (c *collector) listing() *Listing {
	if n := c.cut - maxDraftDiagnostics; n > 0 {
		c.warn(fmt.Sprintf("and %d more skills with a name or description cut", n))
	}
	return &c.out
}

// ListSkills lists the server's skills. With the Skills Extension declared it follows
// skills/list to the last page (at most Options.MaxPages; a repeated cursor is an
// error) and returns the entries as held; without it, unless Options.NoLegacy, it
// tries the drafts: skill://index.json, FastMCP manifests, then a resources/list scan
// for skill://.../SKILL.md, each skill labelled with its Source. Nothing but listings
// is read: no SKILL.md, no file (lazy retrieval). Everything it receives, on every
// path, counts against Options.MaxListBytes, and each Skill keeps at most 64
// characters of name and 1024 of description (cut with a warning past them). A
// skills/list result is kept for its ttlMs, and ListSkills answers from it meanwhile
// (see [ListingCache] for the scopes and list_changed).
func (s *Session) ListSkills(ctx context.Context) (*Listing, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if !s.Skills.Declared {
		if s.opts.NoLegacy {
			return nil, ErrNoSkills
		}
		return s.legacySkills(ctx)
	}
	if l, ok := s.cached("list"); ok {
		return copyListing(l.(*Listing)), nil
	}
	gen := s.generation()
	var hints cacheHints
	out := &collector{}
	budget := s.newBudget()
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page >= s.opts.MaxPages {
			return nil, fmt.Errorf("%w: more than %d pages of skills/list", ErrTooMany, s.opts.MaxPages)
		}
		cctx, received := budget.measured(ctx)
		res, err := mcp.CallCustomMethod[*cursorParams, *rawResult](cctx, s.cs, methodList, &cursorParams{Cursor: cursor})
		if err != nil {
			return nil, s.callError(methodList, err)
		}
		if err := budget.charge(methodList, received(func() int64 { return int64(len(res.raw)) })); err != nil {
			return nil, err
		}
		if h := hintsOf(res.raw); page == 0 {
			hints = h.combine(h)
		} else {
			hints = hints.combine(h)
		}
		lr, err := agentskills.ParseListResult(res.raw)
		if err != nil {
			return nil, fmt.Errorf("mcpclient: skills/list: %w", err)
		}
		for _, d := range lr.Diagnostics {
			out.warn("skills/list: " + d.String())
		}
		for i := range lr.Skills {
			if sk, why := s.fromEntry(&lr.Skills[i]); why == "" {
				out.add(sk)
			} else {
				out.warn(why)
			}
		}
		if lr.NextCursor == "" {
			l := out.listing()
			s.keep("list", copyListing(l), hints, gen)
			return l, nil
		}
		if seen[lr.NextCursor] {
			return nil, fmt.Errorf("mcpclient: skills/list repeated a cursor; stopped")
		}
		seen[lr.NextCursor] = true
		cursor = lr.NextCursor
	}
}

// fromEntry checks an entry against the limits; why says why it is not used.
func (s *Session) fromEntry(e *agentskills.Entry) (Skill, string) {
	sk := Skill{URI: e.URI.String(), Source: SourceExtension, Verified: !e.Dynamic, Entry: e, root: e.URI.Root()}
	sk.Name, _ = e.Frontmatter["name"].(string)
	sk.Description, _ = e.Frontmatter["description"].(string)
	return sk, s.overLimits(sk.URI, e.Resources)
}

// overLimits says why a skill listing files is over the limits on files and bytes
// ("" when it is not).
func (s *Session) overLimits(uri string, files []agentskills.Resource) string {
	var total int64
	for _, r := range files {
		total += max(r.Size, 0)
	}
	switch {
	case len(files) > s.opts.MaxSkillFiles:
		return fmt.Sprintf("skill %s lists %d files, over the limit of %d; not used", quote(uri), len(files), s.opts.MaxSkillFiles)
	case total > s.opts.MaxSkillBytes:
		return fmt.Sprintf("skill %s lists %d bytes, over the limit of %d; not used", quote(uri), total, s.opts.MaxSkillBytes)
	}
	return ""
}

// maxDraftDiagnostics bounds the warnings one draft document adds to a listing.
const maxDraftDiagnostics = 8

// draftWarnings returns the warnings of one draft document's diagnostics, prefixed,
// at most maxDraftDiagnostics of them and then how many more.
func draftWarnings(prefix string, diags []agentskills.Diagnostic) []string {
	var out []string
	for i, d := range diags {
		if i == maxDraftDiagnostics {
			out = append(out, fmt.Sprintf("%sand %d more problems", prefix, len(diags)-i))
			break
		}
		out = append(out, prefix+d.String())
	}
	return out
}

// GetSkill asks the server for the entry of the skill whose SKILL.md is at uri
// (skills/get): to confirm a URI that came from elsewhere, or to refresh an entry
// after a verification failure. An unknown skill is [ErrSkillNotFound]. A result is
// kept for its ttlMs, as ListSkills keeps its own.
func (s *Session) GetSkill(ctx context.Context, uri string) (*Skill, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if !s.Skills.Declared {
		return nil, fmt.Errorf("%w: the server does not declare the Skills Extension", ErrNoSkills)
	}
	if sk, ok := s.cached("get " + uri); ok {
		c := *sk.(*Skill)
		return &c, nil
	}
	gen := s.generation()
	res, err := mcp.CallCustomMethod[*uriParams, *rawResult](ctx, s.cs, methodGet, &uriParams{URI: uri})
	if err != nil {
		return nil, s.callError(methodGet, err)
	}
	e, _, err := agentskills.ParseGetResult(res.raw)
	if err != nil {
		return nil, fmt.Errorf("mcpclient: skills/get: %w", err)
	}
	if e == nil {
		return nil, fmt.Errorf("mcpclient: skills/get returned no skill")
	}
	sk, why := s.fromEntry(e)
	if why != "" {
		return nil, fmt.Errorf("%w: %s", ErrTooMany, why)
	}
	clipLabels(&sk)
	h := hintsOf(res.raw)
	kept := sk
	s.keep("get "+uri, &kept, h.combine(h), gen)
	return &sk, nil
}

// ReadFile reads one file of sk through resources/read and verifies it before
// returning anything: the file must be listed in the held entry (acting window; an
// unlisted file is [ErrNotListed] and is not read), then its size, its SHA-256 digest
// and, for SKILL.md, its frontmatter value by value against the entry. A failure
// wraps [agentskills.ErrDigestMismatch] and the content is not returned: refresh with
// GetSkill. path is a skill:// URI or a path relative to the skill root ("SKILL.md",
// "references/RULES.md").
//
// With Options.Pins set, the skill's entry and the file are then checked against
// their pin (see [PinStore]) before the content is returned: a skill never approved,
// or changed since, asks Options.ApprovePin, and is [*PinError] unless approved.
func (s *Session) ReadFile(ctx context.Context, sk *Skill, path string) ([]byte, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if sk == nil {
		return nil, errors.New("mcpclient: ReadFile needs a skill from ListSkills or GetSkill")
	}
	uri, data, err := s.readFile(ctx, sk, path)
	if errors.Is(err, agentskills.ErrDigestMismatch) {
		s.listChanged() // what was kept of the listings is stale: GetSkill must ask the server
	}
	if err != nil {
		return nil, err
	}
	if s.pinSkills {
		if err := s.checkSkill(ctx, sk, uri, data); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// readFile reads and verifies one file of sk (see ReadFile) and returns its URI.
func (s *Session) readFile(ctx context.Context, sk *Skill, path string) (string, []byte, error) {
	uri := path
	if !strings.Contains(path, "://") {
		u, err := agentskills.ParseURIInSkill(strings.TrimSuffix(sk.root, "/")+"/"+strings.TrimPrefix(path, "/"), sk.root)
		if err != nil {
			return "", nil, fmt.Errorf("mcpclient: %w", err)
		}
		uri = u.String()
	}
	var want *agentskills.Resource
	switch {
	case sk.Entry != nil && !sk.Entry.Dynamic:
		r, ok := sk.Entry.Resource(uri)
		if !ok {
			return "", nil, fmt.Errorf("%w: %s", ErrNotListed, quote(uri))
		}
		want = &r
	case sk.Entry == nil && len(sk.files) > 0:
		for i := range sk.files {
			if sk.files[i].URI == uri {
				want = &sk.files[i]
			}
		}
		if want == nil {
			return "", nil, fmt.Errorf("%w: %s", ErrNotListed, quote(uri))
		}
	default: // dynamic, or an unverified draft: only inside the skill root
		if _, err := agentskills.ParseURIInSkill(uri, sk.root); err != nil {
			return "", nil, fmt.Errorf("%w: %s is outside the skill", ErrNotListed, quote(uri))
		}
	}
	if sk.archive != nil {
		data, err := s.fromArchive(ctx, sk, uri)
		return uri, data, err
	}
	var size int64 = -1
	if want != nil {
		size = want.Size
	}
	data, err := s.read(ctx, uri, size)
	if err != nil {
		return "", nil, err
	}
	switch {
	case sk.Entry != nil:
		if err := sk.Entry.VerifyFile(uri, data); err != nil {
			return "", nil, fmt.Errorf("mcpclient: %s: %w", quote(uri), err)
		}
	case want != nil && want.Digest != "":
		if err := agentskills.Verify(data, want.Size, want.Digest); err != nil {
			return "", nil, fmt.Errorf("mcpclient: %s: %w", quote(uri), err)
		}
	}
	return uri, data, nil
}

// fromArchive returns one file of a draft archive skill, reading, verifying and
// unpacking the archive on first use.
func (s *Session) fromArchive(ctx context.Context, sk *Skill, uri string) ([]byte, error) {
	s.mu.Lock()
	a := s.archives[keyOf(sk)]
	s.mu.Unlock()
	if a == nil {
		data, err := s.read(ctx, sk.archive.URI, -1)
		if err != nil {
			return nil, err
		}
		if sk.archive.Digest != "" {
			if err := agentskills.Verify(data, -1, sk.archive.Digest); err != nil {
				return nil, fmt.Errorf("mcpclient: %s: %w", quote(sk.archive.URI), err)
			}
		}
		a, err = agentskills.ReadArchive(data, agentskills.FormatOf(sk.archive.MimeType, sk.archive.URI),
			agentskills.Limits{MaxBytes: s.opts.MaxSkillBytes, MaxEntries: s.opts.MaxSkillFiles})
		if err != nil {
			return nil, fmt.Errorf("mcpclient: %s: %w", quote(sk.archive.URI), err)
		}
		// The archive's SKILL.md must be the skill the index listed, before any of its
		// files is used.
		md, _ := a.Get(agentskills.SkillFile)
		parsed, err := agentskills.ParseSkillMD(md, agentskills.ParseOptions{})
		if err != nil || parsed.Name() != sk.archive.Name { // the name as published; sk.Name may be cut
			return nil, fmt.Errorf("%w: the archive's SKILL.md is not the skill %s the index lists", agentskills.ErrDigestMismatch, quote(sk.Name))
		}
		s.mu.Lock()
		if s.archives == nil {
			s.archives = map[archiveKey]*agentskills.Archive{}
		}
		if len(s.archives) >= maxArchives {
			clear(s.archives) // bounded: each copy may hold MaxSkillBytes; a cleared one is read again
		}
		s.archives[keyOf(sk)] = a
		s.mu.Unlock()
	}
	rel, ok := strings.CutPrefix(uri, sk.root+"/")
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotListed, quote(uri))
	}
	data, ok := a.Get(rel)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not in the archive", ErrNotListed, quote(uri))
	}
	return data, nil
}

// read fetches one resource's bytes: text as UTF-8, a blob decoded; bounded. size is
// the size listed for it (negative: none), a hint for the buffers it is read into.
func (s *Session) read(ctx context.Context, uri string, size int64) ([]byte, error) {
	ctx, sink := withSink(ctx, uri, size)
	res, err := s.readResource(ctx, uri)
	if err != nil {
		return nil, s.callError("resources/read", err)
	}
	for _, c := range res.Contents {
		if c == nil || c.URI != uri {
			continue // content for another resource is never taken for this one
		}
		var data []byte
		if d, ok := sink.take(); ok && len(c.Blob) == 0 && c.Text == "" {
			data = d // decoded by the transport, and taken out of the result (see readbody.go)
		} else if c.Blob != nil {
			data = c.Blob
		} else {
			data = []byte(c.Text)
		}
		if int64(len(data)) > s.opts.MaxSkillBytes {
			return nil, fmt.Errorf("%w: %s is %d bytes, over %d", ErrTooMany, quote(uri), len(data), s.opts.MaxSkillBytes)
		}
		return data, nil
	}
	return nil, fmt.Errorf("mcpclient: resources/read of %s returned no contents", quote(uri))
}

// ReadDirectory lists the children of a directory of a skill with
// resources/directory/read, which is called only when the server declared
// directoryRead. Its pages together may receive at most Options.MaxListBytes. A
// listing never extends a held entry: a new child is not readable until GetSkill
// refreshes the entry.
func (s *Session) ReadDirectory(ctx context.Context, uri string) ([]agentskills.DirEntry, error) {
	ctx, cancel := s.bound(ctx)
	defer cancel()
	if !s.Skills.DirectoryRead {
		return nil, fmt.Errorf("mcpclient: the server does not offer resources/directory/read")
	}
	var out []agentskills.DirEntry
	budget := s.newBudget()
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page >= s.opts.MaxPages || len(out) > s.opts.MaxSkillFiles {
			return nil, fmt.Errorf("%w: directory listing too long", ErrTooMany)
		}
		cctx, received := budget.measured(ctx)
		res, err := mcp.CallCustomMethod[*uriParams, *rawResult](cctx, s.cs, methodDirRead, &uriParams{URI: uri, Cursor: cursor})
		if err != nil {
			return nil, s.callError(methodDirRead, err)
		}
		if err := budget.charge(methodDirRead, received(func() int64 { return int64(len(res.raw)) })); err != nil {
			return nil, err
		}
		entries, next, err := agentskills.ParseDirectoryRead(res.raw)
		if err != nil {
			return nil, fmt.Errorf("mcpclient: %s: %w", methodDirRead, err)
		}
		out = append(out, entries...)
		if next == "" {
			return out, nil
		}
		if seen[next] {
			return nil, fmt.Errorf("mcpclient: %s repeated a cursor; stopped", methodDirRead)
		}
		seen[next] = true
		cursor = next
	}
}

// bound limits one call of the session, every request it makes included, to
// Options.Timeout: a server that accepts a request and never answers, or answers a
// page at a time just slowly enough, must not hold the agent for longer.
func (s *Session) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, s.opts.Timeout,
		fmt.Errorf("mcpclient: the server did not answer within Options.Timeout (%s): %w", s.opts.Timeout, context.DeadlineExceeded))
}

// callError maps a JSON-RPC error: -32602 (and -32002, older servers' "resource not
// found") to ErrSkillNotFound. The server's message is untrusted: it is quoted
// shortened and redacted.
func (s *Session) callError(method string, err error) error {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		switch we.Code {
		case jsonrpc.CodeInvalidParams, -32002:
			return fmt.Errorf("%w: %s: %s", ErrSkillNotFound, method, quote(we.Message))
		}
		return fmt.Errorf("mcpclient: %s: error %d: %s", method, we.Code, quote(we.Message))
	}
	return fmt.Errorf("mcpclient: %s: %w", method, scrub(err))
}

// legacySkills reads the drafts, in order of trust: skill://index.json, FastMCP
// manifests, then a resources/list scan. Every skill found is labelled.
func (s *Session) legacySkills(ctx context.Context) (*Listing, error) {
	out := &collector{}
	found := map[string]bool{} // SKILL.md URIs already listed
	// The drafts have none of skills/list's bounds of their own: every answer read
	// here, whatever its fate, counts against Options.MaxListBytes as skills/list
	// pages do.
	budget := s.newBudget()
	const indexURI = "skill://index.json"
	ictx, received := budget.measured(ctx)
	index, indexErr := s.read(ictx, indexURI, -1)
	if err := budget.charge(indexURI, received(func() int64 { return int64(len(index)) })); err != nil {
		return nil, err
	}
	if indexErr == nil {
		entries, diags, err := agentskills.ParseLegacyIndex(index)
		if err == nil {
			out.warn("skills from a draft skill://index.json: non-standard, verified only where a digest is given")
			var shown []agentskills.Diagnostic
			for _, d := range diags {
				if d.Code == "archive" && s.opts.DraftArchives {
					continue // read below
				}
				shown = append(shown, d)
			}
			out.warn(draftWarnings("skill://index.json: ", shown)...)
			for _, e := range entries {
				u, err := agentskills.ParseSkillURI(e.URI)
				if err != nil {
					out.warn(fmt.Sprintf("skill://index.json: entry %s has no usable SKILL.md URI; skipped", quote(e.Name)))
					continue
				}
				sk := Skill{Name: e.Name, Description: e.Description, URI: u.String(), Source: SourceLegacyIndex, root: u.Root()}
				if e.Digest != "" {
					sk.Verified = true
					sk.files = []agentskills.Resource{{URI: u.String(), Digest: e.Digest, Size: -1}}
				}
				found[sk.URI] = true
				out.add(sk)
			}
		}
	}
	if indexErr == nil {
		archives, diags, err := agentskills.ParseLegacyArchives(index)
		switch {
		case err != nil || len(archives) == 0:
		case !s.opts.DraftArchives:
			out.warn(fmt.Sprintf("skill://index.json offers %d skills as archives (a draft form); skipped: set Options.DraftArchives to read them", len(archives)))
		default:
			out.warn(draftWarnings("skill://index.json: ", diags)...)
			for i := range archives {
				a := &archives[i]
				uri := a.Root + "/" + agentskills.SkillFile
				if found[uri] {
					continue // the same skill as skill-md: that one is preferred
				}
				found[uri] = true
				out.add(Skill{Name: a.Name, Description: a.Description, URI: uri, Source: SourceLegacyIndex,
					Verified: a.Digest != "", root: a.Root, archive: a})
			}
		}
	}
	resources, err := s.listResources(ctx, budget)
	var over error // the scan went past a limit: the pages before it are used
	switch {
	case errors.Is(err, ErrTooMany):
		over = err
		out.warn(fmt.Sprintf("resources/list: %v; the pages from there on are not used", err))
	case err != nil && len(out.out.Skills) == 0:
		return nil, err
	}
	// FastMCP manifests: skill://NAME/_manifest.
	failures := 0
	for _, r := range resources {
		if !strings.HasPrefix(r.URI, "skill://") || !strings.HasSuffix(r.URI, "/_manifest") {
			continue
		}
		fail := func(err error) {
			if failures++; failures <= maxDraftDiagnostics {
				out.warn(fmt.Sprintf("%s: %v", quote(r.URI), err))
			}
		}
		mctx, received := budget.measured(ctx)
		data, err := s.read(mctx, r.URI, -1)
		if budget.charge(r.URI, received(func() int64 { return int64(len(data)) })) != nil {
			out.warn(fmt.Sprintf("FastMCP manifests: stopped at %s, past %d bytes in all (Options.MaxListBytes); it and the manifests after it are not used", quote(r.URI), s.opts.MaxListBytes))
			break
		}
		if err != nil {
			fail(err)
			continue
		}
		name, files, diags, err := agentskills.ParseFastMCPManifest(data)
		if err != nil {
			fail(err)
			continue
		}
		out.warn(draftWarnings(quote(r.URI)+": ", diags)...)
		u, err := agentskills.NewURI(name, agentskills.SkillFile)
		if err != nil || found[u.String()] {
			continue
		}
		if why := s.overLimits(u.String(), files); why != "" {
			out.warn(why)
			continue
		}
		sk := Skill{Name: name, Description: r.Description, URI: u.String(), Source: SourceFastMCP, root: u.Root(), files: files, Verified: len(files) > 0}
		for _, f := range files {
			if f.Digest == "" {
				sk.Verified = false
			}
		}
		found[sk.URI] = true
		out.add(sk)
	}
	// Anything else that looks like a skill.
	for _, r := range resources {
		if !strings.HasPrefix(r.URI, "skill://") || !strings.HasSuffix(r.URI, "/"+agentskills.SkillFile) || found[r.URI] {
			continue
		}
		u, err := agentskills.ParseSkillURI(r.URI)
		if err != nil {
			continue
		}
		found[r.URI] = true
		out.add(Skill{Name: u.Name(), Description: r.Description, URI: r.URI, Source: SourceResourceScan, root: u.Root()})
	}
	if len(out.out.Skills) == 0 {
		if over != nil {
			return nil, over
		}
		return nil, ErrNoSkills
	}
	out.warn("the server does not declare the Skills Extension; skills were read from drafts (see each skill's Source) and are unverified unless marked")
	return out.listing(), nil
}

// listResources pages through resources/list, bounded: at most Options.MaxPages
// pages, 16 × Options.MaxSkillFiles resources, and every page charged to budget. A
// page past the budget is not used, and the error wraps [ErrTooMany].
func (s *Session) listResources(ctx context.Context, budget *listBudget) ([]*mcp.Resource, error) {
	var out []*mcp.Resource
	cursor := ""
	seen := map[string]bool{}
	for page := 0; page < s.opts.MaxPages; page++ {
		pctx, received := budget.measured(ctx)
		res, err := s.cs.ListResources(pctx, &mcp.ListResourcesParams{Cursor: cursor})
		if over := budget.charge("resources/list", received(func() int64 { return sizeOf(res) })); over != nil {
			return out, over
		}
		if err != nil {
			return out, s.callError("resources/list", err)
		}
		out = append(out, res.Resources...)
		if res.NextCursor == "" || seen[res.NextCursor] || len(out) > 16*s.opts.MaxSkillFiles {
			return out, nil
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
	return out, nil
}

// quote shows untrusted text in a message: redacted, shortened, quoted.
func quote(s string) string { return secrets.Quote(s, 160) }

// label shows a server's name.
func label(s string) string {
	if s == "" {
		return "(unnamed)"
	}
	return quote(s)
}

// redactURL shows an endpoint without userinfo, query or fragment.
func redactURL(u *url.URL) string { return secrets.RedactURL(u.String()) }
