package billingtest

import (
	"cmp"
	"context"
	"iter"
	"slices"

	"github.com/billingapi/billing-go/billingtest/internal/churn"
	"github.com/billingapi/billing-go/billingtest/internal/filter"
	"github.com/billingapi/billing-go/billingtest/internal/scale"
)

// invoiceStore keeps the posted invoices: what the handlers read and
// write of them. Two stores implement it and answer alike: plainInvoices,
// the invoices themselves, for an ordinary account, and [scale.Store],
// packed and indexed, for a large one (see invoiceTable.fit). Every call
// holds Server.mu, for reading at least; writes hold it for writing.
type invoiceStore interface {
	// Len is the number of invoices.
	Len() int
	// At is a copy of the i-th invoice in id order, and Get a copy of
	// invoice id or nil: the caller may change either.
	At(i int) *Invoice
	Get(id int64) *Invoice
	// Insert stores a copy of inv, whose id is new; Replace stores a copy
	// in place of the invoice of its id, and Delete removes one; both
	// report whether the invoice was there.
	Insert(inv *Invoice)
	Replace(inv *Invoice) bool
	Delete(id int64) bool
	// Query answers a page of the list of all invoices, or of one
	// customer's, under the names of the list of all invoices, its
	// filter checked already.
	Query(ctx context.Context, q *filter.Request) filter.Page[filter.Hit]
	// AppendListJSON appends the invoices of hits, separated by commas,
	// as a list-all answer writes them: by appendJSON from the invoice,
	// or written from the store's own form of it. version is the fake's
	// (Server.mu.Version), under the lock the caller holds: what a store
	// checked of the fake's state at one version holds for all of it.
	AppendListJSON(dst []byte, hits []filter.Hit, version uint64, appendJSON func(dst []byte, inv *Invoice) ([]byte, error)) ([]byte, error)
}

// invoiceTable is the store's invoices: the store that keeps them, and
// the choice of it.
type invoiceTable struct {
	invoiceStore
	// scaleAt is the number of invoices from which the scale store keeps
	// them: scaleFrom, or what a test forces.
	scaleAt int
}

// scaleFrom is where an account becomes large. The plain store filters
// and sorts every invoice on every list request, encodes every invoice of
// every page and keeps each invoice whole (about 1.6 KB in some 15
// objects): obviously right, and cheap for a small account, but a later
// page of a filtered, sorted list of 10,000 invoices costs it about 5 ms,
// against 0.05 ms from the scale store's key index
// (BenchmarkFilteredPage/10k), and a million invoices would not fit the
// fake's memory goal; the scale store's packed records (about 570 bytes
// in 4 objects) do. Below this a page costs the plain store
// proportionally less, and an account skips indexes it would rarely reuse.
const scaleFrom = 5_000

// fit chooses the store for an account about to hold n invoices: the
// scale store from scaleAt on, moving the invoices into it once; an
// account never goes back, as deleting rarely makes it small again.
func (t *invoiceTable) fit(n int) {
	plain, ok := t.invoiceStore.(*plainInvoices)
	if !ok || n < t.scaleAt {
		return
	}
	sc := scale.New(customerGetters, func(id int64) *Customer { return plain.st.customers[id] })
	for i := range plain.invs {
		sc.Insert(&plain.invs[i])
	}
	t.invoiceStore = sc
}

// grow chooses the store for n more invoices, for the seeding code
// (fixtures.go, generate.go), which adds many at once.
func (t *invoiceTable) grow(n int) { t.fit(t.Len() + n) }

// plainInvoices is the invoice store of an ordinary account: the
// invoices in id order, found by binary search, filtered and sorted as
// Invoice values by invoiceSchema.
type plainInvoices struct {
	st   *store // whose customers the Customer.* names read
	invs []Invoice
}

func (p *plainInvoices) find(id int64) (int, bool) {
	return slices.BinarySearchFunc(p.invs, id, func(inv Invoice, id int64) int { return cmp.Compare(inv.ID, id) })
}

func (p *plainInvoices) Len() int          { return len(p.invs) }
func (p *plainInvoices) At(i int) *Invoice { return cloneInvoice(&p.invs[i]) }

func (p *plainInvoices) Insert(inv *Invoice) {
	i, _ := p.find(inv.ID)
	p.invs = slices.Insert(p.invs, i, stored(inv))
}

func (p *plainInvoices) Get(id int64) *Invoice {
	if i, ok := p.find(id); ok {
		return cloneInvoice(&p.invs[i])
	}
	return nil
}

func (p *plainInvoices) Replace(inv *Invoice) bool {
	i, ok := p.find(inv.ID)
	if ok {
		p.invs[i] = stored(inv)
	}
	return ok
}

func (p *plainInvoices) Delete(id int64) bool {
	i, ok := p.find(id)
	if ok {
		p.invs = slices.Delete(p.invs, i, i+1)
	}
	return ok
}

func (p *plainInvoices) AppendListJSON(dst []byte, hits []filter.Hit, _ uint64, appendJSON func([]byte, *Invoice) ([]byte, error)) ([]byte, error) {
	var err error
	for k, hit := range hits {
		if k > 0 {
			dst = append(dst, ',')
		}
		i, _ := p.find(hit.ID)
		if dst, err = appendJSON(dst, &p.invs[i]); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

func (p *plainInvoices) Query(ctx context.Context, q *filter.Request) filter.Page[filter.Hit] {
	pred, err := invoiceSchema.Compile(q.Expr, q.Unlisted)
	if err != nil {
		panic("billingtest: a checked filter does not compile: " + err.Error())
	}
	page := filter.Run(p.rows(q.Customer), invoiceRow.id, invoiceSchema, q, filter.UntilDone(ctx, pred))
	out := filter.Page[filter.Hit]{Count: page.Count, MaxCount: page.MaxCount, Visited: page.Visited, Items: make([]filter.Hit, len(page.Items))}
	for i, row := range page.Items {
		out.Items[i] = filter.Hit{ID: row.inv.ID}
		if q.KeyField != "" {
			out.Items[i].Key = *churn.InvoiceKey(row.inv, q.KeyField)
		}
	}
	return out
}

// rows yields the invoices in id order, those of one customer when
// customerID is not 0.
func (p *plainInvoices) rows(customerID int64) iter.Seq[invoiceRow] {
	return func(yield func(invoiceRow) bool) {
		for i := range p.invs {
			if inv := &p.invs[i]; (customerID == 0 || inv.CustomerID == customerID) && !yield(invoiceRow{inv: inv, st: p.st}) {
				return
			}
		}
	}
}

// stored is the copy of inv that the plain store keeps: without charges
// when it has none, as the scale store gives it back.
func stored(inv *Invoice) Invoice {
	c := cloneInvoice(inv)
	if len(c.Charges) == 0 {
		c.Charges = nil
	}
	return *c
}

// cloneInvoice copies inv with its own charges and schedules.
func cloneInvoice(inv *Invoice) *Invoice {
	c := *inv
	c.Charges = slices.Clone(inv.Charges)
	c.PaymentSchedules = slices.Clone(inv.PaymentSchedules)
	return &c
}
