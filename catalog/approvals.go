package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// ApprovalStore remembers which skills the user approved, each bound to a digest of
// its content: a skill whose content changes is no longer approved. Implementations
// must be safe for concurrent use.
type ApprovalStore interface {
	// Approved reports whether key was approved at exactly digest.
	Approved(key, digest string) (bool, error)
	// Approve records the approval of key at digest, replacing any other.
	Approve(key, digest string) error
	// Revoke forgets key.
	Revoke(key string) error
}

// NewMemoryApprovals returns an ApprovalStore that lasts as long as the process. It
// keeps MCP pins too: it implements mcpclient.PinStore.
func NewMemoryApprovals() ApprovalStore { return &memoryApprovals{m: map[string]string{}} }

type memoryApprovals struct {
	mu sync.Mutex
	m  map[string]string
}

// Approved reports whether key was approved at digest.
func (a *memoryApprovals) Approved(key, digest string) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	d, ok := a.m[key]
	return ok && d == digest && digest != "", nil
}

// Approve records key at digest.
func (a *memoryApprovals) Approve(key, digest string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.m[key] = digest
	return nil
}

// Revoke forgets key.
func (a *memoryApprovals) Revoke(key string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.m, key)
	return nil
}

// NewFileApprovals returns an ApprovalStore kept in the JSON file at path (mode 0600,
// written atomically; a missing file is an empty store). Several processes may share
// it: each call reads the file afresh, and the last writer wins. It keeps MCP pins
// too (it implements mcpclient.PinStore), in the same file.
func NewFileApprovals(path string) (ApprovalStore, error) {
	if path == "" {
		return nil, errors.New("catalog: NewFileApprovals: empty path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("catalog: NewFileApprovals: %w", err)
	}
	return &fileApprovals{path: path}, nil
}

type fileApprovals struct {
	mu   sync.Mutex // one writer at a time in this process
	path string
}

func (f *fileApprovals) load() (map[string]string, error) {
	data, err := os.ReadFile(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("catalog: approvals file %s is not valid JSON: %w", f.path, err)
	}
	return m, nil
}

func (f *fileApprovals) save(m map[string]string) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.path), ".approvals-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), f.path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}

// Approved reports whether key was approved at digest.
func (f *fileApprovals) Approved(key, digest string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return false, err
	}
	d, ok := m[key]
	return ok && d == digest && digest != "", nil
}

// Approve records key at digest.
func (f *fileApprovals) Approve(key, digest string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return err
	}
	m[key] = digest
	return f.save(m)
}

// Revoke forgets key.
func (f *fileApprovals) Revoke(key string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return err
	}
	delete(m, key)
	return f.save(m)
}
