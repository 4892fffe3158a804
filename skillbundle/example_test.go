package skillbundle_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/wellknown-dev/discovery"
	"github.com/wellknown-dev/discovery/skillbundle"
)

// A skill is bundled from its origin, then installed on a machine with no network,
// verified against the bundled index exactly as from the origin.
func Example() {
	skill := []byte("---\nname: pdf\ndescription: Read PDF files. Use when a PDF arrives.\n---\n")
	sum := sha256.Sum256(skill)
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/agent-skills/index.json", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `{"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
		  "skills": [{"name": "pdf", "type": "skill-md", "description": "Read PDF files.",
		              "url": "pdf/SKILL.md", "digest": "sha256:%s"}]}`, hex.EncodeToString(sum[:]))
	})
	mux.HandleFunc("/.well-known/agent-skills/pdf/SKILL.md", func(w http.ResponseWriter, _ *http.Request) { w.Write(skill) })
	ts := httptest.NewTLSServer(mux)

	// Online: write the bundle.
	var bundle bytes.Buffer
	online := &discovery.Options{HTTPClient: ts.Client(), InsecureAllowPrivateOrigins: true}
	if _, err := skillbundle.Write(context.Background(), &bundle, ts.URL, &skillbundle.Options{Client: online}); err != nil {
		log.Fatal(err)
	}
	ts.Close()

	// Offline: read it and install from it; the Client's own transport is never used.
	b, err := skillbundle.Read(&bundle, nil)
	if err != nil {
		log.Fatal(err)
	}
	c, err := discovery.NewClient(&discovery.Options{WrapTransport: b.WrapTransport, InsecureAllowPrivateOrigins: true})
	if err != nil {
		log.Fatal(err)
	}
	ix, err := c.ListSkills(context.Background(), b.Source())
	if err != nil {
		log.Fatal(err)
	}
	sk, err := c.GetSkill(context.Background(), ix, "pdf")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sk.Entry.Name, sk.Verified, len(b.Manifest.Files), "files")

	// Nothing else is fetched.
	req, _ := http.NewRequest(http.MethodGet, "https://elsewhere.example/", nil)
	_, err = b.WrapTransport(nil).RoundTrip(req)
	fmt.Println(errors.Is(err, skillbundle.ErrNotInBundle))
	// Output:
	// pdf true 2 files
	// true
}
