package billingtest

import (
	"slices"

	billing "github.com/billingapi/billing-go"
)

// Invoice returns an invoice as the API would return it from a read with
// grouped charges off, and whether it exists.
func (s *Server) Invoice(id int64) (billing.Invoice, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	rec := s.store.invoices.get(id)
	if rec == nil {
		return billing.Invoice{}, false
	}
	return s.store.renderInvoice(rec.invoice(), chargesFlat, true), true
}

// InvoiceSummary returns an invoice's summary, with its status derived
// on the fake's clock now, and whether it exists.
func (s *Server) InvoiceSummary(id int64) (billing.InvoiceSummary, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	rec := s.store.invoices.get(id)
	if rec == nil {
		return billing.InvoiceSummary{}, false
	}
	return s.store.renderSummary(rec.invoice(), s.now()), true
}

// Customer returns a customer and whether it exists.
func (s *Server) Customer(id int64) (Customer, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c, ok := s.store.customers[id]
	if !ok {
		return Customer{}, false
	}
	return *c, true
}

// CreditCard returns a credit card payment method (with only the last
// four digits of its number) and whether it exists.
func (s *Server) CreditCard(id int64) (CreditCard, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c, ok := s.store.cards[id]
	if !ok {
		return CreditCard{}, false
	}
	return *c, true
}

// WalletMethods returns the payment methods created by wallet billing
// agreements, by id.
func (s *Server) WalletMethods() []WalletMethod {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return copiedValues(s.store.wallets, func(w *WalletMethod) int64 { return w.ID })
}

// SalesTrackingCodes returns the sales tracking codes, oldest first
// (which is by id).
func (s *Server) SalesTrackingCodes() []SalesTrackingCode {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]SalesTrackingCode, len(s.store.codes))
	for i, c := range s.store.codes {
		out[i] = seedCode(c)
	}
	return out
}

// BulkJob returns a bulk job and whether it exists.
func (s *Server) BulkJob(id int64) (BulkJob, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	j, ok := s.store.jobs[id]
	if !ok {
		return BulkJob{}, false
	}
	return *j, true
}

// Subscription returns a subscription and whether it exists.
func (s *Server) Subscription(id int64) (Subscription, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	sub, ok := s.store.subscriptions[id]
	if !ok {
		return Subscription{}, false
	}
	out := *sub
	out.Products = slices.Clone(sub.Products)
	return out, true
}

// Counts returns how many entities of each kind the fake holds, keyed
// "customers", "invoices", "draftInvoices", "creditCards",
// "walletMethods", "subscriptions", "subscriptionProductItems",
// "salesTrackingCodes" and "bulkJobs".
func (s *Server) Counts() map[string]int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	items := 0
	for _, list := range s.store.items {
		items += len(list)
	}
	return map[string]int{
		"customers":                len(s.store.customers),
		"invoices":                 s.store.invoices.len(),
		"draftInvoices":            len(s.store.drafts),
		"creditCards":              len(s.store.cards),
		"walletMethods":            len(s.store.wallets),
		"subscriptions":            len(s.store.subscriptions),
		"subscriptionProductItems": items,
		"salesTrackingCodes":       len(s.store.codes),
		"bulkJobs":                 len(s.store.jobs),
	}
}

// CreditCards returns the credit card payment methods, by id.
func (s *Server) CreditCards() []CreditCard {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return copiedValues(s.store.cards, func(c *CreditCard) int64 { return c.ID })
}

// Subscriptions returns the subscriptions, by id.
func (s *Server) Subscriptions() []Subscription {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Subscription, 0, len(s.store.subOrder))
	for _, id := range s.store.subOrder {
		sub := *s.store.subscriptions[id]
		sub.Products = slices.Clone(sub.Products)
		out = append(out, sub)
	}
	return out
}

// Customers returns the customers, by id.
func (s *Server) Customers() []Customer {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return copiedValues(s.store.customers, func(c *Customer) int64 { return c.ID })
}

// DraftInvoice returns a draft invoice and whether it exists.
func (s *Server) DraftInvoice(id int64) (DraftInvoice, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d, ok := s.store.drafts[id]
	if !ok {
		return DraftInvoice{}, false
	}
	out := *d
	out.Lines = slices.Clone(d.Lines)
	return out, true
}

// DraftInvoices returns the draft invoices, by id.
func (s *Server) DraftInvoices() []DraftInvoice {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := copiedValues(s.store.drafts, func(d *DraftInvoice) int64 { return d.ID })
	for i := range out {
		out[i].Lines = slices.Clone(out[i].Lines)
	}
	return out
}

// WalletMethod returns a payment method created by a wallet billing
// agreement and whether it exists.
func (s *Server) WalletMethod(id int64) (WalletMethod, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	w, ok := s.store.wallets[id]
	if !ok {
		return WalletMethod{}, false
	}
	return *w, true
}

// SalesTrackingCode returns a sales tracking code and whether it exists.
func (s *Server) SalesTrackingCode(id int64) (SalesTrackingCode, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, c := range s.store.codes {
		if c.ID == id {
			return seedCode(c), true
		}
	}
	return SalesTrackingCode{}, false
}

// BulkJobs returns the bulk jobs, by id.
func (s *Server) BulkJobs() []BulkJob {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return copiedValues(s.store.jobs, func(j *BulkJob) int64 { return j.ID })
}

// copiedValues returns copies of a map's values in ascending id order.
func copiedValues[T any](m map[int64]*T, id func(*T) int64) []T {
	sorted := sortedValues(m, id)
	out := make([]T, len(sorted))
	for i, v := range sorted {
		out[i] = *v
	}
	return out
}
