// Package skilllock records which skills a project installed, file by file, and checks
// an installed folder, or what a site serves now, against that record.
//
// An installer records each skill after writing it:
//
//	files, err := skilllock.HashDir(filepath.Join(skillsRoot, name))
//	lock.Put(skilllock.Skill{Name: name, Source: url, IndexDigest: skilllock.Digest(index), Files: files, Publisher: res})
//	err = skilllock.WriteFile(filepath.Join(project, skilllock.FileName), lock)
//
// CI checks the installation:
//
//	problems, err := skilllock.VerifyDir(skillsRoot, lock) // each changed, missing or extra file
//
// and a frozen install compares what the site serves with the lock using [Compare].
//
// # Format
//
// One JSON file per project, [FileName] ("skills-lock.json"): a version, and for each
// skill its name, source URL, the digest of the index that listed it, the SHA-256 digest
// of every file, and the publisher verification result from the trust package. [Marshal]
// writes it stably (skills sorted by name, members sorted, two-space indentation, final
// newline), so the same installation always gives the same bytes and an update is a
// reviewable diff:
//
//	{
//	  "skills": [
//	    {
//	      "files": {
//	        "SKILL.md": "sha256:…"
//	      },
//	      "indexDigest": "sha256:…",
//	      "name": "pdf",
//	      "source": "https://example.com/.well-known/skills/pdf/SKILL.md"
//	    }
//	  ],
//	  "version": 1
//	}
//
// # Security
//
// A lock proves that the installed files are the recorded ones, nothing more: whoever
// can edit the lock can change what it approves, so review lock changes like code. The
// lock is untrusted input all the same: [Parse] refuses skill names and file paths that
// could leave the skills root, unknown members, other versions and non-SHA-256 digests.
// [VerifyDir] and [HashDir] read through an [os.Root], never follow symbolic links, and
// report a link or device where a file should be as changed.
//
// All functions are safe for concurrent use; a [Lock] is plain data that callers must
// not modify while another goroutine reads it.
package skilllock
