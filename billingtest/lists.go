package billingtest

import (
	"cmp"
	"context"
	"iter"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	billing "github.com/billingapi/billing-go"
	"github.com/billingapi/billing-go/billingtest/internal/bind"
	"github.com/billingapi/billing-go/internal/jsonwire"
	"github.com/shopspring/decimal"
)

// The list and read endpoints of invoices, invoice summaries and
// subscription product items (sections 4.1 to 4.4 and 4.10 of the
// reference). Filtering is in filtereval.go, sorting in sorting.go and the
// shared paging controls and headers in paging.go.

// Enum values as the reference lists them, for checking filter values.
var (
	customerStatuses        = enumValues(billing.CustomerStatusDraft, billing.CustomerStatusActive, billing.CustomerStatusCancelled, billing.CustomerStatusHold, billing.CustomerStatusSuspended)
	customerAccountStatuses = enumValues(billing.CustomerAccountStatusGood, billing.CustomerAccountStatusPoorStanding, billing.CustomerAccountStatusCollection)
	invoiceStatuses         = enumValues(billing.InvoiceStatusDue, billing.InvoiceStatusOverdue, billing.InvoiceStatusPaid, billing.InvoiceStatusWrittenOff, billing.InvoiceStatusVoid, billing.InvoiceStatusDisputed, billing.InvoiceStatusPending)
	itemStatuses            = enumValues(billing.ItemStatusActive, billing.ItemStatusDeleted)
	subscriptionStatuses    = enumValues(billing.SubscriptionStatusActive, billing.SubscriptionStatusDraft, billing.SubscriptionStatusCancelled, billing.SubscriptionStatusProvisioning, billing.SubscriptionStatusExpired)
	intervals               = enumValues(billing.IntervalMonthly, billing.IntervalYearly)
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

// invoiceRow is an invoice, what invoice filters read: its packed record,
// read in place, since a filter visits every invoice. inv, the invoice
// itself, is built only for the rows of a page that rendering needs it
// for: by filterSchema.complete for a customer's invoices, and by
// store.listInvoiceJSON, only when the encoding is not cached, for the
// list of all invoices. Its customer is looked up
// only by the Customer.* names, so that filters without them skip a map
// lookup per invoice.
type invoiceRow struct {
	rec *invoiceRecord
	inv *Invoice
	st  *store
}

func (r invoiceRow) id() int64 { return r.rec.id }

// customerID is the key of what the Customer.* names read.
func (r invoiceRow) customerID() int64 { return r.rec.customerID }

func (r invoiceRow) cust() *Customer { return customerOf(r.st, r.rec.customerID) }

// withInvoice is r with its invoice built.
func (r invoiceRow) withInvoice() invoiceRow {
	r.inv = r.rec.invoice()
	return r
}

// Getters shared by the two invoice lists; each list takes the names its
// SDK filter struct has.
var invoiceGetters = map[string]getter[invoiceRow]{
	"createdTimestamp": {time: func(r invoiceRow) time.Time { return r.rec.createdAt() },
		instant: func(r invoiceRow) (int64, bool) { return r.rec.created, r.rec.whole == nil }},
	"effectiveTimestamp": {time: func(r invoiceRow) time.Time { return r.rec.effectiveAt() },
		instant: func(r invoiceRow) (int64, bool) { return r.rec.effective, r.rec.whole == nil }},
	"postedTimestamp": {time: func(r invoiceRow) time.Time { return r.rec.postedAt() },
		instant: func(r invoiceRow) (int64, bool) { return r.rec.posted, r.rec.whole == nil }},
	"poNumber": {text: func(r invoiceRow) string { return r.rec.po() }},
	"closingArBalance": {decimal: func(r invoiceRow) decimal.Decimal { return r.rec.closing() },
		packed: func(r invoiceRow) (int64, int8, bool) { return r.rec.packedAmount(recClosing) }},
	"openingArBalance": {decimal: func(r invoiceRow) decimal.Decimal { return r.rec.opening() },
		packed: func(r invoiceRow) (int64, int8, bool) { return r.rec.packedAmount(recOpening) }},
	"customerId":    {integer: func(r invoiceRow) (int64, bool) { return r.rec.customerID, true }},
	"invoiceNumber": {integer: func(r invoiceRow) (int64, bool) { return r.rec.number(), true }},
	"erpId":         {text: func(r invoiceRow) string { return r.rec.erp() }},
	"crmId":         {text: func(r invoiceRow) string { return r.rec.crm() }},
	// An invoice's instalments are its payment schedules.
	"totalInstallments": {integer: func(r invoiceRow) (int64, bool) { return int64(r.rec.installments()), true }},
	"accountingId":      {integer: nullableInt(func(r invoiceRow) int64 { return r.rec.accounting() })},

	"Customer.AccountStatus":                {enum: func(r invoiceRow) string { return string(r.cust().AccountStatus) }, values: customerAccountStatuses},
	"Customer.Status":                       {enum: func(r invoiceRow) string { return string(r.cust().Status) }, values: customerStatuses},
	"Customer.Arbalance":                    {decimal: func(r invoiceRow) decimal.Decimal { return r.cust().ArBalance }},
	"Customer.CurrentMrr":                   {decimal: func(r invoiceRow) decimal.Decimal { return r.cust().CurrentMrr }},
	"Customer.CurrentNetMrr":                {decimal: func(r invoiceRow) decimal.Decimal { return r.cust().CurrentNetMrr }},
	"Customer.MonthlyRecurringRevenue":      {decimal: func(r invoiceRow) decimal.Decimal { return r.cust().MonthlyRecurringRevenue }},
	"Customer.NetMRR":                       {decimal: func(r invoiceRow) decimal.Decimal { return r.cust().NetMRR }},
	"Customer.CreatedTimestamp":             {time: func(r invoiceRow) time.Time { return r.cust().CreatedTimestamp }},
	"Customer.ModifiedTimestamp":            {time: func(r invoiceRow) time.Time { return r.cust().ModifiedTimestamp }},
	"Customer.ParentId":                     {integer: nullableInt(func(r invoiceRow) int64 { return r.cust().ParentID })},
	"Customer.CustomerReference.Reference1": {text: func(r invoiceRow) string { return r.cust().Reference1 }},
	"Customer.CustomerReference.Reference2": {text: func(r invoiceRow) string { return r.cust().Reference2 }},
	"Customer.CustomerReference.Reference3": {text: func(r invoiceRow) string { return r.cust().Reference3 }},
}

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

var summaryGetters = map[string]getter[summaryRow]{
	"Id":                 {integer: func(r summaryRow) (int64, bool) { return r.inv.ID, true }},
	"customerId":         {integer: func(r summaryRow) (int64, bool) { return r.inv.CustomerID, true }},
	"invoiceNumber":      {integer: func(r summaryRow) (int64, bool) { return r.inv.InvoiceNumber, true }},
	"reference":          {text: func(r summaryRow) string { return r.cust.Reference }},
	"invoiceAmount":      {decimal: func(r summaryRow) decimal.Decimal { return invoiceAmount(r.inv) }},
	"dueDate":            {time: func(r summaryRow) time.Time { return dueDate(r.inv) }},
	"invoiceStatus":      {enum: func(r summaryRow) string { return string(invoiceStatus(r.inv, r.now)) }, values: invoiceStatuses},
	"customer.Status":    {enum: func(r summaryRow) string { return string(r.cust.Status) }, values: customerStatuses},
	"effectiveTimestamp": {time: func(r summaryRow) time.Time { return r.inv.EffectiveTimestamp }},
	"modifiedTimestamp":  {time: func(r summaryRow) time.Time { return r.inv.ModifiedTimestamp }},
	"postedTimestamp":    {time: func(r summaryRow) time.Time { return r.inv.PostedTimestamp }},
	"unsettled":          {boolean: func(r summaryRow) bool { return outstandingBalance(r.inv).IsPositive() }},
}

type itemRow = *billing.SubscriptionProductItem

func itemID(r itemRow) int64 { return r.ID }

var itemGetters = map[string]getter[itemRow]{
	"createdTimestamp":  {time: func(r itemRow) time.Time { return r.CreatedDate.Time }},
	"modifiedTimestamp": {time: func(r itemRow) time.Time { return r.ModifiedDate.Time }},
	"name":              {text: func(r itemRow) string { return r.Name }},
	"description":       {text: func(r itemRow) string { return r.Description }},
	"reference":         {text: func(r itemRow) string { return r.Reference.Value }},
	"status":            {enum: func(r itemRow) string { return string(r.Status) }, values: itemStatuses},
}

// The endpoints' schemas, from the SDK's filter structs.
var (
	// The list of all invoices builds a row's invoice only when its
	// encoding is not cached (see store.listInvoiceJSON).
	invoiceSchema         = newSchema("GET /v1/Invoices", billing.InvoiceFilter{}, invoiceGetters).relatedBy(invoiceRow.customerID)
	customerInvoiceSchema = newSchema("GET /v1/Customers/{customerId}/Invoices/", billing.CustomerInvoiceFilter{}, invoiceGetters).completing(invoiceRow.withInvoice).relatedBy(invoiceRow.customerID)
	summarySchema         = newSchema("GET /v1/customers/{customerId}/invoiceSummaries", billing.InvoiceSummaryFilter{}, summaryGetters)
	itemSchema            = newSchema("GET /v1/subscriptionProducts/{subscriptionProductId}/items", billing.SubscriptionProductItemFilter{}, itemGetters)
)

// invoiceRows yields the invoices in ascending id order, those of one
// customer when customerID is not 0. The caller holds s.mu.
func (st *store) invoiceRows(customerID int64) iter.Seq[invoiceRow] {
	return func(yield func(invoiceRow) bool) {
		for i := range st.invoices.len() {
			rec := st.invoices.byPosition(i)
			if customerID != 0 && rec.customerID != customerID {
				continue
			}
			if !yield(invoiceRow{rec: rec, st: st}) {
				return
			}
		}
	}
}

// pageOfAllInvoices is runList for the unfiltered list of all invoices in
// id order, the list an integration job pages through: a slice of the id
// index, so that reading every page stays linear in the total instead of
// visiting every invoice on every request.
func (st *store) pageOfAllInvoices(lr listRequest) listPage[invoiceRow] {
	n := int64(st.invoices.len())
	start := min(int64(lr.page)*int64(lr.size), n)
	end := min(start+int64(lr.size), n)
	page := listPage[invoiceRow]{count: int(n), maxCount: int(n), items: make([]invoiceRow, 0, end-start), visited: int(end - start)}
	for i := start; i < end; i++ {
		page.items = append(page.items, invoiceRow{rec: st.invoices.byPosition(int(i)), st: st})
	}
	return page
}

// flatInvoice is an invoice whose charges are always written, [] when
// there are none. billing.Invoice declares charges with omitempty (right
// for the SDK, which must accept an answer without them), which would drop
// the empty array the reference shows in list-all answers. The invoice is
// a named field, not embedded: embedding would promote its MarshalJSON,
// and the engine would write the invoice alone, without charges.
type flatInvoice struct {
	invoice billing.Invoice
	charges []billing.Charge
}

// MarshalJSONTo writes the invoice's members, charges among those after
// the modelled ones.
func (f flatInvoice) MarshalJSONTo(enc *jsonwire.Encoder) error {
	return writeInvoiceWith(enc, f.invoice, "charges", f.charges)
}

// groupedInvoice is an invoice with chargeGroups, [] when there are none,
// and no charges.
type groupedInvoice struct {
	invoice      billing.Invoice
	chargeGroups []billing.ChargeGroup
}

// MarshalJSONTo writes the invoice's members, chargeGroups among those
// after the modelled ones.
func (g groupedInvoice) MarshalJSONTo(enc *jsonwire.Encoder) error {
	return writeInvoiceWith(enc, g.invoice, "chargeGroups", g.chargeGroups)
}

// writeInvoiceWith writes inv with one more member, name, holding member:
// the invoice's MarshalJSON writes it with the members of its Extra.
func writeInvoiceWith(enc *jsonwire.Encoder, inv billing.Invoice, name string, member any) error {
	raw, err := jsonwire.Marshal(member)
	if err != nil {
		return err
	}
	extra := make(billing.Extra, len(inv.Extra)+1)
	maps.Copy(extra, inv.Extra)
	extra[name] = raw
	inv.Extra = extra
	b, err := inv.MarshalJSON()
	if err != nil {
		return err
	}
	return enc.WriteValue(b)
}

func flat(inv billing.Invoice) flatInvoice {
	charges := inv.Charges
	if charges == nil {
		charges = []billing.Charge{}
	}
	inv.Charges = nil
	return flatInvoice{invoice: inv, charges: charges}
}

func grouped(inv billing.Invoice) groupedInvoice {
	groups := inv.ChargeGroups
	if groups == nil {
		groups = []billing.ChargeGroup{}
	}
	inv.ChargeGroups, inv.Charges = nil, nil
	return groupedInvoice{invoice: inv, chargeGroups: groups}
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
	lr, pred, err := parseListRequest(r.URL.Query(), invoiceSchema, s.cfg.unlistedEnums)
	if err != nil {
		s.writeRequestError(w, err)
		return
	}
	pred = untilDone(r.Context(), pred)
	s.vary(&lr)
	s.churnBefore(RouteInvoicesList, sortedOn(invoiceSchema, lr), lr.key, invoiceChurn{s: s})
	s.mu.RLock()
	page := s.invoicesPage(r.Context(), lr, pred)
	body := s.pageBuffers.Get(0) // grown by append; kept at its size
	defer s.pageBuffers.Put(body)
	*body = append(*body, '[')
	for i, row := range page.items {
		if i > 0 {
			*body = append(*body, ',')
		}
		if *body, err = s.store.listInvoiceJSON(*body, row); err != nil {
			s.mu.RUnlock()
			s.writeError(w, http.StatusInternalServerError, errorKeyAPI, "encoding the answer: "+err.Error())
			return
		}
	}
	s.mu.RUnlock()
	if r.Context().Err() != nil {
		return // the client has gone, and the page may be incomplete
	}
	setPageHeaders(w.Header(), lr, page)
	s.writeRawJSON(w, http.StatusOK, append(*body, ']'))
}

// invoicesPage finds a page of the list of all invoices: from the id
// order when nothing filters or sorts it, from a key index when it is
// sorted on a date, else by filtering and sorting every invoice. The
// paging variations take the general path, which implements them. The
// caller holds at least the read lock.
func (s *Server) invoicesPage(ctx context.Context, lr listRequest, pred func(invoiceRow) bool) listPage[invoiceRow] {
	switch {
	case s.cfg.pagingVaried():
		return runList(s.store.invoiceRows(0), invoiceRow.id, invoiceSchema, lr, pred)
	case pred == nil && lr.sortField < 0:
		return s.store.pageOfAllInvoices(lr)
	case lr.keyed:
		return s.store.invoiceKeyIndex(lr.sortField).page(ctx, lr, pred)
	}
	return runList(s.store.invoiceRows(0), invoiceRow.id, invoiceSchema, lr, pred)
}

// listInvoiceJSON appends row's invoice as a list-all answer writes it:
// from the bounded cache when it holds the invoice (see scale.ListCache),
// else unpacked and written by appendListInvoiceJSON, and offered to the
// cache. The caller holds at least the read lock.
func (st *store) listInvoiceJSON(dst []byte, row invoiceRow) ([]byte, error) {
	if b, ok := st.listJSON.Load(row.rec.id); ok {
		return append(dst, b...), nil
	}
	start := len(dst)
	dst, err := st.appendListInvoiceJSON(dst, row.rec.invoice())
	if err != nil {
		return dst, err
	}
	st.listJSON.Store(row.rec.id, dst[start:]) // copied only if kept
	return dst, nil
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
	rec := s.store.invoices.get(id)
	switch {
	case rec == nil:
		return nil, notFound("invoice %d does not exist", id)
	case group:
		return grouped(s.store.renderInvoice(rec.invoice(), chargesGrouped, tracked)), nil
	}
	return flat(s.store.renderInvoice(rec.invoice(), chargesFlat, tracked)), nil
}

// scopedList is a list endpoint over the rows of one parent entity (a
// customer, a subscription product), named by the path parameter param:
// parsing, the paging variations, churn, the parent's 404, filtering,
// sorting, paging and the page headers are the same for each.
type scopedList[T, U any] struct {
	route  Route
	param  string // the parent's path parameter
	schema *filterSchema[T]
	id     func(T) int64
	// check validates the endpoint's other parameters; nil: none.
	check func(*http.Request) error
	churn func(s *Server, parent int64) churnScope
	// rows returns the parent's rows and how to render one, or a 404
	// when it does not exist. The caller holds the read lock.
	rows func(s *Server, r *http.Request, parent int64) (iter.Seq[T], func(T) U, error)
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
	pred = untilDone(r.Context(), pred)
	s.vary(&lr)
	s.churnBefore(l.route, sortedOn(l.schema, lr), lr.key, l.churn(s, parent))
	s.mu.RLock()
	rows, render, err := l.rows(s, r, parent)
	if err != nil {
		s.mu.RUnlock()
		s.writeRequestError(w, err)
		return
	}
	page := runList(rows, l.id, l.schema, lr, pred)
	out := mapped(page.items, render)
	s.mu.RUnlock()
	if r.Context().Err() != nil {
		return // the client has gone, and the page may be incomplete
	}
	setPageHeaders(w.Header(), lr, page)
	s.writeJSON(w, http.StatusOK, out)
}

func invoiceChurnOf(s *Server, customerID int64) churnScope {
	return invoiceChurn{s: s, customerID: customerID}
}

func checkTracked(r *http.Request) error {
	_, err := boolParam(r, "showTrackedItems")
	return err
}

// customerInvoicesList serves GET /v1/Customers/{customerId}/Invoices/:
// the customer's invoices with their charges; tracked items only with
// showTrackedItems=true.
var customerInvoicesList = scopedList[invoiceRow, flatInvoice]{
	route: RouteInvoicesListByCustomer, param: "customerId", schema: customerInvoiceSchema, id: invoiceRow.id,
	check: checkTracked, churn: invoiceChurnOf,
	rows: func(s *Server, r *http.Request, customerID int64) (iter.Seq[invoiceRow], func(invoiceRow) flatInvoice, error) {
		if _, ok := s.store.customers[customerID]; !ok {
			return nil, nil, notFound("customer %d does not exist", customerID)
		}
		tracked, _ := boolParam(r, "showTrackedItems") // checked already
		return s.store.invoiceRows(customerID), func(row invoiceRow) flatInvoice {
			return flat(s.store.renderInvoice(row.inv, chargesFlat, tracked))
		}, nil
	},
}

// summariesList serves GET /v1/customers/{customerId}/invoiceSummaries.
var summariesList = scopedList[summaryRow, billing.InvoiceSummary]{
	route: RouteInvoiceSummariesList, param: "customerId", schema: summarySchema, id: summaryRow.id, churn: invoiceChurnOf,
	rows: func(s *Server, _ *http.Request, customerID int64) (iter.Seq[summaryRow], func(summaryRow) billing.InvoiceSummary, error) {
		cust, known := s.store.customers[customerID]
		if !known {
			return nil, nil, notFound("customer %d does not exist", customerID)
		}
		now := s.now()
		rows := func(yield func(summaryRow) bool) {
			for row := range s.store.invoiceRows(customerID) {
				if !yield(summaryRow{inv: row.rec.invoice(), cust: cust, now: now}) {
					return
				}
			}
		}
		return rows, func(row summaryRow) billing.InvoiceSummary { return s.store.renderSummary(row.inv, now) }, nil
	},
}

// itemsList serves GET /v1/subscriptionProducts/{subscriptionProductId}/items.
// A known subscription product without items has an empty list, not a 404.
var itemsList = scopedList[itemRow, billing.SubscriptionProductItem]{
	route: RouteSubscriptionItemsList, param: "subscriptionProductId", schema: itemSchema, id: itemID,
	churn: func(s *Server, productID int64) churnScope { return itemChurn{s: s, productID: productID} },
	rows: func(s *Server, _ *http.Request, productID int64) (iter.Seq[itemRow], func(itemRow) billing.SubscriptionProductItem, error) {
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
	},
}
