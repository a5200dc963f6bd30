package billingtest

import (
	"fmt"

	"github.com/billingapi/billing-go/billingtest/internal/ledger"
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
	return s.store.invoices.Delete(id)
}

// UpdateInvoice changes an invoice with change, which must not change its
// id or customer, and sets its modifiedTimestamp to the fake's clock
// unless change set another. change gets a copy of the invoice, which the
// fake stores back when change returns; a refused change leaves the
// invoice as it was, charges included.
//
// The invoice stays consistent as the service keeps it, its payment
// schedules following its money:
//   - PaymentSchedules set to nil means what it means in
//     [Server.AddInvoice]: one instalment for the whole amount, due Terms
//     days after posting, its balance what payments, credit notes and
//     write-offs leave.
//   - PaymentSchedules changed otherwise are taken as given, as AddInvoice
//     takes them.
//   - PaymentSchedules left as they were, with a change to TotalPayments,
//     SumOfCreditNotes or the amount (charges, taxes, discount): the
//     balances are derived again. What payments, credit notes and
//     write-offs settle is applied to the instalments in order, each down
//     to 0 (an instalment then owing nothing is Paid, or stays WrittenOff;
//     one owing again after a payment was lowered is Due). A changed
//     amount goes to the only instalment; with several, or none, the
//     change is refused, as the fake cannot know how the service would
//     spread it: set PaymentSchedules too (nil for one instalment).
func (s *Server) UpdateInvoice(id int64, change func(*Invoice)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updateInvoiceLocked(id, change)
}

// updateInvoiceLocked is UpdateInvoice for callers that hold s.mu.
func (s *Server) updateInvoiceLocked(id int64, change func(*Invoice)) error {
	before := s.store.invoices.Get(id)
	if before == nil {
		return fmt.Errorf("UpdateInvoice: invoice %d does not exist", id)
	}
	inv := cloneInvoice(before)
	was := inv.ModifiedTimestamp
	change(inv)
	if inv.ID != before.ID || inv.CustomerID != before.CustomerID {
		return fmt.Errorf("UpdateInvoice: the id and customer of invoice %d cannot change", id)
	}
	if inv.ModifiedTimestamp.Equal(was) {
		inv.ModifiedTimestamp = s.now()
	}
	if err := ledger.Rederive(before, inv); err != nil {
		return fmt.Errorf("UpdateInvoice: invoice %d: %w", id, err)
	}
	if err := ledger.Invoice(inv); err != nil {
		return fmt.Errorf("UpdateInvoice: invoice %d: %w", id, err)
	}
	s.store.invoices.Replace(inv)
	return nil
}

// WriteOffInvoice writes off an invoice's whole outstanding balance as the
// write-off endpoint does (without recording a request or events). It
// fails when the invoice does not exist or has nothing outstanding.
func (s *Server) WriteOffInvoice(id int64) error {
	s.mu.RLock()
	var balance decimal.Decimal
	if inv := s.store.invoices.Get(id); inv != nil {
		balance = ledger.Outstanding(inv)
	}
	s.mu.RUnlock()
	if _, err := s.writeOff(id, balance); err != nil {
		return fmt.Errorf("WriteOffInvoice: %s", err)
	}
	return nil
}
