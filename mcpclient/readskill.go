package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/trust"
)

// DefaultMaxInFlight is how many files [Session.ReadSkill] reads at once when
// ReadSkillOptions.MaxInFlight is zero.
const DefaultMaxInFlight = 4

// ReadSkillOptions configures [Session.ReadSkill]. A nil *ReadSkillOptions, or the
// zero value, gives the defaults.
type ReadSkillOptions struct {
	// MaxInFlight bounds the resources/read requests ReadSkill has in flight at
	// once. 0: [DefaultMaxInFlight]; 1 reads one file after the other; negative is
	// an error.
	MaxInFlight int

	// OnFile, when not nil, is handed each file as soon as it is verified, and
	// ReadSkill keeps none of them (SkillContent.Files is nil): memory then holds
	// only the reads in flight, whatever the size of the skill. It is called on the
	// goroutine that called ReadSkill, one file at a time, in no set order, while
	// the next reads go on; the reads wait for it when it is slower than they are.
	// Returning an error stops the call, and ReadSkill returns that error wrapped.
	// Every file handed over was verified, but the skill is whole only if ReadSkill
	// then returns nil: on an error, discard what was handed over (write the files
	// into a staging folder, say, and keep it only on success). nil: ReadSkill
	// returns every file in SkillContent.Files.
	OnFile func(f SkillFile) error
}

// SkillContent is a whole skill as [Session.ReadSkill] read and verified it. It is
// plain data, safe to read concurrently. Every byte in it was published by the
// server: untrusted data, never instructions.
type SkillContent struct {
	Skill *Skill // the skill read, as the caller passed it
	// Files holds every file: SKILL.md first, then the others in the order the
	// entry lists them.
	Files []SkillFile
	// Publisher is the publisher check (Options.TrustRoots) of the Trust Manifest the
	// skill's entry carries in "_meta": verified with publisher and key when it signs
	// every file read, else unverified and why. nil: no roots were configured.
	Publisher *trust.Result
}

// SkillFile is one file of a skill as read.
type SkillFile struct {
	URI  string // the skill:// URI it was read at
	Path string // relative to the skill root: "SKILL.md", "references/RULES.md"
	Data []byte
}

// File returns the content of the file at path (relative to the skill root), and
// whether the skill has it.
func (c *SkillContent) File(path string) ([]byte, bool) {
	for _, f := range c.Files {
		if f.Path == path {
			return f.Data, true
		}
	}
	return nil, false
}

// ReadSkill reads a whole skill, SKILL.md and every file its held entry lists, in
// one call: the files are read in parallel, at most ReadSkillOptions.MaxInFlight at
// once, and each is verified by the rules of [Session.ReadFile] (listed in the
// entry, then size, SHA-256 digest and, for SKILL.md, the frontmatter) as soon as it
// arrives. A skill that lists no files (a dynamic skill, most drafts) is read as its
// SKILL.md alone; a draft archive skill as the files of its archive, once the
// archive is verified. The files are returned in SkillContent.Files or, with
// ReadSkillOptions.OnFile, handed over one by one and not kept.
//
// It is all or nothing: the first failure (a file that does not verify, an error
// from the server, the limits, an error from OnFile, ctx done) cancels the reads
// still in flight, and ReadSkill returns nil and that error, never part of a skill
// (with OnFile, the caller discards what it was handed). A file that fails
// verification wraps [agentskills.ErrDigestMismatch]: refresh the entry with
// [Session.GetSkill] and read again. A cancelled call satisfies
// errors.Is(err, context.Canceled) or context.DeadlineExceeded.
//
// It is bounded by the limits of one skill: at most Options.MaxSkillFiles files and
// Options.MaxSkillBytes bytes in all (else [ErrTooMany]); the answer to each read of
// a listed file may not be much larger than the size the entry lists for it (six
// times that size, the longest a JSON string can encode it in, plus 64 KiB), so a
// server cannot make the session download far more than the skill it listed. The
// whole call, every read in it, is bounded by Options.Timeout.
func (s *Session) ReadSkill(ctx context.Context, sk *Skill, opts *ReadSkillOptions) (*SkillContent, error) {
	if sk == nil {
		return nil, errors.New("mcpclient: ReadSkill needs a skill from ListSkills or GetSkill")
	}
	inFlight := DefaultMaxInFlight
	if opts != nil && opts.MaxInFlight != 0 {
		inFlight = opts.MaxInFlight
	}
	if inFlight < 0 {
		return nil, fmt.Errorf("mcpclient: ReadSkillOptions.MaxInFlight is negative (%d)", inFlight)
	}
	ctx, cancel := s.bound(ctx)
	defer cancel()
	files, err := s.skillFiles(ctx, sk)
	if err != nil {
		return nil, err
	}
	if why := s.overLimits(sk.URI, files); why != "" {
		return nil, fmt.Errorf("%w: %s", ErrTooMany, why)
	}
	r := &skillReader{s: s, sk: sk, files: files}
	if opts != nil {
		r.onFile = opts.OnFile
	}
	if r.onFile == nil {
		r.out = make([]SkillFile, len(files))
	}
	r.digests = make([]string, len(files))
	r.run(ctx, min(inFlight, len(files)))
	if r.err != nil {
		return nil, r.err
	}
	return &SkillContent{Skill: sk, Files: r.out, Publisher: s.skillPublisher(ctx, sk, r.digests)}, nil
}

