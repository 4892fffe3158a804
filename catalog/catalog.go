// Package catalog keeps one registry of Agent Skills for an agent: skills found in
// local folders (agentskills.ScanLocal), in a site's well-known index
// (discovery.Client.ListSkills) and on MCP servers (mcpclient), each entry labelled
// with where it came from, its digest and whether it was verified.
//
// It follows the progressive disclosure of the Agent Skills client guide: [Catalog.Prompt]
// renders only names and descriptions for the system prompt, within a byte budget;
// [Catalog.Activate] reads a skill's SKILL.md when the model activates it; other files
// are read only when asked ([Catalog.ReadFile]). Activation can require the user's
// approval ([ApprovalStore]), and an approval is always bound to a digest of what was
// read: the published digest where the listing gives one (the content is checked
// against it), otherwise a digest the Catalog computes over the SKILL.md and files it
// read. A skill whose content changes needs approval again, whatever its source, and
// a file read after the activation is handed out only if it is the one that was
// approved.
//
// Names that collide are qualified ("example.com/deploy", "server/deploy"): the most
// trusted source keeps the bare name, so an MCP skill never silently shadows a local
// one. What the host added always outranks what the model added (a site added with
// [Catalog.AddWebForModel], as the tools' list_skills does), and among the sites the
// model added, the one added first keeps a name: adding a site never changes which
// skill a name the model has seen means. Each name a skill could not take is a
// warning ([Catalog.Warnings]) and a note on its line in [Catalog.Prompt]. Order is
// deterministic. Everything a site or server published is untrusted data, never
// instructions: Prompt puts it inside a fence.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/internal/fence"
	"github.com/wellknown-dev/discovery/mcpclient"
	"github.com/wellknown-dev/discovery/trust"
)

// Kind is where a skill comes from.
type Kind int

// Kinds, in the default order of trust.
const (
	Local Kind = iota + 1 // a folder on this machine
	Web                   // a site's well-known skills index
	MCP                   // an MCP server
)

