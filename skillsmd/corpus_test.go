package skillsmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/internal/testparts"
	"github.com/wellknown-dev/discovery/skillsmd"
)

// corpusDir holds documents published by others, read in place and never copied.
const corpusDir = "../../shared/corpus/skillsmd"

// TestCorpus parses every real skills.md in the shared corpus with an explicit
// expectation for each: title, every H2 in order, the API base, and what else is
// notable. A file in the corpus without an expectation fails the test.
func TestCorpus(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(corpusDir); err != nil {
		testparts.Skip(t, testparts.Shared, err.Error())
	}
	type want struct {
		title    string
		h2       string // every H2, in order, joined by "|"
		base     string
		warnings string // warning codes, in order
		check    func(t *testing.T, d *skillsmd.Document)
	}
	expect := map[string]want{
		"AndyZhuang__longevity-agent__public-wellknown-skill-singular.md": {
			title: "LAGP Agent Skill — well-known",
			h2:    "Contract|Steps|Submission schemas|Safety floor (auto-disqualification)|Optional: claim a handle|Reference",
			base:  "https://api.longevityagent.top/v1", // "**Submission API base:**" in Contract
			check: func(t *testing.T, d *skillsmd.Document) {
				if len(d.SafeActions) != 0 || len(d.RiskyActions) != 7 {
					t.Errorf("the safety floor's prohibitions must be risky: safe %q", d.SafeActions)
				}
				// The step that says how to authenticate, not "The response includes a
				// one-time-shown API key." of the optional registration.
				if want := "POST https://api.longevityagent.top/v1/submissions with bearer auth."; len(d.Auth) != 1 || d.Auth[0] != want {
					t.Errorf("Auth = %q, want %q", d.Auth, want)
				}
			},
		},
		"Leopere__autoskill-md__wellknown-skills.md": {
			title: "Skills",
			h2:    "Purpose|API|Auth|Safe Actions|Risky Actions|Limits|More Info|Credits",
			base:  "/",
			check: func(t *testing.T, d *skillsmd.Document) {
				if d.SpecVersion != "2026-06-13" || d.SpecURL != "https://colinknapp.com/specs/skill-discovery.html" ||
					// Risky: the two Risky Actions items; the Auth section's "Do not put
					// secrets ... in this file." is a note to the author, not a rule for agents.
					len(d.SafeActions) != 3 || len(d.RiskyActions) != 2 || len(d.Limits) != 2 ||
					d.Purpose != "This native CLI writes a skills file for agents." {
					t.Errorf("typed view: %+v", d)
				}
			},
		},
		"bloomprotocol__bloom-hackathon__public-wellknown-skill-singular.md": {
			title: "Bloom Skill",
			h2: "Try It Now (No Registration)|Why Bloom?|Register (One Time)|Playbooks|Submit Your Findings|Evaluation Roles|" +
				"Reputation & Tiers|Agent Missions|Heartbeat (Silent, Every 24h)|Privacy & Data Policy|Language|Identity & Compatibility|Links",
			// No API section or base: endpoints in code blocks, 7 of 8 absolute ones under /api
			// (the eighth is a static /paste-blocks/index.json).
			base:     "https://bloomprotocol.ai/api",
			warnings: skillsmd.WarnBaseInferred,
			check: func(t *testing.T, d *skillsmd.Document) {
				if d.Frontmatter["title"] != "Bloom Tribe Skill — AI Agent Onboarding" {
					t.Errorf("frontmatter = %v", d.Frontmatter)
				}
				for _, w := range d.Warnings { // "Bearer bk_xxx" is a placeholder, not a credential
					if w.Code == skillsmd.WarnCredential {
						t.Errorf("false credential: %v", w)
					}
				}
			},
		},
		"hyper63__zenbin__public-wellknown-skill-singular.md": {
			title: "ZenBin Agent Instructions",
			h2: "What is ZenBin?|Quick Start|API Reference|URL Patterns|Use Cases for Agents|Example: Create an Agent Dashboard Site|" +
				"Notes for Agents|Reserved Subdomains|Rate Limits|Authentication Protection|Support",
			// No base is stated; the curl examples all call https://zenbin.org/v1/...
			base: "https://zenbin.org/v1",
			// A documentation example holds "password": "mysecretpassword123".
			warnings: skillsmd.WarnBaseInferred + "," + skillsmd.WarnCredential,
			check: func(t *testing.T, d *skillsmd.Document) {
				if !strings.HasPrefix(d.Purpose, "ZenBin is a headless HTML sandbox") || len(d.Limits) == 0 || len(d.Auth) == 0 {
					t.Errorf("Purpose %q, Limits %q, Auth %q", d.Purpose, d.Limits, d.Auth)
				}
				if w := d.Warnings[1]; w.Line != 291 || strings.Contains(w.Message, "mysecretpassword123") {
					t.Errorf("credential warning %v", w)
				}
			},
		},
		"inngest__website__public-wellknown-skills.md": {
			title: "Inngest Agent Skills",
			h2:    "Installation|Available Skills|Language Support|Related",
			check: func(t *testing.T, d *skillsmd.Document) {
				if !strings.HasPrefix(d.Summary, "Pre-built skills for AI coding agents") {
					t.Errorf("Summary = %q", d.Summary)
				}
				// The table of skills survives as section text.
				if s := section(d, "Available Skills"); s == nil || !strings.Contains(s.Text, "inngest-setup | Set up Inngest in a TypeScript project") {
					t.Errorf("table text lost: %+v", s)
				}
			},
		},
		"pinax-network__token-api__public-skills-root.md": {
			title: "Token API",
			h2:    "Authentication|Common patterns|Worked example|Monitoring|EVM endpoints|SVM endpoints|TVM endpoints|Polymarket|Errors",
			base:  "https://token-api.thegraph.com", // "**Base URL:**" before the first section
			check: func(t *testing.T, d *skillsmd.Document) {
				if d.Frontmatter["name"] != "Token API" || len(d.Auth) == 0 {
					t.Errorf("Frontmatter %v, Auth %q", d.Frontmatter, d.Auth)
				}
				if !hasInfo(d, "docs", "https://thegraph.com/docs/en/token-api/quick-start/") {
					t.Errorf("MoreInfo = %+v", d.MoreInfo)
				}
			},
		},
	}
	files, err := filepath.Glob(filepath.Join(corpusDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w, ok := expect[name]
			if !ok {
				t.Fatalf("no expectation for %s: add one", name)
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			d, err := skillsmd.Parse(data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			check(t, "Title", d.Title, w.title)
			var h2 []string
			for _, s := range d.Sections {
				if s.Level == 2 {
					h2 = append(h2, s.Heading)
				}
			}
			check(t, "H2", strings.Join(h2, "|"), w.h2)
			check(t, "BaseURL", d.BaseURL, w.base)
			check(t, "warnings", codes(d), w.warnings)
			nlines := strings.Count(string(data), "\n") + 1
			for _, wn := range d.Warnings {
				if wn.Line < 0 || wn.Line > nlines {
					t.Errorf("warning outside the document: %v", wn)
				}
			}
			if w.check != nil {
				w.check(t, d)
			}
		})
	}
}

func section(d *skillsmd.Document, heading string) *skillsmd.Section {
	for i := range d.Sections {
		if d.Sections[i].Heading == heading {
			return &d.Sections[i]
		}
	}
	return nil
}

func hasInfo(d *skillsmd.Document, kind, u string) bool {
	for _, l := range d.MoreInfo {
		if l.Kind == kind && l.URL == u {
			return true
		}
	}
	return false
}
