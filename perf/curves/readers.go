//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/wellknown-dev/discovery/agentskills"
	"github.com/wellknown-dev/discovery/aicatalog"
	"github.com/wellknown-dev/discovery/catalog"
	"github.com/wellknown-dev/discovery/mcpjson"
	"github.com/wellknown-dev/discovery/skillsmd"
)

// The groups of curves that are not documents.
const (
	indexGroup   = "Agent Skills index (agentskills.ParseIndex)"
	catalogGroup = "Catalog (catalog.Prompt, Catalog.Activate)"
	scanGroup    = "wellknown scan"
)

// docCurves measures each reader on each of its shapes at each size.
func docCurves(sizes []int, batch time.Duration, want func(group string) bool) []curve {
	readers := []struct {
		group  string
		shapes []shape
		parse  func([]byte) error
	}{
		{"skills.md (skillsmd.Parse)", skillsShapes(), func(b []byte) error { _, err := skillsmd.Parse(b); return err }},
		{"mcp.json (mcpjson.Parse)", mcpShapes(), func(b []byte) error { _, err := mcpjson.Parse(b); return err }},
		{"AI Catalog (aicatalog.Parse)", catalogShapes(), func(b []byte) error {
			// Entries are not capped here: the curve is the reader's cost per entry.
			_, err := aicatalog.Parse(b, aicatalog.Options{URL: "https://acme.example/.well-known/ai-catalog.json", MaxEntries: 1 << 20})
			return err
		}},
	}
	var out []curve
	for _, r := range readers {
		if !want(r.group) {
			continue
		}
		for _, s := range r.shapes {
			c := curve{group: r.group, name: s.name, unit: "B"}
			for _, size := range sizes {
				doc := s.gen(size)
				if err := r.parse(doc); err != nil {
					c.note = "The reader refuses the larger documents of this shape (the time is that of the refusal): " + err.Error()
				}
				c.points = append(c.points, measure(len(doc), batch, func() { _ = r.parse(doc) }))
			}
			progress(&c)
			out = append(out, c)
		}
	}
	return out
}

// indexCurve measures agentskills.ParseIndex from 16 entries to the 4,096 it reads.
func indexCurve(counts []int, batch time.Duration) curve {
	c := curve{group: indexGroup, name: "entries", unit: "entries"}
	for _, n := range counts {
		doc := index(n)
		parse := func() error {
			_, err := agentskills.ParseIndex(doc, "https://acme.example/.well-known/agent-skills/index.json", agentskills.Lenient)
			return err
		}
		if err := parse(); err != nil {
			c.note = err.Error()
		}
		p := measure(n, batch, func() { _ = parse() })
		c.points = append(c.points, p)
	}
	progress(&c)
	return c
}

// catalogCurves measures catalog.Prompt and Catalog.Activate with local catalogs of
// growing size (skills written to a temporary folder).
func catalogCurves(counts []int, batch time.Duration) ([]curve, error) {
	prompt := curve{group: catalogGroup, name: "Prompt (whole catalog in the budget)", unit: "skills"}
	activate := curve{group: catalogGroup, name: "Activate (one skill)", unit: "skills"}
	for _, n := range counts {
		dir, err := os.MkdirTemp("", "perfcurves-skills-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		for i := range n {
			name := fmt.Sprintf("skill-%05d", i)
			if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
				return nil, err
			}
			md := fmt.Sprintf("---\nname: %s\ndescription: Handles %s requests for the team, step by step.\n---\n\n# %s\n\nDo the work.\n", name, words[i%len(words)], name)
			if err := os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(md), 0o644); err != nil {
				return nil, err
			}
		}
		cat := catalog.New(nil)
		ctx := context.Background()
		if err := cat.AddLocal(ctx, agentskills.LocalOptions{Roots: []string{dir}, MaxSkills: n}); err != nil {
			return nil, err
		}
		if got := len(cat.Entries()); got != n {
			return nil, fmt.Errorf("catalog of %d skills lists %d", n, got)
		}
		budget := n * 256
		prompt.points = append(prompt.points, measure(n, batch, func() { _ = cat.Prompt(budget) }))
		target := fmt.Sprintf("skill-%05d", n/2)
		if _, err := cat.Activate(ctx, target); err != nil {
			return nil, err
		}
		activate.points = append(activate.points, measure(n, batch, func() { _, _ = cat.Activate(ctx, target) }))
	}
	progress(&prompt)
	progress(&activate)
	return []curve{prompt, activate}, nil
}