// String returns "local", "web" or "mcp".
func (k Kind) String() string {
	switch k {
	case Local:
		return "local"
	case Web:
		return "web"
	case MCP:
		return "mcp"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// MarshalText encodes the kind as its String.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Entry is one skill in the catalog. Strings other than Name and Kind were published
// by the skill's author, a site or a server: untrusted, for display.
type Entry struct {
	Name        string // unique in the catalog: the skill's name, qualified when it collides
	SkillName   string // the name its author gave it
	Description string
	Kind        Kind
	From        string // local: the folder; web: the origin; MCP: the server's label
	URI         string // where SKILL.md is: a path, an artifact URL or a skill:// URI
	Digest      string // "sha256:..." published for it; "" when the digest is known only at activation
	Verified    bool   // content is checked against published digests (local files: yes)
	Dynamic     bool   // an MCP skill with no file list: never approved for good
	// Publisher is the publisher signature check of a web skill, known from its
	// activation (with a Client that has Options.TrustRoots) until the next refresh;
	// nil otherwise.
	Publisher *trust.Result
	// ByModel is true for a skill of a source the model asked for
	// ([Catalog.AddWebForModel]): it ranks below every source the host added.
	ByModel bool
}

// Key identifies the skill across refreshes: its kind, source and URI. Approvals are
// stored under it.
func (e *Entry) Key() string { return e.Kind.String() + " " + e.From + " " + e.URI }

// Options configures a Catalog. The zero value gives the defaults.
type Options struct {
	// Trust orders the kinds: on a name collision the earlier kind keeps the bare name.
	// nil: Local, then Web, then MCP.
	Trust []Kind
	// TrustedOrigins are web origins ranked just after local skills (the site the agent
	// works with); other web origins come after MCP servers. nil: every web origin
	// ranks at Web.
	TrustedOrigins []string
	// Approvals, when set, makes Activate require an approval bound to a digest of
	// what was read ([ErrNeedsApproval] until Approve). nil: no approval step.
	Approvals ApprovalStore
}

// Sentinel errors.
var (
	// ErrUnknownSkill: no skill of that name in the catalog.
	ErrUnknownSkill = errors.New("catalog: no such skill")
	// ErrNeedsApproval: the skill (or its current content) has not been approved.
	ErrNeedsApproval = errors.New("catalog: the skill needs the user's approval")
	// ErrNotActive: a file was asked for before its skill was activated.
	ErrNotActive = errors.New("catalog: activate the skill first")
	// ErrNoFile: the activated skill had no file of that path; the error lists the
	// files it has.
	ErrNoFile = errors.New("catalog: the skill has no such file")
	// ErrNoDigest: Approve was given no digest. An approval binds to the digest of
	// what was read: the one an [*ApprovalError] reports, or a listed Entry.Digest.
	ErrNoDigest = errors.New("catalog: an approval needs the digest of the content approved")
)

// Catalog is a registry of skills. It is safe for concurrent use.
type Catalog struct {
	opts Options

	mu      sync.Mutex
	sources []added
	entries []Entry         // sorted, names unique
	lines   []string        // each entry's prompt line, rendered once per refresh
	items   map[string]item // by Entry.Name
	active  map[string]*Activation
	added   int               // sources added so far, for added.seq
	session map[string]string // approvals for the Catalog's lifetime only (dynamic skills): key → digest
	pinned  map[string]*pins  // skills that list no files, by key: the files read under the current approval
	warns   []string
}

// New returns an empty Catalog.
func New(opts *Options) *Catalog {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Trust == nil {
		o.Trust = []Kind{Local, Web, MCP}
	}
	return &Catalog{opts: o, items: map[string]item{}, active: map[string]*Activation{}, session: map[string]string{},
		pinned: map[string]*pins{}}
}

// item is an entry with the means to read it.
type item struct {
	Entry
	src source
	seq int // the order in which the model added its source (model sources only)
}

// source lists skills and reads them. Implemented for local folders, web indexes and
// MCP sessions.
type source interface {
	list(ctx context.Context) ([]item, []string, error)
	// activate reads and verifies SKILL.md, returning it, the skill's files (paths
	// relative to the skill root, SKILL.md included) with the digests of their
	// content (a nil map when the skill lists no files), and the published digest the
	// content was checked against ("" when there is none: the Catalog then binds the
	// approval to a digest of what was read).
	activate(ctx context.Context, it *item) (md []byte, files map[string]string, digest string, err error)
	// read reads one file of an activated skill, verified where the source allows.
	read(ctx context.Context, it *item, path string) ([]byte, error)
}

// added is a source in the catalog, with who added it.
type added struct {
	src     source
	byModel bool   // AddWebForModel: ranks below every source the host added
	origin  string // a web source's origin, canonical where it parses ("" for others)
	seq     int    // when it was added: among the model's sources, the earlier ranks first
}

// Warnings returns what the last refresh reported: skipped, shadowed or unverified
// skills, sources that failed. Redacted.
func (c *Catalog) Warnings() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.warns)
}

// Entries returns every skill, in the catalog's order: by trust (every source the
// host added before every source the model added, the model's in the order it added
// them), then source, then name.
func (c *Catalog) Entries() []Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.entries)
}

// Lookup returns the entry named name.
func (c *Catalog) Lookup(name string) (Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	it, ok := c.items[name]
	return it.Entry, ok
}

// add registers a source and lists it. A web origin the model asks for that is
// already a source is not added again; a web origin the host adds replaces the
// source the model had added for it, so that it ranks as the host's.
func (c *Catalog) add(ctx context.Context, a added) error {
	c.mu.Lock()
	switch {
	case a.origin != "" && a.byModel:
		if slices.ContainsFunc(c.sources, func(b added) bool { return b.origin == a.origin }) {
			c.mu.Unlock()
			return c.Refresh(ctx)
		}
	case a.origin != "":
		c.sources = slices.DeleteFunc(c.sources, func(b added) bool { return b.byModel && b.origin == a.origin })
	}
	c.added++
	a.seq = c.added
	c.sources = append(c.sources, a)
	c.mu.Unlock()
	return c.Refresh(ctx)
}

