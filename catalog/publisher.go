package catalog

import (
	"slices"
	"strings"

	"github.com/wellknown-dev/discovery/trust"
)

// PublisherLine says in one line what a publisher signature check found, as Prompt,
// the agent tools and the CLI show it: "verified: <publisher> (<key id>)" or
// "unverified: <why>". The text holds strings from the manifest (the key ID, the
// reason): clean or fence it before it reaches a model or a terminal.
func PublisherLine(r *trust.Result) string {
	if r == nil {
		return ""
	}
	if r.Verified {
		return "verified: " + r.Publisher + " (" + r.KeyID + ")"
	}
	return "unverified: " + strings.TrimPrefix(r.Reason, "trust: ")
}

// notePublisher records the publisher check of an activation on the catalog's entry
// of that name, so later Prompt lines and Entries show it; the caller holds c.mu. An entry that
// was replaced meanwhile (a refresh) is left alone.
func (c *Catalog) notePublisher(name string, it *item) {
	cur, ok := c.items[name]
	if !ok || it.Publisher == nil || cur.Key() != it.Key() {
		return
	}
	cur.Publisher = it.Publisher
	c.items[name] = cur
	// Prompt and Entries may still hold the old slices outside the lock: replace them.
	for i := range c.entries {
		if c.entries[i].Name == name && i < len(c.lines) {
			c.entries, c.lines = slices.Clone(c.entries), slices.Clone(c.lines)
			c.entries[i].Publisher = it.Publisher
			c.lines[i] = promptLine(&c.entries[i])
			break
		}
	}
}
