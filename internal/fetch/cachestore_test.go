package fetch

import "testing"

// A memory cache's budget bounds the other in-memory tiers at half of it each; any
// other cache leaves their own budgets.
func TestTierBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		cache Cache
		def   int64
		want  int64
	}{
		{"no cache", nil, 32 << 20, 32 << 20},
		{"disk cache", NewDiskCache(t.TempDir()), 32 << 20, 32 << 20},
		{"large memory cache", NewMemoryCache(1 << 30), 32 << 20, 32 << 20},
		{"default-sized memory cache", NewMemoryCache(64 << 20), 32 << 20, 32 << 20},
		{"small memory cache", NewMemoryCache(4 << 20), 32 << 20, 2 << 20},
		{"tiny memory cache", NewMemoryCache(1), 32 << 20, 1},
	} {
		if got := TierBytes(tc.cache, tc.def); got != tc.want {
			t.Errorf("%s: TierBytes = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// A Fetcher and its document layer over a small memory cache keep their revalidation
// copies and parse memo within half of the cache's budget, whatever they are asked
// for: a scan of 100,000 origins, which reads each document once, otherwise filled
// 32 MiB of parses that nothing would ever read again.
func TestTiersFollowMemoryCache(t *testing.T) {
	t.Parallel()
	const cacheBytes = 4 << 20
	f := New(Config{Cache: NewMemoryCache(cacheBytes), ValidatedBytes: 16 << 20})
	d := NewDocuments(f, DocConfig{MemoBytes: 32 << 20})
	for i, v := range f.validated {
		if got := v.Budget(); got != cacheBytes/2 {
			t.Errorf("revalidation copies, partition %d: budget %d, want %d", i, got, cacheBytes/2)
		}
	}
	if got := d.parsed.Budget(); got != cacheBytes/2 {
		t.Errorf("parse memo: budget %d, want %d", got, cacheBytes/2)
	}
}