// Refresh lists every source again (cheap: the HTTP cache revalidates with ETags, MCP
// listings are small) and rebuilds the entries. Activations whose skill changed are
// dropped. A source that fails keeps no entries and adds a warning; the error of the
// first failure is returned after the others are listed.
func (c *Catalog) Refresh(ctx context.Context) error {
	c.mu.Lock()
	sources := slices.Clone(c.sources)
	c.mu.Unlock()
	var all []item
	var warns []string
	var first error
	for _, s := range sources {
		items, w, err := s.src.list(ctx)
		warns = append(warns, w...)
		if err != nil {
			warns = append(warns, discovery.Redact(err.Error()))
			if first == nil {
				first = err
			}
			continue
		}
		for i := range items {
			items[i].ByModel = s.byModel
			if s.byModel {
				items[i].seq = s.seq
			}
		}
		all = append(all, items...)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var shadowed []string
	c.entries, c.items, shadowed = c.arrange(all)
	c.lines = make([]string, len(c.entries))
	for i := range c.entries {
		c.lines[i] = promptLine(&c.entries[i])
	}
	c.warns = append(warns, shadowed...)
	for name, a := range c.active {
		if it, ok := c.items[name]; !ok || it.Key() != a.Entry.Key() || it.ByModel != a.Entry.ByModel ||
			(it.Digest != "" && it.Digest != a.listedDigest) {
			delete(c.active, name)
		}
	}
	return first
}

// rank orders an item by trust: lower is more trusted. Every source the host added
// ranks before every source the model added; within each, the order of
// Options.Trust and Options.TrustedOrigins applies, and then, among the model's
// sources, the order in which they were added (arrange).
func (c *Catalog) rank(it *item) int {
	r := c.kindRank(it)
	if it.ByModel {
		r += 2*len(c.opts.Trust) + 3 // past the least trusted rank a host source can have
	}
	return r
}

func (c *Catalog) kindRank(it *item) int {
	if it.Kind == Web && len(c.opts.TrustedOrigins) > 0 {
		if slices.Contains(c.opts.TrustedOrigins, it.From) {
			return 2*slices.Index(c.opts.Trust, Local) + 1
		}
		return 2*len(c.opts.Trust) + 1
	}
	if i := slices.Index(c.opts.Trust, it.Kind); i >= 0 {
		return 2 * i
	}
	return 2*len(c.opts.Trust) + 2
}

// arrange sorts items by trust, source and name, and qualifies colliding names. It
// returns a warning for each skill whose name a more trusted skill holds.
func (c *Catalog) arrange(all []item) ([]Entry, map[string]item, []string) {
	sort.SliceStable(all, func(i, j int) bool {
		a, b := &all[i], &all[j]
		if ra, rb := c.rank(a), c.rank(b); ra != rb {
			return ra < rb
		}
		if a.seq != b.seq {
			return a.seq < b.seq // the model's sources: adding one never takes a name from an earlier one
		}
		if a.From != b.From {
			return a.From < b.From
		}
		if a.SkillName != b.SkillName {
			return a.SkillName < b.SkillName
		}
		return a.URI < b.URI
	})
	items := make(map[string]item, len(all))
	entries := make([]Entry, 0, len(all))
	var warns []string
	for _, it := range all {
		name := it.SkillName
		holder, taken := items[name]
		if taken || name == "" {
			name = qualifier(&it) + "/" + it.SkillName
			for n := 2; ; n++ {
				if _, taken := items[name]; !taken {
					break
				}
				name = fmt.Sprintf("%s/%s~%d", qualifier(&it), it.SkillName, n)
			}
		}
		if taken {
			warns = append(warns, discovery.Redact(fmt.Sprintf("skill %q of %s would shadow the %s skill %q of %s: it is listed as %q",
				shorten(it.SkillName), describe(&it.Entry), holder.Kind, shorten(holder.Name), describe(&holder.Entry), shorten(name))))
		}
		it.Name = name
		items[name] = it
		entries = append(entries, it.Entry)
	}
	return entries, items, warns
}

// describe names an entry's source for a warning: "web https://example.com (added by
// the model)".
func describe(e *Entry) string {
	s := e.Kind.String() + " " + shorten(e.From)
	if e.ByModel {
		s += " (added by the model)"
	}
	return s
}

// qualifier is the short source label that prefixes a colliding name.
func qualifier(it *item) string {
	from := it.From
	if i := strings.Index(from, "://"); i >= 0 {
		from = from[i+3:]
	}
	if it.Kind == Local {
		from = "local"
	}
	return strings.TrimSuffix(from, "/")
}

// Activation is a skill the model activated: its SKILL.md, verified, and the files
// it lists, which ReadFile may then read.
type Activation struct {
	Entry   Entry
	SkillMD []byte   // the verified SKILL.md, exactly as published
	Files   []string // the skill's other files, relative to its root
	// Digest is what the approval is bound to, never "": the digest the listing
	// published for the skill (its content was checked against it) or, when it gives
	// none, a digest of the SKILL.md and files read at activation.
	Digest string

	listedDigest string
	files        map[string]string // path → digest of the content approved (nil: the skill lists no files)
	seen         *pins             // a skill that lists no files: the files read, as the approval covers them
}

// pins binds the files of a skill that lists none: the first read of a path fixes the
// content handed out for it, and the skill's approval then covers it as read.
type pins struct {
	mu sync.Mutex // guards m
	m  map[string]string
}

// bind returns the digest path is bound to, binding it to digest on its first read,
// and the digest of every file bound, when path was new ("" otherwise).
func (p *pins) bind(path, digest string) (want, set string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d, ok := p.m[path]; ok {
		return d, ""
	}
	p.m[path] = digest
	return digest, setDigest(p.m)
}

// paths returns the paths bound.
func (p *pins) paths() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(maps.Keys(p.m))
}

