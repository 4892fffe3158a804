package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wellknown-dev/discovery/agentskills"
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
}

// SkillContent is a whole skill as [Session.ReadSkill] read and verified it. It is
// plain data, safe to read concurrently. Every byte in it was published by the
// server: untrusted data, never instructions.
type SkillContent struct {
	Skill *Skill // the skill read, as the caller passed it
	// Files holds every file: SKILL.md first, then the others in the order the
	// entry lists them.
	Files []SkillFile
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
// arrives, before the next read starts in its place. A skill that lists no files (a
// dynamic skill, most drafts) is read as its SKILL.md alone; a draft archive skill
// as the files of its archive, once the archive is verified.
//
// It is all or nothing: the first failure (a file that does not verify, an error
// from the server, the limits, ctx done) cancels the reads still in flight, and
// ReadSkill returns nil and that error, never part of a skill. A file that fails
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
	out := make([]SkillFile, len(files))
	r := &skillReader{s: s, sk: sk, files: files, out: out}
	r.run(ctx, min(inFlight, len(files)))
	if r.err != nil {
		return nil, r.err
	}
	return &SkillContent{Skill: sk, Files: out}, nil
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

// skillReader is one ReadSkill call: workers take the files in turn, and the first
// failure stops them all.
type skillReader struct {
	s     *Session
	sk    *Skill
	files []agentskills.Resource
	out   []SkillFile // out[i] is files[i] once read; each written by one worker

	next  atomic.Int64 // the index of the next file to read
	total atomic.Int64 // bytes read so far

	once sync.Once
	err  error // the first failure; written once, read after the workers are done
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
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for {
				i := int(r.next.Add(1) - 1)
				if i >= len(r.files) || ctx.Err() != nil {
					return
				}
				if err := r.read(ctx, i); err != nil {
					fail(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if r.err == nil && ctx.Err() != nil { // done before any read failed
		r.err = fmt.Errorf("mcpclient: ReadSkill %s: %w", quote(r.sk.URI), context.Cause(ctx))
	}
}

// read reads and verifies files[i] into out[i].
func (r *skillReader) read(ctx context.Context, i int) error {
	f := r.files[i]
	if f.Size >= 0 {
		// The answer may not be much larger than the file listed: six bytes per byte is
		// the longest a JSON string encodes one in (\u00XX), base64 takes less.
		ctx, _ = withMeter(ctx, 6*f.Size+64<<10, "six times the size the entry lists for the file, plus 64 KiB")
	}
	data, err := r.s.ReadFile(ctx, r.sk, f.URI)
	if err != nil {
		return err
	}
	if n := r.total.Add(int64(len(data))); n > r.s.opts.MaxSkillBytes {
		return fmt.Errorf("%w: skill %s: more than %d bytes in all (Options.MaxSkillBytes)", ErrTooMany, quote(r.sk.URI), r.s.opts.MaxSkillBytes)
	}
	rel, _ := strings.CutPrefix(f.URI, r.sk.root+"/")
	r.out[i] = SkillFile{URI: f.URI, Path: rel, Data: data}
	return nil
}
