// Package scale holds what keeps the fake fast on large data sets: the
// packed invoice store with its key indexes, the list of all invoices
// written straight from the packed records, and recycled page buffers.
package scale

import (
	"context"
	"iter"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/filter"
	"github.com/billingapi/billing-go/billingtest/seed"
)

// Store is the invoice store of a large account: packed records (see
// invoiceRecord) in id order, with key indexes. It answers as the fake's
// plain store does, at a cost that follows the page asked for rather than
// the account. The caller serializes writes against everything else (the
// fake's lock).
type Store struct {
	table invoiceTable
	// packer shares the charge texts of the invoices it packs.
	packer packer
	// gen counts the changes to invoices; keys, built from them, are
	// dropped when it moves.
	gen    uint64
	keys   keyIndexes
	schema *filter.Schema[*invoiceRecord]
	// customer returns a customer, nil when there is none.
	customer  func(id int64) *seed.Customer
	customers customerCache
}

// maxSharedTexts bounds the charge texts the packer remembers: a
// generator's catalogue fits many times over; texts that never repeat
// are forgotten when it fills.
const maxSharedTexts = 1 << 12

// New returns an empty store whose Customer.* filter names read, with
// customerGetters, the customer that customer returns (nil when there is
// none). The store keeps what it encodes of a customer for as long as
// customer returns the same pointer: the caller never changes a customer
// in place.
func New(customerGetters map[string]filter.Getter[*seed.Customer], customer func(id int64) *seed.Customer) *Store {
	s := &Store{packer: packer{texts: map[[3]string]string{}}, customer: customer}
	// A missing customer reads as an empty one, so that getters need no
	// nil checks.
	none := &seed.Customer{}
	getters := filter.Via(customerGetters, func(r *invoiceRecord) *seed.Customer {
		if c := customer(r.customerID); c != nil {
			return c
		}
		return none
	})
	for name, g := range recordGetters {
		getters[name] = g
	}
	s.schema = filter.NewSchema("GET /v1/Invoices", billing.InvoiceFilter{}, getters).
		RelatedBy(func(r *invoiceRecord) int64 { return r.customerID })
	return s
}

// recordGetters read the list of all invoices' own filter names from a
// record in place, packed values without unpacking them.
var recordGetters = map[string]filter.Getter[*invoiceRecord]{
	"createdTimestamp": {Time: createdAt,
		Instant: func(r *invoiceRecord) (int64, bool) { return r.created, r.whole == nil }},
	"effectiveTimestamp": {Time: effectiveAt,
		Instant: func(r *invoiceRecord) (int64, bool) { return r.effective, r.whole == nil }},
	"postedTimestamp": {Time: postedAt,
		Instant: func(r *invoiceRecord) (int64, bool) { return r.posted, r.whole == nil }},
	"poNumber": {Text: po},
	"closingArBalance": {Decimal: closing,
		Packed: func(r *invoiceRecord) (int64, int8, bool) { return r.packedAmount(recClosing) }},
	"openingArBalance": {Decimal: opening,
		Packed: func(r *invoiceRecord) (int64, int8, bool) { return r.packedAmount(recOpening) }},
	"customerId":        {Integer: func(r *invoiceRecord) (int64, bool) { return r.customerID, true }},
	"invoiceNumber":     {Integer: func(r *invoiceRecord) (int64, bool) { return number(r), true }},
	"erpId":             {Text: erp},
	"crmId":             {Text: crm},
	"totalInstallments": {Integer: func(r *invoiceRecord) (int64, bool) { return int64(installments(r)), true }},
	// 0 is no accounting id: null.
	"accountingId": {Integer: func(r *invoiceRecord) (int64, bool) { return accounting(r), accounting(r) != 0 }},
}

// Len is the number of invoices.
func (s *Store) Len() int { return s.table.len() }

// At returns a copy of the i-th invoice in id order.
func (s *Store) At(i int) *seed.Invoice { return s.table.byPosition(i).invoice() }

// Get returns a copy of invoice id, or nil.
func (s *Store) Get(id int64) *seed.Invoice {
	if r := s.table.get(id); r != nil {
		return r.invoice()
	}
	return nil
}