// Activate reads the SKILL.md of the skill named name, verifies it, and, when the
// Catalog has an ApprovalStore, requires an approval bound to a digest of what was
// read: [ErrNeedsApproval] (with nothing returned) until [Catalog.Approve]. The
// digest is the one the listing published (the content is checked against it), or,
// when the listing gives none (a draft MCP listing, a dynamic skill, an index without
// digests), one computed over the SKILL.md and the files read now: any change to
// them asks for approval again. For a skill that lists no files, the files read
// under its previous approval are read again and bound too.
func (c *Catalog) Activate(ctx context.Context, name string) (*Activation, error) {
	c.mu.Lock()
	it, ok := c.items[name]
	c.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownSkill, shorten(name))
	}
	md, files, digest, err := it.src.activate(ctx, &it)
	if err != nil {
		return nil, err
	}
	mdDigest := agentskills.Digest(md)
	read := map[string]string{agentskills.SkillFile: mdDigest}
	var seen *pins
	if files == nil {
		// The skill lists no files: its approval covers the SKILL.md and the files
		// read under the previous approval, as they are now.
		c.mu.Lock()
		prev := c.pinned[it.Key()]
		c.mu.Unlock()
		if prev != nil {
			for _, p := range prev.paths() {
				if p == agentskills.SkillFile {
					continue
				}
				if data, err := it.src.read(ctx, &it, p); err == nil {
					read[p] = agentskills.Digest(data)
				} // a file gone is left out: the digest differs, and the user is asked
			}
		}
		seen = &pins{m: maps.Clone(read)}
		digest = setDigest(read)
	} else {
		files[agentskills.SkillFile] = mdDigest // the bytes handed out now
	}
	if digest == "" {
		// Nothing published to bind to: bind to what was read.
		for p, d := range files {
			if d == "" {
				return nil, fmt.Errorf("catalog: skill %q: file %q was not read at activation: nothing to bind an approval to",
					shorten(name), shorten(p))
			}
			read[p] = d
		}
		digest = setDigest(read)
	}
	if err := c.approved(&it, digest); err != nil {
		return nil, err
	}
	a := &Activation{Entry: it.Entry, SkillMD: md, Files: others(files), Digest: digest, listedDigest: it.Digest, files: files, seen: seen}
	c.mu.Lock()
	c.notePublisher(name, &it)
	c.active[name] = a
	if seen != nil {
		c.pinned[it.Key()] = seen
	}
	c.mu.Unlock()
	return a, nil
}

