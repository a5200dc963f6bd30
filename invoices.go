package billing

import (
	"context"
	"iter"
	"net/http"

	querystring "github.com/google/go-querystring/query"
	"github.com/shopspring/decimal"
)

// InvoicesService lists, reads and writes off invoices. Like every list
// endpoint, each list has four methods: List (one page), Pages, All (every
// item) and Count.
type InvoicesService struct{ service }

// ListInvoicesParams are the parameters of [InvoicesService.List].
type ListInvoicesParams struct {
	ListOptions
	// Filter becomes the query parameter.
	Filter InvoiceFilter `url:"query"`
}

// List returns one page of all the account's invoices. Invoices in this
// list carry no charges (Charges is empty); read one with Get for those.
// Bad params (a negative page, a sort field the endpoint does not have, a
// filter value the syntax cannot carry) are refused before sending with a
// [*ValidationError] matching [ErrInvalidParams].
//
// API: GET /v1/Invoices
func (s *InvoicesService) List(ctx context.Context, params *ListInvoicesParams, opts ...RequestOption) (*Page[Invoice], error) {
	return list[Invoice](ctx, s.client, invoicesList(params), opts)
}

// invoicesList is GET /v1/Invoices with params.
func invoicesList(params *ListInvoicesParams) listCall {
	p := orZero(params)
	return listCall{
		op:   Operation{Name: "Invoices.List", Method: http.MethodGet, PathTemplate: "/v1/Invoices"},
		path: "/v1/Invoices", params: &p, lo: p.ListOptions, filter: p.Filter,
	}
}

// Pages iterates over the pages of [InvoicesService.List], from
// params.PageNumber to the last page.
//
// API: GET /v1/Invoices, once per page
func (s *InvoicesService) Pages(ctx context.Context, params *ListInvoicesParams, opts ...IterOption) iter.Seq2[*Page[Invoice], error] {
	return pagesOf[Invoice](ctx, s.client, invoicesList(params), opts)
}

// All iterates over every invoice of [InvoicesService.List], page by page.
// On error it yields the error once and stops.
//
// API: GET /v1/Invoices, once per page
func (s *InvoicesService) All(ctx context.Context, params *ListInvoicesParams, opts ...IterOption) iter.Seq2[Invoice, error] {
	return items(ctx, s.Pages(ctx, params, opts...))
}

// Count returns the number of invoices matching params (X-Count), with a
// single one-item request.
//
// API: GET /v1/Invoices?pageSize=1
func (s *InvoicesService) Count(ctx context.Context, params *ListInvoicesParams, opts ...RequestOption) (int, error) {
	return countOf[Invoice](ctx, s.client, invoicesList(params), opts)
}

// ListCustomerInvoicesParams are the parameters of
// [InvoicesService.ListByCustomer].
type ListCustomerInvoicesParams struct {
	ListOptions
	// ShowTrackedItems returns details of tracked items purchased on the
	// invoices.
	ShowTrackedItems bool `url:"showTrackedItems,omitempty"`
	// Filter becomes the query parameter.
	Filter CustomerInvoiceFilter `url:"query"`
}

// ListByCustomer returns one page of a customer's invoices, with their
// charges. It fails with [ErrNotFound] for an unknown customer.
// A bad id or params are refused before sending with a [*ValidationError]
// matching [ErrInvalidParams].
//
// API: GET /v1/Customers/{customerId}/Invoices/
func (s *InvoicesService) ListByCustomer(ctx context.Context, customerID int64, params *ListCustomerInvoicesParams, opts ...RequestOption) (*Page[Invoice], error) {
	return list[Invoice](ctx, s.client, customerInvoicesList(customerID, params), opts)
}

// customerInvoicesList is GET /v1/Customers/{customerId}/Invoices/ with
// params.
func customerInvoicesList(customerID int64, params *ListCustomerInvoicesParams) listCall {
	id, err := pathID("customerId", customerID)
	p := orZero(params)
	return listCall{
		op:   Operation{Name: "Invoices.ListByCustomer", Method: http.MethodGet, PathTemplate: "/v1/Customers/{customerId}/Invoices/"},
		path: "/v1/Customers/" + id + "/Invoices/", params: &p, lo: p.ListOptions, filter: p.Filter, err: err,
	}
}

// PagesByCustomer iterates over the pages of [InvoicesService.ListByCustomer].
//
// API: GET /v1/Customers/{customerId}/Invoices/, once per page
func (s *InvoicesService) PagesByCustomer(ctx context.Context, customerID int64, params *ListCustomerInvoicesParams, opts ...IterOption) iter.Seq2[*Page[Invoice], error] {
	return pagesOf[Invoice](ctx, s.client, customerInvoicesList(customerID, params), opts)
}

