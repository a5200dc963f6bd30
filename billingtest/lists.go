package billingtest

import (
	"cmp"
	"context"
	"iter"
	"maps"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/bind"
	"github.com/billingapi/billing-go/billingtest/internal/churn"
	"github.com/billingapi/billing-go/billingtest/internal/filter"
	"github.com/billingapi/billing-go/billingtest/internal/ledger"
	"github.com/billingapi/billing-go/billingtest/internal/pagecache"
	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/shopspring/decimal"
)

// The list and read endpoints of invoices, invoice summaries and
// subscription product items (sections 4.1 to 4.4 and 4.10 of the
// reference). Filtering and sorting are in package filter, the shared
// paging controls and headers in paging.go, the invoices' stores in
// invoices.go.

// The fake's list endpoints, named after the SDK methods that call them.
const (
	// RouteInvoicesList is Invoices.List (reference 4.1).
	RouteInvoicesList Route = "GET /v1/Invoices"
	// RouteInvoicesListByCustomer is Invoices.ListByCustomer (4.2).
	RouteInvoicesListByCustomer Route = "GET /v1/Customers/{customerId}/Invoices/"
	// RouteInvoiceSummariesList is InvoiceSummaries.List (4.4).
	RouteInvoiceSummariesList Route = "GET /v1/customers/{customerId}/invoiceSummaries"
	// RouteSubscriptionItemsList is SubscriptionItems.List (4.10).
	RouteSubscriptionItemsList Route = "GET /v1/subscriptionProducts/{subscriptionProductId}/items"
)

// listRoutes are the list endpoints' rows of the route table. A new list
// is its Route constant above, its row here, and its rows function and
// schema below: this file alone.
var listRoutes = []routeSpec{
	newRouteSpec(RouteInvoicesList, "Invoices.List", (*Server).handleListInvoices),
	listRoute(RouteInvoicesListByCustomer, "Invoices.ListByCustomer", scopedList[invoiceRow, wireInvoice]{
		param: "customerId", schema: customerInvoiceSchema, id: invoiceRow.id, check: checkTracked, churn: invoiceChurn, rows: customerInvoiceRows}),
	listRoute(RouteInvoiceSummariesList, "InvoiceSummaries.List", scopedList[summaryRow, billing.InvoiceSummary]{
		param: "customerId", schema: summarySchema, id: summaryRow.id, churn: invoiceChurn, readsClock: true, rows: summaryRows}),
	listRoute(RouteSubscriptionItemsList, "SubscriptionItems.List", scopedList[itemRow, billing.SubscriptionProductItem]{
		param: "subscriptionProductId", schema: itemSchema, id: itemID, churn: itemChurn, rows: itemRows}),
}

// Enum values as the reference lists them, for checking filter values.
var (
	customerStatuses        = enumValues(billing.CustomerStatusDraft, billing.CustomerStatusActive, billing.CustomerStatusCancelled, billing.CustomerStatusHold, billing.CustomerStatusSuspended)
	customerAccountStatuses = enumValues(billing.CustomerAccountStatusGood, billing.CustomerAccountStatusPoorStanding, billing.CustomerAccountStatusCollection)
	invoiceStatuses         = enumValues(billing.InvoiceStatusDue, billing.InvoiceStatusOverdue, billing.InvoiceStatusPaid, billing.InvoiceStatusWrittenOff, billing.InvoiceStatusVoid, billing.InvoiceStatusDisputed, billing.InvoiceStatusPending)
	itemStatuses            = enumValues(billing.ItemStatusActive, billing.ItemStatusDeleted)
)

func enumValues[S ~string](vs ...S) []string {
	return mapped(vs, func(v S) string { return string(v) })
}

// noCustomer stands in for a missing customer, so that getters need no nil
// checks; the store never lets an invoice lose its customer.
var noCustomer = &Customer{}

func customerOf(st *store, id int64) *Customer {
	if c := st.customers[id]; c != nil {
		return c
	}
	return noCustomer
}