// ReadFile reads one file of an activated skill (path relative to its root, as listed
// in Activation.Files), verified as its source allows. Files are read only when asked.
// A file is handed out only as it was when the skill was activated (and approved): a
// file changed since is refused with [ErrNeedsApproval]. For a skill that lists no
// files, the first read of each file after the activation fixes what it may be, and
// the approval covers it as read from then on (for the Catalog's lifetime): activating
// the skill again reads it again, and a change asks for approval.
func (c *Catalog) ReadFile(ctx context.Context, name, path string) ([]byte, error) {
	c.mu.Lock()
	it, ok := c.items[name]
	a := c.active[name]
	c.mu.Unlock()
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: %q", ErrUnknownSkill, shorten(name))
	case a == nil:
		return nil, fmt.Errorf("%w: %q", ErrNotActive, shorten(name))
	}
	// Only the files the skill had when it was activated (and approved), as they were
	// then: a file added or changed since is refused.
	path = strings.TrimPrefix(path, "/")
	want, listed := a.files[path]
	if a.files != nil && !listed {
		return nil, fmt.Errorf("%w: skill %q had no file %q when it was activated; its files: %s",
			ErrNoFile, shorten(name), shorten(path), fileList(a.files))
	}
	data, err := it.src.read(ctx, &it, path)
	if err != nil {
		return nil, err
	}
	got := agentskills.Digest(data)
	if a.seen != nil {
		var set string
		want, set = a.seen.bind(path, got)
		if set != "" && c.opts.Approvals != nil {
			// The approval now covers this file as first read, for this Catalog's
			// lifetime: activating the skill again reads it again, and a change asks.
			c.mu.Lock()
			if c.pinned[it.Key()] == a.seen {
				c.session[it.Key()] = set
			}
			c.mu.Unlock()
		}
	}
	if want == "" || got != want {
		return nil, fmt.Errorf("%w: file %q of skill %q changed since it was activated; activate it again",
			ErrNeedsApproval, shorten(path), shorten(name))
	}
	return data, nil
}

// Approve records the user's approval of the skill named name at digest: the one an
// [*ApprovalError] from Activate reported (or, before any activation, a listed
// Entry.Digest). An empty digest is [ErrNoDigest]: an approval always binds to
// content. A dynamic skill is approved for this Catalog's lifetime only, never
// persisted.
func (c *Catalog) Approve(ctx context.Context, name, digest string) error {
	c.mu.Lock()
	it, ok := c.items[name]
	c.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownSkill, shorten(name))
	}
	if digest == "" {
		return fmt.Errorf("%w: skill %q: activate it, and approve the digest the approval error reports", ErrNoDigest, shorten(name))
	}
	if it.Dynamic || c.opts.Approvals == nil {
		c.mu.Lock()
		c.session[it.Key()] = digest
		c.mu.Unlock()
		return nil
	}
	return c.opts.Approvals.Approve(it.Key(), digest)
}

