package billingtest

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/ledger"
	"github.com/billingapi/billing-go/billingtest/internal/route"
)

// store is the fake's state. Every access holds Server.mu.
type store struct {
	customers map[int64]*Customer
	// invoices are behind the seam of invoices.go.
	invoices      invoiceTable
	drafts        map[int64]*DraftInvoice
	cards         map[int64]*CreditCard
	wallets       map[int64]*WalletMethod
	subscriptions map[int64]*Subscription
	items         map[int64][]billing.SubscriptionProductItem // by subscription product id
	products      map[int64]bool                              // known subscription product ids
	// productSub is the subscription of every subscription product a
	// subscription has, and itemProduct the product of every item (kept
	// by the adds only: an entry is checked against items before use).
	productSub    map[int64]int64
	itemProduct   map[int64]int64
	codes         []SalesTrackingCode
	categoryNames [5]string
	jobs          map[int64]*BulkJob

	lastID int64 // ids are unique across entity kinds, like a database sequence per account
}

func newStore() *store {
	st := &store{customers: map[int64]*Customer{}, drafts: map[int64]*DraftInvoice{}, cards: map[int64]*CreditCard{},
		wallets: map[int64]*WalletMethod{}, subscriptions: map[int64]*Subscription{}, items: map[int64][]billing.SubscriptionProductItem{},
		products: map[int64]bool{}, productSub: map[int64]int64{}, itemProduct: map[int64]int64{}, jobs: map[int64]*BulkJob{}}
	st.invoices = invoiceTable{invoiceStore: &plainInvoices{st: st}, scaleAt: scaleFrom}
	return st
}

// assign returns id, or a new id when id is 0, and keeps the sequence
// ahead of every id seen.
func (st *store) assign(id int64) (int64, error) {
	if id < 0 {
		return 0, fmt.Errorf("negative id %d", id)
	}
	if id == 0 {
		if !st.idsLeft(1) {
			return 0, errIDsExhausted
		}
		st.lastID++
		return st.lastID, nil
	}
	st.lastID = max(st.lastID, id)
	return id, nil
}

// errIDsExhausted is the error of an entity that needs an id when the
// sequence has reached the largest int64.
var errIDsExhausted = errors.New("no id is left: the fake has given out or been given id 9223372036854775807, and an entity without an id would need one past the largest int64")

// idsLeft reports whether n more ids can be assigned.
func (st *store) idsLeft(n int64) bool { return n <= math.MaxInt64-st.lastID }

// defaultTime sets *t to v when *t is the zero time.
func defaultTime[T interface{ IsZero() bool }](t *T, v T) {
	if (*t).IsZero() {
		*t = v
	}
}

// defaultNow sets *t to the fake's time when *t is the zero time. It
// reads the clock only then, as a clock given with WithClock may count
// its reads.
func (s *Server) defaultNow(t *time.Time) {
	if t.IsZero() {
		*t = s.now()
	}
}

// addError is an Add method's refusal of an entity: the method, the
// member at fault by its JSON name ("" for the entity as a whole), so
// that a fixtures document can name it by its path, and why. id is the
// id that exists already, for errExists.
type addError struct {
	method, field string
	id            int64
	err           error
}

func (e *addError) Error() string { return e.method + ": " + e.err.Error() }
func (e *addError) Unwrap() error { return e.err }

// errExists is the cause of refusing an id the fake has for that kind.
var errExists = errors.New("exists")

func refuse(method, field, format string, args ...any) error {
	return &addError{method: method, field: field, err: fmt.Errorf(format, args...)}
}

// exists refuses id, which the fake has as a what.
func exists(method, what, field string, id int64) error {
	return &addError{method: method, field: field, id: id, err: fmt.Errorf("%s %d %w", what, id, errExists)}
}

