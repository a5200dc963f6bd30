package churn

import (
	"context"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/billingapi/billing-go/billingtest/internal/filter"
	"github.com/billingapi/billing-go/billingtest/seed"
	"github.com/shopspring/decimal"
)

// Invoices is what churn reads and deletes of the fake's invoice store.
type Invoices interface {
	// Get is a copy of invoice id, or nil.
	Get(id int64) *seed.Invoice
	Delete(id int64) bool
	// Query answers a page of the invoices, of q.Customer's only when
	// it is not 0, keyed by q.KeyField.
	Query(ctx context.Context, q *filter.Request) filter.Page[filter.Hit]
}

// InvoiceScope is the invoices of one customer, or all (CustomerID 0),
// written through the paths the fake's AddInvoice, DeleteInvoice and
// UpdateInvoice take; its Delete is the store's. Its methods hold the
// fake's lock for writing.
type InvoiceScope struct {
	Invoices
	CustomerID int64
	Customers  map[int64]*seed.Customer // the customers an insert of CustomerID 0 picks from
	Add        func(seed.Invoice) (int64, error)
	Update     func(id int64, change func(*seed.Invoice)) error
}

// KeyField implements [Scope]: a date of the invoice when sorted is one,
// else postedTimestamp.
func (c InvoiceScope) KeyField(sorted string) string {
	switch sorted {
	case "createdTimestamp", "effectiveTimestamp", "postedTimestamp", "modifiedTimestamp":
		return sorted
	}
	return "postedTimestamp"
}

// InvoiceKey is inv's date field, as [InvoiceScope.KeyField] names it.
func InvoiceKey(inv *seed.Invoice, field string) *time.Time {
	switch field {
	case "createdTimestamp":
		return &inv.CreatedTimestamp
	case "effectiveTimestamp":
		return &inv.EffectiveTimestamp
	case "modifiedTimestamp":
		return &inv.ModifiedTimestamp
	}
	return &inv.PostedTimestamp
}

// Rows implements [Scope].
func (c InvoiceScope) Rows(field string) []Row {
	page := c.Query(context.Background(), &filter.Request{Customer: c.CustomerID, SortField: -1, Size: math.MaxInt, KeyField: field})
	rows := make([]Row, len(page.Items))
	for i, h := range page.Items {
		rows[i] = Row{ID: h.ID, Key: h.Key}
	}
	return rows
}

// Insert implements [Scope]: a copy of invoice like with new ids, of the
// same customer, or a plain invoice of the scope's customer (or of a
// random one).
func (c InvoiceScope) Insert(field string, like int64, key time.Time, rng *rand.Rand, now time.Time) (Row, bool) {
	var inv seed.Invoice
	switch old := c.Get(like); {
	case old != nil:
		inv = *old
	case c.CustomerID != 0:
		inv.CustomerID = c.CustomerID
	case len(c.Customers) > 0:
		ids := slices.Sorted(maps.Keys(c.Customers)) // sorted: map order is random
		inv.CustomerID = ids[rng.IntN(len(ids))]
	}
	inv.ID, inv.InvoiceNumber = 0, 0
	for i := range inv.Charges {
		inv.Charges[i].ID = 0
	}
	// Another invoice has balances and an amount of its own, as a live
	// account's do: copies of one row would make a group no filter on
	// amounts can tell apart.
	// (Drawn from the key, not the seeded source, so that the changes a
	// seed makes stay what they were.)
	d := decimal.New(1+(key.UnixNano()/1000+like*7919)%9999, -2)
	inv.OpeningArBalance, inv.ClosingArBalance = inv.OpeningArBalance.Add(d), inv.ClosingArBalance.Add(d)
	if len(inv.Charges) > 0 && inv.Charges[0].Quantity.Equal(decimal.NewFromInt(1)) {
		inv.Charges[0].UnitPrice = inv.Charges[0].UnitPrice.Add(d)
		inv.Charges[0].Amount = inv.Charges[0].Amount.Add(d)
	}
	inv.ModifiedTimestamp = now // written now, unless modifiedTimestamp is the key
	*InvoiceKey(&inv, field) = key
	id, err := c.Add(inv)
	if err != nil {
		return Row{}, false // an unknown customer: a 404 follows
	}
	return Row{ID: id, Key: *InvoiceKey(c.Get(id), field)}, true
}

// SetKey implements [Scope].
func (c InvoiceScope) SetKey(field string, id int64, key, now time.Time) (time.Time, bool) {
	return c.update(field, id, func(inv *seed.Invoice) {
		inv.ModifiedTimestamp = now
		*InvoiceKey(inv, field) = key
	})
}

// Modify implements [Scope]: modifiedTimestamp now, and sometimes the
// balances or the taxes.
func (c InvoiceScope) Modify(field string, id int64, rng *rand.Rand, now time.Time) (time.Time, bool) {
	return c.update(field, id, func(inv *seed.Invoice) {
		inv.ModifiedTimestamp = now
		switch rng.IntN(3) {
		case 0: // a payment elsewhere on the account moves its balances
			d := cents(rng)
			if rng.IntN(2) == 0 {
				d = d.Neg()
			}
			inv.OpeningArBalance, inv.ClosingArBalance = inv.OpeningArBalance.Add(d), inv.ClosingArBalance.Add(d)
		case 1: // a tax correction; UpdateInvoice spreads it only over one instalment
			if len(inv.PaymentSchedules) == 1 {
				inv.TotalTaxes = inv.TotalTaxes.Add(cents(rng))
			}
		}
	})
}

// update changes invoice id as UpdateInvoice does and returns its key.
func (c InvoiceScope) update(field string, id int64, change func(*seed.Invoice)) (time.Time, bool) {
	if err := c.Update(id, change); err != nil {
		return time.Time{}, false
	}
	return *InvoiceKey(c.Get(id), field), true
}
