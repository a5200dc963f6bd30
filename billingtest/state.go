package billingtest

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/shopspring/decimal"
)

// DumpFixtures writes the fake's whole state as a fixtures document (see
// [Server.LoadFixtures]): every entity with its id, as the writes have
// left it, in id order. Loading the document into an empty fake gives the
// same state; a test in any language reads it through the control API to
// find the ids of generated data and to check what a write changed.
func (s *Server) DumpFixtures(w io.Writer) error {
	s.mu.RLock()
	f := s.store.fixtures(allFixtureKinds)
	s.mu.RUnlock()
	b, err := jsonwire.MarshalIndent(f, "  ") // amounts as JSON numbers, exactly
	if err != nil {
		return fmt.Errorf("DumpFixtures: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("DumpFixtures: %w", err)
	}
	return nil
}

// fixtureKindNames are the kinds of entity a fixtures document holds,
// named by their keys in it, in the document's order; bit i of a
// fixtureKinds is fixtureKindNames[i].
var fixtureKindNames = [...]string{
	"customers", "trackingCodeCategoryNames", "salesTrackingCodes", "subscriptions", "invoices",
	"draftInvoices", "creditCards", "walletMethods", "subscriptionProductItems", "bulkJobs",
}

// fixtureKinds is a set of kinds of entity, for a part of the state.
type fixtureKinds uint16

// allFixtureKinds is every kind: the whole state.
const allFixtureKinds = fixtureKinds(1)<<len(fixtureKindNames) - 1

func (k fixtureKinds) has(name string) bool {
	i := slices.Index(fixtureKindNames[:], name)
	return i >= 0 && k&(1<<i) != 0
}

// parseFixtureKinds reads a list of kinds (each a key of the fixtures
// document, in any case), refusing an unknown one.
func parseFixtureKinds(names []string) (fixtureKinds, error) {
	var k fixtureKinds
	for _, name := range names {
		i := slices.IndexFunc(fixtureKindNames[:], func(n string) bool { return strings.EqualFold(n, name) })
		if i < 0 {
			return 0, fmt.Errorf("kind %s is not one of %s", quote(name), strings.Join(fixtureKindNames[:], ", "))
		}
		k |= 1 << i
	}
	return k, nil
}

// fixtureSubset is a fixtures document that holds only some kinds: its
// fields are fixtureFile's, and a kind left out is absent rather than
// empty. It loads as a fixtures document.
type fixtureSubset struct {
	Customers                 []fixtureCustomer     `json:"customers,omitzero"`
	TrackingCodeCategoryNames map[string]string     `json:"trackingCodeCategoryNames,omitzero"`
	SalesTrackingCodes        []fixtureCode         `json:"salesTrackingCodes,omitzero"`
	Subscriptions             []fixtureSubscription `json:"subscriptions,omitzero"`
	Invoices                  []fixtureInvoice      `json:"invoices,omitzero"`
	DraftInvoices             []fixtureDraft        `json:"draftInvoices,omitzero"`
	CreditCards               []fixtureCard         `json:"creditCards,omitzero"`
	WalletMethods             []fixtureWallet       `json:"walletMethods,omitzero"`
	SubscriptionProductItems  []fixtureItem         `json:"subscriptionProductItems,omitzero"`
	BulkJobs                  []fixtureJob          `json:"bulkJobs,omitzero"`
}

// dumpFixtureKinds writes the entities of the kinds k as a fixtures
// document that holds those kinds only, each present even when empty.
func (s *Server) dumpFixtureKinds(w io.Writer, k fixtureKinds) error {
	s.mu.RLock()
	f := s.store.fixtures(k)
	s.mu.RUnlock()
	// A kind asked for is there even with no entity: [] or {}, not absent.
	emptyIfAsked := func(name string, isNil bool, fill func()) {
		if isNil && k.has(name) {
			fill()
		}
	}
	emptyIfAsked("customers", f.Customers == nil, func() { f.Customers = []fixtureCustomer{} })
	emptyIfAsked("trackingCodeCategoryNames", f.TrackingCodeCategoryNames == nil, func() { f.TrackingCodeCategoryNames = map[string]string{} })
	emptyIfAsked("salesTrackingCodes", f.SalesTrackingCodes == nil, func() { f.SalesTrackingCodes = []fixtureCode{} })
	emptyIfAsked("subscriptions", f.Subscriptions == nil, func() { f.Subscriptions = []fixtureSubscription{} })
	emptyIfAsked("invoices", f.Invoices == nil, func() { f.Invoices = []fixtureInvoice{} })
	emptyIfAsked("draftInvoices", f.DraftInvoices == nil, func() { f.DraftInvoices = []fixtureDraft{} })
	emptyIfAsked("creditCards", f.CreditCards == nil, func() { f.CreditCards = []fixtureCard{} })
	emptyIfAsked("walletMethods", f.WalletMethods == nil, func() { f.WalletMethods = []fixtureWallet{} })
	emptyIfAsked("subscriptionProductItems", f.SubscriptionProductItems == nil, func() { f.SubscriptionProductItems = []fixtureItem{} })
	emptyIfAsked("bulkJobs", f.BulkJobs == nil, func() { f.BulkJobs = []fixtureJob{} })
	b, err := jsonwire.MarshalIndent(fixtureSubset(*f), "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReplaceFixtures replaces the fake's whole state with the entities of a
// fixtures document, as if the fake had started empty and loaded it. The
// document is checked first; when it is wrong, the state is left as it
// was. Events, requests, faults and throttling windows are kept.
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
// form "now" follow the clock), and no events, requests, pending faults
// or throttling counts. When seeding fails the state is left as it was.
func (s *Server) Reset() error {
	fresh := &Server{cfg: s.cfg, store: newStore()}
	for _, seed := range s.cfg.seed {
		if err := seed(fresh); err != nil {
			return fmt.Errorf("Reset: %w", err)
		}
	}
	s.mu.Lock()
	s.store = fresh.store
	s.mu.Unlock()
	s.logMu.Lock()
	s.requests, s.requestBytes, s.events = nil, 0, nil
	s.logMu.Unlock()
	s.ClearFaults()
	s.limiter.reset()
	return nil
}

// fixtures converts the store to a fixtures document. The caller holds
// s.mu.
func (st *store) fixtures(k fixtureKinds) *fixtureFile {
	f := &fixtureFile{}
	if k.has("customers") {
		for _, c := range sortedValues(st.customers, func(c *Customer) int64 { return c.ID }) {
			f.Customers = append(f.Customers, dumpCustomer(c))
		}
	}
	if k.has("trackingCodeCategoryNames") {
		for i, name := range st.categoryNames {
			if name != "" {
				if f.TrackingCodeCategoryNames == nil {
					f.TrackingCodeCategoryNames = map[string]string{}
				}
				f.TrackingCodeCategoryNames[strconv.Itoa(i+1)] = name
			}
		}
	}
	if k.has("salesTrackingCodes") {
		for _, c := range st.codes {
			f.SalesTrackingCodes = append(f.SalesTrackingCodes, fixtureCode{
				ID: c.ID, Type: c.Type, Code: c.Code, Name: c.Name, Description: c.Description,
				Email: c.Email, Status: c.Status, Deletable: c.Deletable,
			})
		}
	}
	if k.has("subscriptions") {
		for _, id := range st.subOrder {
			f.Subscriptions = append(f.Subscriptions, dumpSubscription(st.subscriptions[id]))
		}
	}
	if k.has("invoices") {
		for i := range st.invoices.len() {
			f.Invoices = append(f.Invoices, dumpInvoice(st.invoices.byPosition(i).invoice()))
		}
	}
	if k.has("draftInvoices") {
		for _, d := range sortedValues(st.drafts, func(d *DraftInvoice) int64 { return d.ID }) {
			fd := fixtureDraft{ID: d.ID, CustomerID: d.CustomerID, Created: billing.NewTimestamp(d.Created)}
			for _, l := range d.Lines {
				fd.Lines = append(fd.Lines, fixtureDraftLine{Description: l.Description, Quantity: decPtr(l.Quantity), Amount: l.Amount, Tracked: l.Tracked})
			}
			f.DraftInvoices = append(f.DraftInvoices, fd)
		}
	}
	if k.has("creditCards") {
		for _, c := range sortedValues(st.cards, func(c *CreditCard) int64 { return c.ID }) {
			f.CreditCards = append(f.CreditCards, fixtureCard{
				ID: c.ID, CustomerID: c.CustomerID, Last4: c.Last4, CardType: c.CardType,
				FirstName: c.FirstName, LastName: c.LastName, ExpirationMonth: c.ExpirationMonth,
				ExpirationYear: c.ExpirationYear, Address1: c.Address1, Address2: c.Address2, City: c.City,
				PostalZip: c.PostalZip, CountryID: c.CountryID, StateID: c.StateID, IsDefault: c.IsDefault,
				Deleted: c.Deleted, OriginalPaymentMethodID: c.OriginalPaymentMethodID, ReplacedBy: c.ReplacedBy,
				ModifiedDate: billing.NewTimestamp(c.ModifiedDate),
			})
		}
	}
	if k.has("walletMethods") {
		for _, w := range sortedValues(st.wallets, func(w *WalletMethod) int64 { return w.ID }) {
			f.WalletMethods = append(f.WalletMethods, fixtureWallet{
				ID: w.ID, CustomerID: w.CustomerID, Provider: w.Provider, Token: w.Token, Baid: w.Baid,
				Source: w.Source, FirstName: w.FirstName, LastName: w.LastName, IsDefault: w.IsDefault,
				ModifiedDate: billing.NewTimestamp(w.ModifiedDate),
			})
		}
	}
	if k.has("subscriptionProductItems") {
		var items []billing.SubscriptionProductItem
		for _, list := range st.items {
			items = append(items, list...)
		}
		slices.SortFunc(items, func(a, b billing.SubscriptionProductItem) int { return cmp.Compare(a.ID, b.ID) })
		for _, it := range items {
			f.SubscriptionProductItems = append(f.SubscriptionProductItems, fixtureItem{
				ID: it.ID, SubscriptionProductID: it.SubscriptionProductID, SubscriptionID: it.SubscriptionID,
				CustomerID: it.CustomerID, ProductID: it.ProductID, Reference: it.Reference, Name: it.Name,
				Description: it.Description, Status: it.Status, CreatedDate: it.CreatedDate, ModifiedDate: it.ModifiedDate,
			})
		}
	}
	if k.has("bulkJobs") {
		for _, j := range sortedValues(st.jobs, func(j *BulkJob) int64 { return j.ID }) {
			f.BulkJobs = append(f.BulkJobs, fixtureJob{ID: j.ID, Type: j.Type, Validated: j.Validated, Processed: j.Processed})
		}
	}
	return f
}

func dumpCustomer(c *Customer) fixtureCustomer {
	fc := fixtureCustomer{
		ID: c.ID, FirstName: c.FirstName, MiddleName: c.MiddleName, LastName: c.LastName, Suffix: c.Suffix,
		Title: c.Title, CompanyName: c.CompanyName, PrimaryEmail: c.PrimaryEmail, PrimaryPhone: c.PrimaryPhone,
		Reference: c.Reference, Reference1: c.Reference1, Reference2: c.Reference2, Reference3: c.Reference3,
		Status: c.Status, AccountStatus: c.AccountStatus, ParentID: c.ParentID, Currency: c.Currency,
		CreatedTimestamp: billing.NewTimestamp(c.CreatedTimestamp), ModifiedTimestamp: billing.NewTimestamp(c.ModifiedTimestamp),
		ArBalance: c.ArBalance, MonthlyRecurringRevenue: c.MonthlyRecurringRevenue, NetMRR: c.NetMRR,
		CurrentMrr: c.CurrentMrr, CurrentNetMrr: c.CurrentNetMrr, CrmID: c.CrmID, ErpID: c.ErpID,
		AccountingID: c.AccountingID,
	}
	n := len(c.SalesTrackingCodeIDs)
	for n > 0 && c.SalesTrackingCodeIDs[n-1] == 0 {
		n--
	}
	if n > 0 {
		fc.SalesTrackingCodeIDs = slices.Clone(c.SalesTrackingCodeIDs[:n])
	}
	return fc
}

func dumpSubscription(sub *Subscription) fixtureSubscription {
	fs := fixtureSubscription{
		ID: sub.ID, CustomerID: sub.CustomerID, PlanID: sub.PlanID, Name: sub.Name, Description: sub.Description,
		Reference: sub.Reference, Status: sub.Status, Interval: sub.Interval, NumberOfIntervals: sub.NumberOfIntervals,
		CreatedTimestamp: billing.NewTimestamp(sub.CreatedTimestamp),
		NextBillingDate:  billing.NewTimestamp(sub.NextBillingDate), NextRechargeDate: billing.NewTimestamp(sub.NextRechargeDate),
	}
	for _, p := range sub.Products {
		fs.Products = append(fs.Products, fixtureProduct{
			ID: p.ID, PlanProductID: p.PlanProductID, ProductID: p.ProductID, Name: p.Name,
			Price: p.Price, PlanPrice: decPtr(p.PlanPrice),
		})
	}
	return fs
}

func dumpInvoice(inv *Invoice) fixtureInvoice {
	fi := fixtureInvoice{
		ID: inv.ID, CustomerID: inv.CustomerID, InvoiceNumber: inv.InvoiceNumber, PoNumber: inv.PoNumber,
		CreatedTimestamp: billing.NewTimestamp(inv.CreatedTimestamp), EffectiveTimestamp: billing.NewTimestamp(inv.EffectiveTimestamp),
		PostedTimestamp: billing.NewTimestamp(inv.PostedTimestamp), ModifiedTimestamp: billing.NewTimestamp(inv.ModifiedTimestamp),
		Terms: inv.Terms, TotalTaxes: inv.TotalTaxes, TotalDiscount: inv.TotalDiscount, TotalPayments: inv.TotalPayments,
		SumOfCreditNotes: inv.SumOfCreditNotes, OpeningArBalance: inv.OpeningArBalance, ClosingArBalance: inv.ClosingArBalance,
		ErpID: inv.ErpID, CrmID: inv.CrmID, AccountingID: inv.AccountingID, Notes: inv.Notes, Status: inv.Status,
		TotalWriteoffs: inv.totalWriteoffs,
	}
	for _, c := range inv.Charges {
		fi.Charges = append(fi.Charges, fixtureCharge{
			ID: c.ID, Name: c.Name, Description: c.Description, GLCode: c.GLCode,
			Quantity: decPtr(c.Quantity), UnitPrice: decPtr(c.UnitPrice), Amount: decPtr(c.Amount),
			EffectiveTimestamp: billing.NewTimestamp(c.EffectiveTimestamp), StartServiceDate: billing.NewTimestamp(c.StartServiceDate),
			EndServiceDate: billing.NewTimestamp(c.EndServiceDate), SubscriptionID: c.SubscriptionID,
			SubscriptionProductID: c.SubscriptionProductID, PurchaseID: c.PurchaseID, Tracked: c.Tracked,
		})
	}
	fi.PaymentSchedules = []fixtureSchedule{}
	for _, ps := range inv.PaymentSchedules {
		days := ps.DaysDueAfterTerm
		fi.PaymentSchedules = append(fi.PaymentSchedules, fixtureSchedule{
			DueDateTimestamp: ps.DueDateTimestamp, Status: ps.Status, Amount: decPtr(ps.Amount),
			OutstandingBalance: decPtr(ps.OutstandingBalance), DaysDueAfterTerm: &days,
		})
	}
	return fi
}

func decPtr(d decimal.Decimal) *decimal.Decimal { return &d }

// sortedValues returns a map's values in ascending id order.
func sortedValues[T any](m map[int64]*T, id func(*T) int64) []*T {
	out := make([]*T, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b *T) int { return cmp.Compare(id(a), id(b)) })
	return out
}