// newID refuses id when the kind has it (taken), then assigns one as
// store.assign; nothing else may refuse the entity after it.
func newID(s *Server, method, what string, taken bool, id int64) (int64, error) {
	if taken && id != 0 {
		return 0, exists(method, what, "id", id)
	}
	id, err := s.store.assign(id)
	switch {
	case errors.Is(err, errIDsExhausted):
		return 0, refuse(method, "", "%w", err)
	case err != nil:
		return 0, refuse(method, "id", "%w", err)
	}
	return id, nil
}

// insert assigns v its id as newID does, in place (at id), and keeps it
// in kind: the last step of an Add method.
func insert[V any](s *Server, method, what string, kind map[int64]*V, v *V, id *int64) (int64, error) {
	_, taken := kind[*id]
	n, err := newID(s, method, what, taken, *id)
	if err != nil {
		return 0, err
	}
	*id = n
	kind[n] = v
	return n, nil
}

// addChecked checks v's times and amounts (ledger.Check) and adds it with
// add under the lock. Each Add method's add is its addXLocked, the
// method without that check and the lock, for callers that hold s.mu:
// the fixtures loader, which checks times itself, and the generator.
func addChecked[T any](s *Server, name string, v T, add func(T) (int64, error)) (int64, error) {
	if err := ledger.Check(&v); err != nil {
		return 0, refuse(name, "", "%w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return add(v)
}

// AddCustomer adds a customer and returns its id. Its currency must be
// an ISO code, its parent a customer the fake has, and each of its sales
// tracking codes one of the category of its position.
func (s *Server) AddCustomer(c Customer) (int64, error) {
	return addChecked(s, "AddCustomer", c, s.addCustomerLocked)
}

func (s *Server) addCustomerLocked(c Customer) (int64, error) {
	const m = "AddCustomer"
	if _, ok := s.store.customers[c.ParentID]; c.ParentID != 0 && (c.ParentID == c.ID || !ok) {
		return 0, refuse(m, "parentId", "unknown customer %d", c.ParentID)
	}
	if c.Currency != "" && (len(c.Currency) != 3 || strings.ToUpper(c.Currency) != c.Currency || strings.ContainsAny(c.Currency, "0123456789 ")) {
		return 0, refuse(m, "currency", "%q is not an ISO currency code", c.Currency)
	}
	for k, code := range c.SalesTrackingCodeIDs {
		if code == 0 {
			continue
		}
		at := "salesTrackingCodeIds[" + strconv.Itoa(k) + "]"
		i := slices.IndexFunc(s.store.codes, func(x SalesTrackingCode) bool { return x.ID == code })
		if i < 0 {
			return 0, refuse(m, at, "unknown sales tracking code %d", code)
		}
		if n, _ := s.store.category(string(s.store.codes[i].Type)); n != k+1 {
			return 0, refuse(m, at, "code %d is of category %d, not %d", code, n, k+1)
		}
	}
	c.Status = cmp.Or(c.Status, billing.CustomerStatusActive)
	c.AccountStatus = cmp.Or(c.AccountStatus, billing.CustomerAccountStatusGood)
	s.defaultNow(&c.CreatedTimestamp)
	defaultTime(&c.ModifiedTimestamp, c.CreatedTimestamp)
	return insert(s, m, "customer", s.store.customers, &c, &c.ID)
}

// AddInvoice adds a posted invoice of an existing customer and returns its
// id. Charges without an id get one.
func (s *Server) AddInvoice(inv Invoice) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addInvoiceLocked(inv)
}

func (s *Server) addInvoiceLocked(inv Invoice) (int64, error) {
	// Copy what the caller may still hold: charge ids are assigned in place.
	inv.Charges = slices.Clone(inv.Charges)
	inv.PaymentSchedules = slices.Clone(inv.PaymentSchedules)
	return s.insertInvoiceLocked(&inv)
}

// insertInvoiceLocked assigns inv its ids and defaults, in place, and
// stores a copy; the store keeps nothing of inv itself, so that the
// generator can reuse one Invoice for all it makes. The caller must hold
// s.mu.
func (s *Server) insertInvoiceLocked(inv *Invoice) (int64, error) {
	if err := s.checkInvoiceLocked(inv); err != nil {
		return 0, err
	}
	if inv.PaymentSchedules == nil {
		inv.PaymentSchedules = ledger.DefaultSchedule(inv)
		// The instalment is dumped as if given, and must load back so.
		if err := ledger.Schedule(inv.PaymentSchedules[0]); err != nil {
			inv.PaymentSchedules = nil
			return 0, refuse("AddInvoice", "paymentSchedules", "the one instalment the fake makes: %w", err)
		}
	}
	// The assigns cannot fail, nor take an id the fake has: checked above.
	inv.ID, _ = s.store.assign(inv.ID)
	for i := range inv.Charges {
		inv.Charges[i].ID, _ = s.store.assign(inv.Charges[i].ID)
	}
	inv.InvoiceNumber = cmp.Or(inv.InvoiceNumber, inv.ID)
	s.store.invoices.fit(s.store.invoices.Len() + 1)
	s.store.invoices.Insert(inv)
	return inv.ID, nil
}

// checkInvoiceLocked is the prologue of insertInvoiceLocked: it refuses
// an invoice the fake cannot keep or serve, and settles the defaults,
// before any id is taken, so that a refused invoice leaves the state and
// the sequence as they were.
func (s *Server) checkInvoiceLocked(inv *Invoice) error {
	const m = "AddInvoice"
	st := s.store
	switch {
	case inv.ID < 0:
		return refuse(m, "id", "negative id %d", inv.ID)
	case inv.ID != 0 && st.invoices.Get(inv.ID) != nil:
		return exists(m, "invoice", "id", inv.ID)
	}
	if _, ok := st.customers[inv.CustomerID]; !ok {
		return refuse(m, "customerId", "unknown customer %d", inv.CustomerID)
	}
	s.defaultNow(&inv.PostedTimestamp)
	defaultTime(&inv.EffectiveTimestamp, inv.PostedTimestamp)
	defaultTime(&inv.CreatedTimestamp, inv.PostedTimestamp)
	defaultTime(&inv.ModifiedTimestamp, inv.PostedTimestamp)
	inv.Terms = cmp.Or(inv.Terms, "Net30")
	need, err := newIDs(m, inv.ID, "charges", len(inv.Charges), func(i int) int64 { return inv.Charges[i].ID }, "charge", nil)
	if err != nil {
		return err
	}
	if err := ledger.Invoice(inv); err != nil {
		return refuse(m, "", "%w", err)
	}
	if !st.idsLeft(need) {
		return refuse(m, "", "%w", errIDsExhausted)
	}
	return nil
}

// newIDs refuses, for method m, the ids of the n parts an entity brings
// (idAt), in its list key, before any is assigned: a negative one, one
// the fake has as a what (taken, when not nil), one that repeats. need is
// how many ids the entity (id) and its parts take from the sequence, for
// those 0.
func newIDs(m string, id int64, key string, n int, idAt func(int) int64, what string, taken func(int64) bool) (need int64, err error) {
	if id == 0 {
		need++
	}
	for i := range n {
		at := func() string { return key + "[" + strconv.Itoa(i) + "].id" }
		switch id := idAt(i); {
		case id < 0:
			return 0, refuse(m, at(), "negative id %d", id)
		case id == 0:
			need++
		case taken != nil && taken(id):
			return 0, exists(m, what, at(), id)
		default:
			for j := range i {
				if idAt(j) == id {
					return 0, refuse(m, at(), "id %d repeats", id)
				}
			}
		}
	}
	return need, nil
}

// settleCharges is the rule a fixtures document's charges meet, on top
// of AddInvoice's: AddInvoice takes charges as given, naming
// subscriptions the fake need not have, as tests seed charges alone,
// while a document's must name what it or the fake holds, so that it
// loads back as dumped. A charge's subscription defaults to its
// product's, its effective date to the invoice's. The caller holds s.mu.
func (s *Server) settleCharges(inv *Invoice) error {
	const m = "AddInvoice"
	st := s.store
	s.defaultNow(&inv.PostedTimestamp)
	defaultTime(&inv.EffectiveTimestamp, inv.PostedTimestamp)
	for i := range inv.Charges {
		c := &inv.Charges[i]
		at := "charges[" + strconv.Itoa(i) + "]"
		defaultTime(&c.EffectiveTimestamp, inv.EffectiveTimestamp)
		if c.SubscriptionProductID != 0 {
			if !st.products[c.SubscriptionProductID] {
				return refuse(m, at+".subscriptionProductId", "unknown subscription product %d", c.SubscriptionProductID)
			}
			sub := st.productSub[c.SubscriptionProductID]
			if c.SubscriptionID == 0 {
				c.SubscriptionID = sub
			} else if sub != 0 && sub != c.SubscriptionID {
				return refuse(m, at+".subscriptionProductId", "product %d is of subscription %d, not %d", c.SubscriptionProductID, sub, c.SubscriptionID)
			}
		}
		if _, ok := st.subscriptions[c.SubscriptionID]; c.SubscriptionID != 0 && !ok {
			return refuse(m, at+".subscriptionId", "unknown subscription %d", c.SubscriptionID)
		}
	}
	return nil
}

// AddDraftInvoice adds a draft invoice of an existing customer and
// returns its id.
func (s *Server) AddDraftInvoice(d DraftInvoice) (int64, error) {
	return addChecked(s, "AddDraftInvoice", d, s.addDraftInvoiceLocked)
}

func (s *Server) addDraftInvoiceLocked(d DraftInvoice) (int64, error) {
	const m = "AddDraftInvoice"
	if _, ok := s.store.customers[d.CustomerID]; !ok {
		return 0, refuse(m, "customerId", "unknown customer %d", d.CustomerID)
	}
	d.Lines = slices.Clone(d.Lines)
	s.defaultNow(&d.Created)
	return insert(s, m, "draft invoice", s.store.drafts, &d, &d.ID)
}

// AddCreditCard adds a credit card payment method of an existing customer
// and returns its id. Last4 must be at least four digits (only the last
// four are kept), ExpirationMonth 0 to 12, and OriginalPaymentMethodID a
// card the fake has. ReplacedBy may name a card added later, as the card
// replaced is added before the one replacing it.
func (s *Server) AddCreditCard(c CreditCard) (int64, error) {
	return addChecked(s, "AddCreditCard", c, s.addCreditCardLocked)
}

func (s *Server) addCreditCardLocked(c CreditCard) (int64, error) {
	const m = "AddCreditCard"
	if _, ok := s.store.customers[c.CustomerID]; !ok {
		return 0, refuse(m, "customerId", "unknown customer %d", c.CustomerID)
	}
	if len(c.Last4) < 4 || strings.Trim(c.Last4, "0123456789") != "" {
		// Not quoted: it may be a whole card number, grouped.
		return 0, refuse(m, "last4", "want at least four digits, and only digits, in last4")
	}
	if c.ExpirationMonth < 0 || c.ExpirationMonth > 12 {
		return 0, refuse(m, "expirationMonth", "%d, want 1 to 12", c.ExpirationMonth)
	}
	if _, ok := s.store.cards[c.OriginalPaymentMethodID]; c.OriginalPaymentMethodID != 0 && (c.OriginalPaymentMethodID == c.ID || !ok) {
		return 0, refuse(m, "originalPaymentMethodId", "unknown credit card %d", c.OriginalPaymentMethodID)
	}
	if c.ReplacedBy != 0 && c.ReplacedBy == c.ID {
		return 0, refuse(m, "replacedBy", "a card cannot replace itself")
	}
	c.Last4 = c.Last4[len(c.Last4)-4:]
	s.defaultNow(&c.ModifiedDate)
	return insert(s, m, "credit card", s.store.cards, &c, &c.ID)
}

// AddWalletMethod adds a payment method as a wallet billing agreement
// would have created it, and returns its id. Provider "" is the first of
// [WithWalletProviders], another must be one of them; Token or Baid must
// be set; Source "" means Manual, another must be a payment source (in
// any case, kept in the reference's); empty names take the customer's; a zero ModifiedDate is now.
func (s *Server) AddWalletMethod(w WalletMethod) (int64, error) {
	return addChecked(s, "AddWalletMethod", w, s.addWalletMethodLocked)
}

func (s *Server) addWalletMethodLocked(w WalletMethod) (int64, error) {
	const m = "AddWalletMethod"
	cust, ok := s.store.customers[w.CustomerID]
	if !ok {
		return 0, refuse(m, "customerId", "unknown customer %d", w.CustomerID)
	}
	provider := s.cfg.walletProviders[0]
	if w.Provider != "" {
		if provider, ok = route.Provider(s.cfg.walletProviders, w.Provider); !ok {
			return 0, refuse(m, "provider", "%q is not a wallet provider of the fake (%s)", w.Provider, strings.Join(s.cfg.walletProviders, ", "))
		}
	}
	if strings.TrimSpace(w.Token) == "" && strings.TrimSpace(w.Baid) == "" {
		return 0, refuse(m, "", "give token or baid")
	}
	source := w.Source // "" stays "", which means Manual
	if w.Source != "" {
		if source, ok = parseSource(w.Source); !ok {
			return 0, refuse(m, "source", "%q, want one of %s", w.Source, joinSources())
		}
	}
	w.Provider, w.Source = provider, source
	w.FirstName = cmp.Or(w.FirstName, cust.FirstName)
	w.LastName = cmp.Or(w.LastName, cust.LastName)
	s.defaultNow(&w.ModifiedDate)
	return insert(s, m, "wallet method", s.store.wallets, &w, &w.ID)
}

// AddSubscription adds a subscription of an existing customer and returns
// its id. Its products become known subscription products, whose items
// can be listed; their ids must be new ones. NumberOfIntervals must not
// be negative.
func (s *Server) AddSubscription(sub Subscription) (int64, error) {
	return addChecked(s, "AddSubscription", sub, s.addSubscriptionLocked)
}

func (s *Server) addSubscriptionLocked(sub Subscription) (int64, error) {
	const m = "AddSubscription"
	st := s.store
	if _, ok := st.customers[sub.CustomerID]; !ok {
		return 0, refuse(m, "customerId", "unknown customer %d", sub.CustomerID)
	}
	if sub.NumberOfIntervals < 0 {
		return 0, refuse(m, "numberOfIntervals", "negative")
	}
	need, err := newIDs(m, sub.ID, "products", len(sub.Products), func(i int) int64 { return sub.Products[i].ID },
		"subscription product", func(id int64) bool { return st.products[id] })
	if err != nil {
		return 0, err
	}
	if !st.idsLeft(need) {
		return 0, refuse(m, "", "%w", errIDsExhausted)
	}
	_, taken := st.subscriptions[sub.ID]
	id, err := newID(s, m, "subscription", taken, sub.ID)
	if err != nil {
		return 0, err
	}
	sub.ID = id
	sub.Products = slices.Clone(sub.Products)
	for i := range sub.Products {
		p := &sub.Products[i]
		p.ID, _ = st.assign(p.ID) // cannot fail: checked above
		st.products[p.ID] = true
		st.productSub[p.ID] = id
	}
	sub.Status = cmp.Or(sub.Status, billing.SubscriptionStatusActive)
	sub.Interval = cmp.Or(sub.Interval, billing.IntervalMonthly)
	sub.NumberOfIntervals = cmp.Or(sub.NumberOfIntervals, 1)
	s.defaultNow(&sub.CreatedTimestamp)
	st.subscriptions[id] = &sub
	return id, nil
}

// AddSubscriptionProductItem adds an item to a subscription product and
// returns its id. The subscription product becomes known if it was not;
// when a subscription has it, SubscriptionID must be that subscription's
// or 0, and SubscriptionID, CustomerID and ProductID left 0 are taken
// from the subscription and its product.
func (s *Server) AddSubscriptionProductItem(item SubscriptionProductItem) (int64, error) {
	return addChecked(s, "AddSubscriptionProductItem", item, func(v SubscriptionProductItem) (int64, error) {
		return s.addSubscriptionProductItemLocked(storeItem(v))
	})
}

// storeItem is the seeded item as the store keeps it: the service's type.
func storeItem(item SubscriptionProductItem) billing.SubscriptionProductItem {
	return billing.SubscriptionProductItem{
		ID: item.ID, SubscriptionProductID: item.SubscriptionProductID, SubscriptionID: item.SubscriptionID,
		CustomerID: item.CustomerID, ProductID: item.ProductID, Reference: item.Reference, Name: item.Name,
		Description: item.Description, Status: item.Status,
		CreatedDate: billing.NewTimestamp(item.CreatedDate), ModifiedDate: billing.NewTimestamp(item.ModifiedDate),
	}
}

// seedItem is the stored item as the fake's own type.
func seedItem(it billing.SubscriptionProductItem) SubscriptionProductItem {
	return SubscriptionProductItem{
		ID: it.ID, SubscriptionProductID: it.SubscriptionProductID, SubscriptionID: it.SubscriptionID,
		CustomerID: it.CustomerID, ProductID: it.ProductID, Reference: it.Reference, Name: it.Name,
		Description: it.Description, Status: it.Status, CreatedDate: it.CreatedDate.Time, ModifiedDate: it.ModifiedDate.Time,
	}
}

func (s *Server) addSubscriptionProductItemLocked(item billing.SubscriptionProductItem) (int64, error) {
	const m = "AddSubscriptionProductItem"
	st := s.store
	if item.SubscriptionProductID <= 0 {
		return 0, refuse(m, "subscriptionProductId", "SubscriptionProductID is required")
	}
	if sub := st.subscriptions[st.productSub[item.SubscriptionProductID]]; sub != nil {
		if item.SubscriptionID != 0 && item.SubscriptionID != sub.ID {
			return 0, refuse(m, "subscriptionId", "product %d is of subscription %d, not %d", item.SubscriptionProductID, sub.ID, item.SubscriptionID)
		}
		i := slices.IndexFunc(sub.Products, func(p SubscriptionProduct) bool { return p.ID == item.SubscriptionProductID })
		item.SubscriptionID = sub.ID
		item.CustomerID = cmp.Or(item.CustomerID, sub.CustomerID)
		item.ProductID = cmp.Or(item.ProductID, sub.Products[i].ProductID)
	}
	// An item id is looked up through the product it was added to, as
	// items are kept by product (and removed by churn).
	p, ok := st.itemProduct[item.ID]
	taken := ok && slices.ContainsFunc(st.items[p], func(it billing.SubscriptionProductItem) bool { return it.ID == item.ID })
	id, err := newID(s, m, "item", taken, item.ID)
	if err != nil {
		return 0, err
	}
	item.ID = id
	item.Status = cmp.Or(item.Status, billing.ItemStatusActive)
	s.defaultNow(&item.CreatedDate.Time)
	defaultTime(&item.ModifiedDate, item.CreatedDate)
	st.products[item.SubscriptionProductID] = true
	st.items[item.SubscriptionProductID] = append(st.items[item.SubscriptionProductID], item)
	st.itemProduct[id] = item.SubscriptionProductID
	return id, nil
}

// AddSalesTrackingCode adds a sales tracking code and returns its id. Its
// Type must be a category ("Sales Tracking Code 1" to 5) or a custom name
// given with SetTrackingCodeCategoryName, and its Code and Name set.
func (s *Server) AddSalesTrackingCode(code SalesTrackingCode) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addSalesTrackingCodeLocked(code)
}

