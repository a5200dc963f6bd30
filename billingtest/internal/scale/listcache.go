package scale

import (
	"bytes"
	"sync"
	"sync/atomic"
)

// listCacheBudget bounds the bytes of encoded invoices the fake keeps.
// Writing a list-all page of 1,000 invoices from their records costs
// about 1 ms of CPU, copying it from the cache about 0.1 ms; keeping the encoded form makes the next sweep cheap. The
// budget holds the list form of about 130,000 invoices (about 2 KB each).
const listCacheBudget = 256 << 20

// The cache gives way to data. The fake's live memory is its data plus
// the cache, and the garbage collector's headroom (the default GOGC=100)
// doubles both in resident memory; a cache of a fixed size would keep the
// fake's memory from staying proportional to its data, and it helps a
// sweep of a long list little anyway, since it holds only the list's
// beginning. So the budget is what the invoices leave of listCacheRoom, at
// most listCacheBudget: all of it up to 524,288 invoices, less beyond,
// none from 786,432.
const (
	listCacheRoom = 768 << 20
	// listCacheInvoiceCost is about what the fake keeps for an invoice
	// (its record with charges and schedules, and its share of customers,
	// subscriptions and items), to estimate the data's size from the
	// number of invoices.
	listCacheInvoiceCost = 1 << 10
)

// ListCache keeps each invoice's encoding in list-all answers (id →
// bytes) while the budget has room; past it, invoices are encoded on
// every request. A write to an invoice drops its entry. Safe for
// concurrent use, so that readers holding only the read lock can fill it.
type ListCache struct {
	// A map under a read-write lock, not a sync.Map: a sweep looks up
	// every invoice once per pass, and sync.Map's lookups, which hash the
	// key as an interface, cost a sweep 5% of its CPU.
	mu   sync.RWMutex
	m    map[int64][]byte
	used atomic.Int64
	// cut is how far below listCacheBudget the budget is (see Fit); 0,
	// the zero ListCache's, is the whole budget.
	cut atomic.Int64
}

// Load returns the cached encoding of invoice id.
func (c *ListCache) Load(id int64) ([]byte, bool) {
	c.mu.RLock()
	b, ok := c.m[id]
	c.mu.RUnlock()
	return b, ok
}

// Store keeps a copy of b as the encoding of invoice id, if the budget
// has room. The copy is made only then, so that a caller can offer the
// bytes it has just written into a page without allocating when the
// cache is full.
func (c *ListCache) Store(id int64, b []byte) {
	n := int64(len(b))
	if c.used.Add(n) > listCacheBudget-c.cut.Load() {
		c.used.Add(-n)
		return
	}
	b = bytes.Clone(b)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, loaded := c.m[id]; loaded {
		c.used.Add(-n) // a concurrent reader stored it first
		return
	}
	if c.m == nil {
		c.m = map[int64][]byte{}
	}
	c.m[id] = b
}

// Delete drops the encoding of invoice id, after a write changed it.
func (c *ListCache) Delete(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.m[id]; ok {
		delete(c.m, id)
		c.used.Add(-int64(len(b)))
	}
}

// Fit sets the budget for a fake of n invoices, and empties the cache when
// it holds more than that. The caller holds the store's write lock, so no
// Store runs meanwhile.
func (c *ListCache) Fit(n int) {
	budget := min(listCacheBudget, max(0, listCacheRoom-int64(n)*listCacheInvoiceCost))
	c.cut.Store(listCacheBudget - budget)
	if c.used.Load() > budget {
		c.Clear()
	}
}

// Clear drops every encoding.
func (c *ListCache) Clear() {
	c.mu.Lock()
	c.m = nil
	c.used.Store(0)
	c.mu.Unlock()
}
