package billingtest

import (
	"fmt"
	"slices"
	"strings"

	billing "github.com/billingapi/billing-go"
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
	subOrder      []int64
	items         map[int64][]billing.SubscriptionProductItem // by subscription product id
	products      map[int64]bool                              // known subscription product ids
	codes         []billing.SalesTrackingCode
	categoryNames [5]string
	jobs          map[int64]*BulkJob

	lastID int64 // ids are unique across entity kinds, like a database sequence per account
}

func newStore() *store {
	st := &store{}
	st.init()
	return st
}

func (st *store) init() {
	st.customers = map[int64]*Customer{}
	st.invoices = invoiceTable{invoiceStore: &plainInvoices{st: st}, scaleAt: scaleFrom}
	st.drafts = map[int64]*DraftInvoice{}
	st.cards = map[int64]*CreditCard{}
	st.wallets = map[int64]*WalletMethod{}
	st.subscriptions = map[int64]*Subscription{}
	st.items = map[int64][]billing.SubscriptionProductItem{}
	st.products = map[int64]bool{}
	st.jobs = map[int64]*BulkJob{}
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

func insertSorted(ids []int64, id int64) []int64 {
	i, found := slices.BinarySearch(ids, id)
	if found {
		return ids
	}
	return slices.Insert(ids, i, id)
}

// addChecked checks v's times and amounts (checkTimes) and adds it with
// add under the lock; errors are named after the method name.
func addChecked[T any](s *Server, name string, v T, add func(T) (int64, error)) (int64, error) {
	if err := checkTimes(&v); err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return add(v)
}

// AddCustomer adds a customer and returns its id.
func (s *Server) AddCustomer(c Customer) (int64, error) {
	return addChecked(s, "AddCustomer", c, s.addCustomerLocked)
}

// addCustomerLocked is AddCustomer without the lock, for callers that hold s.mu.
func (s *Server) addCustomerLocked(c Customer) (int64, error) {
	id, err := s.store.assign(c.ID)
	if err != nil {
		return 0, fmt.Errorf("AddCustomer: %w", err)
	}
	if _, dup := s.store.customers[id]; dup {
		return 0, fmt.Errorf("AddCustomer: customer %d exists", id)
	}
	c.ID = id
	if c.Status == "" {
		c.Status = billing.CustomerStatusActive
	}
	if c.AccountStatus == "" {
		c.AccountStatus = billing.CustomerAccountStatusGood
	}
	if c.CreatedTimestamp.IsZero() {
		c.CreatedTimestamp = s.now()
	}
	if c.ModifiedTimestamp.IsZero() {
		c.ModifiedTimestamp = c.CreatedTimestamp
	}
	s.store.customers[id] = &c
	return id, nil
}

// AddInvoice adds a posted invoice of an existing customer and returns its
// id. Charges without an id get one.
func (s *Server) AddInvoice(inv Invoice) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addInvoiceLocked(inv)
}

// addInvoiceLocked is AddInvoice without the lock, for callers that hold s.mu.
func (s *Server) addInvoiceLocked(inv Invoice) (int64, error) {
	// Copy what the caller may still hold: charge ids are assigned in place.
	inv.Charges = slices.Clone(inv.Charges)
	inv.PaymentSchedules = slices.Clone(inv.PaymentSchedules)
	return s.insertInvoiceLocked(&inv, nil)
}

// packer is what the seeding code hands insertInvoiceLocked for a run of
// invoices. The invoice stores copy what they keep, and the scale store
// shares charge texts itself, so it carries nothing they read.
type packer struct {
	texts map[[3]string]string
}

// insertInvoiceLocked assigns inv its ids and defaults, in place, and
// stores a copy; the store keeps nothing of inv itself, so that the
// generator can reuse one Invoice for all it makes. The caller must hold
// s.mu.
func (s *Server) insertInvoiceLocked(inv *Invoice, p *packer) (int64, error) {
	if _, ok := s.store.customers[inv.CustomerID]; !ok {
		return 0, fmt.Errorf("AddInvoice: unknown customer %d", inv.CustomerID)
	}
	// Checked before any id is taken, so that a refused invoice leaves
	// the sequence as it was.
	var needIDs int64
	if inv.ID == 0 {
		needIDs++
	}
	for i := range inv.Charges {
		if inv.Charges[i].ID == 0 {
			needIDs++
		}
	}
	if !s.store.idsLeft(needIDs) {
		return 0, fmt.Errorf("AddInvoice: %w", errIDsExhausted)
	}
	if inv.PostedTimestamp.IsZero() {
		inv.PostedTimestamp = s.now()
	}
	if inv.EffectiveTimestamp.IsZero() {
		inv.EffectiveTimestamp = inv.PostedTimestamp
	}
	if inv.CreatedTimestamp.IsZero() {
		inv.CreatedTimestamp = inv.PostedTimestamp
	}
	if inv.ModifiedTimestamp.IsZero() {
		inv.ModifiedTimestamp = inv.PostedTimestamp
	}
	if inv.Terms == "" {
		inv.Terms = "Net30"
	}
	if err := checkInvoiceWritable(inv); err != nil {
		return 0, fmt.Errorf("AddInvoice: %w", err)
	}
	if inv.PaymentSchedules == nil {
		inv.PaymentSchedules = defaultSchedule(inv)
	}
	id, err := s.store.assign(inv.ID)
	if err != nil {
		return 0, fmt.Errorf("AddInvoice: %w", err)
	}
	if s.store.invoices.Get(id) != nil {
		return 0, fmt.Errorf("AddInvoice: invoice %d exists", id)
	}
	inv.ID = id
	for i := range inv.Charges {
		if inv.Charges[i].ID, err = s.store.assign(inv.Charges[i].ID); err != nil {
			return 0, fmt.Errorf("AddInvoice: charge: %w", err)
		}
	}
	if inv.InvoiceNumber == 0 {
		inv.InvoiceNumber = id
	}
	s.store.invoices.fit(s.store.invoices.Len() + 1)
	s.store.invoices.Insert(inv)
	return id, nil
}

