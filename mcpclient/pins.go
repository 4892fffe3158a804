package mcpclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/wellknown-dev/discovery/agentskills"
)

// Pins guard against "rug pulls": a server whose tools or skills change after the
// user approved them. What is pinned is the definition as the server sent it, not
// what a dialog showed: a tool's whole wire object (name, title, description,
// inputSchema, outputSchema, annotations, _meta, icons), a skill's entry (URI,
// frontmatter, files with digests and sizes) and the files read of it. Each is put
// in the JSON Canonicalization Scheme (RFC 8785) and compared byte for byte before
// every use: before each tools/call and before a skill's file is handed out.

// PinStore keeps pins: the canonical JSON of each definition the user approved, by
// key. The approval stores of package catalog (catalog.NewMemoryApprovals,
// catalog.NewFileApprovals) implement it, so pins persist with approvals.
// Implementations must be safe for concurrent use.
type PinStore interface {
	// LoadPin returns the definition pinned under key, or nil and no error when
	// there is none.
	LoadPin(key string) ([]byte, error)
	// SavePin pins definition under key, replacing any other.
	SavePin(key string, definition []byte) error
}

// NewMemoryPins returns a PinStore that lasts as long as the process.
func NewMemoryPins() PinStore { return &memoryPins{m: map[string][]byte{}} }

type memoryPins struct {
	mu sync.Mutex // guards m
	m  map[string][]byte
}

// LoadPin implements PinStore.
func (p *memoryPins) LoadPin(key string) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bytes.Clone(p.m[key]), nil
}

// SavePin implements PinStore.
func (p *memoryPins) SavePin(key string, definition []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.m[key] = bytes.Clone(definition)
	return nil
}

// PinKind says what a pin is of.
type PinKind string

// The kinds of pins.
const (
	PinTool  PinKind = "tool"  // a tool, as tools/list describes it
	PinSkill PinKind = "skill" // a skill: its entry and the files read of it
)

// PinRequest describes a definition a Session is about to use that the user has not
// approved as it is: never approved (Changes is nil), or changed since (Changes
// names every member that differs). Every string in it but Kind, Server and Digest
// came from the server: untrusted, to show, never to follow.
type PinRequest struct {
	Kind   PinKind
	Server string // the endpoint (Session.Endpoint)
	Name   string // the tool's name, or the skill's SKILL.md URI
	// Definition is what approving pins: canonical JSON (RFC 8785). For a skill it
	// is {"entry": …, "files": {URI: text, or a digest for a binary or large file}}.
	Definition json.RawMessage
	Digest     string   // "sha256:" and the hex SHA-256 of Definition
	Changes    []Change // from the pinned definition to this one; nil for a first approval
}

// PinFunc asks the user whether the Session may use the definition req describes and
// pin it. It is called before the use, never while the Session holds a lock, and may
// be called from several goroutines at once. It should return promptly, or as soon as
// ctx is done. Returning false refuses the use with a [*PinError]; an error aborts it
// with the error wrapped. Returning true pins the definition: it is not asked again
// until the definition changes.
type PinFunc func(ctx context.Context, req *PinRequest) (bool, error)

// DenyPins is the default PinFunc: it approves nothing, so only definitions pinned
// beforehand ([Session.ApproveTool], or a PinStore shared with an earlier session)
// can be used.
func DenyPins(context.Context, *PinRequest) (bool, error) { return false, nil }

// PinError reports a definition that was used without approval: never approved, or
// changed since it was ([ErrNotApproved], [ErrPinChanged]). Nothing was used.
type PinError struct {
	Kind    PinKind
	Server  string
	Name    string   // untrusted
	Digest  string   // of the definition served now
	Changes []Change // nil when nothing was pinned
	Err     error    // ErrNotApproved or ErrPinChanged
}

// Error implements the error interface.
func (e *PinError) Error() string {
	why := "not approved"
	if e.Err != nil {
		why = strings.TrimPrefix(e.Err.Error(), "mcpclient: ")
	}
	if len(e.Changes) == 0 {
		return fmt.Sprintf("mcpclient: %s %s of %s: %s", e.Kind, quote(e.Name), e.Server, why)
	}
	c := e.Changes[0]
	more := ""
	if len(e.Changes) > 1 {
		more = fmt.Sprintf(" and %d more", len(e.Changes)-1)
	}
	return fmt.Sprintf("mcpclient: %s %s of %s: %s: %s%s", e.Kind, quote(e.Name), e.Server, why, fieldName(c.Field), more)
}

// Unwrap returns Err.
func (e *PinError) Unwrap() error { return e.Err }

func fieldName(p string) string {
	if p == "" {
		return "the whole definition"
	}
	return quote(p)
}

// Pin errors. Test for them with [errors.Is]; [*PinError] has the details.
var (
	// ErrNotApproved: a tool or skill was about to be used that was never approved.
	ErrNotApproved = errors.New("mcpclient: not approved")
	// ErrPinChanged: a tool or skill changed since it was approved.
	ErrPinChanged = errors.New("mcpclient: changed since it was approved")
)

// pinKey is where the pin of name of kind on this session's server is kept.
func (s *Session) pinKey(kind PinKind, name string) string {
	return "mcp-pin " + string(kind) + " " + s.key + " " + name
}