// approved reports whether the content read for it, whose digest is digest, was
// approved. An empty digest is never approved.
func (c *Catalog) approved(it *item, digest string) error {
	if c.opts.Approvals == nil {
		return nil
	}
	if digest == "" {
		return &ApprovalError{Name: it.Name, Key: it.Key(), Digest: digest}
	}
	c.mu.Lock()
	d, ok := c.session[it.Key()]
	c.mu.Unlock()
	if ok && d == digest {
		return nil
	}
	if !it.Dynamic {
		ok, err := c.opts.Approvals.Approved(it.Key(), digest)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
	}
	return &ApprovalError{Name: it.Name, Key: it.Key(), Digest: digest}
}

// ApprovalError says which skill needs approval, and at which digest: show the user
// the skill (name, source, description), then call Approve with Digest.
type ApprovalError struct {
	Name   string
	Key    string
	Digest string
}

// Error implements the error interface.
func (e *ApprovalError) Error() string {
	return fmt.Sprintf("catalog: skill %q needs the user's approval (its content is new or changed)", shorten(e.Name))
}

// Unwrap returns ErrNeedsApproval.
func (e *ApprovalError) Unwrap() error { return ErrNeedsApproval }

// shorten shows untrusted text in a message or label: cleaned, one line, bounded.
func shorten(s string) string { return fence.Clean(s, "", 120) }

// AddLocal scans local folders (agentskills.ScanLocal) and adds what it finds; its
// diagnostics become warnings.
func (c *Catalog) AddLocal(ctx context.Context, opts agentskills.LocalOptions) error {
	return c.add(ctx, added{src: &localSource{opts: opts}})
}

// AddWeb adds the skills of origin's index (discovery.Client.ListSkills: the
// well-known one, or when none is published the one its AI Catalog lists) on the
// host's behalf. Listing reads only the index; an artifact is fetched when its
// skill is activated. An origin the model had added ([Catalog.AddWebForModel]) now
// ranks as the host's.
func (c *Catalog) AddWeb(ctx context.Context, client *discovery.Client, origin string) error {
	return c.add(ctx, added{src: &webSource{client: client, origin: origin}, origin: canonical(origin)})
}

// AddWebForModel adds the skills of origin's well-known index as AddWeb does, for an
// origin the model asked for (the tools' list_skills does this). Its skills rank
// below every source the host added, whatever their kind: a name the host's skills
// hold stays theirs, and the model's skill of that name is qualified, with a warning.
// An origin already in the catalog is not added again.
func (c *Catalog) AddWebForModel(ctx context.Context, client *discovery.Client, origin string) error {
	return c.add(ctx, added{src: &webSource{client: client, origin: origin}, origin: canonical(origin), byModel: true})
}

// canonical returns origin as discovery.ParseOrigin writes it, or origin itself when
// it does not parse (listing it will fail).
func canonical(origin string) string {
	if o, err := discovery.ParseOrigin(origin); err == nil {
		return o.String()
	}
	return origin
}

// AddMCP adds the skills of an MCP session, under label (a host-assigned name for the
// server; "" uses the session's Name or endpoint). The session stays the caller's to
// close.
func (c *Catalog) AddMCP(ctx context.Context, label string, s *mcpclient.Session) error {
	if label == "" {
		label = s.Name
	}
	if label == "" {
		label = s.Endpoint
	}
	label = shorten(label) // a server's own name is untrusted and unbounded
	return c.add(ctx, added{src: &mcpSource{label: label, s: s}})
}

// fileList names an activated skill's files for an error: sorted, the first 20.
func fileList(files map[string]string) string {
	names := slices.Sorted(maps.Keys(files))
	if len(names) == 0 {
		return "none besides SKILL.md"
	}
	more := ""
	if len(names) > 20 {
		names, more = names[:20], fmt.Sprintf(" and %d more", len(names)-20)
	}
	for i, n := range names {
		names[i] = strconv.Quote(shorten(n))
	}
	return strings.Join(names, ", ") + more
}
