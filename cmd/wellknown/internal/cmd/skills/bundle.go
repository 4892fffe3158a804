package skills

// wellknown skills bundle, and the two other places install reads from: a bundle
// (--from-bundle, no network at all) and a mirror (--mirror). Both go through package
// skillbundle, which hands the Client the origin's URLs, so that every check of an
// install (digests, signatures, --require-signed, --frozen, the lock's sources) is
// the one it makes against the origin.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/cmd/wellknown/internal/cmdutil"
	"github.com/wellknown-dev/discovery/internal/skillrules"
	"github.com/wellknown-dev/discovery/skillbundle"
	"github.com/wellknown-dev/discovery/skilllock"
)

func skillsBundleCommand(a *app) *cobra.Command {
	var out string
	var names []string
	var tf trustFlags
	var budget time.Duration
	cmd := &cobra.Command{
		Use:   "bundle ORIGIN|LOCKFILE -o FILE",
		Short: "Write the skills of an origin (or exactly those of a lock) into one archive, for offline or private installs",
		Long: `Bundle fetches an origin's skills index and its skills (all, or the --skill NAMEs), each
verified as for an install, and writes one archive to -o FILE: the index as served (its
bytes unchanged, so its digests still verify), every artifact as served, the trust
manifest beside each artifact (ARTIFACT.trust.json) when the origin publishes one, and
bundle.json, naming the origin and URL each file came from. Nothing is written unless
every skill was fetched and verified.

Given a lock file (an existing file, such as skills-lock.json) instead of an origin, it
bundles exactly the lock's skills (or the --skill NAMEs, which must be in it) from the
origin the lock records, and fails, writing nothing, if the site now serves anything
other than the lock's files.

The archive is an uncompressed tar: "tar -x" of it gives a folder that any static web
server can serve as a mirror (install --mirror). "skills install --from-bundle FILE"
installs from it with no network, verifying exactly as from the origin.`,
		Example: `  wellknown skills bundle docs.example.org -o skills.tar
  wellknown skills bundle skills-lock.json -o skills.tar      # exactly the locked versions
  wellknown skills install --from-bundle skills.tar --trust-roots roots.yaml --require-signed`,
		Args: cmdutil.ArgsN(1, "ORIGIN or LOCKFILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return cmdutil.UsageError{Err: errors.New("skills bundle: -o FILE is required")}
			}
			if err := cmdutil.CheckBudget(budget); err != nil {
				return err
			}
			for _, n := range names {
				if err := skillrules.CheckSkillName(n); err != nil {
					return cmdutil.UsageError{Err: err}
				}
			}
			origin, lock, err := bundleOrigin(args[0], names)
			if err != nil {
				return err
			}
			opts, err := tf.options()
			if err != nil {
				return err
			}
			if opts, err = a.Options(opts, true); err != nil {
				return err
			}
			ctx, cancel := cmdutil.WithBudget(cmd.Context(), budget)
			defer cancel()
			p := a.Progress("bundling the skills of " + origin)
			m, err := writeBundle(ctx, out, origin, &skillbundle.Options{Client: opts, Names: names, Lock: lock})
			p.Stop()
			if err != nil && cmdutil.BudgetSpent(ctx) {
				return fmt.Errorf("skills bundle: %s", cmdutil.NotInTime(ctx, "bundled"))
			}
			if err != nil {
				code := cmdutil.ExitFailure
				if errors.Is(err, skillbundle.ErrLockMismatch) {
					code = ExitLockMismatch
				}
				return &cmdutil.ExitError{Code: code, Err: fmt.Errorf("skills bundle: %s; nothing written", cmdutil.Clean(discovery.Redact(err.Error()), 2048))}
			}
			var total int64
			for _, f := range m.Files {
				fmt.Fprintf(a.Out, "  %-56s %8d  %s\n", cmdutil.Clean(f.Path, 512), f.Size, shortDigest(f.Digest))
				total += f.Size
			}
			fmt.Fprintf(a.Out, "wrote %s: %s (%d bytes) from %s\n", cmdutil.Clean(out, 1024), cmdutil.Plural(len(m.Files), "file"), total, m.Origin)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the archive to write (replaced atomically)")
	cmd.Flags().StringSliceVar(&names, "skill", nil, "bundle only this skill (repeat, or comma-separated); default: every skill")
	tf.add(cmd)
	cmdutil.AddBudgetFlag(cmd, &budget)
	return cmd
}

// bundleOrigin returns what to read: arg itself, or for an existing file the lock it
// holds and the origin its skills (those of names, when given) were installed from.
func bundleOrigin(arg string, names []string) (string, *skilllock.Lock, error) {
	info, err := os.Stat(arg)
	if err != nil || !info.Mode().IsRegular() {
		return arg, nil, nil
	}
	l, err := skilllock.ReadFile(arg)
	if err != nil {
		return "", nil, err
	}
	var origins []string
	for _, s := range l.Skills {
		if len(names) > 0 && !slices.Contains(names, s.Name) {
			continue
		}
		o := indexBase(s.Source)
		if o == "" {
			return "", nil, fmt.Errorf("%s: skill %s: source %s is not a URL", cmdutil.Clean(arg, 1024), skillrules.QuoteName(s.Name), cmdutil.Clean(s.Source, 256))
		}
		if !slices.Contains(origins, o) {
			origins = append(origins, o)
		}
	}
	switch len(origins) {
	case 0:
		return "", nil, cmdutil.UsageError{Err: fmt.Errorf("%s records none of the skills to bundle", cmdutil.Clean(arg, 1024))}
	case 1:
		return origins[0], l, nil
	}
	return "", nil, cmdutil.UsageError{Err: fmt.Errorf("%s records skills from %s: bundle one origin at a time (--skill NAME...)", cmdutil.Clean(arg, 1024), cmdutil.Clean(strings.Join(origins, ", "), 1024))}
}

// indexBase is what ListSkills reads for a skill installed from source: its origin,
// with the path under which the well-known folder was ("https://host/docs").
func indexBase(source string) string {
	u, err := url.Parse(source)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return ""
	}
	prefix, _, _ := strings.Cut(u.Path, "/.well-known/")
	return u.Scheme + "://" + u.Host + prefix
}