// AllByCustomer iterates over every invoice of a customer, page by page.
// On error it yields the error once and stops.
//
// API: GET /v1/Customers/{customerId}/Invoices/, once per page
func (s *InvoicesService) AllByCustomer(ctx context.Context, customerID int64, params *ListCustomerInvoicesParams, opts ...IterOption) iter.Seq2[Invoice, error] {
	return items(ctx, s.PagesByCustomer(ctx, customerID, params, opts...))
}

// CountByCustomer returns the number of a customer's invoices matching
// params (X-Count), with a single one-item request.
//
// API: GET /v1/Customers/{customerId}/Invoices/?pageSize=1
func (s *InvoicesService) CountByCustomer(ctx context.Context, customerID int64, params *ListCustomerInvoicesParams, opts ...RequestOption) (int, error) {
	return countOf[Invoice](ctx, s.client, customerInvoicesList(customerID, params), opts)
}

// GetInvoiceParams are the parameters of [InvoicesService.Get].
type GetInvoiceParams struct {
	// ShowTrackedItems returns details of tracked items purchased on the
	// invoice.
	ShowTrackedItems bool `url:"showTrackedItems,omitempty"`
	// GroupCharges returns ChargeGroups, by subscription or purchase,
	// instead of Charges.
	GroupCharges bool `url:"groupCharges,omitempty"`
}

// Get reads one invoice. It fails with [ErrNotFound] when the invoice does
// not exist, and with a [*DecodeError] matching [ErrWrongResource] when the
// answer is another invoice (or has no id).
// A bad id or params are refused before sending with a [*ValidationError]
// matching [ErrInvalidParams].
//
// API: GET /v1/Invoices/{invoiceId}
func (s *InvoicesService) Get(ctx context.Context, invoiceID int64, params *GetInvoiceParams, opts ...RequestOption) (*Invoice, error) {
	id, err := pathID("invoiceId", invoiceID)
	if err != nil {
		return nil, err
	}
	q, err := querystring.Values(params) // nil params: no query
	if err != nil {
		return nil, err
	}
	cl := &call{op: Operation{Name: "Invoices.Get", Method: http.MethodGet, PathTemplate: "/v1/Invoices/{invoiceId}"},
		method: http.MethodGet, path: "/v1/Invoices/" + id, query: q}
	return doInto(ctx, s.client, cl, opts, func(inv *Invoice) error { return sameResource("invoice", invoiceID, inv.ID) })
}

// WriteOffParams are the parameters of [InvoicesService.WriteOff].
type WriteOffParams struct {
	// InvoiceID is the invoice to write off. Required.
	InvoiceID int64 `json:"invoiceId"`
	// Amount must equal the invoice's full outstanding balance; partial
	// write-offs are not possible. Required; zero is sent as 0.
	Amount *decimal.Decimal `json:"amount"`
	// Reference is the customer reference value; empty is not sent.
	Reference string `json:"reference,omitempty"`
}

func (p *WriteOffParams) validate() error {
	if p == nil {
		return invalid("WriteOffParams", "required")
	}
	if p.InvoiceID <= 0 {
		return invalid("invoiceId", "must be a positive id, got %d", p.InvoiceID)
	}
	if p.Amount == nil {
		return invalid("amount", "required: the invoice's full outstanding balance")
	}
	if p.Amount.IsNegative() {
		return invalid("amount", "must not be negative")
	}
	return nil
}

// WriteOff writes off the full outstanding balance of an invoice and
// returns the updated invoice, with ChargeGroups. The write-off cannot be
// reversed. It fails with [ErrBadRequest] when the amount differs from the
// outstanding balance, and with [ErrNotFound] for an unknown invoice or
// when the account does not have the write-off permission. Params without
// an invoice id or amount are refused before sending with a
// [*ValidationError] matching [ErrInvalidParams].
// It is a write: it is retried only when the server surely did not act on
// it, and its error matches [ErrOutcomeUnknown] whenever the answer does not
// prove it was not applied.
//
// When the outcome is unknown, read the invoice ([InvoicesService.Get]): an
// outstanding balance of zero, with the amount added to TotalWriteoffs,
// proves the write-off was applied; otherwise send it again.
//
// API: POST /v1/invoices/writeoff
func (s *InvoicesService) WriteOff(ctx context.Context, params *WriteOffParams, opts ...RequestOption) (*Invoice, error) {
	if err := params.validate(); err != nil {
		return nil, err
	}
	cl := &call{op: Operation{Name: "Invoices.WriteOff", Method: http.MethodPost, PathTemplate: "/v1/invoices/writeoff"},
		method: http.MethodPost, path: "/v1/invoices/writeoff", body: params, write: true}
	return doInto(ctx, s.client, cl, opts, func(inv *Invoice) error { return sameResource("invoice", params.InvoiceID, inv.ID) })
}