// invoiceRow is an invoice as invoice filters read it: the invoice, and
// its customer, looked up only by the Customer.* names, so that filters
// without them skip a map lookup per invoice.
type invoiceRow struct {
	inv *Invoice
	st  *store
}

func (r invoiceRow) id() int64 { return r.inv.ID }

// customerID is the key of what the Customer.* names read.
func (r invoiceRow) customerID() int64 { return r.inv.CustomerID }

func (r invoiceRow) cust() *Customer { return customerOf(r.st, r.inv.CustomerID) }

// customerGetters are the Customer.* names of the invoice lists, which
// each invoice store reads through its own rows.
var customerGetters = map[string]filter.Getter[*Customer]{
	"Customer.AccountStatus":                {Enum: func(c *Customer) string { return string(c.AccountStatus) }, Values: customerAccountStatuses},
	"Customer.Status":                       {Enum: func(c *Customer) string { return string(c.Status) }, Values: customerStatuses},
	"Customer.Arbalance":                    {Decimal: func(c *Customer) decimal.Decimal { return c.ArBalance }},
	"Customer.CurrentMrr":                   {Decimal: func(c *Customer) decimal.Decimal { return c.CurrentMrr }},
	"Customer.CurrentNetMrr":                {Decimal: func(c *Customer) decimal.Decimal { return c.CurrentNetMrr }},
	"Customer.MonthlyRecurringRevenue":      {Decimal: func(c *Customer) decimal.Decimal { return c.MonthlyRecurringRevenue }},
	"Customer.NetMRR":                       {Decimal: func(c *Customer) decimal.Decimal { return c.NetMRR }},
	"Customer.CreatedTimestamp":             {Time: func(c *Customer) time.Time { return c.CreatedTimestamp }},
	"Customer.ModifiedTimestamp":            {Time: func(c *Customer) time.Time { return c.ModifiedTimestamp }},
	"Customer.ParentId":                     {Integer: nullableInt(func(c *Customer) int64 { return c.ParentID })},
	"Customer.CustomerReference.Reference1": {Text: func(c *Customer) string { return c.Reference1 }},
	"Customer.CustomerReference.Reference2": {Text: func(c *Customer) string { return c.Reference2 }},
	"Customer.CustomerReference.Reference3": {Text: func(c *Customer) string { return c.Reference3 }},
}

// invoiceGetters are the names of the two invoice lists; each list takes
// those its SDK filter struct has.
var invoiceGetters = func() map[string]filter.Getter[invoiceRow] {
	g := filter.Via(customerGetters, invoiceRow.cust)
	maps.Copy(g, map[string]filter.Getter[invoiceRow]{
		"createdTimestamp":   {Time: func(r invoiceRow) time.Time { return r.inv.CreatedTimestamp }},
		"effectiveTimestamp": {Time: func(r invoiceRow) time.Time { return r.inv.EffectiveTimestamp }},
		"postedTimestamp":    {Time: func(r invoiceRow) time.Time { return r.inv.PostedTimestamp }},
		"poNumber":           {Text: func(r invoiceRow) string { return r.inv.PoNumber }},
		"closingArBalance":   {Decimal: func(r invoiceRow) decimal.Decimal { return r.inv.ClosingArBalance }},
		"openingArBalance":   {Decimal: func(r invoiceRow) decimal.Decimal { return r.inv.OpeningArBalance }},
		"customerId":         {Integer: func(r invoiceRow) (int64, bool) { return r.inv.CustomerID, true }},
		"invoiceNumber":      {Integer: func(r invoiceRow) (int64, bool) { return r.inv.InvoiceNumber, true }},
		"erpId":              {Text: func(r invoiceRow) string { return r.inv.ErpID }},
		"crmId":              {Text: func(r invoiceRow) string { return r.inv.CrmID }},
		// An invoice's instalments are its payment schedules.
		"totalInstallments": {Integer: func(r invoiceRow) (int64, bool) { return int64(len(r.inv.PaymentSchedules)), true }},
		"accountingId":      {Integer: nullableInt(func(r invoiceRow) int64 { return r.inv.AccountingID })},
	})
	return g
}()

