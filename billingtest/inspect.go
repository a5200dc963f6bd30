package billingtest

import (
	"cmp"
	"slices"

	billing "github.com/billingapi/billing-go"
)

// Invoice returns an invoice as the API would return it from a read with
// grouped charges off, and whether it exists.
func (s *Server) Invoice(id int64) (billing.Invoice, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	inv, ok := s.store.invoices[id]
	if !ok {
		return billing.Invoice{}, false
	}
	return s.store.renderInvoice(inv, chargesFlat, true), true
}

// InvoiceSummary returns an invoice's summary, with its status derived
// on the fake's clock now, and whether it exists.
func (s *Server) InvoiceSummary(id int64) (billing.InvoiceSummary, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	inv, ok := s.store.invoices[id]
	if !ok {
		return billing.InvoiceSummary{}, false
	}
	return s.store.renderSummary(inv, s.now()), true
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
	out := make([]WalletMethod, 0, len(s.store.wallets))
	for _, w := range s.store.wallets {
		out = append(out, *w)
	}
	slices.SortFunc(out, func(a, b WalletMethod) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// SalesTrackingCodes returns the sales tracking codes, oldest first.
func (s *Server) SalesTrackingCodes() []billing.SalesTrackingCode {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.store.codes)
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
		"invoices":                 len(s.store.invoices),
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
	out := make([]CreditCard, 0, len(s.store.cards))
	for _, c := range s.store.cards {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b CreditCard) int { return cmp.Compare(a.ID, b.ID) })
	return out
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
