package scale

import "testing"

// TestListCacheFit checks that the cache's budget gives way to the data,
// and that a cache holding more than its new budget lets everything go.
func TestListCacheFit(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		invoices int
		budget   int64
	}{
		{0, listCacheBudget},
		{100_000, listCacheBudget},
		{(listCacheRoom - listCacheBudget) / listCacheInvoiceCost, listCacheBudget},
		{(listCacheRoom-listCacheBudget)/listCacheInvoiceCost + 1, listCacheBudget - listCacheInvoiceCost},
		{600_000, listCacheRoom - 600_000*listCacheInvoiceCost},
		{listCacheRoom/listCacheInvoiceCost - 1, listCacheInvoiceCost},
		{listCacheRoom / listCacheInvoiceCost, 0},
		{1_000_000, 0},
	} {
		var c ListCache
		c.Fit(tc.invoices)
		if got := listCacheBudget - c.cut.Load(); got != tc.budget {
			t.Errorf("%d invoices: budget %d MiB, want %d MiB", tc.invoices, got/mib, tc.budget/mib)
		}
	}

	var c ListCache
	entry := make([]byte, 64*mib)
	for id := range int64(5) {
		c.Store(id, entry)
	}
	if c.used.Load() != 4*64*mib {
		t.Fatalf("used %d MiB after storing 5 entries of 64 MiB, want the budget's 256", c.used.Load()/mib)
	}
	c.Fit(600_000) // a budget of 182 MiB: the cache holds too much
	if _, ok := c.Load(0); ok || c.used.Load() != 0 {
		t.Fatalf("after shrinking below what it holds: entry 0 kept %v, used %d", ok, c.used.Load())
	}
	c.Store(1, entry)
	c.Store(2, entry)
	c.Store(3, entry) // over the budget of 182 MiB
	if _, ok := c.Load(3); ok || c.used.Load() != 2*64*mib {
		t.Errorf("entry 3 stored %v beyond the budget; used %d MiB", ok, c.used.Load()/mib)
	}
	c.Fit(100_000) // growing back keeps what it holds
	if _, ok := c.Load(2); !ok {
		t.Error("entry 2 dropped when the budget grew")
	}
}

// TestListCacheStoreKeepsACopy checks that a stored encoding is the
// cache's own: the caller writes the next page into the same buffer.
func TestListCacheStoreKeepsACopy(t *testing.T) {
	t.Parallel()
	var c ListCache
	buf := []byte(`{"id":1}`)
	c.Store(1, buf)
	copy(buf, `{"id":2}`)
	if got, ok := c.Load(1); !ok || string(got) != `{"id":1}` {
		t.Errorf("Load(1) = %s, %v after the caller reused its buffer, want {\"id\":1}, true", got, ok)
	}
}
