package billingtest

import (
	"fmt"

	"github.com/shopspring/decimal"
)

// Changes a live account undergoes besides the API's own writes, for tests
// of code that must cope with data changing under it (e.g. stable
// iteration): removing an invoice, changing one in place, and writing one
// off without a request.

// DeleteInvoice removes an invoice, as a voided and purged invoice leaves
// every list, and reports whether it existed.
func (s *Server) DeleteInvoice(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.store.invoices.delete(id) {
		return false
	}
	s.store.invoiceChanged(id)
	s.store.listJSON.fit(s.store.invoices.len())
	return true
}

// UpdateInvoice changes an invoice with change, which must not change its
// id or customer, and sets its modifiedTimestamp to the fake's clock
// unless change set another. change gets a copy of the invoice, which the
// fake stores back when change returns; a refused change leaves the
// invoice as it was, charges included.
func (s *Server) UpdateInvoice(id int64, change func(*Invoice)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.store.invoices.get(id)
	if rec == nil {
		return fmt.Errorf("UpdateInvoice: invoice %d does not exist", id)
	}
	inv := rec.invoice()
	was := inv.ModifiedTimestamp
	change(inv)
	if inv.ID != rec.id || inv.CustomerID != rec.customerID {
		return fmt.Errorf("UpdateInvoice: the id and customer of invoice %d cannot change", id)
	}
	if inv.ModifiedTimestamp.Equal(was) {
		inv.ModifiedTimestamp = s.now()
	}
	if err := checkInvoiceWritable(inv); err != nil {
		return fmt.Errorf("UpdateInvoice: invoice %d: %w", id, err)
	}
	*rec = (&packer{}).pack(inv)
	s.store.invoiceChanged(id)
	return nil
}

// WriteOffInvoice writes off an invoice's whole outstanding balance as the
// write-off endpoint does (without recording a request or events). It
// fails when the invoice does not exist or has nothing outstanding.
func (s *Server) WriteOffInvoice(id int64) error {
	s.mu.RLock()
	var balance decimal.Decimal
	if rec := s.store.invoices.get(id); rec != nil {
		balance = outstandingBalance(rec.invoice())
	}
	s.mu.RUnlock()
	if _, f := s.writeOff(id, balance); f != nil {
		return fmt.Errorf("WriteOffInvoice: %s", f.msg)
	}
	return nil
}