// writeBundle writes the bundle to a temporary file beside path and renames it into
// place: a failure leaves path as it was.
func writeBundle(ctx context.Context, path, origin string, opts *skillbundle.Options) (*skillbundle.Manifest, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	m, err := skillbundle.Write(ctx, tmp, origin, opts)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// installSource is where install reads from: the origin, a bundle or a mirror.
type installSource struct {
	origin string // what ListSkills reads
	names  []string
	bundle *skillbundle.Bundle
	mirror *skillbundle.Mirror
}

// newInstallSource reads the install's arguments: ORIGIN [NAME...], or with
// --from-bundle only NAMEs (the origin is the bundle's).
func newInstallSource(a *app, fromBundle, mirror string, args []string) (*installSource, error) {
	switch {
	case fromBundle != "" && mirror != "":
		return nil, cmdutil.UsageError{Err: errors.New("--from-bundle and --mirror exclude each other")}
	case fromBundle == "" && len(args) < 1:
		return nil, cmdutil.UsageError{Err: errors.New("skills install: missing ORIGIN (then optional skill NAMEs), or --from-bundle FILE; see \"wellknown skills install --help\"")}
	case fromBundle != "":
		b, err := skillbundle.ReadFile(fromBundle, nil)
		if err != nil {
			return nil, &cmdutil.ExitError{Code: cmdutil.ExitFailure, Err: fmt.Errorf("--from-bundle: %s; nothing written", cmdutil.Clean(err.Error(), 1024))}
		}
		for _, w := range b.Warnings {
			a.Notef("warning: %s: %s", cmdutil.Clean(fromBundle, 512), cmdutil.Clean(w, 512))
		}
		return &installSource{origin: b.Source(), names: args, bundle: b}, nil
	case mirror != "":
		m, err := skillbundle.NewMirror(mirror)
		if err != nil {
			return nil, cmdutil.UsageError{Err: fmt.Errorf("--mirror: %w", err)}
		}
		return &installSource{origin: args[0], names: args[1:], mirror: m}, nil
	}
	return &installSource{origin: args[0], names: args[1:]}, nil
}

// options adds the source's transport to the Client's options (opts may be nil).
func (s *installSource) options(opts *discovery.Options) *discovery.Options {
	if s.bundle == nil && s.mirror == nil {
		return opts
	}
	var o discovery.Options
	if opts != nil {
		o = *opts
	}
	if s.bundle != nil {
		o.WrapTransport = s.bundle.WrapTransport
		return &o
	}
	// The person named the mirror: it may be on the local network, as origins typed on
	// the command line may.
	if u, err := url.Parse(s.mirror.URL()); err == nil {
		o.InsecureAllowPrivateHosts = append(slices.Clone(o.InsecureAllowPrivateHosts), u.Hostname())
	}
	o.WrapTransport = s.mirror.WrapTransport
	return &o
}

// use tells a mirror which artifacts the origin's index lists.
func (s *installSource) use(ix *discovery.SkillsIndex) {
	if s.mirror != nil {
		s.mirror.Use(ix)
	}
}

// annotate says, on each refused or failed result, where the bytes came from.
func (s *installSource) annotate(results []Result) {
	where := ""
	switch {
	case s.mirror != nil:
		where = "artifact bytes from the mirror " + s.mirror.URL()
	case s.bundle != nil:
		where = "from the bundle, offline"
	default:
		return
	}
	for i, r := range results {
		if r.Status == StatusRefused || r.Status == StatusFailed {
			msg, cut := strings.CutSuffix(r.Message, "; nothing written")
			msg += " (" + where + ")"
			if cut {
				msg += "; nothing written"
			}
			results[i].Message = cmdutil.Clean(msg, 2048)
		}
	}
}