// nullableInt reads an integer whose 0 the service stores as null.
func nullableInt[T any](get func(T) int64) func(T) (int64, bool) {
	return func(r T) (int64, bool) {
		n := get(r)
		return n, n != 0
	}
}

// summaryRow is an invoice seen as a summary: its status depends on the
// clock at the time of the request.
type summaryRow struct {
	inv  *Invoice
	cust *Customer
	now  time.Time
}

func (r summaryRow) id() int64 { return r.inv.ID }

var summaryGetters = map[string]filter.Getter[summaryRow]{
	"Id":                 {Integer: func(r summaryRow) (int64, bool) { return r.inv.ID, true }},
	"customerId":         {Integer: func(r summaryRow) (int64, bool) { return r.inv.CustomerID, true }},
	"invoiceNumber":      {Integer: func(r summaryRow) (int64, bool) { return r.inv.InvoiceNumber, true }},
	"reference":          {Text: func(r summaryRow) string { return r.cust.Reference }},
	"invoiceAmount":      {Decimal: func(r summaryRow) decimal.Decimal { return ledger.Amount(r.inv) }},
	"dueDate":            {Time: func(r summaryRow) time.Time { return ledger.DueDate(r.inv) }},
	"invoiceStatus":      {Enum: func(r summaryRow) string { return string(ledger.Status(r.inv, r.now)) }, Values: invoiceStatuses},
	"customer.Status":    {Enum: func(r summaryRow) string { return string(r.cust.Status) }, Values: customerStatuses},
	"effectiveTimestamp": {Time: func(r summaryRow) time.Time { return r.inv.EffectiveTimestamp }},
	"modifiedTimestamp":  {Time: func(r summaryRow) time.Time { return r.inv.ModifiedTimestamp }},
	"postedTimestamp":    {Time: func(r summaryRow) time.Time { return r.inv.PostedTimestamp }},
	"unsettled":          {Boolean: func(r summaryRow) bool { return ledger.Outstanding(r.inv).IsPositive() }},
}

type itemRow = *billing.SubscriptionProductItem

func itemID(r itemRow) int64 { return r.ID }

var itemGetters = map[string]filter.Getter[itemRow]{
	"createdTimestamp":  {Time: func(r itemRow) time.Time { return r.CreatedDate.Time }},
	"modifiedTimestamp": {Time: func(r itemRow) time.Time { return r.ModifiedDate.Time }},
	"name":              {Text: func(r itemRow) string { return r.Name }},
	"description":       {Text: func(r itemRow) string { return r.Description }},
	"reference":         {Text: func(r itemRow) string { return r.Reference.Value }},
	"status":            {Enum: func(r itemRow) string { return string(r.Status) }, Values: itemStatuses},
}

// The endpoints' schemas, from the SDK's filter structs.
var (
	invoiceSchema         = filter.NewSchema(string(RouteInvoicesList), billing.InvoiceFilter{}, invoiceGetters).RelatedBy(invoiceRow.customerID)
	customerInvoiceSchema = filter.NewSchema(string(RouteInvoicesListByCustomer), billing.CustomerInvoiceFilter{}, invoiceGetters).RelatedBy(invoiceRow.customerID)
	summarySchema         = filter.NewSchema(string(RouteInvoiceSummariesList), billing.InvoiceSummaryFilter{}, summaryGetters)
	itemSchema            = filter.NewSchema(string(RouteSubscriptionItemsList), billing.SubscriptionProductItemFilter{}, itemGetters)
)

