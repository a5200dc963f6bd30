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
	inv := s.store.invoices.Get(id)
	if inv == nil {
		return billing.Invoice{}, false
	}
	return s.store.renderInvoice(inv, chargesFlat, true), true
}

// InvoiceSummary returns an invoice's summary, with its status derived
// on the fake's clock now, and whether it exists.
func (s *Server) InvoiceSummary(id int64) (billing.InvoiceSummary, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	inv := s.store.invoices.Get(id)
	if inv == nil {
		return billing.InvoiceSummary{}, false
	}
	return s.store.renderSummary(inv, s.now()), true
}

// Customer returns a customer and whether it exists.
func (s *Server) Customer(id int64) (Customer, bool) {
	return copyOf(s, func(st *store) map[int64]*Customer { return st.customers }, id, nil)
}

// CreditCard returns a credit card payment method (with only the last
// four digits of its number) and whether it exists.
func (s *Server) CreditCard(id int64) (CreditCard, bool) {
	return copyOf(s, func(st *store) map[int64]*CreditCard { return st.cards }, id, nil)
}

// WalletMethods returns the payment methods created by wallet billing
// agreements, by id.
func (s *Server) WalletMethods() []WalletMethod {
	return all(s, func(st *store) map[int64]*WalletMethod { return st.wallets }, func(w *WalletMethod) int64 { return w.ID }, nil)
}

// SalesTrackingCodes returns the sales tracking codes, oldest first
// (which is by id).
func (s *Server) SalesTrackingCodes() []SalesTrackingCode {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return mapped(s.store.codes, copyCode)
}

// BulkJob returns a bulk job and whether it exists.
func (s *Server) BulkJob(id int64) (BulkJob, bool) {
	return copyOf(s, func(st *store) map[int64]*BulkJob { return st.jobs }, id, nil)
}

// Subscription returns a subscription and whether it exists.
func (s *Server) Subscription(id int64) (Subscription, bool) {
	return copyOf(s, func(st *store) map[int64]*Subscription { return st.subscriptions }, id, copySubscription)
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
		"invoices":                 s.store.invoices.Len(),
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
	return all(s, func(st *store) map[int64]*CreditCard { return st.cards }, func(c *CreditCard) int64 { return c.ID }, nil)
}

// Subscriptions returns the subscriptions, by id.
func (s *Server) Subscriptions() []Subscription {
	return all(s, func(st *store) map[int64]*Subscription { return st.subscriptions }, func(sub *Subscription) int64 { return sub.ID }, copySubscription)
}

// Customers returns the customers, by id.
func (s *Server) Customers() []Customer {
	return all(s, func(st *store) map[int64]*Customer { return st.customers }, func(c *Customer) int64 { return c.ID }, nil)
}

// DraftInvoice returns a draft invoice and whether it exists.
func (s *Server) DraftInvoice(id int64) (DraftInvoice, bool) {
	return copyOf(s, func(st *store) map[int64]*DraftInvoice { return st.drafts }, id, copyDraft)
}

// DraftInvoices returns the draft invoices, by id.
func (s *Server) DraftInvoices() []DraftInvoice {
	return all(s, func(st *store) map[int64]*DraftInvoice { return st.drafts }, func(d *DraftInvoice) int64 { return d.ID }, copyDraft)
}

// WalletMethod returns a payment method created by a wallet billing
// agreement and whether it exists.
func (s *Server) WalletMethod(id int64) (WalletMethod, bool) {
	return copyOf(s, func(st *store) map[int64]*WalletMethod { return st.wallets }, id, nil)
}

// SalesTrackingCode returns a sales tracking code and whether it exists.
func (s *Server) SalesTrackingCode(id int64) (SalesTrackingCode, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, c := range s.store.codes {
		if c.ID == id {
			return copyCode(c), true
		}
	}
	return SalesTrackingCode{}, false
}

// BulkJobs returns the bulk jobs, by id.
func (s *Server) BulkJobs() []BulkJob {
	return all(s, func(st *store) map[int64]*BulkJob { return st.jobs }, func(j *BulkJob) int64 { return j.ID }, nil)
}

// copyOf returns a copy of m(store)[id], made by cp (nil: a shallow
// copy), and whether it exists, under the read lock.
func copyOf[T any](s *Server, m func(*store) map[int64]*T, id int64, cp func(T) T) (T, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := m(s.store)[id]
	if !ok {
		var zero T
		return zero, false
	}
	if cp == nil {
		return *v, true
	}
	return cp(*v), true
}

// all is values of m(store) under the read lock.
func all[T any](s *Server, m func(*store) map[int64]*T, id func(*T) int64, cp func(T) T) []T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return values(m(s.store), id, cp)
}

func copySubscription(sub Subscription) Subscription {
	sub.Products = slices.Clone(sub.Products)
	return sub
}

func copyDraft(d DraftInvoice) DraftInvoice {
	d.Lines = slices.Clone(d.Lines)
	return d
}

// mapped is f applied to each of xs.
func mapped[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
