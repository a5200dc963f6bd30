package billingtest

import (
	"sync"
	"sync/atomic"
)

// listCacheBudget bounds the bytes of encoded invoices the fake keeps.
// Encoding a list-all page of 1,000 invoices costs about 15 ms of CPU, most
// of an integration sweep's cost on the fake's side; keeping the encoded
// form makes the next sweep cheap. The budget holds the list form of about
// 150,000 invoices, and keeps a fake of a million within its data plus
// the budget.
const listCacheBudget = 256 << 20

// listCache keeps each invoice's encoding in list-all answers (id →
// bytes) while the budget has room; past it, invoices are encoded on
// every request. A write to an invoice drops its entry. Safe for
// concurrent use, so that readers holding only the read lock can fill it.
type listCache struct {
	m    sync.Map // int64 → []byte
	used atomic.Int64
}

// Load returns the cached encoding of invoice id.
func (c *listCache) Load(id int64) ([]byte, bool) {
	v, ok := c.m.Load(id)
	if !ok {
		return nil, false
	}
	return v.([]byte), true
}

// Store keeps b as the encoding of invoice id, if the budget has room.
func (c *listCache) Store(id int64, b []byte) {
	n := int64(len(b))
	if c.used.Add(n) > listCacheBudget {
		c.used.Add(-n)
		return
	}
	if _, loaded := c.m.LoadOrStore(id, b); loaded {
		c.used.Add(-n) // a concurrent reader stored it first
	}
}

// Delete drops the encoding of invoice id, after a write changed it.
func (c *listCache) Delete(id int64) {
	if v, ok := c.m.LoadAndDelete(id); ok {
		c.used.Add(-int64(len(v.([]byte))))
	}
}