// customerInvoices are a customer's invoices in id order. The caller
// holds s.mu.
func (st *store) customerInvoices(customerID int64) []*Invoice {
	page := st.invoices.Query(context.Background(), &filter.Request{Customer: customerID, SortField: -1, Size: math.MaxInt})
	return mapped(page.Items, func(h filter.Hit) *Invoice { return st.invoices.Get(h.ID) })
}

// wireInvoice is an invoice with its charges (flat) or its charge groups
// (grouped) always written, [] when there are none. billing.Invoice
// declares both with omitempty (right for the SDK, which must accept an
// answer without them), which would drop the empty array the reference
// shows. The invoice is a named field, not embedded: embedding would
// promote its MarshalJSON, and the engine would write the invoice alone.
type wireInvoice struct {
	invoice billing.Invoice
	name    string // "charges" or "chargeGroups"
	member  any    // never a nil slice
}

// MarshalJSONTo writes the invoice's members, the member name among those
// after the modelled ones: the invoice's MarshalJSON writes it with the
// members of its Extra.
func (f wireInvoice) MarshalJSONTo(enc *jsonwire.Encoder) error {
	raw, err := jsonwire.Marshal(f.member)
	if err != nil {
		return err
	}
	inv := f.invoice
	inv.Extra = make(billing.Extra, len(f.invoice.Extra)+1)
	maps.Copy(inv.Extra, f.invoice.Extra)
	inv.Extra[f.name] = raw
	b, err := inv.MarshalJSON()
	if err != nil {
		return err
	}
	return enc.WriteValue(b)
}

func flat(inv billing.Invoice) wireInvoice {
	charges := inv.Charges
	if charges == nil {
		charges = []billing.Charge{}
	}
	inv.Charges = nil
	return wireInvoice{invoice: inv, name: "charges", member: charges}
}

func grouped(inv billing.Invoice) wireInvoice {
	groups := inv.ChargeGroups
	if groups == nil {
		groups = []billing.ChargeGroup{}
	}
	inv.ChargeGroups, inv.Charges = nil, nil
	return wireInvoice{invoice: inv, name: "chargeGroups", member: groups}
}

// boolParam reads an optional boolean query parameter the same way on
// every route, as the service's binder reads a bool: absent is false;
// true or false in any case, surrounding spaces ignored; anything else,
// 1, 0 and an empty value included, is a 400 (its bool parsing knows no
// numbers, and an empty value does not bind to a bool).
func boolParam(r *http.Request, name string) (bool, error) {
	v, ok := param(r.URL.Query(), name)
	if !ok {
		return false, nil
	}
	b, err := bind.Bool(strings.TrimSpace(v))
	if err != nil {
		return false, badRequest("%s must be true or false, got %q", name, v)
	}
	return b, nil
}

// handleListInvoices serves GET /v1/Invoices: every invoice, without line
// items (charges is []).
func (s *Server) handleListInvoices(w http.ResponseWriter, r *http.Request) {
	lr, _, err := parseListRequest(r.URL.Query(), invoiceSchema, s.cfg.unlistedEnums)
	if err != nil {
		s.writeRequestError(w, err)
		return
	}
	s.vary(&lr)
	s.churnBefore(RouteInvoicesList, sortedOn(invoiceSchema, lr), lr.Key, invoiceChurn, 0)
	s.mu.RLock()
	cached, ticket := s.cachedPage(r, RouteInvoicesList, 0, time.Time{})
	if cached != nil {
		s.mu.RUnlock()
		s.writePage(w, *cached, ticket)
		return
	}
	page := s.store.invoices.Query(r.Context(), &lr.Request)
	body := s.pageBuffers.Get(0) // grown by append; kept at its size
	defer s.pageBuffers.Put(body)
	*body = append(*body, '[')
	*body, err = s.store.invoices.AppendListJSON(*body, page.Items, s.mu.Version(), s.store.appendListInvoiceJSON)
	s.mu.RUnlock()
	if err != nil {
		s.writeError(w, http.StatusInternalServerError, errorKeyAPI, "encoding the answer: "+err.Error())
		return
	}
	if r.Context().Err() != nil {
		return // the client has gone, and the page may be incomplete
	}
	header := http.Header{}
	setPageHeaders(header, lr, page)
	s.writePage(w, pagecache.Answer{Header: header, Body: append(*body, ']')}, ticket)
}

