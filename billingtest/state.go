package billingtest

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/churn"
	"github.com/billingapi/billing-go/billingtest/internal/fixture"
)

// DumpFixtures writes the fake's whole state as a fixtures document (see
// [Server.LoadFixtures]): every entity with its id, as the writes have
// left it, in id order. Loading the document into an empty fake gives the
// same state; a test in any language reads it through the control API to
// find the ids of generated data and to check what a write changed. The
// one thing that does not load back is an enum value the reference does
// not list (a customer's status "Frozen"): the Add methods take one, so
// that a test can seed it, while fixtures refuse it as the typo it most
// often is.
func (s *Server) DumpFixtures(w io.Writer) error {
	if err := s.dumpFixtures(w, func(string) bool { return true }); err != nil {
		return fmt.Errorf("DumpFixtures: %w", err)
	}
	return nil
}

// dumpFixtures writes the kinds of the state that want names (by their
// keys in the document) as a fixtures document with only those keys. An
// empty kind is [] or {}, so that a kind reads the same in the whole
// state and alone.
func (s *Server) dumpFixtures(w io.Writer, want func(kind string) bool) error {
	s.mu.RLock()
	f := s.store.fixtures(want)
	s.mu.RUnlock()
	return f.Encode(w, want)
}

// ReplaceFixtures replaces the fake's whole state with the entities of a
// fixtures document, as if the fake had started empty and loaded it.
// When the document is wrong, the state is left as it was. Events,
// requests, faults and throttling windows are kept.
func (s *Server) ReplaceFixtures(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("ReplaceFixtures: %w", err)
	}
	fresh := &Server{cfg: s.cfg, store: newStore()}
	if err := fresh.loadFixtures(data); err != nil {
		return fmt.Errorf("ReplaceFixtures: %w", err)
	}
	s.mu.Lock()
	s.store = fresh.store
	s.mu.Unlock()
	return nil
}

// Reset brings the fake back to how it started: the data of its seeding
// options ([WithFixtures], [WithGenerated]) applied again to an empty
// state (generated data is the same for the same seed; defaults of the
// form "now" follow the clock), and no events, requests, pending faults,
// throttling counts or changes of [WithChurn] (the next list request is
// churned as the first one was). When seeding fails the state is left as
// it was.
func (s *Server) Reset() error {
	fresh := &Server{cfg: s.cfg, store: newStore()}
	for _, seed := range s.cfg.seed {
		if err := seed(fresh); err != nil {
			return fmt.Errorf("Reset: %w", err)
		}
	}
	s.mu.Lock()
	s.store = fresh.store
	if s.churn != nil {
		// Churn starts over too: its changes, and what the next list
		// request gets, are as after NewServer.
		s.churn = churn.New(churn.Settings(*s.cfg.churn))
	}
	s.mu.Unlock()
	s.logMu.Lock()
	s.requests, s.requestBytes, s.events = nil, 0, nil
	s.logMu.Unlock()
	s.ClearFaults()
	s.limiter.reset()
	return nil
}

// fixtures collects the kinds of the store that want names as a fixtures
// document. The caller holds s.mu.
func (st *store) fixtures(want func(kind string) bool) *fixture.Document {
	f := &fixture.Document{}
	if want("customers") {
		f.Customers = values(st.customers, func(c *Customer) int64 { return c.ID }, nil)
	}
	if want("trackingCodeCategoryNames") {
		for i, name := range st.categoryNames {
			if name != "" {
				if f.TrackingCodeCategoryNames == nil {
					f.TrackingCodeCategoryNames = map[string]string{}
				}
				f.TrackingCodeCategoryNames[strconv.Itoa(i+1)] = name
			}
		}
	}
	if want("salesTrackingCodes") {
		f.SalesTrackingCodes = mapped(st.codes, copyCode)
	}
	if want("subscriptions") {
		f.Subscriptions = values(st.subscriptions, func(sub *Subscription) int64 { return sub.ID }, nil)
	}
	if want("invoices") {
		for i := range st.invoices.Len() {
			f.Invoices = append(f.Invoices, *st.invoices.At(i))
		}
	}
	if want("draftInvoices") {
		f.DraftInvoices = values(st.drafts, func(d *DraftInvoice) int64 { return d.ID }, nil)
	}
	if want("creditCards") {
		f.CreditCards = values(st.cards, func(c *CreditCard) int64 { return c.ID }, nil)
	}
	if want("walletMethods") {
		f.WalletMethods = values(st.wallets, func(w *WalletMethod) int64 { return w.ID }, nil)
	}
	if want("subscriptionProductItems") {
		var items []billing.SubscriptionProductItem
		for _, list := range st.items {
			items = append(items, list...)
		}
		slices.SortFunc(items, func(a, b billing.SubscriptionProductItem) int { return cmp.Compare(a.ID, b.ID) })
		f.SubscriptionProductItems = mapped(items, seedItem)
	}
	if want("bulkJobs") {
		f.BulkJobs = values(st.jobs, func(j *BulkJob) int64 { return j.ID }, nil)
	}
	return f
}

// values returns copies of a map's values, made by cp (nil: shallow
// copies), in ascending id order.
func values[T any](m map[int64]*T, id func(*T) int64, cp func(T) T) []T {
	out := make([]T, 0, len(m))
	for _, v := range m {
		if cp == nil {
			out = append(out, *v)
		} else {
			out = append(out, cp(*v))
		}
	}
	slices.SortFunc(out, func(a, b T) int { return cmp.Compare(id(&a), id(&b)) })
	return out
}