func digestOf(def []byte) string {
	sum := sha256.Sum256(def)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// checkPin lets def (canonical JSON) be used when it is pinned as it is (old);
// otherwise it asks Options.ApprovePin with the changes and, when the answer is yes,
// pins def with save (nil: [Session.savePin]).
func (s *Session) checkPin(ctx context.Context, kind PinKind, name string, old, def []byte, save func() error) error {
	if old != nil && bytes.Equal(old, def) {
		return nil
	}
	req := &PinRequest{Kind: kind, Server: s.Endpoint, Name: name, Definition: def, Digest: digestOf(def)}
	why := ErrNotApproved
	if old != nil {
		req.Changes = diffJSON(old, def)
		why = ErrPinChanged
	}
	ok, err := s.opts.ApprovePin(ctx, req)
	if err != nil {
		return fmt.Errorf("mcpclient: approving %s %s: %w", kind, quote(name), err)
	}
	if !ok {
		return &PinError{Kind: kind, Server: s.Endpoint, Name: name, Digest: req.Digest, Changes: req.Changes, Err: why}
	}
	if save == nil {
		return s.savePin(kind, name, def)
	}
	return save()
}

func (s *Session) loadPin(kind PinKind, name string) ([]byte, error) {
	old, err := s.pins.LoadPin(s.pinKey(kind, name))
	if err != nil {
		return nil, fmt.Errorf("mcpclient: reading the pin of %s %s: %w", kind, quote(name), err)
	}
	return old, nil
}

func (s *Session) savePin(kind PinKind, name string, def []byte) error {
	if err := s.pins.SavePin(s.pinKey(kind, name), def); err != nil {
		return fmt.Errorf("mcpclient: pinning %s %s: %w", kind, quote(name), err)
	}
	return nil
}

// maxPinnedText bounds the files a skill pin keeps as text (so that a change shows as
// a diff); a larger or binary file is pinned by its digest.
const maxPinnedText = 64 << 10

// skillPin is the pinned definition of a skill.
type skillPin struct {
	Entry json.RawMessage   `json:"entry"`
	Files map[string]string `json:"files"` // URI → the text read, or its digest
}

// entryDefinition is a skill's definition as the server published it: the entry of
// the Skills Extension (uri, frontmatter, resources), or what a draft listed.
func entryDefinition(sk *Skill) map[string]any {
	files := func(rs []agentskills.Resource) []any {
		out := []any{}
		for _, r := range rs {
			out = append(out, map[string]any{"uri": r.URI, "digest": r.Digest, "size": r.Size})
		}
		return out
	}
	if e := sk.Entry; e != nil {
		m := map[string]any{"uri": e.URI.String(), "frontmatter": e.Frontmatter, "resources": "dynamic"}
		if !e.Dynamic {
			m["resources"] = files(e.Resources)
		}
		return m
	}
	m := map[string]any{"uri": sk.URI, "name": sk.Name, "description": sk.Description, "source": string(sk.Source), "resources": files(sk.files)}
	if sk.archive != nil {
		m["archive"] = map[string]any{"uri": sk.archive.URI, "digest": sk.archive.Digest}
	}
	return m
}

// pinnedFile is how a skill pin keeps a file read: its text, or its digest.
func pinnedFile(data []byte) string {
	if len(data) <= maxPinnedText && utf8.Valid(data) {
		return string(data)
	}
	return agentskills.Digest(data)
}

// checkSkill is the pin check of a file of sk about to be handed out. A file read
// for the first time under an approved entry joins the pin without asking: the
// approval of the entry covers it as first read (its digest, when the entry lists
// one, was verified already). A changed entry, or a file that differs from the one
// pinned, asks again. The pin is read, extended and written under pinMu, so that
// files read at the same time all join it; the question is asked without the lock.
func (s *Session) checkSkill(ctx context.Context, sk *Skill, uri string, data []byte) error {
	entry, err := canonical(entryDefinition(sk))
	if err != nil {
		return fmt.Errorf("mcpclient: skill %s: %w", quote(sk.URI), err)
	}
	file := pinnedFile(data)
	s.pinMu.Lock()
	old, def, join, err := s.skillState(sk.URI, entry, uri, file)
	if err == nil && (join || bytes.Equal(old, def)) {
		if join {
			err = s.savePin(PinSkill, sk.URI, def)
		}
		s.pinMu.Unlock()
		return err
	}
	s.pinMu.Unlock()
	if err != nil {
		return err
	}
	return s.checkPin(ctx, PinSkill, sk.URI, old, def, func() error {
		// Approved: the entry as it is now and this file, with the files pinned
		// meanwhile kept.
		s.pinMu.Lock()
		defer s.pinMu.Unlock()
		_, def, _, err := s.skillState(sk.URI, entry, uri, file)
		if err != nil {
			return err
		}
		return s.savePin(PinSkill, sk.URI, def)
	})
}

// skillState reads the pin of the skill at skillURI and returns it (old, nil when
// none) with the pin it would become with entry and the file at uri as read (def),
// and whether that file only joins a pin whose entry is unchanged (join).
func (s *Session) skillState(skillURI string, entry []byte, uri, file string) (old, def []byte, join bool, err error) {
	if old, err = s.loadPin(PinSkill, skillURI); err != nil {
		return nil, nil, false, err
	}
	cur := skillPin{Entry: entry, Files: map[string]string{}}
	var was skillPin
	if old != nil && json.Unmarshal(old, &was) == nil {
		for k, v := range was.Files {
			cur.Files[k] = v
		}
	}
	_, known := cur.Files[uri]
	cur.Files[uri] = file
	if def, err = canonical(cur); err != nil {
		return nil, nil, false, fmt.Errorf("mcpclient: skill %s: %w", quote(skillURI), err)
	}
	return old, def, old != nil && !known && bytes.Equal(was.Entry, entry), nil
}