// skillFiles returns the files ReadSkill reads for sk, SKILL.md first. Only the size
// and digest of each are used, and only to bound the read: the verification itself is
// ReadFile's.
func (s *Session) skillFiles(ctx context.Context, sk *Skill) ([]agentskills.Resource, error) {
	first := agentskills.Resource{URI: sk.URI, Size: -1}
	if sk.archive != nil {
		// ReadFile reads, verifies and unpacks the archive with its SKILL.md: its
		// files are known from then on.
		if _, err := s.ReadFile(ctx, sk, sk.URI); err != nil {
			return nil, err
		}
		out := []agentskills.Resource{first}
		for _, p := range s.ArchiveFiles(sk) {
			if p != agentskills.SkillFile {
				out = append(out, agentskills.Resource{URI: sk.root + "/" + p, Size: -1})
			}
		}
		return out, nil
	}
	listed := sk.Files()
	out := make([]agentskills.Resource, 0, len(listed)+1)
	out = append(out, first)
	for _, r := range listed {
		if r.URI == sk.URI {
			out[0] = r
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

// skillReader is one ReadSkill call: workers take the files in turn and hand each,
// verified, to the calling goroutine, which keeps it or gives it to OnFile; the
// first failure stops them all.
type skillReader struct {
	s      *Session
	sk     *Skill
	files  []agentskills.Resource
	onFile func(SkillFile) error
	out    []SkillFile // out[i] is files[i] once read (nil with onFile)
	// digests[i] is the digest of files[i] once read, for the publisher check; each
	// worker writes only the entries of the files it read.
	digests []string

	next  atomic.Int64 // the index of the next file to read
	total atomic.Int64 // bytes read so far

	once sync.Once
	err  error // the first failure; written once, read after the workers are done
}

// readFile is one file read, for the calling goroutine.
type readFile struct {
	i int
	f SkillFile
}

// run reads every file with n workers and returns when they are done.
func (r *skillReader) run(ctx context.Context, n int) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	fail := func(err error) {
		r.once.Do(func() {
			r.err = err
			cancel(err)
		})
	}
	read := make(chan readFile)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for {
				i := int(r.next.Add(1) - 1)
				if i >= len(r.files) || ctx.Err() != nil {
					return
				}
				f, err := r.read(ctx, i)
				if err != nil {
					fail(err)
					return
				}
				select {
				case read <- readFile{i, f}:
				case <-ctx.Done():
					return
				}
			}
		})
	}
	go func() {
		wg.Wait()
		close(read)
	}()
	for rf := range read { // until every worker is done, draining after a failure
		switch {
		case ctx.Err() != nil:
		case r.onFile == nil:
			r.out[rf.i] = rf.f
		default:
			if err := r.onFile(rf.f); err != nil {
				fail(fmt.Errorf("mcpclient: ReadSkill %s: ReadSkillOptions.OnFile: %w", quote(r.sk.URI), err))
			}
		}
	}
	if r.err == nil && ctx.Err() != nil { // done before any read failed
		r.err = fmt.Errorf("mcpclient: ReadSkill %s: %w", quote(r.sk.URI), context.Cause(ctx))
	}
}

// read reads and verifies files[i].
func (r *skillReader) read(ctx context.Context, i int) (SkillFile, error) {
	f := r.files[i]
	if f.Size >= 0 {
		// The answer may not be much larger than the file listed: six bytes per byte is
		// the longest a JSON string encodes one in (\u00XX), base64 takes less.
		ctx, _ = withMeter(ctx, 6*f.Size+64<<10, "six times the size the entry lists for the file, plus 64 KiB")
	}
	data, err := r.s.ReadFile(ctx, r.sk, f.URI)
	if err != nil {
		return SkillFile{}, err
	}
	if n := r.total.Add(int64(len(data))); n > r.s.opts.MaxSkillBytes {
		return SkillFile{}, fmt.Errorf("%w: skill %s: more than %d bytes in all (Options.MaxSkillBytes)", ErrTooMany, quote(r.sk.URI), r.s.opts.MaxSkillBytes)
	}
	rel, _ := strings.CutPrefix(f.URI, r.sk.root+"/")
	r.digests[i] = agentskills.Digest(data)
	return SkillFile{URI: f.URI, Path: rel, Data: data}, nil
}
