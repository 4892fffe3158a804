package skills

// The origins a person installed skills from on this machine. update reads origins
// from .wellknown.json records, which a cloned repository could plant, so it refuses
// private and loopback origins without --allow-private; but an origin the person typed
// to "skills install" themselves was accepted then and is accepted again. The list
// lives in the person's configuration folder, where a repository cannot write:
// $XDG_CONFIG_HOME/wellknown/installed-origins, else ~/.config/wellknown/installed-origins,
// one origin per line.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wellknown-dev/discovery/internal/skillrules"
)

// maxOriginsBytes bounds the list read back.
const maxOriginsBytes = 1 << 20

// originsFile is the path of the list, or "" when neither XDG_CONFIG_HOME nor HOME is
// set.
func (a *app) originsFile() string {
	dir := a.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := a.Getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "wellknown", "installed-origins")
}

// installedOrigins returns the origins in the list; none when it cannot be read.
func (a *app) installedOrigins() map[string]bool {
	out := map[string]bool{}
	p := a.originsFile()
	if p == "" {
		return out
	}
	data, err := skillrules.ReadFileLimit(p, maxOriginsBytes, "")
	if err != nil {
		return out
	}
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out[l] = true
		}
	}
	return out
}

// rememberOrigin adds origin to the list. Failing to write it only means update will
// need --allow-private for it, so errors are reported as a note, not a failure.
func (a *app) rememberOrigin(origin string) {
	p := a.originsFile()
	known := a.installedOrigins()
	if p == "" || known[origin] {
		return
	}
	known[origin] = true
	lines := make([]string, 0, len(known))
	for o := range known {
		lines = append(lines, o)
	}
	slices.Sort(lines)
	err := os.MkdirAll(filepath.Dir(p), 0o700)
	if err == nil {
		err = os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	}
	if err != nil {
		a.Notef("note: could not remember %s for skills update (%v); update will need --allow-private if it is private", origin, err)
	}
}