// handleGetInvoice serves GET /v1/Invoices/{invoiceId}. With
// groupCharges=true (the reference leaves the name open; the SDK sends
// groupCharges) the answer has chargeGroups, by subscription or purchase,
// instead of charges.
func (s *Server) handleGetInvoice(r *http.Request) (any, error) {
	id, err := pathID(r, "invoiceId")
	if err != nil {
		return nil, err
	}
	tracked, err := boolParam(r, "showTrackedItems")
	if err != nil {
		return nil, err
	}
	group, err := boolParam(r, "groupCharges")
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	inv := s.store.invoices.Get(id)
	switch {
	case inv == nil:
		return nil, notFound("invoice %d does not exist", id)
	case group:
		return grouped(s.store.renderInvoice(inv, chargesGrouped, tracked)), nil
	}
	return flat(s.store.renderInvoice(inv, chargesFlat, tracked)), nil
}

// scopedList is a list endpoint over the rows of one parent entity (a
// customer, a subscription product), named by the path parameter param:
// parsing, the paging variations, churn, the parent's 404, filtering,
// sorting, paging and the page headers are the same for each. Its row of
// the route table (listRoute) says the rest.
type scopedList[T, U any] struct {
	route  Route  // set by listRoute
	param  string // the parent's path parameter
	schema *filter.Schema[T]
	id     func(T) int64
	// check validates the endpoint's other parameters; nil: none.
	check func(*http.Request) error
	churn func(s *Server, parent int64) churn.Scope
	// readsClock says that the rows depend on the fake's clock: rows is
	// given its reading as now (the zero time otherwise), and the page
	// cache keys the answer on it.
	readsClock bool
	// rows returns the parent's rows and how to render one, or a 404
	// when it does not exist. The caller holds the read lock.
	rows func(s *Server, r *http.Request, parent int64, now time.Time) (iter.Seq[T], func(T) U, error)
}

// listRoute is the route table's row of list endpoint l.
func listRoute[T, U any](r Route, name string, l scopedList[T, U]) routeSpec {
	l.route = r
	return newRouteSpec(r, name, l.serve)
}

func (l scopedList[T, U]) serve(s *Server, w http.ResponseWriter, r *http.Request) {
	parent, ok := s.pathInt(w, r, l.param)
	if !ok {
		return
	}
	lr, pred, err := parseListRequest(r.URL.Query(), l.schema, s.cfg.unlistedEnums)
	if err == nil && l.check != nil {
		err = l.check(r)
	}
	if err != nil {
		s.writeRequestError(w, err)
		return
	}
	pred = filter.UntilDone(r.Context(), pred)
	s.vary(&lr)
	s.churnBefore(l.route, sortedOn(l.schema, lr), lr.Key, l.churn, parent)
	s.mu.RLock()
	var now time.Time
	if l.readsClock {
		now = s.now()
	}
	cached, ticket := s.cachedPage(r, l.route, parent, now)
	if cached != nil {
		s.mu.RUnlock()
		s.writePage(w, *cached, ticket)
		return
	}
	rows, render, err := l.rows(s, r, parent, now)
	if err != nil {
		s.mu.RUnlock()
		s.writeRequestError(w, err)
		return
	}
	page := filter.Run(rows, l.id, l.schema, &lr.Request, pred)
	out := mapped(page.Items, render)
	s.mu.RUnlock()
	if r.Context().Err() != nil {
		return // the client has gone, and the page may be incomplete
	}
	body, err := jsonwire.Marshal(out)
	if err != nil {
		s.writeError(w, http.StatusInternalServerError, errorKeyAPI, "encoding the answer: "+err.Error())
		return
	}
	header := http.Header{}
	setPageHeaders(header, lr, page)
	s.writePage(w, pagecache.Answer{Header: header, Body: body}, ticket)
}

