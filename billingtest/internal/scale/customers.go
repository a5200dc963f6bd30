package scale

import (
	"strings"
	"sync/atomic"

	"github.com/billingapi/billing-go/billingtest/seed"
)

// encodedCustomer is what an invoice of the list of all invoices shows of
// its customer: the values that customerValues writes, and where each
// ends. The zero value is an invoice without a customer.
type encodedCustomer struct {
	values []byte
	ends   [customerValueCount]uint32
}

// encodeCustomer encodes cust (nil when the invoice has none) into dst.
func encodeCustomer(dst []byte, cust *seed.Customer) encodedCustomer {
	if cust == nil {
		return encodedCustomer{}
	}
	values, ends := customerValues(dst, cust)
	return encodedCustomer{values: values, ends: ends}
}

// appendSnapshot appends the value of "invoiceCustomer" through that of
// "invoiceCustomerAddressPreference": customerTemplate with the values.
func (e *encodedCustomer) appendSnapshot(dst []byte) []byte {
	if e.values == nil {
		return append(dst, `null,"invoiceCustomerAddressPreference":null`...)
	}
	lit, start := customerTemplate, 0
	for _, end := range e.ends {
		i := strings.IndexByte(lit, 0)
		dst = append(append(dst, lit[:i]...), e.values[start:end]...)
		lit, start = lit[i+1:], int(end)
	}
	return append(dst, lit...)
}

// appendReference appends the value of "customerReferenceValue".
func (e *encodedCustomer) appendReference(dst []byte) []byte {
	if e.values == nil {
		return append(dst, "null"...)
	}
	return append(dst, e.values[e.ends[referenceValue-1]:e.ends[referenceValue]]...)
}

// customerCache keeps, for each customer of the store's invoices, its
// encodedCustomer, so that a sweep of a large account writes a customer
// from a few hundred contiguous bytes instead of a dozen strings and
// decimals scattered over the heap: at a million invoices and a hundred
// thousand customers those reads missed the CPU's caches on nearly every
// invoice and took about two fifths of the fake's CPU. Only the values
// are kept (some 250 bytes a customer); customerTemplate has the rest.
//
// A customer has a slot, given when the first invoice of it is inserted
// and kept in the invoice's record, so that finding its entry is one
// index, not a second lookup in a map of a hundred thousand (the store
// still looks the customer up, to check the entry). An entry holds the
// customer it was encoded from and serves only that pointer: the fake
// never changes a stored customer in place (a change stores a new one),
// so a new pointer is what tells that the customer changed. Slots are
// given under the fake's write lock; readers fill entries concurrently
// under its read lock, hence the atomic pointers. The entries of deleted
// customers stay until the store is dropped, one for every customer id
// the store's invoices have named.
type customerCache struct {
	slots  map[int64]int32
	chunks []*[customerChunk]atomic.Pointer[cachedCustomer]
}

// customerChunk is how many entries a chunk of a customerCache holds:
// chunks never move, so growing copies no atomic.
const customerChunk = 1024

// cachedCustomer is an entry of customerCache.
type cachedCustomer struct {
	of  *seed.Customer
	enc encodedCustomer
}

// slot returns the slot of customer id, giving it one if it has none.
// The caller holds the fake's write lock.
func (c *customerCache) slot(id int64) int32 {
	if s, ok := c.slots[id]; ok {
		return s
	}
	if c.slots == nil {
		c.slots = map[int64]int32{}
	}
	s := int32(len(c.slots))
	if int(s) == len(c.chunks)*customerChunk {
		c.chunks = append(c.chunks, new([customerChunk]atomic.Pointer[cachedCustomer]))
	}
	c.slots[id] = s
	return s
}

// get returns the encoding of cust, the customer in slot (nil when there
// is none).
func (c *customerCache) get(slot int32, cust *seed.Customer) encodedCustomer {
	if cust == nil {
		return encodedCustomer{}
	}
	entry := &c.chunks[slot/customerChunk][slot%customerChunk]
	if e := entry.Load(); e != nil && e.of == cust {
		return e.enc
	}
	e := &cachedCustomer{of: cust, enc: encodeCustomer(nil, cust)}
	entry.Store(e)
	return e.enc
}
