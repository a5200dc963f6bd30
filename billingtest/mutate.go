package billingtest

import (
	"fmt"
	"slices"

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
	if _, ok := s.store.invoices[id]; !ok {
		return false
	}
	delete(s.store.invoices, id)
	if i, found := slices.BinarySearch(s.store.invoiceOrder, id); found {
		s.store.invoiceOrder = slices.Delete(s.store.invoiceOrder, i, i+1)
	}
	s.store.invoiceChanged(id)
	return true
}

// UpdateInvoice changes an invoice in place with change, which must not
// change its id or customer, and sets its modifiedTimestamp to the fake's
// clock unless change set another.
func (s *Server) UpdateInvoice(id int64, change func(*Invoice)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	inv, ok := s.store.invoices[id]
	if !ok {
		return fmt.Errorf("UpdateInvoice: invoice %d does not exist", id)
	}
	was := *inv
	change(inv)
	if inv.ID != was.ID || inv.CustomerID != was.CustomerID {
		*inv = was
		return fmt.Errorf("UpdateInvoice: the id and customer of invoice %d cannot change", id)
	}
	if inv.ModifiedTimestamp.Equal(was.ModifiedTimestamp) {
		inv.ModifiedTimestamp = s.now()
	}
	s.store.invoiceChanged(id)
	return nil
}

// WriteOffInvoice writes off an invoice's whole outstanding balance as the
// write-off endpoint does (without recording a request or events). It
// fails when the invoice does not exist or has nothing outstanding.
func (s *Server) WriteOffInvoice(id int64) error {
	s.mu.RLock()
	var balance decimal.Decimal
	if inv, ok := s.store.invoices[id]; ok {
		balance = outstandingBalance(inv)
	}
	s.mu.RUnlock()
	if _, f := s.writeOff(id, balance); f != nil {
		return fmt.Errorf("WriteOffInvoice: %s", f.msg)
	}
	return nil
}
