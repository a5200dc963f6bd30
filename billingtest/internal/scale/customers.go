package scale

import (
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/billingapi/billing-go/billingtest/internal/prefetch"
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
// index, not a lookup in a map of a hundred thousand. An entry is a block
// of fixed size in a chunk, its values inside it: where an entry held
// pointers to them, writing a customer waited for three misses of the
// CPU's caches one after the other (entry, then encoding, then values),
// and now it waits for about one, since every address of the block is
// known from the slot. Values too long for a block go to spill.
//
// An entry holds the customer it was encoded from and serves only that
// pointer: the fake never changes a stored customer in place (a change
// stores a new one), so a new pointer is what tells that the customer
// changed. Looking the customer up to compare was, at a million invoices,
// a miss of the caches beside the block's on every invoice, so an entry
// also keeps the version of the fake's state (the count of its write
// locks, pagecache.RWMutex) at which its customer was last found to be
// the fake's: no customer changes without a write lock, so within that
// version the entry is served without a lookup, and a sweep looks each
// customer up once.
//
// Slots are given under the fake's write lock; readers fill entries
// concurrently under its read lock. A reader fills a block under its
// chunk's mutex and publishes it by storing of, then seen; a reader that
// loads seen (or of) and finds what it asks reads the block without a
// lock, since no one writes a block whose of is the customer all readers
// see. The entries of deleted customers stay until the store is dropped,
// one for every customer id the store's invoices have named.
type customerCache struct {
	slots  map[int64]int32
	chunks []*customerChunk
}

// customerChunk holds the entries of customerChunkLen slots. Chunks never
// move, so growing copies no block.
type customerChunk struct {
	fill   sync.Mutex
	blocks [customerChunkLen]customerBlock
}

const customerChunkLen = 1024

// customerBlock is an entry of customerCache: 384 bytes, six cache lines.
type customerBlock struct {
	of atomic.Pointer[seed.Customer]
	// seen is the version at which of was last found to be the fake's
	// customer, plus one (0: never).
	seen atomic.Uint64
	// spill holds the encoding when its values do not fit in values.
	spill *encodedCustomer
	ends  [customerValueCount]uint16
	_     [2]byte
	// values are the values, when they fit; ends[customerValueCount-1]
	// of them are used.
	values [blockValues]byte
}

// blockValues is the room for values in a customerBlock: the values of a
// generated customer take 190 to 250 bytes.
const blockValues = 384 - 8 - 8 - 8 - 2*customerValueCount - 2

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
	if int(s) == len(c.chunks)*customerChunkLen {
		c.chunks = append(c.chunks, new(customerChunk))
	}
	c.slots[id] = s
	return s
}

// get returns the encoding of customer id, whose slot is slot, as the
// fake holds it at version (see customerCache), looking it up with
// customer when the entry was not checked at that version. An invoice
// whose customer is gone has none. The values returned are the block's
// own: the caller reads them before the fake's read lock is let go.
func (c *customerCache) get(slot int32, id int64, version uint64, customer func(int64) *seed.Customer) encodedCustomer {
	chunk := c.chunks[slot/customerChunkLen]
	b := &chunk.blocks[slot%customerChunkLen]
	if b.seen.Load() != version+1 {
		cust := customer(id)
		if cust == nil {
			return encodedCustomer{}
		}
		if b.of.Load() != cust {
			chunk.fill.Lock()
			if b.of.Load() != cust {
				b.fill(cust)
			}
			chunk.fill.Unlock()
		}
		b.seen.Store(version + 1)
	}
	if b.spill != nil {
		return *b.spill
	}
	e := encodedCustomer{values: b.values[:b.ends[customerValueCount-1]]}
	for i, end := range b.ends {
		e.ends[i] = uint32(end)
	}
	return e
}

// prefetch asks the CPU to start reading the block of slot, every line
// of it, so that get finds it in the caches when the invoice that names
// it comes to be written (see Store.AppendListJSON).
func (c *customerCache) prefetch(slot int32) {
	b := &c.chunks[slot/customerChunkLen].blocks[slot%customerChunkLen]
	prefetch.Lines(uintptr(unsafe.Pointer(b)), unsafe.Sizeof(*b))
}

// fill encodes cust into b and then publishes it. The caller holds the
// chunk's mutex.
func (b *customerBlock) fill(cust *seed.Customer) {
	enc := encodeCustomer(b.values[:0], cust)
	b.spill = nil
	if len(enc.values) > len(b.values) { // append went elsewhere
		b.spill = &enc
	} else {
		for i, end := range enc.ends {
			b.ends[i] = uint16(end)
		}
	}
	b.of.Store(cust)
}
