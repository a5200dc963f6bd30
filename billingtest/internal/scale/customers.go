package scale

import (
	"sync"

	"github.com/billingapi/billing-go/billingtest/seed"
)

// encodedCustomer is what an invoice of the list of all invoices shows of
// its customer, encoded: the value of "invoiceCustomer" through that of
// "invoiceCustomerAddressPreference", then the value of
// "customerReferenceValue", which starts at refAt. The zero value is an
// invoice without a customer.
type encodedCustomer struct {
	json  []byte
	refAt int
}

func (e encodedCustomer) appendSnapshot(dst []byte) []byte {
	if e.json == nil {
		return append(dst, `null,"invoiceCustomerAddressPreference":null`...)
	}
	return append(dst, e.json[:e.refAt]...)
}

func (e encodedCustomer) appendReference(dst []byte) []byte {
	if e.json == nil {
		return append(dst, "null"...)
	}
	return append(dst, e.json[e.refAt:]...)
}

// encodeCustomer appends cust (nil when the invoice has none) to dst and
// returns it as an encodedCustomer.
func encodeCustomer(dst []byte, cust *seed.Customer) encodedCustomer {
	if cust == nil {
		return encodedCustomer{}
	}
	dst = appendInvoiceCustomer(dst, cust)
	dst = append(dst, `,"invoiceCustomerAddressPreference":`+addressPreferenceJSON...)
	refAt := len(dst)
	return encodedCustomer{json: appendOptString(dst, cust.Reference), refAt: refAt}
}

// customerCache keeps each customer's encodedCustomer, so that a sweep of
// a large account writes a customer's few hundred bytes with one copy
// instead of reading a dozen strings and decimals scattered over the
// heap: at a million invoices and a hundred thousand customers, those
// reads missed the CPU's caches on nearly every invoice and took about
// two fifths of the fake's CPU.
//
// An entry holds the customer it was encoded from and serves only that
// pointer: the fake never changes a stored customer in place (a change
// stores a new one), so a new pointer is what tells that the customer
// changed. Readers fill it concurrently, under the fake's read lock,
// hence the sync.Map. Entries of deleted customers stay until the store
// is dropped, at most one for every customer id it has seen.
type customerCache struct{ m sync.Map } // id → *encodedCustomer

// get returns the encoding of cust, the customer of id (nil when there
// is none).
func (c *customerCache) get(id int64, cust *seed.Customer) encodedCustomer {
	if cust == nil {
		return encodedCustomer{}
	}
	if v, ok := c.m.Load(id); ok {
		if e := v.(*cachedCustomer); e.of == cust {
			return e.enc
		}
	}
	enc := encodeCustomer(nil, cust)
	c.m.Store(id, &cachedCustomer{of: cust, enc: enc})
	return enc
}

// cachedCustomer is an entry of customerCache.
type cachedCustomer struct {
	of  *seed.Customer
	enc encodedCustomer
}