// Insert stores a copy of inv, whose id is not in the store.
func (s *Store) Insert(inv *seed.Invoice) {
	if len(s.packer.texts) >= maxSharedTexts {
		clear(s.packer.texts)
	}
	r := s.packer.pack(inv)
	r.customerSlot = s.customers.slot(inv.CustomerID)
	s.table.insert(r)
	s.gen++
}

// Replace stores a copy of inv in place of the invoice of its id, and
// reports whether there was one.
func (s *Store) Replace(inv *seed.Invoice) bool {
	r := s.table.get(inv.ID)
	if r == nil {
		return false
	}
	*r = s.packer.pack(inv)
	r.customerSlot = s.customers.slot(inv.CustomerID)
	s.gen++
	return true
}

// Delete removes invoice id and reports whether it was there.
func (s *Store) Delete(id int64) bool {
	if !s.table.delete(id) {
		return false
	}
	s.gen++
	return true
}

// Query answers a page of the list of all invoices, or of one customer's
// (q.Customer), with the names of billing.InvoiceFilter: from the id
// order when nothing filters or sorts it, from a key index when it is
// sorted on a date, else by filtering and sorting every invoice. The
// paging variations and a customer's list take the general path. The
// filter has been checked. Readers may call it concurrently.
func (s *Store) Query(ctx context.Context, q *filter.Request) filter.Page[filter.Hit] {
	pred, err := s.schema.Compile(q.Expr, q.Unlisted)
	if err != nil {
		panic("scale: a checked filter does not compile: " + err.Error())
	}
	pred = filter.UntilDone(ctx, pred)
	var page filter.Page[*invoiceRecord]
	switch {
	case q.Varied || q.Customer != 0:
		page = filter.Run(s.rows(q.Customer), (*invoiceRecord).ident, s.schema, q, pred)
	case pred == nil && q.SortField < 0:
		page = s.pageByID(q)
	case keyed(s.schema, q):
		page = s.keyIndex(q.SortField).page(ctx, q, pred)
	default:
		page = filter.Run(s.rows(0), (*invoiceRecord).ident, s.schema, q, pred)
	}
	out := filter.Page[filter.Hit]{Count: page.Count, MaxCount: page.MaxCount, Visited: page.Visited, Items: make([]filter.Hit, len(page.Items))}
	key := dateOf(q.KeyField)
	for i, r := range page.Items {
		out.Items[i].ID = r.id
		if key != nil {
			out.Items[i].Key = key(r)
		}
	}
	return out
}

func (r *invoiceRecord) ident() int64 { return r.id }

// dateOf reads the date field name of a record; nil for "".
func dateOf(name string) func(*invoiceRecord) time.Time {
	switch name {
	case "":
		return nil
	case "createdTimestamp":
		return createdAt
	case "effectiveTimestamp":
		return effectiveAt
	case "modifiedTimestamp":
		return modifiedAt
	}
	return postedAt
}

// rows yields the records in ascending id order, those of one customer
// when customerID is not 0.
func (s *Store) rows(customerID int64) iter.Seq[*invoiceRecord] {
	return func(yield func(*invoiceRecord) bool) {
		for i := range s.table.len() {
			r := s.table.byPosition(i)
			if customerID != 0 && r.customerID != customerID {
				continue
			}
			if !yield(r) {
				return
			}
		}
	}
}

// pageByID answers the unfiltered list of all invoices in id order, the
// list an integration job pages through: a slice of the id index, so
// that reading every page stays linear in the total instead of visiting
// every invoice on every request.
func (s *Store) pageByID(q *filter.Request) filter.Page[*invoiceRecord] {
	n := int64(s.table.len())
	start := min(int64(q.Page)*int64(q.Size), n)
	end := min(start+int64(q.Size), n)
	page := filter.Page[*invoiceRecord]{Count: int(n), MaxCount: int(n), Items: make([]*invoiceRecord, 0, end-start), Visited: int(end - start)}
	for i := start; i < end; i++ {
		page.Items = append(page.Items, s.table.byPosition(int(i)))
	}
	return page
}