// AddDraftInvoice adds a draft invoice and returns its id.
func (s *Server) AddDraftInvoice(d DraftInvoice) (int64, error) {
	return addChecked(s, "AddDraftInvoice", d, s.addDraftInvoiceLocked)
}

// addDraftInvoiceLocked is AddDraftInvoice without the lock, for callers that hold s.mu.
func (s *Server) addDraftInvoiceLocked(d DraftInvoice) (int64, error) {
	id, err := s.store.assign(d.ID)
	if err != nil {
		return 0, fmt.Errorf("AddDraftInvoice: %w", err)
	}
	d.ID = id
	d.Lines = slices.Clone(d.Lines)
	if d.Created.IsZero() {
		d.Created = s.now()
	}
	s.store.drafts[id] = &d
	return id, nil
}

// AddCreditCard adds a credit card payment method and returns its id.
func (s *Server) AddCreditCard(c CreditCard) (int64, error) {
	return addChecked(s, "AddCreditCard", c, s.addCreditCardLocked)
}

// addCreditCardLocked is AddCreditCard without the lock, for callers that hold s.mu.
func (s *Server) addCreditCardLocked(c CreditCard) (int64, error) {
	if _, ok := s.store.customers[c.CustomerID]; !ok {
		return 0, fmt.Errorf("AddCreditCard: unknown customer %d", c.CustomerID)
	}
	id, err := s.store.assign(c.ID)
	if err != nil {
		return 0, fmt.Errorf("AddCreditCard: %w", err)
	}
	c.ID = id
	if len(c.Last4) > 4 {
		c.Last4 = c.Last4[len(c.Last4)-4:]
	}
	if c.ModifiedDate.IsZero() {
		c.ModifiedDate = s.now()
	}
	s.store.cards[id] = &c
	return id, nil
}

// AddWalletMethod adds a payment method as a wallet billing agreement
// would have created it, and returns its id. Provider "" is the first of
// [WithWalletProviders]; empty names take the customer's; a zero
// ModifiedDate is now.
func (s *Server) AddWalletMethod(w WalletMethod) (int64, error) {
	return addChecked(s, "AddWalletMethod", w, s.addWalletMethodLocked)
}

// addWalletMethodLocked is AddWalletMethod without the lock, for callers that hold s.mu.
func (s *Server) addWalletMethodLocked(w WalletMethod) (int64, error) {
	cust, ok := s.store.customers[w.CustomerID]
	if !ok {
		return 0, fmt.Errorf("AddWalletMethod: unknown customer %d", w.CustomerID)
	}
	if w.Provider == "" {
		w.Provider = s.cfg.walletProviders[0]
	}
	id, err := s.store.assign(w.ID)
	if err != nil {
		return 0, fmt.Errorf("AddWalletMethod: %w", err)
	}
	w.ID = id
	if w.FirstName == "" {
		w.FirstName = cust.FirstName
	}
	if w.LastName == "" {
		w.LastName = cust.LastName
	}
	if w.ModifiedDate.IsZero() {
		w.ModifiedDate = s.now()
	}
	s.store.wallets[id] = &w
	return id, nil
}

// AddSubscription adds a subscription and returns its id. Its products
// become known subscription products, whose items can be listed.
func (s *Server) AddSubscription(sub Subscription) (int64, error) {
	return addChecked(s, "AddSubscription", sub, s.addSubscriptionLocked)
}