// The page cache's bounds: a few dozen pages, a few MiB.
const (
	pageCacheEntries = 48
	pageCacheBytes   = 8 << 20
)

// cachedPage looks up the answer of list request r of route and parent in
// the fake's page cache (see package pagecache); clock is the fake's clock
// for a route whose answer reads it, else the zero time. The caller holds
// the read lock.
func (s *Server) cachedPage(r *http.Request, route Route, parent int64, clock time.Time) (*pagecache.Answer, pagecache.Ticket) {
	if s.cfg.tie == TieRandom {
		return nil, pagecache.Ticket{} // a new order on every request
	}
	return s.pages.Lookup(s.mu.Version(), pagecache.Key(string(route), parent, r.URL.RawQuery, clock))
}

// writePage answers with page a, after keeping it as ticket says.
func (s *Server) writePage(w http.ResponseWriter, a pagecache.Answer, ticket pagecache.Ticket) {
	ticket.Keep(a)
	a.SetHeaders(w.Header())
	s.writeRawJSON(w, http.StatusOK, a.Body)
}

func checkTracked(r *http.Request) error {
	_, err := boolParam(r, "showTrackedItems")
	return err
}

// customerInvoiceRows are the rows of GET /v1/Customers/{customerId}/Invoices/:
// the customer's invoices with their charges; tracked items only with
// showTrackedItems=true.
func customerInvoiceRows(s *Server, r *http.Request, customerID int64, _ time.Time) (iter.Seq[invoiceRow], func(invoiceRow) wireInvoice, error) {
	if _, ok := s.store.customers[customerID]; !ok {
		return nil, nil, notFound("customer %d does not exist", customerID)
	}
	tracked, _ := boolParam(r, "showTrackedItems") // checked already
	rows := mapped(s.store.customerInvoices(customerID), func(inv *Invoice) invoiceRow { return invoiceRow{inv: inv, st: s.store} })
	return slices.Values(rows), func(row invoiceRow) wireInvoice {
		return flat(s.store.renderInvoice(row.inv, chargesFlat, tracked))
	}, nil
}

// summaryRows are the rows of GET /v1/customers/{customerId}/invoiceSummaries.
func summaryRows(s *Server, _ *http.Request, customerID int64, now time.Time) (iter.Seq[summaryRow], func(summaryRow) billing.InvoiceSummary, error) {
	cust, known := s.store.customers[customerID]
	if !known {
		return nil, nil, notFound("customer %d does not exist", customerID)
	}
	rows := mapped(s.store.customerInvoices(customerID), func(inv *Invoice) summaryRow { return summaryRow{inv: inv, cust: cust, now: now} })
	return slices.Values(rows), func(row summaryRow) billing.InvoiceSummary { return s.store.renderSummary(row.inv, now) }, nil
}

// itemRows are the rows of GET /v1/subscriptionProducts/{subscriptionProductId}/items.
// A known subscription product without items has an empty list, not a 404.
func itemRows(s *Server, _ *http.Request, productID int64, _ time.Time) (iter.Seq[itemRow], func(itemRow) billing.SubscriptionProductItem, error) {
	if !s.store.products[productID] {
		return nil, nil, notFound("subscription product %d does not exist", productID)
	}
	stored := s.store.items[productID]
	// Items are kept in the order they were added, which seeded ids
	// need not follow; lists go by id.
	rows := make([]itemRow, len(stored))
	for i := range stored {
		rows[i] = &stored[i]
	}
	slices.SortFunc(rows, func(a, b itemRow) int { return cmp.Compare(a.ID, b.ID) })
	return slices.Values(rows), func(it itemRow) billing.SubscriptionProductItem { return *it }, nil
}
