package discovery_test

import (
	"sync"
	"testing"

	"github.com/wellknown-dev/discovery"
)

// keysCache records the keys a Client stores.
type keysCache struct {
	discovery.Cache
	mu   sync.Mutex
	keys []string
}

func (k *keysCache) Set(key string, value []byte) {
	k.mu.Lock()
	k.keys = append(k.keys, key)
	k.mu.Unlock()
	k.Cache.Set(key, value)
}

// TestIsPrivateKey: every key a Client stores for a private origin's documents, in its
// Cache and its LastGoodStore, is one IsPrivateKey recognises (a shared store keeps
// them local); a public URL is not.
func TestIsPrivateKey(t *testing.T) {
	t.Parallel()
	s := newSite(t, docs(t, map[string]string{discovery.SkillsPath: goodSkills}))
	cache := &keysCache{Cache: discovery.NewMemoryCache(0)}
	lg := discovery.NewMemoryLastGood(0)
	c := newClient(t, s, &discovery.Options{Cache: cache, LastGood: lg})
	if _, err := c.Discover(t.Context(), s.URL); err != nil {
		t.Fatal(err)
	}
	if len(cache.keys) == 0 {
		t.Fatal("nothing was cached")
	}
	for _, k := range cache.keys {
		if !discovery.IsPrivateKey(k) {
			t.Errorf("cache key %q of a loopback origin is not private", k)
		}
	}
	if _, ok := lg.Load(discovery.PrivatePartition + s.URL + discovery.SkillsPath); !ok {
		t.Error("the last good copy is not under the private partition")
	}
	if discovery.IsPrivateKey("https://example.com" + discovery.SkillsPath) {
		t.Error("a public URL is private")
	}
}