// addSubscriptionLocked is AddSubscription without the lock, for callers that hold s.mu.
func (s *Server) addSubscriptionLocked(sub Subscription) (int64, error) {
	if _, ok := s.store.customers[sub.CustomerID]; !ok {
		return 0, fmt.Errorf("AddSubscription: unknown customer %d", sub.CustomerID)
	}
	needIDs := int64(0)
	if sub.ID == 0 {
		needIDs++
	}
	for _, p := range sub.Products {
		if p.ID == 0 {
			needIDs++
		}
	}
	if !s.store.idsLeft(needIDs) {
		return 0, fmt.Errorf("AddSubscription: %w", errIDsExhausted)
	}
	id, err := s.store.assign(sub.ID)
	if err != nil {
		return 0, fmt.Errorf("AddSubscription: %w", err)
	}
	sub.ID = id
	sub.Products = slices.Clone(sub.Products)
	for i := range sub.Products {
		if sub.Products[i].ID, err = s.store.assign(sub.Products[i].ID); err != nil {
			return 0, fmt.Errorf("AddSubscription: product: %w", err)
		}
		s.store.products[sub.Products[i].ID] = true
	}
	if sub.Status == "" {
		sub.Status = billing.SubscriptionStatusActive
	}
	if sub.Interval == "" {
		sub.Interval = billing.IntervalMonthly
	}
	if sub.NumberOfIntervals == 0 {
		sub.NumberOfIntervals = 1
	}
	if sub.CreatedTimestamp.IsZero() {
		sub.CreatedTimestamp = s.now()
	}
	s.store.subscriptions[id] = &sub
	s.store.subOrder = insertSorted(s.store.subOrder, id)
	return id, nil
}

// AddSubscriptionProductItem adds an item to a subscription product and
// returns its id. The subscription product becomes known if it was not.
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

// addSubscriptionProductItemLocked is AddSubscriptionProductItem without the lock, for callers that hold s.mu.
func (s *Server) addSubscriptionProductItemLocked(item billing.SubscriptionProductItem) (int64, error) {
	if item.SubscriptionProductID <= 0 {
		return 0, fmt.Errorf("AddSubscriptionProductItem: SubscriptionProductID is required")
	}
	id, err := s.store.assign(item.ID)
	if err != nil {
		return 0, fmt.Errorf("AddSubscriptionProductItem: %w", err)
	}
	item.ID = id
	if item.Status == "" {
		item.Status = billing.ItemStatusActive
	}
	if item.CreatedDate.IsZero() {
		item.CreatedDate = billing.NewTimestamp(s.now())
	}
	if item.ModifiedDate.IsZero() {
		item.ModifiedDate = item.CreatedDate
	}
	s.store.products[item.SubscriptionProductID] = true
	s.store.items[item.SubscriptionProductID] = append(s.store.items[item.SubscriptionProductID], item)
	return id, nil
}

// AddSalesTrackingCode adds a sales tracking code and returns its id. Its
// Type must be a category ("Sales Tracking Code 1" to 5) or a custom name
// given with SetTrackingCodeCategoryName.
func (s *Server) AddSalesTrackingCode(code SalesTrackingCode) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addSalesTrackingCodeLocked(storeCode(code))
}

// storeCode is the seeded code as the store keeps it: the service's type.
func storeCode(code SalesTrackingCode) billing.SalesTrackingCode {
	return billing.SalesTrackingCode{
		ID: code.ID, Type: code.Type, Code: code.Code, Name: code.Name,
		Description: clonePtr(code.Description), Email: clonePtr(code.Email),
		Status: code.Status, Deletable: code.Deletable,
	}
}

// clonePtr copies what p points to, so that the store shares nothing
// with a caller.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// seedCode is the stored code c as the fake's own type.
func seedCode(c billing.SalesTrackingCode) SalesTrackingCode {
	return SalesTrackingCode{
		ID: c.ID, Type: c.Type, Code: c.Code, Name: c.Name,
		Description: clonePtr(c.Description), Email: clonePtr(c.Email),
		Status: c.Status, Deletable: c.Deletable,
	}
}

// addSalesTrackingCodeLocked is AddSalesTrackingCode without the lock, for callers that hold s.mu.
func (s *Server) addSalesTrackingCodeLocked(code billing.SalesTrackingCode) (int64, error) {
	if _, ok := s.store.category(string(code.Type)); !ok {
		return 0, fmt.Errorf("AddSalesTrackingCode: unknown type %q", code.Type)
	}
	id, err := s.store.assign(code.ID)
	if err != nil {
		return 0, fmt.Errorf("AddSalesTrackingCode: %w", err)
	}
	code.ID = id
	if code.Status == "" {
		code.Status = billing.TrackingCodeStatusActive
	}
	s.store.codes = append(s.store.codes, code)
	return id, nil
}

// SetTrackingCodeCategoryName gives sales tracking code category n (1 to
// 5) a custom name, which the create call then accepts as a type.
func (s *Server) SetTrackingCodeCategoryName(n int, name string) error {
	if n < 1 || n > 5 {
		return fmt.Errorf("SetTrackingCodeCategoryName: category %d, want 1 to 5", n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
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

// AddBulkJob adds a bulk job and returns its id.
func (s *Server) AddBulkJob(j BulkJob) (int64, error) {
	return addChecked(s, "AddBulkJob", j, s.addBulkJobLocked)
}

// addBulkJobLocked is AddBulkJob without the lock, for callers that hold s.mu.
func (s *Server) addBulkJobLocked(j BulkJob) (int64, error) {
	id, err := s.store.assign(j.ID)
	if err != nil {
		return 0, fmt.Errorf("AddBulkJob: %w", err)
	}
	j.ID = id
	s.store.jobs[id] = &j
	return id, nil
}