// copyCode copies c with its own Description and Email, so that the store
// shares nothing with a caller.
func copyCode(c SalesTrackingCode) SalesTrackingCode {
	c.Description, c.Email = clonePtr(c.Description), clonePtr(c.Email)
	return c
}

// clonePtr copies what p points to.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func (s *Server) addSalesTrackingCodeLocked(code SalesTrackingCode) (int64, error) {
	const m = "AddSalesTrackingCode"
	if _, ok := s.store.category(string(code.Type)); !ok {
		return 0, refuse(m, "type", "unknown type %q", code.Type)
	}
	if code.Code == "" || code.Name == "" {
		return 0, refuse(m, "", "code and name are required")
	}
	taken := slices.ContainsFunc(s.store.codes, func(x SalesTrackingCode) bool { return x.ID == code.ID })
	id, err := newID(s, m, "sales tracking code", taken, code.ID)
	if err != nil {
		return 0, err
	}
	code.ID = id
	code.Status = cmp.Or(code.Status, billing.TrackingCodeStatusActive)
	s.store.codes = append(s.store.codes, copyCode(code))
	return id, nil
}

// SetTrackingCodeCategoryName gives sales tracking code category n (1 to
// 5) a custom name, which the create call then accepts as a type; "" takes
// the custom name away. The category's codes typed with its former custom
// name take the new name (or its standard name) as their type. A name may
// not be another category's, custom or standard ("Sales Tracking Code 2"),
// compared without case, as a code's type would then be ambiguous.
func (s *Server) SetTrackingCodeCategoryName(n int, name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.setCategoryNameLocked(n, name)
}

