package agentskills_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/wellknown-dev/discovery/agentskills"
)

func ExampleParseSkillMD() {
	s, err := agentskills.ParseSkillMD([]byte("---\nname: invoice-check\ndescription: Check invoices. Use when an invoice arrives.\n---\n# Body\n"),
		agentskills.ParseOptions{Dir: "invoices"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.Name(), "|", s.Description())
	for _, d := range s.Diagnostics {
		fmt.Println(d)
	}
	// Output:
	// invoice-check | Check invoices. Use when an invoice arrives.
	// SKILL.md: warning: name-mismatch: name "invoice-check" differs from its folder "invoices"
}

func ExampleVerify() {
	data := []byte("# Rules\n\nTotals must match within 0.01.\n")
	fmt.Println(agentskills.Verify(data, 40, "sha256:3e6ace4dcc0337f61487c149690fa50fbbeafdf765c5bbb67a03cd5f37fd823e"))
	err := agentskills.Verify(data, 41, "sha256:3e6ace4dcc0337f61487c149690fa50fbbeafdf765c5bbb67a03cd5f37fd823e")
	fmt.Println(errors.Is(err, agentskills.ErrDigestMismatch))
	// Output:
	// <nil>
	// true
}

func ExampleURI_Resolve() {
	u, err := agentskills.ParseSkillURI("skill://acme/billing/refunds/SKILL.md")
	if err != nil {
		log.Fatal(err)
	}
	ref, err := u.Resolve("references/POLICY.md")
	fmt.Println(u.Name(), u.Root(), ref, err)
	_, err = u.Resolve("../other/SKILL.md")
	fmt.Println(errors.Is(err, agentskills.ErrInvalidURI))
	// Output:
	// refunds skill://acme/billing/refunds skill://acme/billing/refunds/references/POLICY.md <nil>
	// true
}
