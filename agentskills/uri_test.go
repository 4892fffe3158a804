package agentskills_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/wellknown-dev/discovery/agentskills"
)

func TestURIs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, root, name string
		ok             bool
	}{
		{"skill://invoice-check/SKILL.md", "skill://invoice-check", "invoice-check", true},
		{"skill://acme/billing/refunds/SKILL.md", "skill://acme/billing/refunds", "refunds", true},
		{"SKILL://acme/x/SKILL.md", "skill://acme/x", "x", true},
		{"github://owner/repo/skills/x/SKILL.md", "github://owner/repo/skills/x", "x", true},
		{"skill://x", "", "", false},                   // SKILL.md is explicit
		{"skill://x/", "", "", false},                  //
		{"skill://x/skill.md", "", "", false},          // case matters
		{"skill:///SKILL.md", "", "", false},           // empty path
		{"skill://a//b/SKILL.md", "", "", false},       // empty segment
		{"skill://a/../b/SKILL.md", "", "", false},     // dot-dot
		{"skill://a/%2e%2e/b/SKILL.md", "", "", false}, // encoded dot-dot
		{"skill://a/b%2Fc/SKILL.md", "", "", false},    // encoded separator
		{"skill://a/b/SKILL.md?x=1", "", "", false},    // query
		{"skill://a/b/SKILL.md#f", "", "", false},      // fragment
		{"skill://u@host/b/SKILL.md", "", "", false},   // userinfo
		{"skill:x/SKILL.md", "", "", false},            // no //
		{"1skill://x/SKILL.md", "", "", false},         // bad scheme
	} {
		u, err := agentskills.ParseSkillURI(tc.in)
		if tc.ok != (err == nil) {
			t.Errorf("ParseSkillURI(%q) = %v, %v", tc.in, u, err)
			continue
		}
		if err != nil {
			if !errors.Is(err, agentskills.ErrInvalidURI) {
				t.Errorf("error %v does not wrap ErrInvalidURI", err)
			}
			continue
		}
		if u.Root() != tc.root || u.Name() != tc.name || !u.IsSkillFile() || u.String() != strings.Replace(tc.in, "SKILL://", "skill://", 1) {
			t.Errorf("ParseSkillURI(%q) = root %q name %q string %q", tc.in, u.Root(), u.Name(), u.String())
		}
	}
}

func TestURIResolve(t *testing.T) {
	t.Parallel()
	skill, _ := agentskills.ParseSkillURI("skill://acme/billing/refunds/SKILL.md")
	doc, _ := agentskills.ParseURIInSkill("skill://acme/billing/refunds/references/guide.md", skill.Root())
	for _, tc := range []struct {
		from agentskills.URI
		ref  string
		want string
	}{
		{skill, "references/RULES.md", "skill://acme/billing/refunds/references/RULES.md"},
		{skill, "./templates/a.md", "skill://acme/billing/refunds/templates/a.md"},
		{doc, "other.md", "skill://acme/billing/refunds/references/other.md"},
		{skill, "../x/SKILL.md", ""},
		{skill, "/etc/passwd", ""},
		{skill, "skill://other/SKILL.md", ""},
		{skill, "a.md?x", ""},
		{skill, "", ""},
	} {
		got, err := tc.from.Resolve(tc.ref)
		if (tc.want == "") != (err != nil) || err == nil && got.String() != tc.want {
			t.Errorf("Resolve(%q) from %s = %v, %v; want %q", tc.ref, tc.from, got, err, tc.want)
		}
	}
	if _, err := agentskills.ParseURIInSkill("skill://acme/billing/other/x.md", skill.Root()); err == nil {
		t.Error("a file of another skill was accepted")
	}
	u, err := agentskills.NewURI("acme/billing/refunds", "references/RULES.md")
	if err != nil || u.String() != "skill://acme/billing/refunds/references/RULES.md" {
		t.Errorf("NewURI = %v, %v", u, err)
	}
}

// FuzzParseURI: no panic; an accepted URI round-trips and has no forbidden part.
func FuzzParseURI(f *testing.F) {
	for _, s := range []string{"skill://a/SKILL.md", "skill://acme/billing/refunds/SKILL.md", "x://a/%2e%2e/SKILL.md", "skill://a/b?c#d"} {
		f.Add(s, "references/x.md")
	}
	f.Fuzz(func(t *testing.T, s, ref string) {
		u, err := agentskills.ParseSkillURI(s)
		if err != nil {
			return
		}
		again, err := agentskills.ParseSkillURI(u.String())
		if err != nil || again != u {
			t.Fatalf("%q → %q does not round-trip: %v", s, u.String(), err)
		}
		if strings.ContainsAny(u.String(), "?#") || strings.Contains("/"+u.SkillPath+"/", "/../") {
			t.Fatalf("forbidden part in %q", u.String())
		}
		if r, err := u.Resolve(ref); err == nil {
			if !strings.HasPrefix(r.String(), u.Root()+"/") || strings.Contains("/"+r.File+"/", "/../") {
				t.Fatalf("Resolve(%q) escaped the skill: %q", ref, r.String())
			}
		}
	})
}
