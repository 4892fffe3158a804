package catalog

import (
	"github.com/wellknown-dev/discovery/mcpclient"
)

// The approval stores keep the pins of MCP definitions (mcpclient.PinStore) beside
// the approvals of skills, so that what a user approved of a server's tools and
// skills lasts as long as the approvals do: pass the store as mcpclient.Options.Pins.
// A pin is kept under its own key (keys of pins start with "mcp-pin ", which no
// skill's key does), with the canonical JSON of the definition as its value;
// Revoke with that key forgets it.
var (
	_ mcpclient.PinStore = (*memoryApprovals)(nil)
	_ mcpclient.PinStore = (*fileApprovals)(nil)
)

// LoadPin implements mcpclient.PinStore.
func (a *memoryApprovals) LoadPin(key string) ([]byte, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if v, ok := a.m[key]; ok {
		return []byte(v), nil
	}
	return nil, nil
}

// SavePin implements mcpclient.PinStore.
func (a *memoryApprovals) SavePin(key string, definition []byte) error {
	return a.Approve(key, string(definition))
}

// LoadPin implements mcpclient.PinStore.
func (f *fileApprovals) LoadPin(key string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return nil, err
	}
	if v, ok := m[key]; ok {
		return []byte(v), nil
	}
	return nil, nil
}

// SavePin implements mcpclient.PinStore.
func (f *fileApprovals) SavePin(key string, definition []byte) error {
	return f.Approve(key, string(definition))
}
