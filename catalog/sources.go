package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/mcpclient"
)

// setDigest binds a set of files: SHA-256 over the sorted "path digest" lines. Any
// file added, removed or changed gives another digest.
func setDigest(files map[string]string) string {
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s %s\n", k, files[k])
	}
	return agentskills.DigestPrefix + hex.EncodeToString(h.Sum(nil))
}

// localSource is a scan of local folders.
type localSource struct {
	opts agentskills.LocalOptions
}

func (l *localSource) list(context.Context) ([]item, []string, error) {
	found, err := agentskills.ScanLocal(l.opts)
	if err != nil {
		return nil, nil, err
	}
	var warns []string
	for _, d := range found.Diagnostics {
		warns = append(warns, "local: "+discovery.Redact(d.String()))
	}
	items := make([]item, 0, len(found.Skills))
	for _, s := range found.Skills {
		items = append(items, item{Entry: Entry{
			SkillName: s.Name, Description: s.Skill.Description(), Kind: Local, From: s.Dir,
			URI: filepath.Join(s.Dir, agentskills.SkillFile), Verified: true,
		}, src: l})
	}
	return items, warns, nil
}

// walkLocal lists a local skill's files (no links, bounded) with their digests.
func walkLocal(dir string) (map[string]string, error) {
	files := map[string]string{}
	var total int64
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (d.Name() == ".git" || d.Name() == "node_modules") {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // links and devices are not part of a skill
		}
		if len(files) >= agentskills.MaxResources {
			return fmt.Errorf("catalog: %s has more than %d files", dir, agentskills.MaxResources)
		}
		data, err := readRoot(root, p, agentskills.MaxResourceBytes-total)
		if err != nil {
			return err
		}
		total += int64(len(data))
		files[p] = agentskills.Digest(data)
		return nil
	})
	return files, err
}

// readRoot reads name inside root, at most limit bytes.
func readRoot(root *os.Root, name string, limit int64) ([]byte, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("catalog: %s: the skill is over %d bytes", name, agentskills.MaxResourceBytes)
	}
	return data, nil
}

func (l *localSource) activate(_ context.Context, it *item) ([]byte, map[string]string, string, error) {
	dir := it.From
	files, err := walkLocal(dir)
	if err != nil {
		return nil, nil, "", err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, "", err
	}
	defer root.Close()
	md, err := readRoot(root, agentskills.SkillFile, 1<<20)
	if err != nil {
		return nil, nil, "", err
	}
	files[agentskills.SkillFile] = agentskills.Digest(md) // as read now
	return md, files, setDigest(files), nil
}

func (l *localSource) read(_ context.Context, it *item, path string) ([]byte, error) {
	path = filepath.ToSlash(strings.TrimPrefix(path, "/"))
	if !filepath.IsLocal(path) {
		return nil, fmt.Errorf("catalog: %q is not inside the skill", shorten(path))
	}
	root, err := os.OpenRoot(it.From) // never leaves the skill's folder, links included
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return readRoot(root, path, agentskills.MaxResourceBytes)
}