func (s *Server) setCategoryNameLocked(n int, name string) error {
	if n < 1 || n > 5 {
		return fmt.Errorf("SetTrackingCodeCategoryName: category %d, want 1 to 5", n)
	}
	for j := range 5 {
		if name != "" && j != n-1 && (strings.EqualFold(name, s.store.categoryNames[j]) || strings.EqualFold(name, fmt.Sprintf("Sales Tracking Code %d", j+1))) {
			return fmt.Errorf("SetTrackingCodeCategoryName: %q is already the name of category %d", name, j+1)
		}
	}
	// The category's codes keep their category: those typed with its old
	// custom name take the new one (its standard name when it has none),
	// as the service, which files a code under its category, shows them.
	if old := s.store.categoryNames[n-1]; old != "" && old != name {
		typ := cmp.Or(name, fmt.Sprintf("Sales Tracking Code %d", n))
		for i := range s.store.codes {
			if strings.EqualFold(string(s.store.codes[i].Type), old) {
				s.store.codes[i].Type = billing.TrackingCodeType(typ)
			}
		}
	}
	s.store.categoryNames[n-1] = name
	return nil
}

// category returns the category number (1 to 5) of a tracking code type:
// its standard name or its custom name, compared case-insensitively.
func (st *store) category(typ string) (int, bool) {
	for i := range 5 {
		if strings.EqualFold(typ, fmt.Sprintf("Sales Tracking Code %d", i+1)) ||
			(st.categoryNames[i] != "" && strings.EqualFold(typ, st.categoryNames[i])) {
			return i + 1, true
		}
	}
	return 0, false
}

// validTypes lists the types the create call accepts, for its error.
func (st *store) validTypes() []string {
	var out []string
	for i := range 5 {
		out = append(out, fmt.Sprintf("Sales Tracking Code %d", i+1))
		if st.categoryNames[i] != "" {
			out = append(out, st.categoryNames[i])
		}
	}
	return out
}

// AddBulkJob adds a bulk job and returns its id. A processed job must be
// validated.
func (s *Server) AddBulkJob(j BulkJob) (int64, error) {
	return addChecked(s, "AddBulkJob", j, s.addBulkJobLocked)
}

func (s *Server) addBulkJobLocked(j BulkJob) (int64, error) {
	if j.Processed && !j.Validated {
		return 0, refuse("AddBulkJob", "processed", "a job is processed only once validated")
	}
	return insert(s, "AddBulkJob", "bulk job", s.store.jobs, &j, &j.ID)
}