// others returns the paths of files but SKILL.md, sorted.
func others(files map[string]string) []string {
	out := make([]string, 0, len(files))
	for p := range files {
		if p != agentskills.SkillFile {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// webSource is a site's well-known skills index.
type webSource struct {
	client *discovery.Client
	origin string

	mu     sync.Mutex
	ix     *discovery.SkillsIndex
	skills map[string]*discovery.Skill // by entry name, fetched on activation
}

func (w *webSource) list(ctx context.Context) ([]item, []string, error) {
	ix, err := w.client.ListSkills(ctx, w.origin)
	if err != nil {
		return nil, nil, err
	}
	w.mu.Lock()
	w.ix, w.skills = ix, map[string]*discovery.Skill{}
	w.mu.Unlock()
	var warns []string
	for _, wn := range ix.Warnings {
		warns = append(warns, discovery.Redact(wn.String()))
	}
	items := make([]item, 0, len(ix.Index.Skills))
	var unverified []string
	for _, e := range ix.Index.Skills {
		digest, verified := webDigest(e)
		items = append(items, item{Entry: Entry{
			SkillName: e.Name, Description: e.Description, Kind: Web, From: ix.Origin.String(),
			URI: e.URL, Digest: digest, Verified: verified,
		}, src: w})
		if !verified {
			unverified = append(unverified, strconv.Quote(shorten(e.Name)))
		}
	}
	if n := len(unverified); n > 0 {
		names := strings.Join(unverified[:min(n, 8)], ", ")
		if n > 8 {
			names += fmt.Sprintf(" and %d more", n-8)
		}
		warns = append(warns, discovery.Redact(fmt.Sprintf("%s: %d skills unverified (the index gives no digest to check them against): %s",
			ix.Origin, n, names)))
	}
	return items, warns, nil
}

// webDigest returns what an approval of the index entry e binds to, and whether every
// file GetSkill fetches for it is checked against a published digest. A file list
// (v0.1.0, interim) is bound as a set: an interim entry's Digest is its SKILL.md's
// alone, and an approval bound to it would cover any other file. A list with a file
// that has no digest (v0.1.0, or a placeholder a lenient read dropped) gives "": the
// digest is of the content as fetched at activation.
func webDigest(e agentskills.IndexEntry) (digest string, verified bool) {
	if len(e.Files) == 0 {
		return e.Digest, e.Digest != ""
	}
	set := map[string]string{}
	for _, f := range e.Files {
		if f.Digest == "" {
			return "", false
		}
		set[f.Path] = f.Digest
	}
	return setDigest(set), true
}

func (w *webSource) activate(ctx context.Context, it *item) ([]byte, map[string]string, string, error) {
	w.mu.Lock()
	ix := w.ix
	w.mu.Unlock()
	sk, err := w.client.GetSkill(ctx, ix, it.SkillName)
	if err != nil {
		return nil, nil, "", err
	}
	w.mu.Lock()
	w.skills[it.SkillName] = sk
	w.mu.Unlock()
	it.Publisher = sk.Publisher
	files := map[string]string{}
	for _, f := range sk.Files {
		files[f.Path] = agentskills.Digest(f.Data)
	}
	digest := it.Digest
	if digest == "" {
		digest = setDigest(files)
	}
	return sk.Files[0].Data, files, digest, nil
}

func (w *webSource) read(ctx context.Context, it *item, path string) ([]byte, error) {
	w.mu.Lock()
	sk := w.skills[it.SkillName]
	w.mu.Unlock()
	if sk == nil {
		// A refresh since the activation dropped the fetched copy: fetch it again
		// (verified against the index's digest; the catalog then checks every file
		// against what was activated).
		if _, _, _, err := w.activate(ctx, it); err != nil {
			return nil, err
		}
		w.mu.Lock()
		sk = w.skills[it.SkillName]
		w.mu.Unlock()
	}
	for _, f := range sk.Files {
		if f.Path == strings.TrimPrefix(path, "/") {
			return f.Data, nil
		}
	}
	return nil, fmt.Errorf("catalog: %s lists no file %q", shorten(it.Name), shorten(path))
}

// mcpSource is an MCP session's skills.
type mcpSource struct {
	label string
	s     *mcpclient.Session

	mu     sync.Mutex
	skills map[string]*mcpclient.Skill // by SKILL.md URI
}

func (m *mcpSource) list(ctx context.Context) ([]item, []string, error) {
	l, err := m.s.ListSkills(ctx)
	if err != nil {
		return nil, nil, err
	}
	skills := map[string]*mcpclient.Skill{}
	items := make([]item, 0, len(l.Skills))
	for i := range l.Skills {
		sk := &l.Skills[i]
		skills[sk.URI] = sk
		e := Entry{SkillName: sk.Name, Description: sk.Description, Kind: MCP, From: m.label, URI: sk.URI,
			Verified: sk.Verified, Dynamic: sk.Dynamic()}
		if fs := sk.Files(); len(fs) > 0 && sk.Verified {
			set := map[string]string{}
			for _, f := range fs {
				set[f.URI] = f.Digest
			}
			e.Digest = setDigest(set) // SEP-2640 §3.10: approval binds to every {uri, digest}
		} else if d := sk.ArchiveDigest(); d != "" {
			e.Digest = d // a draft archive: the approval binds to the archive
		}
		items = append(items, item{Entry: e, src: m})
	}
	m.mu.Lock()
	m.skills = skills
	m.mu.Unlock()
	warns := make([]string, 0, len(l.Warnings))
	for _, w := range l.Warnings {
		warns = append(warns, m.label+": "+w)
	}
	return items, warns, nil
}

func (m *mcpSource) skill(it *item) (*mcpclient.Skill, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	sk := m.skills[it.URI]
	if sk == nil {
		return nil, fmt.Errorf("%w: %q", ErrUnknownSkill, shorten(it.Name))
	}
	return sk, nil
}

// maxActivateBytes bounds what activating an MCP skill reads to bind its files.
const maxActivateBytes = agentskills.MaxResourceBytes

// activate reads SKILL.md and returns the digests of the skill's files. A verified
// skill's files are bound by their listed digests (the session checks every read
// against them) and its approval by the listing's digest. Any other skill that lists
// files (a draft manifest without hashes, a draft archive) has them read now, so that
// the approval binds to what was read, as it does for its SKILL.md; a skill that
// lists none (a dynamic skill, a draft index entry or resources scan) binds its
// SKILL.md only, and the Catalog binds its other files on their first read.
func (m *mcpSource) activate(ctx context.Context, it *item) ([]byte, map[string]string, string, error) {
	sk, err := m.skill(it)
	if err != nil {
		return nil, nil, "", err
	}
	md, err := m.s.ReadFile(ctx, sk, agentskills.SkillFile)
	if err != nil {
		return nil, nil, "", err
	}
	root := strings.TrimSuffix(sk.URI, agentskills.SkillFile)
	var paths []string          // files to read now
	var files map[string]string // nil when the skill lists none
	if fs := sk.Files(); len(fs) > 0 {
		files = map[string]string{}
		for _, f := range fs {
			p := strings.TrimPrefix(f.URI, root)
			if sk.Verified && f.Digest != "" {
				files[p] = f.Digest // every read is checked against it
			} else {
				paths = append(paths, p)
			}
		}
	} else if ps := m.s.ArchiveFiles(sk); ps != nil {
		files = map[string]string{}
		paths = ps // from the archive in memory
	}
	var total int64
	for _, p := range paths {
		if p == agentskills.SkillFile {
			files[p] = agentskills.Digest(md)
			continue
		}
		data, err := m.s.ReadFile(ctx, sk, p)
		if err != nil {
			return nil, nil, "", err
		}
		if total += int64(len(data)); total > maxActivateBytes {
			return nil, nil, "", fmt.Errorf("catalog: skill %q is over %d bytes", shorten(it.Name), maxActivateBytes)
		}
		files[p] = agentskills.Digest(data)
	}
	digest := ""
	if sk.Verified {
		digest = it.Digest // the listing's, which every read is checked against
	}
	return md, files, digest, nil
}

func (m *mcpSource) read(ctx context.Context, it *item, path string) ([]byte, error) {
	sk, err := m.skill(it)
	if err != nil {
		return nil, err
	}
	return m.s.ReadFile(ctx, sk, path)
}
